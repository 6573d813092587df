"""The agent: an algorithm (`agent.algo`) wrapped by a runtime (`agent.runtime`).

The two axes multiply and stay apart: algos/ says what is computed, runtimes
says how it is launched; both are looked up in the registry. This is where the
flat agent config is read for them: the algorithm gets its own config (its
registry entry's dataclass) and what it is built for (`Spec`); the runtime
reads its own keys (overlap, compile_on_cpu, cudnn_benchmark).
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ppo_bench.agent.algos.base import Agent, Spec
from ppo_bench.registry import ALGOS, RUNTIMES


def total_updates(cfg: Any) -> Optional[int]:
    """Updates in a learning run (what a ppo step size anneals over), by the algorithm's own config;
    None for timed repetitions."""
    total = cfg.schedule.total_env_steps
    if total is None:
        return None
    return ALGOS[cfg.agent.algo].config_class().of(cfg.agent).updates_in(total, cfg.env.num_envs)


def make_agent(agent_cfg: Any, obs_shape: tuple[int, ...], num_actions: int, num_envs: int,
               device: torch.device, batch_size: Optional[int] = None, total_updates: Optional[int] = None) -> Agent:
    """The runtime of `agent.runtime` around the algorithm of `agent.algo`."""
    runtime = RUNTIMES[agent_cfg.runtime].load()
    algo = ALGOS[agent_cfg.algo]
    spec = Spec(tuple(obs_shape), num_actions, num_envs, batch_size or num_envs, device, agent_cfg.name,
                total_updates, capturable=runtime.capturable, overlap=bool(agent_cfg.overlap))
    return runtime(algo.load()(algo.config_class().of(agent_cfg), spec), agent_cfg)
