"""When the games of a vector env end, driven as the reference's algorithm drives them.

    python bench/episode_rhythm.py [--num-envs 8] [--steps 1300] [--seed 1]

The reference's algorithm acts by the argmax of an untrained policy's logits (PyTorch's default
initialisation), so its actions need not vary. This builds that policy (the Nature CNN actor-critic)
on the CPU, steps ale-py's vector env of Pong at frameskip 5 with its argmax actions, and prints
how often each action was taken and the loop step at which each env's episode ended: where one
action holds, every env plays the same game and they end together, so the loop's resets come in
clusters, one every episode.
"""

from __future__ import annotations

import argparse
import collections

import numpy as np
import torch
from ale_py.vector_env import AtariVectorEnv

from ppo_bench.agent.networks import ActorCritic


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num-envs", type=int, default=8)
    ap.add_argument("--steps", type=int, default=1300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    env = AtariVectorEnv(game="pong", num_envs=args.num_envs, frameskip=5)
    obs, _ = env.reset(seed=args.seed)
    net = ActorCritic("nature_cnn", obs.shape[1:], env.single_action_space.n).eval()
    actions, ends = collections.Counter(), []
    with torch.no_grad():
        for step in range(args.steps):
            act = net(torch.from_numpy(obs))[0].argmax(-1).numpy()
            actions.update(act.tolist())
            obs, _, terminated, truncated, _ = env.step(act)
            ends += [(step, int(i)) for i in np.nonzero(terminated | truncated)[0]]
    env.close()
    print(f"actions taken (action: count): {dict(sorted(actions.items()))}")
    print("episodes ended (loop step: envs):")
    for step in sorted({s for s, _ in ends}):
        print(f"  {step}: {', '.join(str(i) for s, i in ends if s == step)}")


if __name__ == "__main__":
    main()
