"""Where each env's transitions go in an on-policy rollout: per-env rollout positions on the host.

In step and sendrecv every env takes one step per loop step, but in async
batches (ale-py's and envpool's `batch_size`) a batch holds whichever envs
finished first, and envs drift out of phase: measured on the H200, with six
jobs sharing the CPUs, one env of 16 ran 128 steps ahead of another within
21000 steps. Advantages need each env's trajectory in time order, so every env has
its own position: its n-th acted step goes to row n of its column, whatever
batch it came back in, and each env's rollout is its own stretch of rows.

The rows form a ring of 2 x num_steps per env (the device buffers have one
more flat row at the end, `trash`, for writes that belong nowhere). Env e's
rollout is rows [base[e], base[e] + length[e]) of its column, where length
counts its acted steps but the last: by the end of a loop step the results
of every other one have come (each batch is observed within the loop step
that brought it, before or after the act on it), and the last one's value
is the rollout's bootstrap. Frames come back in each env's own order, so the
results that come with an env's k-th frame belong to the row acted on its
(k-1)-th (`arrive`). An update is due when the rollouts hold num_steps x num_envs
transitions in all (in step and sendrecv: num_steps each, as in CleanRL), or
when an env's rollout nears the ring's size (an env that runs far ahead, or
another that lags, never overwrites rows still to be trained on). After the
update every env's rollout starts at its bootstrap row (`advance`): nothing
is copied, and an env's trajectory continues where it was.
"""

from __future__ import annotations

import numpy as np


class RolloutIndex:
    """Per-env counts of acted steps and rollout starts, and the flat rows (row * num_envs + env) they map to."""

    def __init__(self, num_steps: int, num_envs: int, batches: int = 1, live: int = 1):
        """`live`: rollouts kept at once (2 when an update trains on one while the next is collected:
        the ring doubles, and each rollout still ends before 2 x num_steps rows)."""
        self.num_steps, self.num_envs = num_steps, num_envs
        self.ring = 2 * num_steps * live
        self.trash = self.ring * num_envs
        self.samples = num_steps * num_envs  # transitions per update
        # Between two checks of `due` an env acts at most once per batch of the loop step.
        self.full = 2 * num_steps - batches
        self.acted = np.zeros(num_envs, dtype=np.int64)  # steps acted per env since the start
        # frames delivered per env (reset frames included): an env's k-th frame brings the results of
        # the step acted on its (k-1)-th, whenever the driver observes it, before or after acting again
        self.delivered = np.zeros(num_envs, dtype=np.int64)
        self.base = np.zeros(num_envs, dtype=np.int64)  # first step of each env's rollout

    def act_rows(self, ids: np.ndarray) -> np.ndarray:
        """Flat rows for acting on the envs `ids` now; counts the step."""
        pos = self.acted[ids]
        over = pos >= self.base[ids] + self.ring
        if over.any():  # `due` prevents this; a loud error if a caller skipped it
            raise RuntimeError(f"env {int(ids[np.flatnonzero(over)[0]])}: its rollout outgrew the ring "
                               f"of {self.ring} rows (an update was due and did not run)")
        self.acted[ids] = pos + 1
        return (pos % self.ring) * self.num_envs + ids

    def start(self, ids: np.ndarray) -> None:
        """The envs `ids` were delivered their reset frames by the vector env's reset()."""
        self.delivered[ids] += 1

    def result_rows(self, ids: np.ndarray) -> np.ndarray:
        """Flat rows whose step results the next frames of `ids` bring: the row acted on each env's
        frames before them; `trash` for a reset frame (an async recv brings the reset frames of envs
        that reset() did not return, for which no action was sent) or a row before the rollout."""
        pos = self.delivered[ids] - 1
        return np.where(pos >= self.base[ids], (pos % self.ring) * self.num_envs + ids, self.trash)

    def arrive(self, ids: np.ndarray) -> np.ndarray:
        """`result_rows(ids)`, and those frames count as delivered."""
        rows = self.result_rows(ids)
        self.delivered[ids] += 1
        return rows

    def drop_in_flight(self) -> None:
        """The steps in flight will never bring results (a new vector env, or another driver used
        it): each env's next rollout starts at its next acted row, on its next reset frame."""
        self.base[:] = self.acted
        self.delivered[:] = self.acted

    @property
    def lengths(self) -> np.ndarray:
        """Per env, the transitions of its rollout whose results have arrived."""
        return np.maximum(self.acted - 1 - self.base, 0)

    def due(self) -> bool:
        """The rollouts hold num_steps x num_envs transitions, or one of them nears the ring's size."""
        return bool(self.lengths.sum() >= self.samples or (self.acted - self.base).max() >= self.full)

    def advance(self) -> None:
        """The rollouts were trained on: each env's next one starts at its bootstrap row."""
        self.base = np.maximum(self.acted - 1, self.base)
