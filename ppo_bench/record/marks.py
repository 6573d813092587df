"""The marks a throughput figure carries where something weakens it: one word each, written the same in
table.md's cells, the report page's headline and its charts' hover, and a job's log line, so that a
reader learns them once and a mark never means two things.

- noisy: its reps' coefficient of variation is above NOISY_CV: measure again, or in rounds;
- contended: another job ran on the same host while it measured (only a collection, which sees the
  other jobs, can tell; a job's own line cannot);
- overloaded: the 1-minute load, read just before or just after the measurement, was above the CPU
  count: threads queued for a CPU, and the emulators slowed unevenly;
- stolen: the hypervisor took more than STEAL_SHARE of all the CPUs' time while it measured (steal,
  `machine.scheduling.steal_share`): the virtual machine's host was busy with other guests, which no
  load inside the guest shows;
- shared node: it ran beside other jobs of the node launcher, on cores and a GPU of its own: a sound
  figure, but not the one of the same job run alone;
- at cap: a precision target's repetitions stopped at `schedule.max_reps` or `schedule.max_measure_s`
  before the target was met: its interval is as wide as it reads, wider than was asked.

A figure carries them in this order, after its interval: `591 [497, 701] (noisy, contended)`.
"""

from __future__ import annotations

import math
import numbers
from typing import Iterable, Optional

NOISY_CV = 0.10
STEAL_SHARE = 0.01
"""Steal, as a share of all the CPUs' time, above which a figure is marked stolen. The loop waits for
its slowest emulator thread each step, so a little steal costs it much: on H100 and H200 guests
(2026-12-05 to 2026-12-07) jobs of 8 and 64 envs measured under 1.0-13.6% steal read 0.54-0.92x the
same jobs in other rounds under 0.5% (docs/measuring.md, "A drifting machine"); 18 of the 672
committed records with the reading are above 1%."""
NOISY, CONTENDED, OVERLOADED, STOLEN, SHARED_NODE, AT_CAP = (
    "noisy", "contended", "overloaded", "stolen", "shared node", "at cap")
MEANING = {
    NOISY: f"CV above {NOISY_CV:.0%}: measure again or in rounds",
    CONTENDED: "another job ran on this host while it measured",
    OVERLOADED: "the 1-minute load was above the CPU count while it measured",
    STOLEN: f"the hypervisor took over {STEAL_SHARE:.0%} of the CPUs' time while it measured (steal)",
    SHARED_NODE: "ran beside other jobs on its node (hydra/launcher=node), on cores and a GPU of its own",
    AT_CAP: "its precision target was not met: its repetitions stopped at schedule.max_reps or max_measure_s",
}
CAPS = ("max_reps", "max_measure_s")  # the stops (record.precision.STOPS) that leave a target unmet
ORDER = tuple(MEANING)
BUSY = "busy machine: "  # how a job's own warning of an overloaded machine begins (job.parent): the mark says it


def _known(x) -> bool:
    """A reading that is a number (not None, NaN or a record's unset field)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and not math.isnan(x)


def noisy(cv: Optional[float]) -> bool:
    """Whether reps with this coefficient of variation are marked noisy (None or NaN: one rep, never)."""
    return _known(cv) and cv > NOISY_CV


def overloaded(loads: Iterable[Optional[float]], cpus: Optional[float]) -> bool:
    """Whether a load read around the measurement exceeded the CPU count (either unknown: not marked)."""
    known = [float(x) for x in loads if _known(x)]
    return bool(known) and _known(cpus) and max(known) > cpus


def stolen(steal_share: Optional[float]) -> bool:
    """Whether the hypervisor's share of the CPUs' time over the measurement is marked (unknown: never)."""
    return _known(steal_share) and steal_share > STEAL_SHARE


def at_cap(stopped_by: Optional[str]) -> bool:
    """Whether a job's repetitions stopped at a cap before its precision target (record.precision)."""
    return stopped_by in CAPS


def text(marks: Iterable[str]) -> str:
    """The marks as a figure carries them, in ORDER: " (noisy, contended)"; "" for none."""
    shown = [m for m in ORDER if m in set(marks)]
    return f" ({', '.join(shown)})" if shown else ""


def legend(marks: Iterable[str]) -> list[str]:
    """The legend's items for these marks, in ORDER: "(noisy) = CV above 10%: ..."."""
    shown = set(marks)
    return [f"({m}) = {MEANING[m]}" for m in ORDER if m in shown]
