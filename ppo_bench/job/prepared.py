"""A sweep's jobs set up side by side and timed one at a time (`setup_batch`).

Why: on an H100 a short job's own start (its emulators, its agent, the compile of its first loop
step) took 2.6-4.3 s of the quick grid's jobs, against 0.6-0.9 s of timed repetitions; the
reference's script pays those in one process, a sweep once a job (docs/findings.md, "Precision").
They need not be paid one after another: only the timed repetitions must run alone.

So under the basic launcher (`launching.in_turn`, `launching.start_batch`), `setup_batch=N`
starts the children of N consecutive jobs at once (`parent.prepare`: the job's checks first, none
for a job that would not run). Each builds its emulators and agent, takes its first loop step and
parks, blocked (`isolation.Progress.park`); this process watches each up to its park (`settle`), then
the jobs run in sweep order as ever, each job's parent taking its own child (`take`) and opening its
gate: the rest of its warm-up, then its timed repetitions, while every other child of the batch is
parked or has ended. So no job's measurement runs beside another's work; each record says when its
job waited (timing.parked_at, unparked_at) and the collector checks that no measurement overlaps
another job's run outside those waits (collect.integrity).

Not started ahead (they run as ever when their turn comes): learning runs, whose clock is their
process's; jobs whose folder holds a record already (resume, set_aside or the refusal decide, then);
jobs the check refuses or finds not applicable. A child whose job does not take it (its config
changed, the sweep stopped) is ended (`discard`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from ppo_bench.job.isolation import ChildJob, Stage


@dataclass
class Prepared:
    """A job's child started ahead of its turn, and what its job's parent needs of that start."""
    config: dict  # what the child was given: the job's parent takes it only for the same
    child: ChildJob
    started: float  # time.time() at the job's start: the record's started_at
    started_mono: float  # the same instant on the monotonic clock, which the child's clocks count from
    check_s: float  # the parent's config check, as a job that ran at once records it
    stall_timeout_s: float
    where: Callable[[Stage, int], str]  # a stall's place in words (parent._stall_place)


_PREPARED: dict[Path, Prepared] = {}
"""This process's children started ahead, by their job's folder."""

CPUS_PER_SET_UP = 4
"""`setup_batch=0` sets up one job per this many CPUs at once, at most AUTO_MOST and at least one: a
job's set-up keeps several threads busy (its emulators' build, the compile). On an H100's 16 CPUs
four at a time took 0.62-0.72x the main job's wall time; on 2 CPUs four took no less than one after
another (35.9 and 31.3 s against 31.0 and 31.2 s, 2026-12-07) and their set-up lifted the 1-minute
load above the CPU count into a later job's measurement, which was then marked overloaded."""
AUTO_MOST = 4


def batch_size(setup_batch: int, cpus: int) -> int:
    """How many consecutive jobs of a sweep set up together: `setup_batch` as given where it is 1 or
    more; where it is 0 (`+preset=quick`'s), one per CPUS_PER_SET_UP of the `cpus` this process may
    use, at most AUTO_MOST, at least 1."""
    if setup_batch >= 1:
        return setup_batch
    return max(1, min(AUTO_MOST, cpus // CPUS_PER_SET_UP))


def add(folder: Path, ahead: Prepared) -> None:
    """Keep a job's child started ahead (`parent.prepare`) for the job of this folder."""
    _PREPARED[Path(os.path.abspath(folder))] = ahead


def settle() -> None:
    """Wait until every child started ahead has parked or ended (`ChildJob.settle`): only then may the
    first of them time its repetitions, with nothing else of the batch running beside it."""
    for ahead in list(_PREPARED.values()):
        ahead.child.settle(ahead.stall_timeout_s, ahead.where)


def take(folder: Path, config: dict) -> Optional[Prepared]:
    """The child started ahead for the job of this folder, where it was given this `config`; else None
    (one given another config is ended)."""
    ahead = _PREPARED.pop(Path(os.path.abspath(folder)), None)
    if ahead is not None and ahead.config != config:
        ahead.child.close()
        return None
    return ahead


def discard() -> None:
    """End every child started ahead that no job took (the sweep stopped, or its job was refused)."""
    while _PREPARED:
        _PREPARED.popitem()[1].child.close()
