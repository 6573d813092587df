"""Where each learning run's env steps went: the env steps at which its running mean first reached
each mark, from its record's return curve.

    python bench/learn_marks.py RESULTS [RESULTS ...] [--marks -15 0 15 18]

RESULTS: folders or .tar.gz archives holding result.json files (as the collector reads them). One
line per learning record: its folder, seed, env steps to the target, and the marks in thousands of
env steps ("-" where the run never reached one). The climb from -21 and the last stretch to the
target vary by seed differently; this says which of them a setting changed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ppo_bench.collect.sources import walk  # noqa: E402


def first_reached(curve: dict, mark: float) -> str:
    for steps, mean in zip(curve["env_steps"], curve["return_mean"]):
        if mean is not None and mean >= mark:
            return f"{steps / 1e3:.0f}"
    return "-"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("results", nargs="+")
    p.add_argument("--marks", type=float, nargs="+", default=[-15, 0, 15, 18])
    args = p.parse_args()
    print("| run | seed | env steps to target | " + " | ".join(f"{m:+g} at (k)" for m in args.marks) + " |")
    print("|---|---|---|" + "---|" * len(args.marks))
    found = walk([Path(r) for r in args.results])
    for path in found.results:
        record = json.loads(found.read_bytes(path))
        learning = record.get("learning")
        if not learning:
            continue
        marks = " | ".join(first_reached(learning["curve"], m) for m in args.marks)
        print(f"| {path.parent} | {record['seed']} | {learning['env_steps_to_target'] or 'never'} | {marks} |")


if __name__ == "__main__":
    main()
