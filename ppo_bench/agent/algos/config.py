"""What every algorithm's config is: its own keys, flat under `agent.`, and their checks.

An algorithm names its config dataclass in its registry entry (`registry.Algo.config`); the
agent group's schema is the common keys (config.agent.CommonAgentConfig) and every registered
algorithm's, so the keys users type stay `agent.num_steps`, `agent.clip_coef`, ... Each key's
default is its algorithm's own (the schema leaves it null): the job builds the chosen algorithm's
config from the agent node (`of`), a result's config keeps that algorithm's keys only, and the
config check runs its `check`; another algorithm's key may not be set (config.schema). Torch-free:
the config check imports this.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Optional, TypeVar

from ppo_bench.config.checks import at_least, positive

C = TypeVar("C", bound="AlgoConfig")


@dataclass
class AlgoConfig:
    """An algorithm's keys (none here): a subclass adds its fields, each with a default and a
    one-line docstring, and its `check`."""

    @classmethod
    def of(cls: type[C], agent: Any) -> C:
        """This config's keys read off the agent node (a DictConfig, or any object with them): a key
        the node leaves null, or lacks, takes this config's default (config.agent.agent_config)."""
        given = {f.name: getattr(agent, f.name, None) for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in given.items() if v is not None})

    def check(self) -> None:
        """Refuse a bad value of one of these keys with one ValueError naming `agent.<key>`."""

    def update_every(self) -> Optional[tuple[str, int]]:
        """The key that sets the loop steps between two updates, and its value (a warning says when
        a timed repetition holds no update; a learning run's update count is read off it); None:
        no fixed number."""
        return None

    def rep_updates(self, bench_steps: int) -> Optional[int]:
        """The updates a timed repetition of `bench_steps` loop steps holds, where the algorithm
        counts its updates from each repetition's start (the reference does); None where they fall
        as a training loop's do, whatever the repetition (a warning says when a repetition holds
        far fewer than a training loop makes in as many steps)."""
        return None

    def updates_in(self, total_env_steps: int, num_envs: int) -> Optional[int]:
        """Updates in a learning run of `total_env_steps` (what an annealed step size falls over)."""
        every = self.update_every()
        return None if every is None else max(1, math.ceil(total_env_steps / (every[1] * num_envs)))


@dataclass
class RolloutConfig(AlgoConfig):
    """The keys of an algorithm that collects a rollout of num_steps loop steps and updates on it in
    epochs of minibatches (the reference's workload and PPO)."""

    num_steps: int = 128
    """Loop steps between PPO-style updates (rollout length); >= 1."""
    update_epochs: int = 4
    """Passes over the rollout per update; >= 1."""
    num_minibatches: int = 4
    """Minibatches per epoch; >= 1 and must divide num_steps."""
    learning_rate: float = 2.5e-4
    """Adam step size; > 0."""

    def check(self) -> None:
        at_least("agent.num_steps", self.num_steps, 1)
        at_least("agent.update_epochs", self.update_epochs, 1)
        at_least("agent.num_minibatches", self.num_minibatches, 1)
        if self.num_steps % self.num_minibatches:
            raise ValueError(f"agent.num_minibatches={self.num_minibatches}: must divide "
                             f"agent.num_steps={self.num_steps}")
        positive("agent.learning_rate", self.learning_rate)

    def update_every(self) -> Optional[tuple[str, int]]:
        return "num_steps", self.num_steps
