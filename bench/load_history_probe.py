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
import time

from twin_probe import built, in_fresh_processes, timed_rep  # bench/, this script's folder


def child(args: argparse.Namespace) -> None:
    env, rng = built(args.num_envs, seed=0)
    t0 = time.perf_counter()
    for segment in "ABC":
        if segment == "B":
            time.sleep(args.pause_s)
        if segment == "C":
            env.reset(seed=1)
        for rep in range(args.reps):
            timed = timed_rep(env, rng, args.num_envs, args.steps)
            print(json.dumps({"segment": segment, "rep": rep, "at_s": round(time.perf_counter() - t0, 2), **timed}),
                  flush=True)
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
    for proc, lines in in_fresh_processes(__file__, args.processes):
        print(f"\nprocess {proc}\n| segment | rep | s from A's start to the rep's end | env-steps/s | CPU s per 1000 env steps |\n"
              "|---|---|---|---|---|")
        for r in lines:
            print(f"| {r['segment']} | {r['rep']} | {r['at_s']:.1f} | {r['steps_per_s']:.0f} | {r['cpu_s_per_1000']:.3f} |",
                  flush=True)


if __name__ == "__main__":
    main()
