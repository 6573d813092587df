"""A2C from outside the package, on the shared on-policy base (agent.algos.onpolicy.learner): its config,
its `__init__` and its update, nothing of the rollout's plumbing.

n-step returns (GAE with lambda 1, bootstrapped from each env's last value), one pass over the
whole rollout in one batch, no clipping: the policy gradient on the advantages, half the squared
error of the values, an entropy bonus, the gradient's norm clipped. What it acts on, which rows its
update reads and when it runs are `RolloutLearner`'s, as they are PPO's: the test of the base being
reusable is that this runs every loop mode and learns (tests/test_rollout_learner.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn

from ppo_bench.agent.algos.base import Spec
from ppo_bench.agent.algos.config import AlgoConfig
from ppo_bench.agent.algos.onpolicy.learner import RolloutLearner
from ppo_bench.config.checks import at_least, positive


@dataclass
class A2CConfig(AlgoConfig):
    """A2C's keys: the two it shares with the package's algorithms (same type and default, so one key
    each in the agent's schema), and its own."""

    num_steps: int = 128
    """Transitions per env in a rollout; >= 1."""
    learning_rate: float = 2.5e-4
    """Adam step size; > 0."""
    a2c_ent_coef: float = 0.01
    """Weight of the entropy bonus; > 0."""

    def check(self) -> None:
        at_least("agent.num_steps", self.num_steps, 1)
        positive("agent.learning_rate", self.learning_rate)
        positive("agent.a2c_ent_coef", self.a2c_ent_coef)

    def update_every(self) -> Optional[tuple[str, int]]:
        return "num_steps", self.num_steps


class A2C(RolloutLearner):
    gamma, vf_coef, max_grad_norm = 0.99, 0.5, 0.5

    def __init__(self, cfg: A2CConfig, spec: Spec):
        super().__init__(spec, cfg.num_steps, cfg.learning_rate)
        self.cfg = cfg

    def update_step(self, order: torch.Tensor) -> None:
        """One step on the whole rollout (one epoch, one minibatch: `order` is not needed)."""
        rows, valid, advantages, returns = self.rollout_samples(self.gamma, lam=1.0)
        logp_all, logp, values = self.evaluate_rows(rows)
        entropy = -(logp_all.exp() * logp_all).sum(-1)
        per_row = -advantages * logp + self.vf_coef * 0.5 * (values - returns) ** 2 - self.cfg.a2c_ent_coef * entropy
        loss = (per_row * valid).sum() / valid.sum().clamp(min=1.0)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), self.max_grad_norm)
        self.opt.step()
