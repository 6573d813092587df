"""How one loop step talks to the environment; the loop itself lives in `loop`.

A driver's `step(rollout_step)` does one loop step's interaction, inference and
rollout stores, and hands the agent each batch's step results (`observe`:
rewards and episode ends, which PPO learns from); `loop.run_loop` calls it
and runs the update when the agent says one is due (`update_after`). Every
driver with emulators counts the steps each env took (from `info["env_id"]`),
so the result can show that modes did the same work. Which driver a mode uses
is its registry entry's (registry.MODES); every driver is built the same way,
`Driver(envs, agent, seed, groups, observers=None)`, with what its mode needs
(the job builds the emulators only for a mode with emulators, the agent only
for one with an agent). A driver reads only the runtime's calls of the agent
(and its `spec`: the `Agent` Protocol of agent.algos.base), never the algorithm's.

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

`vector_env` is the backend's env under a driver (None without emulators).
A driver tells its `observers` (see observers) of every call it makes into the
emulators, the upload and the agent, as the phase it is (phases.PHASES), and of
every loop step's end: the job's progress counter and the profile's phase
clocks are observers, and nothing of a driver is replaced.
"""

from __future__ import annotations

import abc
from typing import Optional

import numpy as np
import torch

from ppo_bench.agent.algos.base import Agent
from ppo_bench.env.backends import VectorEnv
from ppo_bench.env.torch_envs import TorchEnvs, Upload
from ppo_bench.loop.observers import Observers


class Driver(abc.ABC):
    """What the loop steps (`step`) and reads: `agent` (the runtime, or None without one),
    `vector_env` (None without emulators), `env_steps` (each env's steps, None without emulators)
    and `observers` (what it tells; the one given, or its own)."""

    agent: Optional[Agent] = None
    vector_env: Optional[VectorEnv] = None
    env_steps: Optional[np.ndarray] = None

    def __init__(self, observers: Optional[Observers] = None):
        self.observers = Observers() if observers is None else observers

    def step(self, rollout_step: int) -> None:
        """One loop step at rollout step `rollout_step`; the observers are told when it has ended."""
        self._step(rollout_step)
        self.observers.on_step(rollout_step)

    @abc.abstractmethod
    def _step(self, rollout_step: int) -> None:
        """One loop step's interaction, inference and stores."""

    def pending(self) -> int:
        """Batches the emulators owe this driver between two loop steps (recv'd by none yet)."""
        return 0

    @abc.abstractmethod
    def close(self) -> None:
        """Close the emulators (if any)."""


class _LoopDriver(Driver):
    """What the drivers over emulators and an agent share: env-step counts, a new vector env mid-run."""

    agent: Agent

    def __init__(self, envs: TorchEnvs, agent: Agent, seed: int, groups: int = 1,
                 observers: Optional[Observers] = None):
        super().__init__(observers)
        self.agent, self.groups = agent, groups
        self.env_steps = np.zeros(envs.envs.num_envs, dtype=np.int64)
        self._begin(envs, seed)

    @abc.abstractmethod
    def _begin(self, envs: TorchEnvs, seed: int) -> None:
        """Reset `envs` and start the agent's episodes on the frames it returned."""

    def restart(self, envs: TorchEnvs, seed: int) -> None:
        """Go on over a new vector env (the old one lost track of its envs): the agent drops what
        was in flight, every env starts a new episode; the env-step counts go on."""
        self.envs.close()
        self.agent.restart()
        self._begin(envs, seed)

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

    def _step(self, rollout_step: int) -> None:
        tell, agent = self.observers, self.agent
        actions, values = tell.call("inference", agent.act, self.frames, rollout_step, self.ids)
        tell.call("stores", agent.store, self.frames, actions, values)
        host_actions = tell.call("action_download", agent.actions_to_host, actions)
        self.frames, self.ids, rewards, terminations, truncations = tell.call("emulators", self.envs.step, host_actions)
        tell.call("observe", agent.observe, self.ids, rewards, terminations, truncations)
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

    def _step(self, rollout_step: int) -> None:
        tell, agent = self.observers, self.agent
        for _ in range(self.groups):
            results = None
            if self.reset_batch is None:
                frames, ids, *results = tell.call("emulators", self.envs.recv)
            else:
                (frames, ids), self.reset_batch = self.reset_batch, None
            actions, values = tell.call("inference", agent.act, frames, rollout_step, ids)
            tell.call("emulators", self.envs.send, tell.call("action_download", agent.actions_to_host, actions))
            # the host's bookkeeping after the send, while the emulators step: not between an env's
            # frames and its next action (at 1 to 8 envs each env waits for that chain)
            tell.call("stores", agent.store, frames, actions, values)
            if results is not None:
                tell.call("observe", agent.observe, ids, *results)
            self.env_steps[ids] += 1


class EnvOnlyDriver(Driver):
    """The emulators alone, constant actions, nothing on the device: blocking steps, or with
    `groups` > 1 send/recv over batches of num_envs / groups, as async drives them."""

    def __init__(self, envs: VectorEnv, agent: None, seed: int, groups: int = 1,
                 observers: Optional[Observers] = None):
        super().__init__(observers)
        self.envs, self.groups, self.vector_env = envs, groups, envs
        self.env_steps = np.zeros(envs.num_envs, dtype=np.int64)
        self.actions = np.zeros(envs.batch_size, dtype=np.int64)
        ids = envs.reset(seed=seed)[1]["env_id"]
        self.reset_ids = ids if groups > 1 else None  # the reset batch stands in for the first recv

    def pending(self) -> int:
        """As SendRecvDriver's: in batches, every one sent after a loop step; blocking steps owe none."""
        return 0 if self.groups == 1 else self.groups - (self.reset_ids is not None)

    def _step(self, rollout_step: int) -> None:
        tell = self.observers
        if self.groups == 1:
            info = tell.call("emulators", self.envs.step, self.actions)[-1]
            self.env_steps[info["env_id"]] += 1
            return
        for _ in range(self.groups):
            if self.reset_ids is None:
                ids = tell.call("emulators", self.envs.recv)[-1]["env_id"]
            else:
                ids, self.reset_ids = self.reset_ids, None
            tell.call("emulators", self.envs.send, self.actions)
            self.env_steps[ids] += 1

    def close(self) -> None:
        self.envs.close()


class AgentOnlyDriver(Driver):
    """The agent's side of the loop on synthetic frames: the frames' upload, inference, stores,
    action download, update.

    The frames sit in host memory and go up every step as the loop's do (`envs.Upload`: the
    pinned or pageable copy of env.upload, or the graphed runtime's staging, which its act graph
    copies up): the chain bound's t_agent is everything the loop does between a batch's frames and
    its actions, and an agent_only without the upload left out 0.03 ms of the 8-env loop step on
    the H200 (docs/findings.md). The host array is the same every step, so the copy reads it from
    a warm cache where the loop's reads frames the emulator threads just wrote.
    """

    agent: Agent

    def __init__(self, upload: Upload, agent: Agent, seed: int, groups: int = 1,
                 observers: Optional[Observers] = None):
        super().__init__(observers)
        spec = agent.spec
        self.agent, self.upload = agent, upload
        batch = spec.num_envs // groups
        gen = torch.Generator().manual_seed(seed)
        self.frames = torch.randint(0, 256, (batch, *spec.obs_shape), dtype=torch.uint8, generator=gen).numpy()
        self.ids = [np.arange(g * batch, (g + 1) * batch) for g in range(groups)]

    def _step(self, rollout_step: int) -> None:
        tell, agent = self.observers, self.agent
        for ids in self.ids:
            frames = tell.call("upload", self.upload.frames, self.frames)
            actions, values = tell.call("inference", agent.act, frames, rollout_step, ids)
            tell.call("action_download", agent.actions_to_host, actions)
            tell.call("stores", agent.store, frames, actions, values)

    def close(self) -> None:
        pass
