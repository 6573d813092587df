"""What a precision target's pilot size (`schedule.reps`) costs and buys: the project's own rule
(`record.precision.Stopping`) and interval (`stats.summary` with the pilot) run over series of reps.

    python bench/pilot_size.py --cells 1:0.040:0.16 8:0.09:0.22 64:0.05:0.54 --pilots 5 8 10
    python bench/pilot_size.py --replay ARCHIVE_OR_FOLDER [...] --pilots 5 10

`--cells NUM_ENVS:SPREAD:REP_S`: independent lognormal reps with that spread (the log reps' standard
deviation) and seconds a rep; per pilot size and cell, the timed seconds a job spends on average, its
interval's median relative half-width, the share of jobs whose interval is wider than the target
(the caps bound), and the share whose interval holds the true mean. Stein's count is t(n0 - 1)^2 s0^2
/ log(1 + target)^2: a larger pilot pays a smaller t for a longer minimum.

`--replay`: every committed record of a loop mode with at least `--min-reps` reps, its first reps
taken as a job with that pilot would have timed them (its reps stop where the rule says, or where the
series ends: such a replay is marked censored); the reps it spends and its interval, summed and at
the median over the series. Its series are the jobs that ran long, so the noisier ones.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from ppo_bench.collect.sources import walk
from ppo_bench.record import stats
from ppo_bench.record.precision import Stopping


def job(rates, seconds, pilot: int, target: float, max_reps: int, max_measure_s):
    """(reps timed, their rates, censored) of one job over a series of reps (their rates and seconds), as
    the loop runs the rule; censored: the series ended before the rule stopped."""
    stopping, timed = Stopping(pilot, target, max_reps, max_measure_s), []
    while stopping.stopped_by is None and len(timed) < len(rates):
        timed.append(seconds[len(timed)])
        stopping.add(timed)
    return len(timed), list(rates[:len(timed)]), stopping.stopped_by is None


def width(reps, pilot: int) -> float:
    """The relative half-width of the interval the tables print for a job's reps with this pilot."""
    s = stats.summary(reps, [reps[:pilot]])
    return stats.relative_half_width(s["mean"], s["lo"], s["hi"])


def simulate(cells, pilots, target, max_reps, max_measure_s, series: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    print("| pilot | timed s, all cells | " + " | ".join(
        f"{n} envs: timed s | median ± | wider than ±{target:.0%} | covers" for n, _, _ in cells) + " |")
    print("|---" * (2 + 4 * len(cells)) + "|")
    draws = {cell: rng.normal(0.0, cell[1], (series, max_reps)) for cell in cells}
    for pilot in pilots:
        total, said = 0.0, []
        for cell in cells:
            _, _, rep_s = cell
            runs = [job(np.exp(d), rep_s * np.exp(-d), pilot, target, max_reps, max_measure_s) for d in draws[cell]]
            secs = float(np.mean([k * rep_s for k, _, _ in runs]))
            summaries = [stats.summary(reps, [reps[:pilot]]) for _, reps, _ in runs]
            widths = [stats.relative_half_width(s["mean"], s["lo"], s["hi"]) for s in summaries]
            held = np.mean([s["lo"] <= 1.0 <= s["hi"] for s in summaries])  # the reps' geometric mean is 1
            total += secs
            said.append(f"{secs:.1f} | {np.median(widths):.2%} | {np.mean(np.array(widths) > target + 1e-9):.0%} | {held:.3f}")
        print(f"| {pilot} | {total:.1f} | " + " | ".join(said) + " |")


def replay(paths, pilots, target, max_reps, min_reps: int) -> None:
    found, series = walk([Path(p) for p in paths]), []
    for result in sorted(found.results):
        r = json.loads(found.read_bytes(result))
        t = r.get("throughput") or {}
        if r.get("status") == "ok" and r.get("mode") in ("step", "sendrecv") and len(t.get("reps") or []) >= min_reps:
            series.append((t["reps"], t["seconds"]))
    print(f"{len(series)} series of {min_reps} reps or more\n")
    print("| pilot | reps spent | censored | median ± | mean ± | wider than the target |")
    print("|---|---|---|---|---|---|")
    for pilot in pilots:
        runs = [job(reps, seconds, pilot, target, max_reps, None) for reps, seconds in series]
        widths = [width(reps, pilot) for _, reps, _ in runs]
        print(f"| {pilot} | {sum(k for k, _, _ in runs)} | {sum(c for _, _, c in runs)} | {np.median(widths):.2%} | "
              f"{np.mean(widths):.2%} | {sum(w > target + 1e-9 for w in widths)} of {len(runs)} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cells", nargs="*", default=[], help="NUM_ENVS:SPREAD:REP_S")
    p.add_argument("--replay", nargs="*", default=[], help="archives or folders of records")
    p.add_argument("--pilots", nargs="+", type=int, default=[5, 8, 10])
    p.add_argument("--precision", type=float, default=0.03)
    p.add_argument("--max-reps", type=int, default=40)
    p.add_argument("--max-measure-s", type=float, default=20.0)
    p.add_argument("--series", type=int, default=2000)
    p.add_argument("--min-reps", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    if a.cells:
        cells = [(int(n), float(s), float(r)) for n, s, r in (c.split(":") for c in a.cells)]
        simulate(cells, a.pilots, a.precision, a.max_reps, a.max_measure_s, a.series, a.seed)
    if a.replay:
        print()
        replay(a.replay, a.pilots, a.precision, a.max_reps, a.min_reps)


if __name__ == "__main__":
    main()
