"""The rules a config value is checked by, each refusing with one line that names the key.

Shared by `schema.validate` and by each algorithm's own config (agent/algos/*/config.py), which
checks its keys with them; torch-free, like everything the config check imports.
"""

from __future__ import annotations

import math
from typing import Any


class NotApplicable(ValueError):
    """A legal value in a combination that does not apply (async on one env, groups that do
    not divide num_envs, step in batches): a sweep records such a job as skipped, not failed."""


def shown(value: Any) -> str:
    """A value as the command line writes it (true, not True)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def at_least(key: str, value: Any, low: int) -> None:
    if value < low:
        raise ValueError(f"{key}={value}: must be >= {low}")


def finite(key: str, value: Any, allowed: str) -> None:
    """Refuse inf, -inf and nan before the range checks: a comparison with nan is always False, and
    inf would pass `> 0`, run the whole job and leave a record that JSON cannot hold."""
    if value is not None and not math.isfinite(value):
        raise ValueError(f"{key}={value}: must be a finite number {allowed}")


def positive(key: str, value: Any) -> None:
    """A finite number > 0."""
    finite(key, value, "> 0")
    if not value > 0:
        raise ValueError(f"{key}={value}: must be > 0")


def non_negative(key: str, value: Any) -> None:
    """A finite number >= 0."""
    finite(key, value, ">= 0")
    if not value >= 0:
        raise ValueError(f"{key}={value}: must be >= 0")


def one_of(key: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{key}={value}: must be one of {', '.join(allowed)}")


def check_batches(backend: Any, num_envs: int, groups: int, emulators: bool = True) -> None:
    """Batches of num_envs // groups (mode.groups): the one place this is decided, for the config
    check and for a direct build of a vector env (env.backends). `backend` is its registry entry;
    `emulators`: whether the mode steps the backend's emulators (agent_only batches frames of its own)."""
    if groups > 1 and emulators and not backend.batches:  # a sweep crossing backends with async skips these
        raise NotApplicable(f"mode.groups={groups}: env.backend={backend.name} has no async batches "
                            f"({backend.no_batches_why}); use groups=1")
    if num_envs % groups:
        raise NotApplicable(f"mode.groups={groups}: must divide env.num_envs={num_envs}")


MIN_PILOT = 3
"""The fewest pilot reps a precision target takes (record.precision): at 2, t(1) = 12.7 asks for 8.7
times the reps that t(2) = 4.3 would for the same spread, and the caps bind nearly always."""


def check_precision(schedule: Any, learning: bool, defaults: Any) -> None:
    """A precision target's keys: the target in (0, 1), a pilot of MIN_PILOT reps or more, caps at or
    above it; none of its caps without it (`defaults`: the schedule's schema), and none in a learning run
    (one repetition, no count)."""
    target = schedule.precision
    finite("schedule.precision", target, "in (0, 1)")
    finite("schedule.max_measure_s", schedule.max_measure_s, "> 0")
    if target is None:
        for key in ("max_reps", "max_measure_s"):
            value, default = getattr(schedule, key), getattr(defaults, key)
            if value != default:
                raise ValueError(f"schedule.{key}={value}: a cap of schedule.precision, which is null; set a "
                                 f"precision target or leave it at {'null' if default is None else shown(default)}")
        return
    if not 0 < target < 1:
        raise ValueError(f"schedule.precision={target}: must be in (0, 1), a relative half-width (0.03: +-3%)")
    if learning:
        raise ValueError(f"schedule.precision={target}: a learning run is one repetition to "
                         "schedule.total_env_steps; a precision target counts timed repetitions")
    if schedule.reps < MIN_PILOT:
        raise ValueError(f"schedule.reps={schedule.reps}: with schedule.precision={target} it is the pilot, "
                         f"which must be >= {MIN_PILOT} reps")
    if schedule.max_reps < schedule.reps:
        raise ValueError(f"schedule.max_reps={schedule.max_reps}: must be >= schedule.reps={schedule.reps}, "
                         f"the pilot of schedule.precision={target}")
    if schedule.max_measure_s is not None:
        positive("schedule.max_measure_s", schedule.max_measure_s)

