"""A toy algorithm from outside the package, with the contract of agent.algos.base.Algorithm: a bandit.

It keeps one preference per action on the device and acts by sampling softmax(preferences)
(Gumbel-max, on the device); it does not read the frames. Each step's reward is credited to the
action that earned it: an env's frame brings the results of the act on its frame before (as
agent.algos.onpolicy.rollout.RolloutIndex counts them), and the next act writes them, or the
update if it comes first; every `agent.toy_every` loop steps an update moves the preferences
toward the actions that paid more than the average. With agent.overlap it keeps two sets of sums,
the update training on the one the last rollout filled while the next rollout fills the other,
and it acts with the preferences of one update before (`catch_up`).

It is built on the contract alone (no `ActorCriticAlgorithm`, no network): the runtimes, the
drivers and the loop run it as they run the package's own. tests/test_toy_algorithm.py adds it to
the registry, with its config (`ToyConfig`, keys `agent.toy_every` and `agent.toy_step_size`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import torch

from ppo_bench.agent.algos.base import Algorithm, Spec
from ppo_bench.agent.algos.config import AlgoConfig
from ppo_bench.agent.algos.onpolicy.episodes import EpisodeTracker
from ppo_bench.config.checks import at_least, positive


@dataclass
class ToyConfig(AlgoConfig):
    toy_every: int = 4
    """Loop steps between updates; >= 1."""
    toy_step_size: float = 1.0
    """How far an update moves the preferences; > 0."""

    def check(self) -> None:
        at_least("agent.toy_every", self.toy_every, 1)
        positive("agent.toy_step_size", self.toy_step_size)

    def update_every(self) -> Optional[tuple[str, int]]:
        return "toy_every", self.toy_every


class Toy(Algorithm):
    def __init__(self, cfg: ToyConfig, spec: Spec):
        super().__init__(spec)
        self.cfg = cfg
        device, batch = spec.device, spec.batch_size
        self.prefs = torch.zeros(spec.num_actions, device=device)
        self.acting = self.prefs.clone() if spec.overlap else self.prefs
        self._policy: Callable = self._logits
        self.tracker = EpisodeTracker(spec.num_envs)
        # each env's last two actions: an act's results come with the env's next frame, which (in
        # sendrecv) is acted on before they are observed
        self.actions = torch.zeros((spec.num_envs, 2), dtype=torch.int64, device=device)
        self.sums = torch.zeros(2, spec.num_actions, device=device)  # reward sums per action, two rollouts
        self.counts = torch.zeros(2, spec.num_actions, device=device)
        self.filling, self.trained = 0, 0  # which set the rollout fills, which the update trains on
        self.acted = np.zeros(spec.num_envs, dtype=np.int64)  # acts per env
        self.delivered = np.zeros(spec.num_envs, dtype=np.int64)  # frames per env
        self._acting_np = np.zeros((2, batch), dtype=np.int64)  # env ids, their acts' slots
        self._results_np = np.zeros((4, batch), dtype=np.float32)  # env ids, rewards, counted, slots

    @property
    def rollout_steps(self) -> int:
        return 1

    @property
    def order_shape(self) -> tuple[int, int]:
        return 1, 1

    def start(self, ids: np.ndarray) -> None:
        self.tracker.start(ids)
        self.delivered[ids] += 1

    def restart(self) -> None:
        self.tracker.restart()
        self.acted[:], self.delivered[:] = 0, 0
        self._results_np[2] = 0  # results staged from the old env are credited to nothing

    def stage(self, rollout_step: int, ids: np.ndarray) -> None:
        self._acting_np[0], self._acting_np[1] = ids, self.acted[ids] % 2
        self.acted[ids] += 1

    def observe(self, ids: np.ndarray, rewards: np.ndarray, terminations: np.ndarray,
                truncations: np.ndarray) -> None:
        """The results of the act on each env's frame before this one (none for a first frame)."""
        valid = self.tracker.observe(ids, rewards, terminations, truncations)
        before = self.delivered[ids] - 1
        self.delivered[ids] += 1
        self._results_np[0], self._results_np[1] = ids, rewards
        self._results_np[2], self._results_np[3] = valid & (before >= 0), before % 2

    def _credit(self) -> None:
        """The staged results, to the actions that earned them (blocking copies: then the staging is
        free to clear)."""
        results = torch.from_numpy(self._results_np.copy()).to(self.device)
        self._results_np[2] = 0
        actions = self.actions[results[0].long(), results[3].long()]
        self.sums[self.filling].index_add_(0, actions, results[1] * results[2])
        self.counts[self.filling].index_add_(0, actions, results[2])

    def _logits(self, frames: torch.Tensor) -> torch.Tensor:
        return self.acting.expand(frames.shape[0], -1)

    def act(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self._credit()
        logits = self._policy(frames)
        actions = (logits - torch.empty_like(logits).exponential_().log()).argmax(-1)
        ids, slots = torch.from_numpy(self._acting_np).to(self.device)
        self.actions[ids, slots] = actions
        return actions, torch.zeros(len(actions), device=self.device)

    def update_after(self, loop_step: int) -> bool:
        return (loop_step + 1) % self.cfg.toy_every == 0

    def can_update(self) -> bool:
        return True

    def prepare_update(self) -> None:
        self._credit()
        self.trained = self.filling
        if self.spec.overlap:
            self.filling = 1 - self.filling

    def update_step(self, order: torch.Tensor) -> None:
        sums, counts = self.sums[self.trained], self.counts[self.trained]
        mean = sums / counts.clamp(min=1)
        average = sums.sum() / counts.sum().clamp(min=1)
        self.prefs += self.cfg.toy_step_size * (mean - average) * (counts > 0)
        sums.zero_()
        counts.zero_()

    def wrap_policy(self, wrap: Callable[[Callable], Callable]) -> None:
        self._policy = wrap(self._policy)

    def catch_up(self) -> None:
        self.acting.copy_(self.prefs)

    def checkpoint(self) -> torch.Tensor:
        return self.prefs.clone()

    def rewind(self, saved: torch.Tensor) -> None:
        self.prefs.copy_(saved)
