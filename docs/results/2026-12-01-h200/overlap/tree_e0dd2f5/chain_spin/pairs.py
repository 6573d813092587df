"""The paired figures of this folder's chain experiment, through the collector's own pieces
(`chain_bound`, `paired_ratio_interval`): the collector pairs rounds within one sweep only, and a
round here is two sweeps (env_only without overlap; agent_only and sendrecv with it).

- per condition (none/, spin/) and round: sendrecv over that round's chain bound;
- per mode and round: env-steps/s with the spinners over without (same round, back to back).

    python docs/results/2026-12-01-h200/overlap/tree_e0dd2f5/chain_spin/pairs.py docs/results/2026-12-01-h200/overlap/tree_e0dd2f5/chain_spin
"""
import json
import sys
from pathlib import Path

import numpy as np

from ppo_bench.collect.bounds import chain_bound
from ppo_bench.stats import paired_ratio_interval


def load(folder: Path) -> dict:
    """(round, num_envs, mode) -> mean env-steps/s of each ok job under `folder`."""
    rows = {}
    for f in folder.rglob("result.json"):
        d = json.loads(f.read_text())
        if d["status"] == "ok":
            rows[(d["round"], d["num_envs"], d["mode"])] = d["throughput"]["mean"]
    return rows


def summary(ratios: list[float]) -> str:
    p = paired_ratio_interval(ratios)
    return f"{p['ratio']:.3f} [{p['lo']:.3f}, {p['hi']:.3f}] over {p['rounds']} rounds"


root = Path(sys.argv[1])
runs = {cond: load(root / cond) for cond in ("none", "spin")}
for cond, rows in runs.items():
    print(f"== {cond}: sendrecv over the chain bound")
    for n in (1, 8):
        ratios = []
        for r in sorted({k[0] for k in rows}):
            e, a, loop = (rows[(r, n, m)] for m in ("env_only", "agent_only", "sendrecv"))
            chain = chain_bound(e, a, 1)
            ratios.append(loop / chain)
            print(f"n={n} round {r}: env_only {e:.0f} agent_only {a:.0f} chain {chain:.0f} sendrecv {loop:.0f} "
                  f"ratio {loop / chain:.3f}")
        print(f"n={n}: paired {summary(ratios)}")
print("== the spinners over none, same round")
none, spin = runs["none"], runs["spin"]
for mode in ("env_only", "agent_only", "sendrecv"):
    for n in (1, 8):
        keys = sorted(k for k in none if k[1:] == (n, mode) and k in spin)
        ratios = [spin[k] / none[k] for k in keys]
        print(f"| {mode} | {n} | {np.mean([none[k] for k in keys]):.0f} | {np.mean([spin[k] for k in keys]):.0f} | "
              f"{summary(ratios)} | {', '.join(f'{x:.2f}' for x in ratios)} |")
