"""How one loop step talks to the environment; the loop itself lives in `loop`.

A driver's `step(slot)` does one loop step's interaction, inference and
rollout stores, and hands the agent each batch's step results (`observe`:
rewards and episode ends, which PPO learns from); `loop.run_loop` calls it
and runs the update when the agent says one is due. Every driver with
emulators counts the steps each env took (from `info["env_id"]`), so the
result can show that modes did the same work. Which driver a mode uses is
its registry entry's (registry.MODES); every driver is built the same way,
`Driver(envs, agent, seed, groups)`, with what its mode needs (the job
builds the emulators only for a mode with emulators, the agent only for one
with an agent).

- step:       infer, store, then blocking `envs.step` (= send + recv).
- sendrecv:   recv, infer, send at once, then store and observe the batch's
              results (episode bookkeeping). With one batch the next action
              needs the next frames, so only the stores, the bookkeeping (and
              the update) can overlap the emulators.
- async:      the same loop over `groups` batches of num_envs / groups
              (ale-py's envpool-style `batch_size`): while the device infers
              on one batch the emulator threads step the others. Stores go to
              the rollout rows of the env ids that came back.
- env_only:   the emulators alone, constant actions, no agent, no device;
              with `groups` > 1 in send/recv batches as async drives them
              (the emulators run faster in batches: the honest limit for a
              batched mode is env_only at the same groups).
- agent_only: the agent alone (the frames' upload, inference, stores, action
              download, update) on synthetic host frames, in batches as async.

`vector_env` is the backend's env under a driver (None without emulators):
the phase clocks wrap its calls.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import torch

from ppo_bench.env.backends import VectorEnv
from ppo_bench.env.torch_envs import TorchEnvs, Upload


class _LoopDriver:
    """What the drivers over emulators and an agent share: env-step counts, a new vector env mid-run."""

    def __init__(self, envs: TorchEnvs, agent: Any, seed: int, groups: int = 1):
        self.agent, self.groups = agent, groups
        self.env_steps = np.zeros(envs.envs.num_envs, dtype=np.int64)
        self._begin(envs, seed)

    def _begin(self, envs: TorchEnvs, seed: int) -> None:
        raise NotImplementedError

    def restart(self, envs: TorchEnvs, seed: int) -> None:
        """Go on over a new vector env (the old one lost track of its envs): the agent drops what
        was in flight, every env starts a new episode; the env-step counts go on."""
        self.envs.close()
        self.agent.restart()
        self._begin(envs, seed)

    def pending(self) -> int:
        """Batches the emulators owe this driver between two loop steps (recv'd by none yet)."""
        return 0

    def reset(self, seed: int) -> None:
        """Start over on the same vector env, with no step in flight (see `pending`, `drain`), after
        another driver used it (schedule.interleave): as `restart`, without a new env."""
        self.agent.restart()
        self._begin(self.envs, seed)

    def close(self) -> None:
        # Never recv here: after an exception between recv and send no batch is
        # outstanding, and ale-py's recv would then block for ever. Closing with a
        # send outstanding is safe: ale-py stops its threads either way.
        self.envs.close()


def drain(vector_env: VectorEnv, batches: int) -> None:
    """Receive and drop `batches` batches, so that a reset finds no step in flight."""
    for _ in range(batches):
        vector_env.recv()


class StepDriver(_LoopDriver):
    """Blocking `step()`: the device waits for the emulators and vice versa."""

    def _begin(self, envs: TorchEnvs, seed: int) -> None:
        self.envs, self.vector_env = envs, envs.envs
        self.frames, self.ids = envs.reset(seed)
        self.agent.start(self.ids)

    def step(self, slot: int) -> None:
        actions, values = self.agent.act(self.frames, slot, self.ids)
        self.agent.store(self.frames, actions, values)
        self.frames, self.ids, rewards, terminations, truncations = self.envs.step(self.agent.actions_to_host(actions))
        self.agent.observe(self.ids, rewards, terminations, truncations)
        self.env_steps[self.ids] += 1


class SendRecvDriver(_LoopDriver):
    """recv, infer, send, store over `groups` batches per loop step (groups=1: the reference's send/recv)."""

    def _begin(self, envs: TorchEnvs, seed: int) -> None:
        self.envs, self.vector_env = envs, envs.envs
        # reset() hands back the first batch (its reset frames); the first step
        # uses it in place of a recv, so every env's first frame is its reset frame.
        self.reset_batch: Optional[tuple] = envs.reset(seed)
        self.agent.start(self.reset_batch[1])

    def pending(self) -> int:
        """After a loop step every batch was sent and none received; before the first, the batches
        that reset() did not hand back."""
        return self.groups - (self.reset_batch is not None)

    def step(self, slot: int) -> None:
        for _ in range(self.groups):
            results = None
            if self.reset_batch is None:
                frames, ids, *results = self.envs.recv()
            else:
                (frames, ids), self.reset_batch = self.reset_batch, None
            actions, values = self.agent.act(frames, slot, ids)
            self.envs.send(self.agent.actions_to_host(actions))
            # the host's bookkeeping after the send, while the emulators step: not between an env's
            # frames and its next action (at 1 to 8 envs each env waits for that chain)
            self.agent.store(frames, actions, values)
            if results is not None:
                self.agent.observe(ids, *results)
            self.env_steps[ids] += 1


class EnvOnlyDriver:
    """The emulators alone, constant actions, nothing on the device: blocking steps, or with
    `groups` > 1 send/recv over batches of num_envs / groups, as async drives them."""

    def __init__(self, envs: VectorEnv, agent: None, seed: int, groups: int = 1):
        self.envs, self.agent, self.groups, self.vector_env = envs, None, groups, envs
        self.env_steps = np.zeros(envs.num_envs, dtype=np.int64)
        self.actions = np.zeros(envs.batch_size, dtype=np.int64)
        ids = envs.reset(seed=seed)[1]["env_id"]
        self.reset_ids = ids if groups > 1 else None  # the reset batch stands in for the first recv

    def pending(self) -> int:
        """As SendRecvDriver's: in batches, every one sent after a loop step; blocking steps owe none."""
        return 0 if self.groups == 1 else self.groups - (self.reset_ids is not None)

    def step(self, slot: int) -> None:
        if self.groups == 1:
            info = self.envs.step(self.actions)[-1]
            self.env_steps[info["env_id"]] += 1
            return
        for _ in range(self.groups):
            if self.reset_ids is None:
                ids = self.envs.recv()[-1]["env_id"]
            else:
                ids, self.reset_ids = self.reset_ids, None
            self.envs.send(self.actions)
            self.env_steps[ids] += 1

    def close(self) -> None:
        self.envs.close()


class AgentOnlyDriver:
    """The agent's side of the loop on synthetic frames: the frames' upload, inference, stores,
    action download, update.

    The frames sit in host memory and go up every step as the loop's do (`envs.Upload`: the
    pinned or pageable copy of env.upload, or the graphed runtime's staging, which its act graph
    copies up): the chain bound's t_agent is everything the loop does between a batch's frames and
    its actions, and an agent_only without the upload left out 0.03 ms of the 8-env loop step on
    the H200 (docs/findings.md). The host array is the same every step, so the copy reads it from
    a warm cache where the loop's reads frames the emulator threads just wrote.
    """

    env_steps = None
    vector_env = None

    def __init__(self, upload: Upload, agent: Any, seed: int, groups: int = 1):
        spec = agent.algo.spec
        self.agent, self.upload = agent, upload
        batch = spec.num_envs // groups
        gen = torch.Generator().manual_seed(seed)
        self.frames = torch.randint(0, 256, (batch, *spec.obs_shape), dtype=torch.uint8, generator=gen).numpy()
        self.ids = [np.arange(g * batch, (g + 1) * batch) for g in range(groups)]

    def step(self, slot: int) -> None:
        for ids in self.ids:
            frames = self.upload.frames(self.frames)
            actions, values = self.agent.act(frames, slot, ids)
            self.agent.actions_to_host(actions)
            self.agent.store(frames, actions, values)

    def close(self) -> None:
        pass
