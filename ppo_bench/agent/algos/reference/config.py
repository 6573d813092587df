"""The reference workload's keys: a rollout of num_steps loop steps, updated on in epochs of
minibatches at a fixed step size (the shared `RolloutConfig`'s, no others)."""

from __future__ import annotations

from dataclasses import dataclass

from ppo_bench.agent.algos.config import RolloutConfig


@dataclass
class ReferenceConfig(RolloutConfig):
    """agent.num_steps, update_epochs, num_minibatches, learning_rate."""

    def rep_updates(self, bench_steps: int) -> int:
        """One after loop step num_steps - 1, 2 * num_steps - 1, ... of each repetition, counted
        from its start as the reference counts them (`update_after`): bench_steps // num_steps."""
        return bench_steps // self.num_steps
