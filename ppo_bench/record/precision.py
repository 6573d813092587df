"""When a job's timed repetitions stop: after `schedule.reps`, or at a precision target (`schedule.precision`).

With a target the repetitions follow Stein's two-stage rule, on the log throughputs (the scale the
tables' intervals use). The first `schedule.reps` repetitions are the pilot; their spread s0 alone
fixes how many the job times in all:

    needed = max(n0, ceil((t(n0 - 1) * s0 / log(1 + precision))^2)),  t at 97.5%, n0 = schedule.reps

and the job times min(needed, schedule.max_reps, what fits in schedule.max_measure_s at the pilot's
slowest pace) repetitions, pilot included. Why not "stop as soon as the interval is narrow enough":
that looks again after every repetition and stops when the spread happens to read low, so its
intervals cover less than they say (90.9% for a nominal 95% on independent normal reps,
tests/test_precision.py; torch.utils.benchmark's adaptive_autorange stops so, on IQR/median, and
claims no interval). Here the count is fixed once, by the pilot, before any later repetition is
seen; the later ones are taken whatever they read, so they cannot bias the mean.

The interval for such a job (`stats.two_stage_interval`) is the wider of two around the log reps'
mean: Stein's, t(n0 - 1) * s0 / sqrt(n), whose coverage is exact for independent normal log
throughputs whatever count the pilot chose (the mean of the later reps does not depend on s0; a low
s0 that chose few reps is paid for by t at n0 - 1 degrees of freedom), and the t-interval on all n
reps widened for their lag-1 correlation, which widens it where the reps after the pilot spread more
than the pilot did (an outlier, the drift of a long run) or neighbouring reps read alike (the
project's own do, most at 1 env). By construction Stein's half-width is within the target unless a
cap stopped the reps; the printed interval can be wider (then the later reps said so). The count
itself is planned as for independent reps: the pilot's correlation is read from too few reps to
plan by.

A repetition past the plan never starts; nor does one that would pass `schedule.max_measure_s` (the
loop's timed seconds, as `timing.measure_s` counts them) at the pace of the slowest repetition so
far, the one check made on a later repetition's value. The pilot always runs whole: without it
there is no spread to plan from. Torch-free: the loop, the record and the tests use it alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence

STOPS = ("precision", "max_reps", "max_measure_s")
"""Why a job with a target stopped timing: its planned count reached, or the cap that bound first."""


def needed(pilot_seconds: Sequence[float], precision: float) -> int:
    """Stein's count for a relative half-width `precision` from the pilot's seconds (the spread of
    log seconds is that of log throughput: each rep is a fixed number of env steps)."""
    from ppo_bench.record.stats import t_quantile  # here: the parent imports STOPS and loads no scipy

    logs = [math.log(s) for s in pilot_seconds]
    n0 = len(logs)
    mean = sum(logs) / n0
    s0 = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n0 - 1))
    t = t_quantile(n0 - 1)
    return max(n0, math.ceil((t * s0 / math.log1p(precision)) ** 2))


@dataclass
class Stopping:
    """How many repetitions a job times, decided as they come (`add` after each).

    Without a target: `reps`, then "reps". With one: the `reps` of the pilot, then the plan
    (`needed`, `planned`), then `stopped_by`: one of STOPS."""
    reps: int
    """Without a target all the reps; with one, the pilot's (the minimum)."""
    precision: Optional[float] = None
    max_reps: Optional[int] = None
    max_measure_s: Optional[float] = None
    needed: Optional[int] = None
    """Stein's count from the pilot, before the caps; None until the pilot ends."""
    planned: Optional[int] = None
    """The reps the job times in all; None during a target's pilot."""
    stopped_by: Optional[str] = None
    """None while another rep is to run."""

    @classmethod
    def of(cls, schedule: Any) -> "Stopping":
        if schedule.get("precision") is None:
            return cls(reps=schedule.reps, planned=schedule.reps)
        return cls(schedule.reps, schedule.precision, schedule.max_reps, schedule.max_measure_s)

    def add(self, seconds: Sequence[float]) -> None:
        """The seconds of every rep timed so far: whether another runs (`stopped_by` stays None)."""
        n = len(seconds)
        if self.precision is None or n < self.reps:
            self.stopped_by = "reps" if n >= self.reps else None
            return
        if self.needed is None:
            self.needed = needed(seconds, self.precision)
            fit = self.reps + int((self.max_measure_s - sum(seconds)) // max(seconds)) \
                if self.max_measure_s is not None else self.needed
            self.planned = max(self.reps, min(self.needed, self.max_reps, fit))
        if n >= self.planned:
            self.stopped_by = "precision" if n == self.needed else "max_reps" if n == self.max_reps else "max_measure_s"
        elif self.max_measure_s is not None and sum(seconds) + max(seconds) > self.max_measure_s:
            self.planned, self.stopped_by = n, "max_measure_s"

    def record(self) -> dict:
        """What the record's throughput says of it (parts.Throughput): nothing without a target."""
        if self.precision is None:
            return {}
        return {"precision": self.precision, "pilot": self.reps, "needed": self.needed, "stopped_by": self.stopped_by,
                "interval": "two_stage_serial"}
