"""Where each env's PPO transitions go: per-env rollout positions on the host.

In step and sendrecv every env takes one step per loop step, but in async
batches (ale-py's and envpool's `batch_size`) a batch holds whichever envs
finished first, so one env may be a few steps ahead of another. PPO needs each
env's trajectory in time order, so every env has its own position: its n-th
acted step goes to row n of its column, whatever batch it came back in.

The rows form a ring of 2 x num_steps per env (the device buffers have one
more flat row at the end, `trash`, for writes that belong nowhere). The
rollout being filled covers rows [base, base + num_steps) of every env, which
in the ring is one half; the row after it (base + num_steps, the first row of
the other half) holds the value of the observation that follows the
rollout's last transition: GAE's bootstrap. An update is due when every env
has acted that row, i.e. when every env's last transition of the rollout has
its reward (a step's reward comes back with the next observation, which is
acted on first). Envs that ran ahead keep writing into the other half; the
rollout after the update starts there (`advance`), so nothing is copied.

An env more than num_steps ahead of the slowest would overwrite rows still to
be trained on: that is an error (ale-py's async batches can starve an env,
ALE issue #641), never silent.
"""

from __future__ import annotations

import numpy as np


class RolloutIndex:
    """Per-env counts of acted steps, and the flat buffer rows (row * num_envs + env) they map to."""

    def __init__(self, num_steps: int, num_envs: int):
        self.num_steps, self.num_envs = num_steps, num_envs
        self.ring = 2 * num_steps
        self.trash = self.ring * num_envs
        self.acted = np.zeros(num_envs, dtype=np.int64)  # steps acted per env since the start
        self.base = 0  # the first row (in steps since the start) of the rollout being filled

    def act_rows(self, ids: np.ndarray) -> np.ndarray:
        """Flat rows for acting on the envs `ids` now; counts the step."""
        pos = self.acted[ids]
        ahead = pos >= self.base + self.ring
        if ahead.any():
            e, slow = int(ids[np.flatnonzero(ahead)[0]]), int(np.argmin(self.acted))
            raise RuntimeError(
                f"env {e} ran {self.num_steps} steps ahead of env {slow} (acted {self.acted[slow]} steps): "
                "its batches starved that env (ale-py async, ALE issue #641); fewer mode.groups helps")
        self.acted[ids] = pos + 1
        return (pos % self.ring) * self.num_envs + ids

    def result_rows(self, ids: np.ndarray) -> np.ndarray:
        """Flat rows whose step results (reward, end, valid) this batch of `ids` brings.

        That is each env's last acted row; `trash` for an env not acted on yet
        (an async recv brings the reset frames of envs that reset() did not return).
        """
        pos = self.acted[ids] - 1
        return np.where(pos >= 0, (pos % self.ring) * self.num_envs + ids, self.trash)

    def due(self) -> bool:
        """Every env has acted the row after the rollout: its transitions are complete."""
        return bool(self.acted.min() >= self.base + self.num_steps + 1)

    @property
    def half(self) -> int:
        """Which half of the ring holds the rollout being filled: 0 (rows 0..T-1) or 1 (T..2T-1)."""
        return (self.base // self.num_steps) % 2

    def advance(self) -> None:
        """The rollout was trained on: the next one starts at its bootstrap row."""
        self.base += self.num_steps
