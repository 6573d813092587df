"""The agent: an algorithm (`agent.algo`) wrapped by a runtime (`agent.runtime`).

The two axes multiply and stay apart: algos/ says what is computed, runtimes
says how it is launched; both are looked up in the registry.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Optional

import torch

from ppo_bench.agent.algos import Spec
from ppo_bench.registry import ALGOS, RUNTIMES


def total_updates(cfg: Any) -> Optional[int]:
    """Updates in a learning run (what a ppo step size anneals over); None for timed repetitions."""
    total = cfg.schedule.total_env_steps
    return None if total is None else max(1, math.ceil(total / (cfg.agent.num_steps * cfg.env.num_envs)))


def make_agent(agent_cfg: Any, obs_shape: tuple[int, ...], num_actions: int, num_envs: int,
               device: torch.device, batch_size: Optional[int] = None, total_updates: Optional[int] = None):
    """The runtime of `agent.runtime` around the algorithm of `agent.algo`."""
    runtime = RUNTIMES[agent_cfg.runtime].load()
    spec = Spec(tuple(obs_shape), num_actions, num_envs, batch_size or num_envs, device, total_updates)
    algo = ALGOS[agent_cfg.algo].load()(agent_cfg, replace(spec, capturable=runtime.capturable))
    return runtime(algo)
