"""Episode bookkeeping for on-policy learners on ale-py's next-step-autoreset vector envs.

Why this module exists: ale-py 0.12's `AtariVectorEnv`
(and envpool, and gymnasium with `AutoresetMode.NEXT_STEP`) reset an env one
step *after* its episode ends. When env i's step t returns terminated or
truncated, the observation it returns is the episode's final frame; env i's
next step t+1 is a *reset step*: the action sent for it is ignored, it
returns the new episode's first frame, reward 0 and terminated = truncated =
False (checked against ale-py 0.12.1 in tests/test_episodes.py). That row is
not a transition of either episode. Training on it, or letting its reward
and flags into the advantages (`advantages.gae`), links the old episode's
final frame to the new episode's first frame.

With async batches (`batch_size < num_envs`) a batch holds any subset of
envs, in any order, as `info["env_id"]` says; each env's rows still arrive
in its own time order, so everything here is kept per env.

Conventions (one row = one env's result of one `step`/`recv`):

- `EpisodeTracker.observe` returns `valid[j]`, False when row j is not a
  transition the agent should learn from: a reset step, or an env's initial
  reset frame when an async `recv` delivers it (ale-py returns the first
  `batch_size` reset frames from `reset()` and brings the others' later,
  mixed with stepped envs; no action was sent for those).
- Returns are summed from unclipped rewards: build the envs with reward
  clipping off (ale-py `reward_clipping=False`; the project's backends clip
  in the emulator by default, see `backends.py`) and clip with
  `clip_rewards` for training only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import numpy as np
import torch

ArrayLike = Union[np.ndarray, torch.Tensor]


@dataclass(frozen=True)
class Episode:
    """One finished episode: the env it ran in, its unclipped return, its length in agent steps.

    `truncated` is True when the episode was cut (time limit) rather than
    ended by the game; a step reporting both counts as terminated.
    """

    env_id: int
    ret: float
    length: int
    truncated: bool


class EpisodeTracker:
    """Per-env running unclipped returns and lengths over async, next-step-autoreset batches.

    Each env is in one of two states: *running* (its next row is a real
    step) or *awaiting a first frame* (its next row is a reset step, or the
    initial reset frame an async `recv` delivers). Every env starts awaiting
    its first frame; `start(env_ids)` marks the envs whose frames `reset()`
    returned as running (their next row is a real step). A row of an env
    awaiting a first frame is invalid and moves it to running; a valid row
    that terminates or truncates records the episode and makes the env
    await its next first frame.

    The length of an episode counts its real steps only (not the reset
    step), so it is the number of transitions that were trained on.
    """

    def __init__(self, num_envs: int):
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        self.num_envs = num_envs
        self._ret = np.zeros(num_envs, dtype=np.float64)
        self._len = np.zeros(num_envs, dtype=np.int64)
        self._awaiting = np.ones(num_envs, dtype=bool)
        self.finished: list[Episode] = []
        self.num_steps = 0  # valid rows seen
        self.num_invalid = 0  # reset steps and initial frames seen

    def start(self, env_ids: ArrayLike) -> None:
        """Mark envs whose first frames came from `reset()`: their next row is a real step.

        Any episode in progress for them is dropped (not recorded): a
        `reset()` cuts it without a terminal or truncated flag.
        """
        ids = self._ids(env_ids)
        self._ret[ids] = 0.0
        self._len[ids] = 0
        self._awaiting[ids] = False

    def restart(self) -> None:
        """The vector env was rebuilt: every episode in progress is dropped (not recorded), and every
        env awaits its first frame, as at the start (`start` then marks the reset batch's envs)."""
        self._ret[:] = 0.0
        self._len[:] = 0
        self._awaiting[:] = True

    def observe(self, env_ids: ArrayLike, rewards: ArrayLike, terminations: ArrayLike,
                truncations: ArrayLike) -> np.ndarray:
        """Take one batch of step results (unclipped rewards); return `valid`, bool per row.

        Raises ValueError on a malformed batch, or on a row that should be a
        reset step but carries a reward or an end flag (the envs are then not
        in next-step autoreset mode, and this bookkeeping would be wrong).
        """
        ids = self._ids(env_ids)
        r = _np(rewards).astype(np.float64).reshape(-1)
        term = _np(terminations).astype(bool).reshape(-1)
        trunc = _np(truncations).astype(bool).reshape(-1)
        if not (len(r) == len(term) == len(trunc) == len(ids)):
            raise ValueError(f"batch lengths differ: env_ids {len(ids)}, rewards {len(r)}, "
                             f"terminations {len(term)}, truncations {len(trunc)}")

        reset_rows = self._awaiting[ids]
        bad = reset_rows & ((r != 0) | term | trunc)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"env {ids[j]}: the row after an episode end (or its first frame) has reward "
                f"{r[j]}, terminated {term[j]}, truncated {trunc[j]}; a next-step autoreset env "
                "returns 0, False, False there (is autoreset_mode NEXT_STEP?)")
        valid = ~reset_rows

        # Reset rows: the env now runs a fresh episode (ret/len were zeroed when the last one closed).
        self._awaiting[ids[reset_rows]] = False

        # Real steps: accumulate, then close the episodes that ended.
        vids = ids[valid]
        self._ret[vids] += r[valid]
        self._len[vids] += 1
        ended = valid & (term | trunc)
        for j in np.flatnonzero(ended):
            i = int(ids[j])
            self.finished.append(Episode(env_id=i, ret=float(self._ret[i]), length=int(self._len[i]),
                                         truncated=bool(trunc[j] and not term[j])))
        eids = ids[ended]
        self._ret[eids] = 0.0
        self._len[eids] = 0
        self._awaiting[eids] = True

        self.num_steps += int(valid.sum())
        self.num_invalid += int(reset_rows.sum())
        return valid

    @property
    def num_episodes(self) -> int:
        return len(self.finished)

    @property
    def num_truncated(self) -> int:
        return sum(e.truncated for e in self.finished)

    def returns(self) -> np.ndarray:
        """Unclipped returns of all finished episodes, in the order they finished."""
        return np.array([e.ret for e in self.finished], dtype=np.float64)

    def lengths(self) -> np.ndarray:
        return np.array([e.length for e in self.finished], dtype=np.int64)

    def recent(self, k: int = 100) -> tuple[float, float]:
        """Mean and (population) std of the last k finished returns; (nan, nan) before any."""
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        last = self.returns()[-k:]
        if len(last) == 0:
            return float("nan"), float("nan")
        return float(last.mean()), float(last.std())

    def running(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the per-env return and length of the episodes in progress."""
        return self._ret.copy(), self._len.copy()

    def _ids(self, env_ids: ArrayLike) -> np.ndarray:
        ids = _np(env_ids).astype(np.int64).reshape(-1)
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_envs):
            raise ValueError(f"env ids out of range [0, {self.num_envs}): {ids}")
        if len(np.unique(ids)) != len(ids):
            raise ValueError(f"an env appears twice in one batch: {ids}")
        return ids


def _np(x: ArrayLike) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def clip_rewards(rewards: ArrayLike) -> ArrayLike:
    """Sign-clip rewards to {-1, 0, 1} (Atari practice), for training only; same type out as in.

    For Atari's integer rewards this equals clamping to [-1, 1], which is
    what ale-py's `reward_clipping=True` does in the emulator.
    """
    if isinstance(rewards, torch.Tensor):
        return torch.sign(rewards)
    return np.sign(rewards)
