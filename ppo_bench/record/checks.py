"""What makes a result file unusable besides a missing or mistyped field (results.Record.read).

- Why it could not be read, in words a listing can show: "empty file", "not valid JSON: truncated"
  (a job killed while a foreign tool wrote it, a copy cut short), "permission denied", "a folder,
  not a file".
- Whether a job an older runner recorded as failed was a combination that does not apply
  (`not_applicable`): such a job counts as skipped, as today's runner records it.
- Whether its figures agree with each other. The job derives every figure from what it timed: each
  repetition's throughput is its env steps over its seconds, the mean and ci95 come from those reps
  (stats.summary). A record edited by hand, or written by a tool that rounds, says otherwise somewhere,
  and a table built on it would show figures nothing measured; such a record is refused, naming the
  figure, so the collector lists it as unusable and resume runs its job again. A figure a record lacks,
  or holds as null (one the job could not compute: written as null with a warning), is not checked.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Optional

from ppo_bench.config.checks import NotApplicable
from ppo_bench.config.schema import relations
from ppo_bench.record.identity import as_today, flatten

REL_TOL = 1e-6
"""How far a figure may sit from what its record derives it from (relative): far above float
rounding (the job computes them in double precision; the committed results agree to 1e-15) and far
below any edit that would change a table."""


def why_unreadable(e: Exception, text: Optional[str]) -> str:
    """One reason for an OSError, UnicodeDecodeError or JSONDecodeError met reading a result file
    (`text`: what was read, None if nothing was)."""
    if isinstance(e, IsADirectoryError):
        return "a folder, not a file"
    if isinstance(e, PermissionError):
        return "permission denied"
    if isinstance(e, OSError):
        return f"cannot be read: {e.strerror or e}"
    if isinstance(e, UnicodeDecodeError):
        return f"not UTF-8 text (byte {e.start})"
    if not text or not text.strip():
        return "empty file"
    cut = e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string")  # it ended inside
    return "not valid JSON: " + ("truncated" if cut else f"{e.msg} (line {e.lineno} column {e.colno})")


def _close(a: float, b: float, scale: float) -> bool:
    return abs(a - b) <= REL_TOL * abs(scale)


def disagreement(reps_of: dict, where: str = "throughput") -> Optional[str]:
    """What in a record's `throughput` (or another object of timed reps at `where`: the interleaved
    probe's) disagrees with the rest of it (None: nothing): each rep against its env steps over its
    seconds, the mean and the ci95 against the reps. Its values are typed already (parts)."""
    from ppo_bench.record.stats import t_half_width  # scipy: imported when a record is read, not with the runner

    reps, seconds = reps_of.get("reps") or [], reps_of.get("seconds")
    steps = reps_of.get("env_steps_per_rep")
    if steps is not None and not (type(steps) is int and steps > 0):
        return f"{where}.env_steps_per_rep: {steps!r}, expected a positive integer"
    if seconds is not None:
        if len(seconds) != len(reps):
            return f"{where}.seconds: {len(seconds)} items for {len(reps)} reps"
        for i, (rep, s) in enumerate(zip(reps, seconds)):
            if s <= 0:
                return f"{where}.seconds[{i}]: {s:g}, expected a positive number"
            if steps is not None and not _close(rep, steps / s, rep):
                return (f"{where}.reps[{i}]: {rep:g} env-steps/s, but {steps} env steps in {s:g} s "
                        f"make {steps / s:g}")
    mean = reps_of.get("mean")
    if mean is not None and reps and not _close(mean, math.fsum(reps) / len(reps), mean):
        return f"{where}.mean: {mean:g}, but its reps average {math.fsum(reps) / len(reps):g}"
    ci95 = reps_of.get("ci95")
    if ci95 is not None and reps:
        want = t_half_width(reps)
        if want is None:
            return f"{where}.ci95: {ci95:g}, but one rep gives none"
        if not _close(ci95, want, math.fsum(reps) / len(reps)):  # 0 for equal reps: scaled by the mean
            return f"{where}.ci95: {ci95:g}, but its reps give {want:g}"
    return None


OLDER_RUNNER = "recorded as failed by an older runner"


def not_applicable(config: dict, error: Optional[str]) -> Optional[str]:
    """The refusal of a job that an older runner recorded as failed where today's records it as skipped
    (the combination does not apply: async on one env, groups that do not divide num_envs); None for a
    real failure. Older runners wrote such a refusal as `NotApplicable: ...`, and before that class
    existed as `ValueError: ...`: the latter counts only where today's check of the relations
    (config.schema.relations, on the record's config in today's schema) refuses it as NotApplicable in
    the same words, so that no failure of another kind is passed off as not applying."""
    kind, _, said = (error or "").partition(": ")
    if kind == NotApplicable.__name__:
        return error
    if kind != ValueError.__name__:
        return None
    flat = {"mode.groups": 1, **as_today(flatten(config))}
    tree: dict = {}
    for key, value in flat.items():
        *parents, name = key.split(".")
        node = tree
        for p in parents:
            node = node.setdefault(p, {})
        node[name] = value
    try:
        relations(_namespace(tree))
    except NotApplicable as e:
        return error if str(e) == said else None
    except (ValueError, KeyError, AttributeError, TypeError):  # a value today's schema has no name for
        return None
    return None


def _namespace(tree: dict) -> SimpleNamespace:
    return SimpleNamespace(**{k: _namespace(v) if isinstance(v, dict) else v for k, v in tree.items()})
