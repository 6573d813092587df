"""The reference workload's keys: a rollout of num_steps loop steps, updated on in epochs of
minibatches at a fixed step size (the shared `RolloutConfig`'s, no others)."""

from __future__ import annotations

from dataclasses import dataclass

from ppo_bench.agent.algos.config import RolloutConfig


@dataclass
class ReferenceConfig(RolloutConfig):
    """agent.num_steps, update_epochs, num_minibatches, learning_rate."""
