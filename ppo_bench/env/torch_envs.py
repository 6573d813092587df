"""A small torch adapter over the vector env's step/send/recv (ale-py's, or a backend's that looks like it).

The reference calls `envs.torch()`, which was proposed to ale-py but never
released; 0.12.x has `step()`, `send()` and `recv()` on numpy arrays. The
adapter gives every driver the same host<->device path so that modes differ
only in how they talk to the emulators. Actions come from the agent as numpy
arrays (its runtime decides how they come down). Frames go up one of two ways
(`env.upload`), unless the agent brings its own uploader (runtime=graphed):

- pinned:   copied into a pinned host buffer, then sent with a non-blocking
            copy. Two buffers alternate, and a CUDA event per buffer guards
            against overwriting one whose upload is still in flight.
- pageable: the reference's way: a copy straight from ale-py's array, which
            the CUDA driver stages through its own pinned memory (the call
            returns once the array has been read, so ale-py may reuse it).

No torch op runs on host tensors in the loop (see `Upload`); agent_only's synthetic frames go up
the same way, every step.

A batch from `recv` that holds one env twice raises `DuplicateEnvError`: the
vector env has lost track of its envs, and what follows is not the workload
(the job then builds a new vector env: a learning run goes on, a timed
repetition runs again once; see job.recovery).
ale-py 0.12.1 does this in async batches when its emulator threads are short of
CPU (docs/results/2026-11-30-h200, "ale-py's async batches lose an env").
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable, Optional

import numpy as np
import torch

from ppo_bench.env.backends import VectorEnv, make_vector_env


class DuplicateEnvError(RuntimeError):
    """The vector env returned one env twice in a batch: it lost an env (see the module docstring)."""


def check_batch(ids: np.ndarray, num_envs: int) -> None:
    """Raise `DuplicateEnvError` if an env appears twice in `ids` (a set: a few µs a batch)."""
    if len(set(ids.tolist())) != len(ids):
        values, counts = np.unique(ids, return_counts=True)
        raise DuplicateEnvError(
            f"the vector env returned env {', '.join(map(str, values[counts > 1]))} more than once in one batch of "
            f"{len(ids)} of {num_envs} envs ({ids.tolist()}): it has lost track of its envs. ale-py 0.12.1's "
            f"async batches were seen doing this when more emulator threads ran than the machine had cores "
            f"(jobs side by side); see docs/limitations.md")


class Upload:
    """How a batch of host frames reaches the device: the one path of every driver's frames, the
    loop's (through `TorchEnvs`) and agent_only's synthetic ones, so that the agent's side of the
    chain bound pays what the loop pays (`env.upload`, or the runtime's own `uploader`)."""

    def __init__(self, shape: tuple[int, ...], device: torch.device, upload: str = "pinned",
                 uploader: Optional[Callable[[np.ndarray], torch.Tensor]] = None):
        self.device = device
        self._cuda = device.type == "cuda"
        self._pinned = self._cuda and upload == "pinned" and uploader is None
        self._uploader = uploader
        if self._pinned:
            self._frames = [torch.empty(shape, dtype=torch.uint8, pin_memory=True) for _ in range(2)]
            self._frames_np = [f.numpy() for f in self._frames]
            self._uploaded = [torch.cuda.Event() for _ in range(2)]
        self._next = 0

    def frames(self, obs: np.ndarray) -> torch.Tensor:
        """`obs` (uint8, the batch's shape) as the frames the agent acts on; `obs` may be reused after."""
        if self._uploader is not None:
            return self._uploader(obs)
        if not self._cuda:
            return torch.tensor(obs)  # a copy: ale-py may reuse its array
        if not self._pinned:
            return torch.from_numpy(obs).to(self.device, non_blocking=True)
        i = self._next
        self._next ^= 1
        self._uploaded[i].synchronize()  # the upload from this buffer two calls ago is done
        # numpy's copy, not torch's: torch parallelises a copy this size over its OpenMP
        # threads, whose spin-waits then take CPU from the emulator threads.
        np.copyto(self._frames_np[i], obs)
        frames = self._frames[i].to(self.device, non_blocking=True)
        self._uploaded[i].record()
        return frames


class TorchEnvs:
    """`reset`, `step`, `send`, `recv` with uint8 frames on `device` and numpy actions and env ids.

    `step` and `recv` return (frames, env ids, rewards, terminations,
    truncations), the last three as the vector env gave them.

    `uploader`, when given, replaces `env.upload` (the graphed agent stages
    frames in its own pinned buffer and copies them inside its graph).

    `observers`, when given (the driver's: loop.observers.Observers), are told
    of each upload as the phase `upload` (the profile's clocks).
    """

    def __init__(self, envs: VectorEnv, device: torch.device, upload: str = "pinned",
                 uploader: Optional[Callable[[np.ndarray], torch.Tensor]] = None, observers: Any = None):
        self.envs = envs
        self.observers = observers
        self.batch_size = envs.batch_size
        # only batches of fewer than all envs can repeat one: a full batch has a slot per env
        self._check_ids = envs.batch_size < envs.num_envs
        self.upload = Upload((self.batch_size, *envs.single_observation_space.shape), device, upload, uploader)

    def _frames(self, obs: np.ndarray) -> torch.Tensor:
        if self.observers is None:
            return self.upload.frames(obs)
        return self.observers.call("upload", self.upload.frames, obs)

    def reset(self, seed: int) -> tuple[torch.Tensor, np.ndarray]:
        obs, info = self.envs.reset(seed=seed)
        return self._frames(obs), info["env_id"]

    def step(self, actions: np.ndarray) -> tuple:
        obs, rewards, terminations, truncations, info = self.envs.step(actions)
        return self._frames(obs), info["env_id"], rewards, terminations, truncations

    def send(self, actions: np.ndarray) -> None:
        self.envs.send(actions)

    def recv(self) -> tuple:
        obs, rewards, terminations, truncations, info = self.envs.recv()
        if self._check_ids:
            check_batch(info["env_id"], self.envs.num_envs)
        return self._frames(obs), info["env_id"], rewards, terminations, truncations

    def close(self) -> None:
        self.envs.close()


def spaces(envs: VectorEnv) -> tuple[tuple[int, ...], int]:
    """What the agent is built for: the frame shape and the number of actions of the env."""
    return tuple(envs.single_observation_space.shape), int(envs.single_action_space.n)


def probe_spaces(env_cfg: Any) -> tuple[tuple[int, ...], int]:
    """`spaces` of a one-env copy of the configured env, for a job without emulators (agent_only)."""
    one = {**{k: getattr(env_cfg, k) for k in ("game", "frameskip", "backend", "upload")},
           "num_envs": 1, "num_threads": 1}
    envs = make_vector_env(SimpleNamespace(**one))
    try:
        return spaces(envs)
    finally:
        envs.close()
