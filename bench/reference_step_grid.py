"""The reference script's step half over its grid, as its own `main` runs it, for timing a sweep against.

    python bench/reference_step_grid.py PATH/TO/bench_ppo_async.py --counts 1 8 64
    python bench/reference_step_grid.py PATH/TO/bench_ppo_async.py --quick     # its --quick's step half

The script's `main` runs `bench_step` then `bench_sendrecv` for each count, and
its sendrecv half needs an ale-py whose vector env has `.torch()`, which the
released ale-py 0.12 lacks: there `main` stops at its first sendrecv. This
runs the step half alone, with the script's own defaults (reps 5, 1000 steps,
warm-up 64, 128-step rollouts), in one process from torch's import on, so its
wall time is what `python run.py -m +preset=full mode=step` should be read
against. `--quick` takes the script's own --quick values (counts 1 and 8, reps 2, 200
steps, warm-up 16, 64-step rollouts), for `run.py -m +preset=quick mode=step`. Prints
each count's mean env-steps/s and the process's seconds.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path
from types import SimpleNamespace

STARTED = time.perf_counter()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("reference", type=Path)
    p.add_argument("--counts", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32, 64, 128, 256])
    p.add_argument("--quick", action="store_true", help="the script's --quick values, as its main sets them")
    args = p.parse_args()
    spec = importlib.util.spec_from_file_location("reference", args.reference)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    cfg = SimpleNamespace(reps=5, bench_steps=1000, warmup=64, num_steps=128, update_epochs=4,
                          num_minibatches=4)
    if args.quick:  # as the script's main does
        args.counts, cfg.reps, cfg.bench_steps, cfg.warmup, cfg.num_steps = [1, 8], 2, 200, 16, 64
    for n in args.counts:
        began = time.perf_counter()
        mean, half = ref.summarise(ref.bench_step(n, cfg), cfg.reps)
        print(f"n={n} step: {mean:.0f} env-steps/s ±{half:.0f} in {time.perf_counter() - began:.1f} s",
              flush=True)
    print(f"process: {time.perf_counter() - STARTED:.1f} s from this script's start", flush=True)


if __name__ == "__main__":
    main()
