"""Learning runs of two trees, paired by seed, from bench/alternate_trees.sh's folders.

    python bench/learn_pairs.py OUT [OUT ...] --trees old new
    python bench/learn_pairs.py OUT [OUT ...] --trees new      # one tree: its runs and medians

Each OUT holds runs.tsv and <tree>_r<round>/**/result.json (one learning record a run).
Prints, per seed and tree, the time to the target from the job's start and from the
process's start (runs.tsv's start epoch against the record's own `timing.started_at`),
the process's start to the loop's start, the env steps to the target and the loop's
env-steps/s; then each tree's medians and, for two trees, the second over the first, paired by
seed: the geometric mean with a 95% t-interval on the log ratios.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ppo_bench.record import stats  # noqa: E402


def runs(out: Path) -> list[dict]:
    found = []
    for row in csv.DictReader(open(out / "runs.tsv"), delimiter="\t"):
        record = next((out / f"{row['tree']}_r{row['round']}").rglob("result.json"))
        r = json.loads(record.read_text())
        learning, timing = r["learning"], r["timing"]
        before_job = datetime.fromisoformat(timing["started_at"]).timestamp() - float(row["started_epoch_s"])
        to_target = learning["time_to_target_s"]
        found.append({"seed": r["seed"], "tree": row["tree"],
                      "job_s": to_target,
                      "process_s": None if to_target is None else before_job + to_target,
                      "loop_start_s": before_job + learning["setup_s"],
                      "env_steps": learning["env_steps_to_target"],
                      "env_steps_per_s": learning["env_steps_per_s"]})
    return found


def shown(value, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def paired(a: list[float], b: list[float]) -> str:
    r = stats.paired_ratio_interval([y / x for x, y in zip(a, b)])
    return f"{r['ratio']:.2f}x [{r['lo']:.2f}, {r['hi']:.2f}]"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("outs", type=Path, nargs="+")
    p.add_argument("--trees", nargs="+", required=True, help="one tree, or two to pair")
    args = p.parse_args()
    rows = sorted((r for out in args.outs for r in runs(out)), key=lambda r: (r["seed"], r["tree"]))
    keys = ["job_s", "process_s", "loop_start_s", "env_steps", "env_steps_per_s"]
    print("| seed | tree | +18 from the job's start (s) | from the process's start (s) | process start to loop start (s)"
          " | env steps to +18 | loop env-steps/s |\n|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['seed']} | {r['tree']} | {shown(r['job_s'])} | {shown(r['process_s'])} | {r['loop_start_s']:.1f} | "
              f"{shown(r['env_steps'], 0)} | {r['env_steps_per_s']:.0f} |")
    keys = [k for k in keys if all(r[k] is not None for r in rows)]  # short runs: no time to the target
    if len(args.trees) == 1:
        (tree,) = args.trees
        mine = [r for r in rows if r["tree"] == tree]
        print(f"\n| | {tree}: median ({len(mine)} runs) | max |\n|---|---|---|")
        for k in keys:
            print(f"| {k} | {statistics.median(r[k] for r in mine):.1f} | {max(r[k] for r in mine):.1f} |")
        return
    first, second = args.trees
    by = {(r["seed"], r["tree"]): r for r in rows}
    seeds = sorted({s for s, t in by if (s, first) in by and (s, second) in by})
    print(f"\n| | {first}: median | {second}: median | {second} / {first}, paired ({len(seeds)} seeds) |\n|---|---|---|---|")
    for k in keys:
        a, b = [by[(s, first)][k] for s in seeds], [by[(s, second)][k] for s in seeds]
        print(f"| {k} | {statistics.median(a):.1f} | {statistics.median(b):.1f} | {paired(a, b)} |")


if __name__ == "__main__":
    main()
