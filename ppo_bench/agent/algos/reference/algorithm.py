"""The reference's workload: what `bench_ppo_async.py` computes on every loop step (docs/reference-workload.md).

Argmax actions from a forward pass on every step; the frames, actions and
values stored in device-resident rollout buffers at the loop step's rollout step and
the batch's env ids; every `num_steps` loop steps a PPO-style update (policy
cross-entropy + 0.5 value MSE - 0.01 entropy over `update_epochs` x
`num_minibatches`, minibatches of rollout steps). The stored values serve as
value targets: the point is the compute, not learning. Two defects of the
reference are not copied: frames are normalised once, inside the network, and
the update never reads a device value on the host (the reference's
`obs.max() > 1` synchronised every minibatch).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ppo_bench.agent.algos.base import ActorCriticAlgorithm, Spec
from ppo_bench.agent.algos.reference.config import ReferenceConfig


@dataclass
class ReferenceBuffers:
    """The rollout: [num_steps, num_envs] rows of frames, actions and values (the update's targets)."""

    obs: torch.Tensor
    actions: torch.Tensor
    values: torch.Tensor

    @classmethod
    def zeros(cls, steps: int, n: int, obs_shape: tuple[int, ...], device: torch.device) -> "ReferenceBuffers":
        return cls(torch.zeros((steps, n, *obs_shape), dtype=torch.uint8, device=device),
                   torch.zeros((steps, n), dtype=torch.int64, device=device),
                   torch.zeros((steps, n), dtype=torch.float32, device=device))


class Reference(ActorCriticAlgorithm):
    def __init__(self, cfg: ReferenceConfig, spec: Spec):
        super().__init__(spec)
        self.cfg = cfg
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-8,
                                    capturable=spec.capturable)
        self.buffers = ReferenceBuffers.zeros(cfg.num_steps, spec.num_envs, spec.obs_shape, spec.device)
        # [rollout_step, env ids...]: the rollout rows this batch goes to, staged on the host, uploaded by act
        self._index_host, self._index_np, self._index = self.staging((spec.batch_size + 1,), torch.int64)
        self._index_np[1:] = np.arange(spec.batch_size)

    @property
    def rollout_steps(self) -> int:
        """One per loop step of the rollout: loop step s writes row s % num_steps."""
        return self.cfg.num_steps

    @property
    def order_shape(self) -> tuple[int, int]:
        return self.cfg.update_epochs, self.cfg.num_steps

    def stage(self, rollout_step: int, ids: np.ndarray) -> None:
        """Safe to overwrite: the previous act's upload was done before its actions came back."""
        self._index_np[0] = rollout_step
        self._index_np[1:] = ids

    def act(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self._index.copy_(self._index_host, non_blocking=True)
        logits, values = self._policy(frames)
        return logits.argmax(-1), values

    def store(self, frames: torch.Tensor, actions: torch.Tensor, values: torch.Tensor) -> None:
        b = self.buffers
        rows = self._index[0] * self.spec.num_envs + self._index[1:]
        b.obs.view(-1, *self.spec.obs_shape).index_copy_(0, rows, frames)
        b.actions.view(-1).index_copy_(0, rows, actions)
        b.values.view(-1).index_copy_(0, rows, values)

    def update_after(self, loop_step: int) -> bool:
        """Every num_steps loop steps, counted from 0 in each repetition, as the reference does."""
        return (loop_step + 1) % self.cfg.num_steps == 0

    def can_update(self) -> bool:
        """Always: the update trains on whatever the rollout holds (the end of the warm-up)."""
        return True

    def update_step(self, order: torch.Tensor) -> None:
        cfg, b = self.cfg, self.buffers
        size = cfg.num_steps // cfg.num_minibatches
        for epoch in range(cfg.update_epochs):
            for idx in order[epoch].split(size):
                frames = b.obs[idx].flatten(0, 1)
                actions = b.actions[idx].flatten(0, 1)
                targets = b.values[idx].flatten(0, 1)
                logits, value = self.net(frames)
                logp = torch.log_softmax(logits, dim=-1)
                policy_loss = -logp.gather(-1, actions.unsqueeze(-1)).mean()
                value_loss = (value - targets).pow(2).mean()
                entropy = -(logp.exp() * logp).sum(-1).mean()
                loss = policy_loss + 0.5 * value_loss - 0.01 * entropy
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                self.opt.step()
