"""A toy vector env with the interface of backends.VectorEnv: deterministic, in-process, no emulator.

What the project controls is tested on it where ale-py's own threads would
decide the outcome (ale-py 0.12.1's async batches can starve or repeat an env
on a loaded machine): batches come back in a fixed rotation, every env
steps alike. Its frames are not ale-py's shape (2 x 40 x 40), so an agent
built for it shows that the frame shape comes from the env.

Frame pixels [0, 0, 0..1] hold the env id and its step within the episode.
Action 1 earns reward 1, any other 0; an episode ends (terminated) after
`LENGTH` steps, and the step after that is a reset step (reward 0, flags
False, the new episode's first frame), as ale-py's next-step autoreset.

With `TOY_REPEAT_AT` set (e.g. "5,9"), the batch of those recv calls,
counted in this process over every toy env, holds its first env twice in
place of its last: ale-py 0.12.1's fault on a CPU-starved machine, on cue.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium.spaces import Box, Discrete

SHAPE = (2, 40, 40)
LENGTH = 10
REPEAT_AT = "TOY_REPEAT_AT"
_recvs = [0]  # recv calls in this process


class ToyVectorEnv:
    def __init__(self, env_cfg: Any, groups: int = 1, clip_rewards: bool = True):
        n = env_cfg.num_envs
        self.num_envs, self.groups, self.batch_size = n, groups, n // groups
        self.single_observation_space = Box(0, 255, SHAPE, np.uint8)
        self.single_action_space = Discrete(3)
        self.t = np.zeros(n, dtype=np.int64)
        self.ended = np.zeros(n, dtype=bool)
        self.started = np.zeros(n, dtype=bool)  # its reset frame was delivered
        self.pending: dict[int, int] = {}  # env -> action sent
        self.next_batch = 0
        self.last_ids = np.arange(0)
        self.closed = False

    def _next_ids(self) -> np.ndarray:
        b, g = self.batch_size, self.next_batch
        self.next_batch = (g + 1) % self.groups
        return np.arange(g * b, (g + 1) * b)

    def _obs(self, ids: np.ndarray) -> np.ndarray:
        obs = np.zeros((len(ids), *SHAPE), dtype=np.uint8)
        obs[:, 0, 0, 0], obs[:, 0, 0, 1] = ids, self.t[ids]
        return obs

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.t[:], self.ended[:], self.started[:], self.next_batch = 0, False, False, 0
        self.pending = {}
        ids = self.last_ids = self._next_ids()
        self.started[ids] = True
        return self._obs(ids), {"env_id": ids.astype(np.int32)}

    def send(self, actions: np.ndarray) -> None:
        assert actions.shape == (self.batch_size,), actions.shape
        for e, a in zip(self.last_ids.tolist(), actions.tolist()):
            self.pending[e] = a

    def recv(self):
        ids = self.last_ids = self._next_ids()
        rewards = np.zeros(len(ids), dtype=np.int32)
        terminated = np.zeros(len(ids), dtype=bool)
        for j, e in enumerate(ids.tolist()):
            if not self.started[e]:  # its reset frame, which reset() did not return
                self.started[e] = True
                continue
            action = self.pending.pop(e)
            if self.ended[e]:  # the reset step
                self.ended[e], self.t[e] = False, 0
                continue
            self.t[e] += 1
            rewards[j] = int(action == 1)
            terminated[j] = self.ended[e] = self.t[e] == LENGTH
        _recvs[0] += 1
        if str(_recvs[0]) in os.environ.get(REPEAT_AT, "").split(",") and len(ids) > 1:
            ids = ids.copy()
            ids[-1] = ids[0]
        return self._obs(ids), rewards, terminated, np.zeros(len(ids), dtype=bool), {"env_id": ids.astype(np.int32)}

    def step(self, actions: np.ndarray):
        self.send(actions)
        return self.recv()

    def close(self) -> None:
        self.closed = True
