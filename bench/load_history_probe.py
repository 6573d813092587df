"""Whether the emulators slow down with the load's history or with the games' state.

    python bench/load_history_probe.py [--processes 2] [--num-envs 64] [--reps 8] [--steps 600] [--pause-s 10]

bench/twin_probe.py found the emulators' throughput falling from each build's first timed rep to
its third. Here one build per process times three segments of `--reps` reps, each rep `--steps`
synchronous steps of all envs with uniform random actions: A right after the build's warm-up; B
after `--pause-s` seconds idle, the games going on where they were; C right after a reset of every
env, with no pause. If B starts fast again, the slowdown follows the load's history (the host's
cores: their power or another guest), not the games; if C starts fast again, it follows the
games' state. Prints each rep's segment, its end in seconds from A's start, env-steps/s and CPU seconds
per 1000 env steps (all threads).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def child(args: argparse.Namespace) -> None:
    import numpy as np
    from ale_py.vector_env import AtariVectorEnv

    env = AtariVectorEnv(game="pong", num_envs=args.num_envs, frameskip=5,
                         num_threads=min(args.num_envs, os.cpu_count() or 1))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    n = env.single_action_space.n
    for _ in range(100):  # warm-up
        env.step(rng.integers(0, n, args.num_envs))
    t0 = time.perf_counter()
    for segment in "ABC":
        if segment == "B":
            time.sleep(args.pause_s)
        if segment == "C":
            env.reset(seed=1)
        for rep in range(args.reps):
            actions = rng.integers(0, n, (args.steps, args.num_envs))
            wall, cpu = time.perf_counter(), time.process_time()
            for a in actions:
                env.step(a)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            steps = args.steps * args.num_envs
            print(json.dumps({"segment": segment, "rep": rep, "at_s": round(time.perf_counter() - t0, 2),
                              "steps_per_s": steps / wall, "cpu_s_per_1000": 1000 * cpu / steps}), flush=True)
    env.close()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--reps", type=int, default=8)
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--pause-s", type=float, default=10.0)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args)
        return
    for proc in range(args.processes):
        out = subprocess.run([sys.executable, __file__, "--child", *sys.argv[1:]], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"process {proc} failed:\n{out.stderr}")
        print(f"\nprocess {proc}\n| segment | rep | s from A's start to the rep's end | env-steps/s | CPU s per 1000 env steps |\n"
              "|---|---|---|---|---|")
        for line in out.stdout.splitlines():
            r = json.loads(line)
            print(f"| {r['segment']} | {r['rep']} | {r['at_s']:.1f} | {r['steps_per_s']:.0f} | {r['cpu_s_per_1000']:.3f} |",
                  flush=True)


if __name__ == "__main__":
    main()
