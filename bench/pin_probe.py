"""Does pinning the loop's thread and the emulator threads to cores of their own close the gap to
the chain bound at 1 and 8 envs? An experiment, not a feature: it builds the job's own
driver in this process (as bench/startup_profile.py does) and times env_only, agent_only and
sendrecv, unpinned and pinned, alternating in paired rounds.

Pinned: the loop's thread on core 0, and ale-py's emulator threads on cores 1 to num_threads (its
`thread_affinity_offset`, which counts absolute core ids: the script refuses when the process's
cores are not 0..k-1), through a backend registered here, so that child.build makes the rest.

Why it might: the profiled rep of 2026-12-01 (commit 0824d0f) put most of the 1-env gap in the act's launch right
after a recv (0.128 ms against 0.042 ms back to back in agent_only); a thread that wakes on the core
an emulator just ran on starts with that emulator's caches.

    python bench/pin_probe.py --counts 1 8 --rounds 3 --steps 600 --reps 3
"""

import argparse
import os
import time

import torch

from ppo_bench.env import backends
from ppo_bench.job import child
from ppo_bench.loop.run import repetition, synchronizer, warm_up
from ppo_bench.registry import BACKENDS, Backend
from ppo_bench.record.stats import paired_ratio_interval
from probe_config import RUNTIME, compose


def make_pinned_ale(env_cfg, groups: int = 1, clip_rewards: bool = True):
    """backends.make_ale with ale-py's emulator threads pinned from core 1 on (see the module doc)."""
    from ale_py.vector_env import AtariVectorEnv

    return AtariVectorEnv(game=env_cfg.game, num_envs=env_cfg.num_envs, frameskip=env_cfg.frameskip,
                          num_threads=backends.num_threads(env_cfg, groups), thread_affinity_offset=1,
                          reward_clipping=clip_rewards)


def one_job(num_envs: int, mode: str, pinned: bool, cores: list[int], args) -> float:
    cfg = compose([f"env.num_envs={num_envs}", f"mode={mode}", "mode.groups=1", "agent.algo=ppo",
                   "agent.runtime=" + RUNTIME, "env.backend=" + ("ale_pinned" if pinned else "ale")])
    device = child.resolve_device(cfg.device)
    torch.set_float32_matmul_precision("high")
    os.sched_setaffinity(0, {cores[0]} if pinned else set(cores))  # this thread only (Linux)
    driver = child.build(cfg, device)
    sync = synchronizer(device)
    try:
        warm_up(driver, args.warmup, sync)
        rates = []
        for _ in range(args.reps):
            wall, _ = repetition(driver, args.steps, sync)
            rates.append(args.steps * num_envs / wall)
    finally:
        driver.close()
        os.sched_setaffinity(0, set(cores))
    return sorted(rates)[len(rates) // 2]


def paired(ratios) -> str:
    r = paired_ratio_interval(list(ratios))
    return f"{r['ratio']:.3f}" + (f" [{r['lo']:.3f}, {r['hi']:.3f}]" if r["lo"] is not None else "")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--counts", type=int, nargs="+", default=[1, 8])
    p.add_argument("--modes", nargs="+", default=["env_only", "agent_only", "sendrecv"])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--warmup", type=int, default=100)
    args = p.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    if cores != list(range(len(cores))):
        raise SystemExit(f"this process's cores are {cores}: ale-py pins by absolute core id")
    BACKENDS.add(Backend("ale_pinned", "__main__:make_pinned_ale"))  # child.build's emulators, pinned
    rows = {}
    for r in range(args.rounds):
        order = (False, True) if r % 2 == 0 else (True, False)
        for n in args.counts:
            for mode in args.modes:
                for pinned in order:
                    rate = one_job(n, mode, pinned, cores, args)
                    rows.setdefault((n, mode, pinned), []).append(rate)
                    print(f"round {r} n={n} {mode:<10} pinned={pinned!s:<5} {rate:9.0f} env-steps/s",
                          flush=True)
    print("\nnum_envs mode        unpinned   pinned  pinned/unpinned (paired by round)")
    for n in args.counts:
        for mode in args.modes:
            a, b = rows[(n, mode, False)], rows[(n, mode, True)]
            print(f"{n:8d} {mode:<10} {sum(a) / len(a):9.0f} {sum(b) / len(b):8.0f}  "
                  f"{paired(y / x for x, y in zip(a, b))}")
    for n in args.counts:
        for pinned in (False, True):
            env, agent, loop = (rows[(n, m, pinned)] for m in ("env_only", "agent_only", "sendrecv"))
            chain = [1 / (1 / e + 1 / a) for e, a in zip(env, agent)]
            ratios = [l / c for l, c in zip(loop, chain)]
            print(f"n={n} pinned={pinned}: sendrecv / chain bound, by round: "
                  f"{' '.join(f'{x:.3f}' for x in ratios)}; {paired(ratios)}")


if __name__ == "__main__":
    t = time.monotonic()
    main()
    print(f"{time.monotonic() - t:.0f} s")
