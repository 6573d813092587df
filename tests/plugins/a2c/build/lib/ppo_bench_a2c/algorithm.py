"""A2C on the shared on-policy learner (ppo_bench.agent.algos.onpolicy.learner): its `__init__` and
its update, nothing of the rollout's plumbing.

n-step returns (GAE with lambda 1, bootstrapped from each env's last value), one pass over the
whole rollout in one batch, no clipping: the policy gradient on the advantages, half the squared
error of the values, an entropy bonus, the gradient's norm clipped. What it acts on, which rows its
update reads and when it runs are `RolloutLearner`'s, as they are PPO's.
"""

from __future__ import annotations

import torch
import torch.nn as nn

from ppo_bench.agent.algos.base import Spec
from ppo_bench.agent.algos.onpolicy.learner import RolloutLearner
from ppo_bench_a2c.config import A2CConfig


class A2C(RolloutLearner):
    def __init__(self, cfg: A2CConfig, spec: Spec):
        super().__init__(spec, cfg.num_steps, cfg.learning_rate)
        self.cfg = cfg

    def update_step(self, order: torch.Tensor) -> None:
        """One step on the whole rollout (one epoch, one minibatch: `order` is not needed)."""
        c = self.cfg
        rows, valid, advantages, returns = self.rollout_samples(c.gamma, lam=1.0)
        logp_all, logp, values = self.evaluate_rows(rows)
        entropy = -(logp_all.exp() * logp_all).sum(-1)
        per_row = -advantages * logp + c.vf_coef * 0.5 * (values - returns) ** 2 - c.ent_coef * entropy
        loss = (per_row * valid).sum() / valid.sum().clamp(min=1.0)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), c.max_grad_norm)
        self.opt.step()
