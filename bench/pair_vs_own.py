"""Whether a cell reads the same under two ways of running it: the rounds of bench/alternate_trees.sh,
whose two sweeps are named (by default) `paired` and `own`: a mode timed in turns with another over
one build (schedule.interleave=sendrecv in a step job) against a job of its own per mode. Other
names compare other pairs of sweeps, e.g. jobs set up side by side against one after another:

    python bench/pair_vs_own.py OUT                   # OUT: alternate_trees.sh's folder (or a .tar.gz of it)
    python bench/pair_vs_own.py OUT batch4 batch1     # the first name's cells over the second's

Per mode and num_envs: each round's mean in the first sweep over its mean in the second, then over
the rounds the geometric mean with a t-interval on the log ratios (paired by round: a sweep's own
`round` key, where it sweeps one, makes more rounds of one alternation), and the Welch ratio over
all their reps (unpaired); then, over the rounds, every cell's log ratio averaged, with its
t-interval (a round's cells share its drift, so the round is the unit); then each sweep's wall
seconds from runs.tsv.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from ppo_bench.collect.sources import walk
from ppo_bench.record import stats
from ppo_bench.record.results import Record


def records(root: Path):
    """(path, record) for every result file under root (a folder or an archive), found as the
    collector finds them."""
    found = walk([root])
    for path in sorted(found.results):
        yield str(path), Record.read(path, found.read(path))


def cell(d: dict) -> str:
    return f"{d['ratio']:.3f}" + ("" if d["lo"] is None else f" [{d['lo']:.3f}, {d['hi']:.3f}]")


def main(root: Path, first: str = "paired", second: str = "own") -> None:
    reps = defaultdict(dict)  # (mode, n) -> {(tree, (alternation round, the record's round)): reps}
    for name, r in records(root):
        found = re.search(rf"({re.escape(first)}|{re.escape(second)})_r(\d+)/", name)
        if not found or r.status != "ok":
            continue
        reps[(r.mode, r.num_envs)][(found[1], (int(found[2]), r.round or 0))] = list(r.measured.throughput.reps)
    print(f"| mode | num_envs | rounds | {second} mean | {first} mean | {first}/{second} by round "
          f"| {first}/{second}, rounds paired | {first}/{second}, Welch over reps |")
    print("|---|---|---|---|---|---|---|---|")
    by_round = defaultdict(list)  # round -> every cell's ratio in it
    for (mode, n), by in sorted(reps.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        rounds = sorted({r for (_, r) in by if (first, r) in by and (second, r) in by})
        if not rounds:
            continue
        ratios = [np.mean(by[first, r]) / np.mean(by[second, r]) for r in rounds]
        for r, x in zip(rounds, ratios):
            by_round[r].append(x)
        p = stats.paired_ratio_interval(ratios)
        a = [x for r in rounds for x in by[second, r]]
        b = [x for r in rounds for x in by[first, r]]
        w = stats.ratio_interval(b, a)
        print(f"| {mode} | {n} | {len(rounds)} | {np.mean(a):.0f} | {np.mean(b):.0f} | "
              f"{', '.join(f'{x:.3f}' for x in ratios)} | {cell(p)} | {cell(w)} |")
    if by_round:
        pooled = stats.paired_ratio_interval([float(np.exp(np.mean(np.log(xs)))) for xs in by_round.values()])
        print(f"\nEvery cell, {first}/{second}, each round's geometric mean over its cells, "
              f"{len(by_round)} rounds: {cell(pooled)}")
    tsv = root / "runs.tsv"
    if root.is_dir() and tsv.exists():
        print("\n| sweep | round | exit | wall s |\n|---|---|---|---|")
        for line in tsv.read_text().splitlines()[1:]:
            tree, rnd, rc, _, wall = line.split("\t")
            print(f"| {tree} | {rnd} | {rc} | {wall} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]), *sys.argv[2:4])
