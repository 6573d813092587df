"""Whether a mode timed in turns with another over one build (schedule.interleave=sendrecv in a step
job) reads as in a job of its own: rounds of the two sweeps from bench/alternate_trees.sh, named
`own` (mode=step,sendrecv, a job per mode) and `paired` (mode=step schedule.interleave=sendrecv).

    python bench/pair_vs_own.py OUT       # OUT: alternate_trees.sh's folder (or a .tar.gz of it)

Per mode and num_envs: each round's mean in the pair over its mean in the job of its own, then
over the rounds the geometric mean with a t-interval on the log ratios (paired by round), and
the Welch ratio over all their reps (unpaired); then each sweep's wall seconds from runs.tsv.
"""

from __future__ import annotations

import re
import sys
import tarfile
from collections import defaultdict
from pathlib import Path

import numpy as np

from ppo_bench.record import stats
from ppo_bench.record.results import Record


def records(root: Path):
    """(tree, round, record) for every ok record under root (a folder or an archive)."""
    if root.is_file():
        with tarfile.open(root) as tar:
            for m in tar.getmembers():
                if m.name.endswith("/result.json"):
                    yield m.name, Record.read(Path(m.name), tar.extractfile(m).read())
        return
    for p in sorted(root.rglob("result.json")):
        yield str(p), Record.read(p)


def main(root: Path) -> None:
    reps = defaultdict(dict)  # (mode, n) -> {(tree, round): reps}
    for name, r in records(root):
        found = re.search(r"(own|paired)_r(\d+)/", name)
        if not found or r.status != "ok":
            continue
        reps[(r.mode, r.num_envs)][(found[1], int(found[2]))] = list(r.measured.throughput.reps)
    print("| mode | num_envs | rounds | own mean | paired mean | paired/own by round | paired/own, rounds paired "
          "| paired/own, Welch over reps |")
    print("|---|---|---|---|---|---|---|---|")
    for (mode, n), by in sorted(reps.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        rounds = sorted({r for (_, r) in by if ("own", r) in by and ("paired", r) in by})
        if not rounds:
            continue
        ratios = [np.mean(by["paired", r]) / np.mean(by["own", r]) for r in rounds]
        p = stats.paired_ratio_interval(ratios)
        own = [x for r in rounds for x in by["own", r]]
        pair = [x for r in rounds for x in by["paired", r]]
        w = stats.ratio_interval(pair, own)
        cell = lambda d: f"{d['ratio']:.3f}" + ("" if d["lo"] is None else f" [{d['lo']:.3f}, {d['hi']:.3f}]")  # noqa: E731
        print(f"| {mode} | {n} | {len(rounds)} | {np.mean(own):.0f} | {np.mean(pair):.0f} | "
              f"{', '.join(f'{x:.3f}' for x in ratios)} | {cell(p)} | {cell(w)} |")
    tsv = root / "runs.tsv"
    if root.is_dir() and tsv.exists():
        print("\n| sweep | round | exit | wall s |\n|---|---|---|---|")
        for line in tsv.read_text().splitlines()[1:]:
            tree, rnd, rc, _, wall = line.split("\t")
            print(f"| {tree} | {rnd} | {rc} | {wall} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
