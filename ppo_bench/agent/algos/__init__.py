"""What the agent computes, one module per algorithm (`agent.algo`; see registry.ALGOS).

An algorithm is an actor-critic network, its optimizer, its rollout buffers
(a dataclass of named device tensors, CleanRL's plain storage) and a handful
of functions in the order the drivers call them:

    host:   start(ids), stage(slot, ids)   where this batch's rows go (pinned staging)
    device: act(frames) -> (actions, values)
            store(frames, actions, values)   after the actions were sent
    host:   observe(ids, rewards, terminations, truncations)   a batch's results, in the
            loop step that brought them: before the act on the frames they came with
            (step) or after it and the send (sendrecv, async); the next act, or the
            update if it comes first, writes them
    host:   update_due(loop_step), update_ready(), new_order(),
            prepare_update(); device: update_step(order); host: finish_update()

The device functions never read a device value on the host and take their
indices from device tensors that `act` uploads from the pinned staging, so a
runtime can run them eagerly, compile `policy`, or capture them whole in a
CUDA graph (see runtimes): no algorithm knows which runtime runs it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import torch

from ppo_bench.agent.networks import ActorCritic


@dataclass(frozen=True)
class Spec:
    """What an algorithm is built for: the env's frames and actions, its batches, the device."""

    obs_shape: tuple[int, ...]
    num_actions: int
    num_envs: int
    batch_size: int
    device: torch.device
    total_updates: Optional[int] = None
    """Updates in a learning run (what an annealed step size falls over); None for timed repetitions."""
    capturable: bool = False
    """The update is replayed as a CUDA graph: the optimizer must be capturable and read its
    step size from device memory where it changes."""


class Algorithm:
    """The parts every algorithm shares: network, pinned staging, the update counter."""

    tracker = None  # episode returns (episodes.EpisodeTracker), where the algorithm keeps them

    def __init__(self, cfg: Any, spec: Spec, ppo_init: bool):
        self.cfg, self.spec, self.device = cfg, spec, spec.device
        self.net = ActorCritic(cfg.name, spec.obs_shape, spec.num_actions, ppo_init=ppo_init,
                               normalize_obs=cfg.normalize_obs).to(spec.device)
        self.policy = self.net
        """The forward pass `act` calls; a runtime may replace it (torch.compile)."""
        self.acting = self.net
        """The parameters that act: the trained ones, or with agent.overlap a copy one update behind."""
        if cfg.overlap:
            self.acting = self.policy = copy.deepcopy(self.net).requires_grad_(False)
        self.updates = 0

    def staging(self, shape: tuple[int, ...], dtype: torch.dtype, fill: int = 0):
        """A pinned host buffer (pinned on CUDA), its numpy view, and its device twin that `act` fills."""
        host = torch.full(shape, fill, dtype=dtype, pin_memory=self.device.type == "cuda")
        return host, host.numpy(), torch.zeros(shape, dtype=dtype, device=self.device)

    def start(self, ids: np.ndarray) -> None:
        """The envs `ids` begin episodes from the frames reset() returned."""

    def restart(self) -> None:
        """The vector env was rebuilt mid-run (see job): what was in flight in the old one is dropped;
        `start` follows with the new reset batch."""

    def observe(self, ids: np.ndarray, rewards: np.ndarray, terminations: np.ndarray,
                truncations: np.ndarray) -> None:
        """One batch's step results, in the loop step that brought them (before or after the act on
        that batch: drivers observe after the send where they can, beside the emulators' step)."""

    def store(self, frames: torch.Tensor, actions: torch.Tensor, values: torch.Tensor) -> None:
        """Rollout stores that may wait until the actions were sent; nothing where `act` stored."""

    def new_order(self) -> torch.Tensor:
        """Minibatch order for one update, on the device: one permutation per epoch."""
        epochs, size = self.order_shape
        return torch.stack([torch.randperm(size, device=self.device) for _ in range(epochs)])

    def prepare_update(self) -> None:
        """Host work before an update's launch."""

    def catch_up(self) -> None:
        """agent.overlap: the acting parameters (and frame statistics) become the trained ones (the
        last update has ended)."""
        with torch.no_grad():
            torch._foreach_copy_([*self.acting.parameters(), *self.acting.buffers()],
                                 [*self.net.parameters(), *self.net.buffers()])

    def finish_update(self) -> None:
        self.updates += 1
