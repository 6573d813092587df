"""The agent group's schema: the keys every algorithm shares, and each registered algorithm's own.

Users type every agent key flat under `agent.` (`agent.num_steps`, `agent.clip_coef`), whichever
algorithm reads it. An algorithm's own keys come from its registry entry's config dataclass
(`agent.algos.config.AlgoConfig`), with its own defaults: the schema leaves them null, and a job
takes the defaults of the algorithm that runs (`narrowed_agent`, which its record and identity keep).
So an algorithm added later, a plugin's, brings its keys and defaults without changing what any
other algorithm's job is (record.identity), and two algorithms may give one key two defaults.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from typing import Any, Optional

from ppo_bench.registry import ALGOS, NETWORKS, RUNTIMES


@dataclass
class CommonAgentConfig:
    """The agent's keys that every algorithm shares: the network, the runtime, the algorithm. Each
    algorithm's own keys come from its registry entry's config (`agent_config`)."""

    name: str = NETWORKS.reference.name
    """Network: nature_cnn (Mnih et al. 2015) or impala_cnn (Espeholt et al. 2018)."""
    runtime: str = RUNTIMES.reference.name
    """How the agent's work is launched: compiled (the reference's: torch.compile
    reduce-overhead inference, eager update) | graphed (the whole act step and the
    whole update each replayed as one CUDA graph; CUDA only) | eager."""
    compile_on_cpu: bool = False
    """runtime=compiled on CPU: compile anyway (slow to build, no CUDA graphs); off, CPU runs eager."""
    algo: str = ALGOS.reference.name
    """What the update computes: reference (the reference's workload: argmax actions, the
    stored values as targets; it times a loop but does not learn) | ppo (sampled actions,
    GAE on the envs' rewards, clipped surrogate: CleanRL's ppo_atari_envpool)."""
    cudnn_benchmark: bool = True
    """graphed: cuDNN times its conv algorithms for each shape at the capture's warm-up and the
    fastest is replayed; false: its heuristics' choice, 4.7 s sooner at a job's start on the H200."""
    overlap: bool = False
    """The update on rollout k runs on a CUDA stream of its own while the loop collects rollout k+1
    with the parameters from before that update (one update behind, always; Cleanba's overlap);
    false: the reference's, acting with the parameters the last update wrote."""


def agent_config() -> type:
    """The agent group's schema: CommonAgentConfig's keys, then every registered algorithm's own (its
    entry's `config`), all flat under `agent.` as users type them. An algorithm's key is null in the
    schema: left so, it takes the default of the algorithm that runs (`algo_config`, `narrowed_agent`),
    so that two algorithms may give one key two defaults (an A2C's 5-step rollouts, PPO's 128) and no
    algorithm registered later changes what another's job is. A key two algorithms share must have one
    type in both."""
    common = {f.name for f in dataclasses.fields(CommonAgentConfig)}
    own: dict[str, tuple[Any, str]] = {}
    for algo in ALGOS:
        part = algo.config_class()
        hints = typing.get_type_hints(part)
        for f in dataclasses.fields(part):
            kind = hints[f.name]
            if f.name in common:
                raise ValueError(f"agent.{f.name}: agent.algo={algo.name}'s {part.__name__} declares a key every "
                                 "algorithm shares (CommonAgentConfig); give it another name")
            if f.name in own and own[f.name][0] != kind:
                raise ValueError(f"agent.{f.name}: agent.algo={algo.name}'s {part.__name__} gives it the type {kind}, "
                                 f"agent.algo={own[f.name][1]}'s {own[f.name][0]}; a shared key has one type")
            own.setdefault(f.name, (kind, algo.name))
    return dataclasses.make_dataclass("AgentConfig", [(n, Optional[kind], dataclasses.field(default=None))
                                                      for n, (kind, _) in own.items()], bases=(CommonAgentConfig,))


AgentConfig = agent_config()
"""The agent group's schema with the package's own algorithms (`schema()` takes in any added since)."""


def algorithm_defaults(name: str) -> Optional[dict[str, Any]]:
    """The algorithm `name`'s own keys and their defaults (its config's); None for a name not registered
    in this process (an older record's plugin that is not loaded here)."""
    if name not in ALGOS:
        return None
    cls = ALGOS[name].config_class()
    made = cls()
    return {f.name: getattr(made, f.name) for f in dataclasses.fields(cls)}


def narrowed_agent(agent: dict) -> dict:
    """The agent node (a plain dict) as a job of its algorithm reads it, for its record and identity:
    the keys every algorithm shares as given, then the chosen algorithm's own at their values or, where
    left null or absent (a record from before the key), at its defaults. Another algorithm's key is
    dropped where it is null, absent, or at the default of an algorithm that declares it (records
    kept every algorithm's keys at their defaults before each kept its own), so a record carries only
    its algorithm's keys; set to another value, it stays, for validate to refuse (config.schema). An
    algorithm this process does not know (a plugin not loaded here) keeps its node as given."""
    own = algorithm_defaults(agent.get("algo", ALGOS.reference.name))
    if own is None:
        return dict(agent)
    common = [f.name for f in dataclasses.fields(CommonAgentConfig)]
    kept = {k: v for k, v in agent.items() if k in common}
    kept.update({k: default if agent.get(k) is None else agent[k] for k, default in own.items()})
    defaults: dict[str, list] = {}
    for algo in ALGOS:
        for k, v in (algorithm_defaults(algo.name) or {}).items():
            defaults.setdefault(k, []).append(v)
    kept.update({k: v for k, v in agent.items() if k not in kept and v is not None and v not in defaults.get(k, [])})
    return kept
