"""Do the emulators step slower on the loop's actions than on env_only's constant ones (the loop held
to 0.95 of its chain bound at 8 envs)? An experiment, not a feature: env_only's own vector env (`child.make_envs` on the
composed config, blocking steps as env_only's groups=1 takes them) steps chunks of --steps with NOOP
(env_only's actions) and with actions drawn uniformly (an untrained policy's, about), alternating
in rounds on the same emulators, and prints each kind's mean step and the paired ratio.

Why: the profile of 2026-12-02 (commit 21efb99, docs/results/2026-12-02-h200) put the loop's emulator side (send to recv) 0.06 ms a step over
env_only's interleaved step at 8 envs. If the emulators' own step depends on the actions (the
paddle moving, longer rallies, fewer resets), env_only's constant actions would time a different
workload than the loop's, and the chain bound's t_env with it.

    python bench/action_probe.py --num-envs 8 --rounds 20 --steps 500
"""

import argparse
import statistics
import time

import numpy as np

from ppo_bench.job import child
from ppo_bench.record.stats import paired_ratio_interval
from probe_config import compose


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--game", default="pong")
    p.add_argument("--frameskip", type=int, default=5)
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--steps", type=int, default=500)
    args = p.parse_args()
    n = args.num_envs
    envs = child.make_envs(compose([f"env.num_envs={n}", f"env.game={args.game}", f"env.frameskip={args.frameskip}",
                                  "mode=env_only"]))
    envs.reset(seed=0)
    actions = int(envs.single_action_space.n)
    rng = np.random.default_rng(0)
    seconds = {"noop": [], "random": []}
    ends = {"noop": 0, "random": 0}
    for r in range(args.rounds):
        for kind in (("noop", "random") if r % 2 == 0 else ("random", "noop")):
            batch = (np.zeros((args.steps, n), dtype=np.int64) if kind == "noop"
                     else rng.integers(0, actions, (args.steps, n)))
            t = time.perf_counter()
            for a in batch:
                _, _, term, trunc, _ = envs.step(a)
                ends[kind] += int(term.sum() + trunc.sum())
            seconds[kind].append(time.perf_counter() - t)
    envs.close()
    for kind, s in seconds.items():
        print(f"{kind:6s} mean step {statistics.mean(s) / args.steps * 1e3:.4f} ms "
              f"(rounds {', '.join(f'{x / args.steps * 1e3:.3f}' for x in s)}); episode ends {ends[kind]}")
    r = paired_ratio_interval([a / b for a, b in zip(seconds["random"], seconds["noop"])])
    print(f"random / noop step time, paired: {r['ratio']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] "
          f"over {r['rounds']} rounds")


if __name__ == "__main__":
    main()
