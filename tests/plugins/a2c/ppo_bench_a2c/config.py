"""A2C's keys and their defaults, its own: 5-step rollouts and a step size of 7e-4 (Mnih et al. 2016's
A3C, as Stable-Baselines3's A2C), where the package's algorithms default to 128 and 2.5e-4. A key
it shares with them (agent.num_steps, agent.gamma, ...) has one type in all; each algorithm's
default is its own, and a job takes its algorithm's. Torch-free: the config check imports it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ppo_bench.agent.algos.config import AlgoConfig
from ppo_bench.config.checks import at_least, non_negative, positive


@dataclass
class A2CConfig(AlgoConfig):
    num_steps: int = 5
    """Transitions per env in a rollout, then one update; >= 1."""
    learning_rate: float = 7e-4
    """Adam's step size; > 0."""
    gamma: float = 0.99
    """Discount; in (0, 1]."""
    vf_coef: float = 0.5
    """Weight of the value loss; >= 0."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus; >= 0."""
    max_grad_norm: float = 0.5
    """Gradients are clipped to this global norm; > 0."""

    def check(self) -> None:
        at_least("agent.num_steps", self.num_steps, 1)
        positive("agent.learning_rate", self.learning_rate)
        if not 0 < self.gamma <= 1:
            raise ValueError(f"agent.gamma={self.gamma}: must be in (0, 1]")
        non_negative("agent.vf_coef", self.vf_coef)
        non_negative("agent.ent_coef", self.ent_coef)
        positive("agent.max_grad_norm", self.max_grad_norm)

    def update_every(self) -> Optional[tuple[str, int]]:
        return "num_steps", self.num_steps
