"""The interleaved pairs (loop rep, env_only rep after it) of this folder's logs, pooled.

Two of the 256-env jobs were cut by their `timeout` before they wrote a result (one by the
command's own limit, one by the job's), so the collector, which reads results, does not see
their completed pairs; their run.log does (bound256/n256_round0/run.log holds both jobs, one after
the other). The 64-env A/B jobs' folders did not come back from the device: ab64.log holds each
job's summary line, whose per-rep ratios are rounded to two decimals.

    python docs/results/2026-12-01-h200/overlap/tree_0824d0f/pairs_from_logs.py
"""

import json
import re
from pathlib import Path

import numpy as np

from ppo_bench.stats import paired_ratio_interval

HERE = Path(__file__).resolve().parent


def log_pairs(path: Path) -> list[list[float]]:
    """Per job (a new job starts at its 'warm-up steps' line), the ratios of its completed pairs."""
    jobs, loop = [], None
    for line in path.read_text().splitlines():
        if "warm-up steps, then" in line:
            jobs.append([])
        elif m := re.search(r"rep \d+/\d+: (\d+) env_steps/s", line):
            loop = float(m.group(1))
        elif (m := re.search(r"env_only after it: (\d+) env_steps/s", line)) and loop is not None:
            jobs[-1].append(loop / float(m.group(1)))
            loop = None
    return [j for j in jobs if j]


def result_pairs(path: Path) -> list[float]:
    r = json.loads(path.read_text())
    return [a / b for a, b in zip(r["throughput"]["reps"], r["interleaved"]["reps"])]


def show(name: str, jobs: list[list[float]]) -> None:
    pooled = paired_ratio_interval([x for j in jobs for x in j])
    per_job = [float(np.exp(np.mean(np.log(j)))) for j in jobs]
    print(f"{name}: {pooled['ratio']:.3f} [{pooled['lo']:.3f}, {pooled['hi']:.3f}] over {pooled['rounds']} pairs "
          f"of {len(jobs)} jobs; per job " + ", ".join(f"{x:.3f}" for x in per_job))


jobs256 = log_pairs(HERE / "bound256/n256_round0/run.log")
jobs256 += [result_pairs(HERE / f"bound256/n256_round{r}/result.json") for r in (1, 2)]
show("256 envs, async 2 batches, overlap (this tree)", jobs256)

ab = {"new": [], "old": []}
for line in (HERE / "ab64.log").read_text().splitlines():
    if m := re.search(r"loop/env_only by rep ([\d., ]+) -> /tmp/ab64/(new|old)_round", line):
        ab[m.group(2)].append([float(x) for x in m.group(1).split(",")])
show("64 envs, this tree (7137651+0824d0f)", ab["new"])
show("64 envs, the tree before (d75480c)", ab["old"])
