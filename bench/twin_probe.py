"""Whether a slow twin belongs to a process or to an emulator build.

    python bench/twin_probe.py [--processes 6] [--builds 3] [--num-envs 64] [--reps 3] [--steps 600]

One config's jobs have run 6-22% apart in every repetition (docs/limitations.md), each job a fresh
process. Here each of `--processes` fresh processes, one after another, builds ale-py's vector env
`--builds` times (closed in between) and times `--reps` x `--steps` synchronous steps of all its
envs, with uniform random actions from a fixed seed. If the builds of one process agree while the
processes differ, the cause is fixed when a process starts (its threads' placement, its address
space); if builds differ within a process as much as across processes, it comes with each build
(where its memory lands). Prints each rep, then per process and build the median env-steps/s and
the process's CPU seconds per 1000 env steps (all threads), then the spread at each level.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Iterator


def built(num_envs: int, seed: int):
    """The probes' vector env (ale-py, pong, frameskip 5, a thread a core), reset with `seed` and warmed
    up by 100 steps of uniform random actions; with the generator of those actions (seeded `seed`)."""
    import numpy as np
    from ale_py.vector_env import AtariVectorEnv

    env = AtariVectorEnv(game="pong", num_envs=num_envs, frameskip=5, num_threads=min(num_envs, os.cpu_count() or 1))
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(100):
        env.step(rng.integers(0, env.single_action_space.n, num_envs))
    return env, rng


def timed_rep(env, rng, num_envs: int, steps: int) -> dict:
    """`steps` synchronous steps of all envs with uniform random actions: env-steps/s, and the
    process's CPU seconds (all threads) per 1000 env steps."""
    actions = rng.integers(0, env.single_action_space.n, (steps, num_envs))
    wall, cpu = time.perf_counter(), time.process_time()
    for a in actions:
        env.step(a)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"steps_per_s": steps * num_envs / wall, "cpu_s_per_1000": 1000 * cpu / (steps * num_envs)}


def in_fresh_processes(script: str, processes: int) -> Iterator[tuple[int, list[dict]]]:
    """Run `script --child` with this command's arguments in `processes` fresh processes, one after
    another; each one's number and the JSON lines it printed. Stops at the first that fails."""
    for proc in range(processes):
        out = subprocess.run([sys.executable, script, "--child", *sys.argv[1:]], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"process {proc} failed:\n{out.stderr}")
        yield proc, [json.loads(line) for line in out.stdout.splitlines()]


def child(args: argparse.Namespace) -> None:
    for build in range(args.builds):
        env, rng = built(args.num_envs, seed=build)
        for rep in range(args.reps):
            timed = timed_rep(env, rng, args.num_envs, args.steps)
            print(json.dumps({"build": build, "rep": rep, **timed}), flush=True)
        env.close()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--processes", type=int, default=6)
    p.add_argument("--builds", type=int, default=3)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args)
        return
    rows = []
    for proc, lines in in_fresh_processes(__file__, args.processes):
        for line in lines:
            row = {"process": proc, **line}
            rows.append(row)
            print(json.dumps(row), flush=True)
    cells: dict[tuple[int, int], list[dict]] = {}
    for r in rows:
        cells.setdefault((r["process"], r["build"]), []).append(r)
    print("\n| process | build | env-steps/s (median of reps) | CPU s per 1000 env steps |\n|---|---|---|---|")
    medians = {}
    for (proc, build), rs in sorted(cells.items()):
        medians[proc, build] = statistics.median(r["steps_per_s"] for r in rs)
        cpu = statistics.median(r["cpu_s_per_1000"] for r in rs)
        print(f"| {proc} | {build} | {medians[proc, build]:.0f} | {cpu:.3f} |")
    per_process = [statistics.mean(v for (p_, _), v in medians.items() if p_ == proc) for proc in range(args.processes)]
    within = [max(v for (p_, _), v in medians.items() if p_ == proc) / min(v for (p_, _), v in medians.items() if p_ == proc)
              for proc in range(args.processes)]
    print(f"\nprocesses' means: {', '.join(f'{m:.0f}' for m in per_process)}; fastest / slowest "
          f"{max(per_process) / min(per_process):.3f}")
    print(f"builds within a process, fastest / slowest: {', '.join(f'{w:.3f}' for w in within)}")


if __name__ == "__main__":
    main()
