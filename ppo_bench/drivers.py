"""How one loop step talks to the environment; the loop itself lives in `measure`.

A driver's `step(slot)` does one loop step's interaction, inference and
rollout stores, and hands the agent each batch's step results (`observe`:
rewards and episode ends, which PPO learns from); `measure` calls it and runs
the update when the agent says one is due. Every
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
- env_only:   the emulators alone, constant actions, no agent, no device;
              with `groups` > 1 in send/recv batches as async drives them
              (the emulators run faster in batches: the honest limit for a
              batched mode is env_only at the same groups).
- agent_only: the agent alone (inference, stores, action download, update)
              on synthetic frames, in batches as async.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
import torch

from .agent import FRAME_SHAPE, Agent, make_agent
from .envs import TorchEnvs, make_envs, num_actions


def rows_of(ids: np.ndarray, agent: Agent, groups: int):
    """Whose rollout rows a batch fills: None (batch row i is env i) or its env ids.

    The reference stores a whole batch at the loop step's slot, as the
    reference does; ppo keeps every env's own trajectory, and nothing promises
    that a batch of all envs comes back in env-id order.
    """
    return ids if groups > 1 or agent.ppo else None


class StepDriver:
    """Blocking `step()`: the device waits for the emulators and vice versa."""

    def __init__(self, envs: TorchEnvs, agent: Agent, seed: int):
        self.envs, self.agent = envs, agent
        self.env_steps = np.zeros(envs.envs.num_envs, dtype=np.int64)
        self.frames, self.ids = envs.reset(seed)
        agent.start(self.ids)

    def step(self, slot: int) -> None:
        rows = rows_of(self.ids, self.agent, 1)
        actions, values = self.agent.act(self.frames, slot, rows)
        self.agent.store(slot, self.frames, actions, values, rows)
        self.frames, self.ids, rewards, terminations, truncations = self.envs.step(self.agent.actions_to_host(actions))
        self.agent.observe(self.ids, rewards, terminations, truncations)
        self.env_steps[self.ids] += 1

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
        agent.start(self.reset_batch[1])

    def step(self, slot: int) -> None:
        for _ in range(self.groups):
            if self.reset_batch is None:
                frames, ids, rewards, terminations, truncations = self.envs.recv()
                self.agent.observe(ids, rewards, terminations, truncations)
            else:
                (frames, ids), self.reset_batch = self.reset_batch, None
            rows = rows_of(ids, self.agent, self.groups)
            actions, values = self.agent.act(frames, slot, rows)
            self.envs.send(self.agent.actions_to_host(actions))
            self.agent.store(slot, frames, actions, values, rows)
            self.env_steps[ids] += 1

    def close(self) -> None:
        # Never recv here: after an exception between recv and send no batch is
        # outstanding, and ale-py's recv would then block for ever. Closing with a
        # send outstanding is safe: ale-py stops its threads either way.
        self.envs.close()


class EnvOnlyDriver:
    """The emulators alone, constant actions, nothing on the device: blocking steps, or with
    `groups` > 1 send/recv over batches of num_envs / groups, as async drives them."""

    agent = None

    def __init__(self, env_cfg: Any, seed: int, groups: int = 1):
        self.envs = make_envs(env_cfg, groups)
        self.groups = groups
        self.env_steps = np.zeros(env_cfg.num_envs, dtype=np.int64)
        self.actions = np.zeros(self.envs.batch_size, dtype=np.int64)
        ids = self.envs.reset(seed=seed)[1]["env_id"]
        self.reset_ids = ids if groups > 1 else None  # the reset batch stands in for the first recv

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
    """The agent's side of the loop on synthetic frames: inference, stores, action download, update.

    The frames sit on the device (or, for the graphed runtime, in its pinned
    staging buffer, which its act graph copies up on every step as in the loop).
    """

    env_steps = None

    def __init__(self, agent: Agent, num_envs: int, seed: int, groups: int):
        self.agent, self.groups = agent, groups
        batch = num_envs // groups
        gen = torch.Generator().manual_seed(seed)
        frames = torch.randint(0, 256, (batch, *FRAME_SHAPE), dtype=torch.uint8, generator=gen)
        if agent.uploader is not None:
            self.frames = agent.uploader(frames.numpy())
        else:
            self.frames = frames.to(agent.device)
        self.ids = [np.arange(g * batch, (g + 1) * batch) for g in range(groups)] if groups > 1 else [None]

    def step(self, slot: int) -> None:
        for ids in self.ids:
            actions, values = self.agent.act(self.frames, slot, ids)
            self.agent.actions_to_host(actions)
            self.agent.store(slot, self.frames, actions, values, ids)

    def close(self) -> None:
        pass


def total_updates(cfg: Any) -> Optional[int]:
    """Updates in a learning run (what a ppo step size anneals over); None for timed repetitions."""
    total = cfg.schedule.total_env_steps
    return None if total is None else max(1, math.ceil(total / (cfg.agent.num_steps * cfg.env.num_envs)))


def make_driver(cfg: Any, device: torch.device):
    """Build the emulators (if any), the agent (if any) and the driver for `cfg.mode.name`."""
    mode, n, groups = cfg.mode.name, cfg.env.num_envs, cfg.mode.groups
    updates = total_updates(cfg)
    if mode == "env_only":
        return EnvOnlyDriver(cfg.env, cfg.seed, groups)
    if mode == "agent_only":
        agent = make_agent(cfg.agent, num_actions(cfg.env.game), n, device, n // groups, updates)
        return AgentOnlyDriver(agent, n, cfg.seed, groups)
    groups = groups if mode == "async" else 1
    # ppo sums unclipped rewards into episode returns and clips them for training itself
    raw = make_envs(cfg.env, groups, clip_rewards=cfg.agent.algo != "ppo")
    try:
        agent = make_agent(cfg.agent, int(raw.single_action_space.n), n, device, n // groups, updates)
    except BaseException:
        raw.close()
        raise
    envs = TorchEnvs(raw, device, cfg.env.upload, agent.uploader)
    if mode == "step":
        return StepDriver(envs, agent, cfg.seed)
    return SendRecvDriver(envs, agent, cfg.seed, groups)
