"""How one loop step talks to the environment; the loop itself lives in `measure`.

A driver's `step(slot)` does one loop step's interaction, inference and
rollout stores; `measure` calls it and runs the update when one is due. Every
driver with emulators counts the steps each env took (from `info["env_id"]`),
so the result can show that modes did the same work.

- step:       infer, store, then blocking `envs.step` (= send + recv).
- sendrecv:   recv, infer, send at once, then store. With one batch the next
              action needs the next frames, so only the stores (and the
              update) can overlap the emulators.
- async:      the same loop over `groups` batches of num_envs / groups
              (ale-py's envpool-style `batch_size`): while the device infers
              on one batch the emulator threads step the others. Stores go to
              the rollout rows of the env ids that came back.
- env_only:   the emulators alone, constant actions, no agent, no device.
- agent_only: the agent alone (inference, stores, action download, update)
              on device-resident synthetic frames, in batches as async.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from .agent import FRAME_SHAPE, Agent
from .envs import HostActions, TorchEnvs, make_envs, num_actions


class StepDriver:
    """Blocking `step()`: the device waits for the emulators and vice versa."""

    def __init__(self, envs: TorchEnvs, agent: Agent, seed: int):
        self.envs, self.agent = envs, agent
        self.env_steps = np.zeros(envs.envs.num_envs, dtype=np.int64)
        self.frames, _ = envs.reset(seed)

    def step(self, slot: int) -> None:
        actions, values = self.agent.act(self.frames)
        self.agent.store(slot, self.frames, actions, values)
        self.frames, ids = self.envs.step(actions)
        self.env_steps[ids] += 1

    def close(self) -> None:
        self.envs.close()


class SendRecvDriver:
    """recv, infer, send, store over `groups` batches per loop step (groups=1: the reference's send/recv)."""

    def __init__(self, envs: TorchEnvs, agent: Agent, seed: int, groups: int):
        self.envs, self.agent, self.groups = envs, agent, groups
        self.env_steps = np.zeros(envs.envs.num_envs, dtype=np.int64)
        # reset() hands back the first batch (its reset frames); the first step
        # uses it in place of a recv, so every env's first frame is its reset frame.
        self.reset_batch: tuple | None = envs.reset(seed)

    def step(self, slot: int) -> None:
        for _ in range(self.groups):
            if self.reset_batch is None:
                frames, ids = self.envs.recv()
            else:
                (frames, ids), self.reset_batch = self.reset_batch, None
            actions, values = self.agent.act(frames)
            self.envs.send(actions)
            rows = torch.from_numpy(ids).to(self.envs.device, torch.int64, non_blocking=True) if self.groups > 1 else None
            self.agent.store(slot, frames, actions, values, rows)
            self.env_steps[ids] += 1

    def close(self) -> None:
        # Never recv here: after an exception between recv and send no batch is
        # outstanding, and ale-py's recv would then block for ever. Closing with a
        # send outstanding is safe: ale-py stops its threads either way.
        self.envs.close()


class EnvOnlyDriver:
    """The emulators alone: blocking steps with constant actions, nothing on the device."""

    agent = None

    def __init__(self, env_cfg: Any, seed: int):
        self.envs = make_envs(env_cfg)
        self.env_steps = np.zeros(env_cfg.num_envs, dtype=np.int64)
        self.actions = np.zeros(self.envs.batch_size, dtype=np.int64)
        self.envs.reset(seed=seed)

    def step(self, slot: int) -> None:
        info = self.envs.step(self.actions)[-1]
        self.env_steps[info["env_id"]] += 1

    def close(self) -> None:
        self.envs.close()


class AgentOnlyDriver:
    """The agent's side of the loop on synthetic frames already on the device."""

    env_steps = None

    def __init__(self, agent: Agent, num_envs: int, seed: int, groups: int):
        self.agent, self.groups = agent, groups
        batch = num_envs // groups
        gen = torch.Generator(device=agent.device).manual_seed(seed)
        self.frames = torch.randint(0, 256, (batch, *FRAME_SHAPE), dtype=torch.uint8,
                                    device=agent.device, generator=gen)
        rows = torch.arange(num_envs, device=agent.device).view(groups, batch)
        self.rows = [rows[g] for g in range(groups)] if groups > 1 else [None]
        self.host_actions = HostActions(batch, agent.device)

    def step(self, slot: int) -> None:
        for rows in self.rows:
            actions, values = self.agent.act(self.frames)
            self.host_actions.fetch(actions)
            self.agent.store(slot, self.frames, actions, values, rows)

    def close(self) -> None:
        pass


def make_driver(cfg: Any, device: torch.device, compile: bool):
    """Build the emulators (if any), the agent (if any) and the driver for `cfg.mode.name`."""
    mode, n = cfg.mode.name, cfg.env.num_envs
    if mode == "env_only":
        return EnvOnlyDriver(cfg.env, cfg.seed)
    if mode == "agent_only":
        agent = Agent(cfg.agent, num_actions(cfg.env.game), n, device, compile)
        return AgentOnlyDriver(agent, n, cfg.seed, cfg.mode.groups)
    groups = cfg.mode.groups if mode == "async" else 1
    envs = TorchEnvs(make_envs(cfg.env, groups), device, cfg.env.upload)
    agent = Agent(cfg.agent, int(envs.envs.single_action_space.n), n, device, compile)
    if mode == "step":
        return StepDriver(envs, agent, cfg.seed)
    return SendRecvDriver(envs, agent, cfg.seed, groups)
