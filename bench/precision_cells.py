"""Each job's repetitions, interval and relative half-width from sweep archives, with why its
repetitions stopped (schedule.precision) and its timed and set-up seconds: what a precision target
bought, job by job.

    python bench/precision_cells.py ARCHIVE.tar.gz [...]

The interval is the record's own (`throughput.lo`/`hi`: the two-stage interval where the job had a
precision target, else the t-interval on the log reps): what the job printed. Records written before
the two-stage interval widened for serial correlation (2026-12-07, `throughput.interval` two_stage)
hold the narrower one, where the collector's tables now compute the widened one from the reps.
"""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path

from ppo_bench.record import stats
from ppo_bench.record.results import Record
from ppo_bench.record.typed import UNSET


def rows(archive: Path):
    with tarfile.open(archive) as tar:
        for member in sorted(tar.getmembers(), key=lambda m: m.name):
            if not member.name.endswith("/result.json"):
                continue
            r = Record.read(Path(member.name), tar.extractfile(member).read())
            t = r.measured.throughput
            s = stats.summary(t.reps)
            given = t.lo not in (None, UNSET) and t.hi not in (None, UNSET)  # a record before lo/hi: the tables'
            lo, hi = (t.lo, t.hi) if given else (s["lo"], s["hi"])
            yield (archive.name.removesuffix(".tar.gz"), r.num_envs, r.mode, len(t.reps), t.mean, lo, hi,
                   stats.relative_half_width(t.mean, lo, hi), t.stopped_by if t.stopped_by not in (None, UNSET)
                   else "fixed reps",
                   r.timing.measure_s, r.timing.setup_s)


def main(paths: list[str]) -> None:
    print("| sweep | num_envs | mode | reps | mean [95%] | relative half-width | stopped by | timed s | set-up s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        for sweep, n, mode, reps, mean, lo, hi, rel, why, measure_s, setup_s in rows(Path(path)):
            print(f"| {sweep} | {n} | {mode} | {reps} | {stats.interval_text(mean, lo, hi)} | {rel:.3f} | {why} | "
                  f"{measure_s:.1f} | {setup_s:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
