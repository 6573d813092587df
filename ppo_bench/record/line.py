"""A job's one line in the log: its config, its figure with the interval and marks the tables print,
and what its repetitions did (a precision target's stop, an interleaved probe's ratios).

Both the job (job.parent, as its record is written) and whoever reads a record back (a test, a
script) print it from the record alone, so the line and the tables cannot tell two stories.
"""

from __future__ import annotations

from typing import Optional

from ppo_bench.record import marks, stats
from ppo_bench.record.parts import UNIT, Machine
from ppo_bench.record.results import Record


def head_of(record: Record) -> str:
    """What the job ran, as every line about it begins."""
    return f"{record.mode} {record.game} {record.agent} n={record.num_envs}"


def loads_of(record: Record) -> list[float]:
    """The 1-minute loads read just before and just after the measurement, where readable."""
    machine = record.measured and record.measured.machine
    loads = [s.load_1m for s in (machine.before, machine.after) if s is not None] if machine else []
    return [x for x in loads if x is not None]


def steal_share(machine: Optional[Machine]) -> Optional[float]:
    """The share of all the CPUs' time the hypervisor took over the measurement, where readable."""
    scheduling = machine and machine.scheduling
    share = scheduling.steal_share if scheduling else None
    return share if isinstance(share, (int, float)) else None


def summarise_record(record: Record | dict) -> str:
    """One line per job for the log (of a Record, or of its JSON as `run` returns it)."""
    if isinstance(record, dict):
        record = Record.from_json(record)
    head = f"{head_of(record)} on {record.device}"
    if record.status != "ok":
        return f"{head}: FAILED: {record.error}"
    thr = record.measured.throughput
    learning = record.measured.learning
    if learning:
        ret = learning.final_return_mean
        ret = "no episode finished" if ret is None else f"return {ret:.1f} (last {learning.window})"
        return f"{head}: {thr.mean:.0f} {UNIT} over {learning.total_env_steps} env steps, {ret}"
    s = stats.summary(thr.reps, thr.pilot and [thr.reps[:thr.pilot]])  # the tables' interval: never below zero
    line = f"{head}: {stats.interval_text(s['mean'], s['lo'], s['hi'])}{marks.text(_marks(record, s['cv']))} {UNIT}" \
           f" over {len(thr.reps)} reps"
    line += "" if s["lo"] is not None else " (no interval)"
    if thr.precision is not None:  # a precision target's (record.precision)
        line += (f" (+-{stats.relative_half_width(s['mean'], s['lo'], s['hi']):.1%} for schedule.precision="
                 f"{thr.precision:g}, stopped by {thr.stopped_by}; the pilot asked for {thr.needed})")
    probe = record.measured.interleaved
    if probe and probe.reps:
        ratios = [a / b for a, b in zip(thr.reps, probe.reps)]
        line += (f"; {probe.mode} interleaved {sum(probe.reps) / len(probe.reps):.0f}, "
                 f"loop/{probe.mode} by rep {', '.join(f'{r:.2f}' for r in ratios)}")
    return line


def _marks(record: Record, cv: Optional[float]) -> list[str]:
    """The marks the tables would give this job's cell that the job itself can tell (record.marks):
    noisy, overloaded and stolen by its own machine readings, and at cap; contended needs the other
    jobs, the collector's."""
    thr = record.measured.throughput
    return [m for m, on in ((marks.NOISY, marks.noisy(cv)),
                            (marks.OVERLOADED, marks.overloaded(loads_of(record), record.provenance.cpu_count)),
                            (marks.STOLEN, marks.stolen(steal_share(record.measured and record.measured.machine))),
                            (marks.AT_CAP, marks.at_cap(thr.stopped_by))) if on]
