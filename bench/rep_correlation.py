"""How far a job's repetitions are from independent, and what that does to its interval.

    python bench/rep_correlation.py PATH [...]     # folders or archives of records, as the collector takes
    python bench/rep_correlation.py --min-reps 20 PATH [...]

A cell's interval (the t-interval, or the two-stage one under a precision target) treats the reps of
a job as independent. Where the machine's or the games' state wanders over several reps, neighbours
read alike and the mean varies more than that: the variance of the mean of k consecutive reps,
times k, over one rep's variance is 1 for independent reps and above 1 for positively correlated
ones (the batch-means check of simulation output analysis). Per num_envs and mode, over the jobs
with at least --min-reps reps (their log throughputs, each job's own mean taken out): the jobs,
their median reps, the mean lag-1 autocorrelation, the median of the correlation a precision job's
interval widens for (`stats.serial_correlation`: bias-corrected, its drift taken out, capped), that
ratio at k = 2..5, and at k = 5 its square root: how many times wider an interval that accounted for
the correlation at that scale would be.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np

from ppo_bench.collect.load import read_records
from ppo_bench.collect.sources import walk
from ppo_bench.record import stats

BLOCKS = (2, 3, 4, 5)


def series(paths: list[Path], min_reps: int) -> dict:
    """(mode, num_envs) -> [log reps of each ok job with at least min_reps reps]."""
    records, _ = read_records(walk(paths))  # the files the collector could not read are left out here too
    out = defaultdict(list)
    for _, r in sorted(records, key=lambda pr: pr[0]):
        reps = list(r.measured.throughput.reps) if r.status == "ok" and r.measured else []
        if len(reps) >= min_reps:
            out[(r.mode, r.num_envs)].append(np.log(np.asarray(reps, dtype=float)))
    return out


def inflation(jobs: list, k: int) -> float | None:
    """Mean over the jobs of k x the variance of their k-rep block means, over the mean variance of
    one rep; None where no job has 3 blocks."""
    blocks = [k * np.var(s[:len(s) // k * k].reshape(-1, k).mean(1), ddof=1) for s in jobs if len(s) >= 3 * k]
    one = np.mean([np.var(s, ddof=1) for s in jobs])
    return float(np.mean(blocks) / one) if blocks and one > 0 else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--min-reps", type=int, default=20)
    args = ap.parse_args()
    cells = series(args.paths, args.min_reps)
    if not cells:
        raise SystemExit(f"rep_correlation: no ok job with {args.min_reps} reps or more under the paths given")
    print("| mode | num_envs | jobs | median reps | lag-1 | rho | " + " | ".join(f"k={k}" for k in BLOCKS)
          + f" | wider by (k={BLOCKS[-1]}) |")
    print("|---" * (len(BLOCKS) + 7) + "|")
    for (mode, n), jobs in sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        ratios = [inflation(jobs, k) for k in BLOCKS]
        last = ratios[-1]
        print(f"| {mode} | {n} | {len(jobs)} | {statistics.median(len(s) for s in jobs):g} | "
              f"{statistics.mean(stats.lag1(s - s.mean()) for s in jobs):.2f} | "
              f"{statistics.median(stats.serial_correlation(s) for s in jobs):.2f} | "
              + " | ".join("-" if x is None else f"{x:.2f}" for x in ratios)
              + f" | {'-' if last is None else f'{max(last, 0) ** 0.5:.2f}x'} |")


if __name__ == "__main__":
    main()
