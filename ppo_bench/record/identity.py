"""What a job measures, said once: its identity, and the keys by which the collector groups jobs.

Resume compares a job's identity with an earlier record's, the record stores it, and the collector
reads every record's config in today's schema (keys gained since at their defaults, old keys
renamed) so that the group a job is pooled in does not depend on when its file was written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Optional

from ppo_bench.config.keys import renamed
from ppo_bench.config.agent import CommonAgentConfig, narrowed_agent
from ppo_bench.config.schema import EnvConfig, ScheduleConfig
from ppo_bench.registry import ALGOS, MODES

RUN_CONTROL_KEYS = ("resume", "set_aside", "collect", "stall_timeout_s", "setup_batch", "plugins")
"""How a job runs, not what it measures: not part of its identity, not stored, and not in its
folder's name (conf/config.yaml's hydra.job.config.override_dirname.exclude_keys, which a test
holds to this list)."""
NOT_IDENTITY = ("env.num_envs", "round", "schedule.profile", "schedule.interleave")  # and every key under mode.
STOPS = ("schedule.max_seconds", "schedule.stop_at_target")  # where a learning run stops
SCHEMA_DEFAULTS = {f"{g}.{k}": v for g, cls in (("env", EnvConfig), ("agent", CommonAgentConfig),
                                                ("schedule", ScheduleConfig)) for k, v in vars(cls()).items()}
"""Flat defaults of the schema's groups (mode aside; of the agent, the keys every algorithm shares), for
keys older result files lack. An algorithm's own keys take its defaults (`as_today`)."""


@dataclass(frozen=True)
class JobIdentity:
    """What a job measures: its resolved config without Hydra's node and the run-control keys.
    The collector groups jobs by what is left of it once the keys a table varies are taken out
    (`group_identity`)."""

    key: str
    """The config in today's schema (`as_today`: a key it gained since reads as its default, an old key
    as its new name), as canonical JSON: equal identities, equal keys. So a record written before a key
    existed is the same job as one run now with that key at its default: resume skips it, as the
    collector pools them."""
    config: dict = field(compare=False, hash=False)

    @classmethod
    def of(cls, config: dict) -> "JobIdentity":
        """The identity of a config (a job's, or a record's): without Hydra's node and the run-control
        keys, the agent's node narrowed to its algorithm's keys (`config.agent.narrowed_agent`), which
        is what a record keeps as its config."""
        kept = {k: v for k, v in config.items() if k != "hydra" and k not in RUN_CONTROL_KEYS}
        if isinstance(kept.get("agent"), dict):
            kept["agent"] = narrowed_agent(kept["agent"])
        return cls(json.dumps(as_today(flatten(kept)), sort_keys=True), kept)

    def fields(self) -> dict:
        """The record's plain values for grouping (fields of results.Record)."""
        c = self.config
        return {"mode": c["mode"]["name"], "game": c["env"]["game"], "agent": c["agent"]["name"],
                "runtime": c["agent"]["runtime"], "algo": c["agent"]["algo"], "backend": c["env"]["backend"],
                "num_envs": c["env"]["num_envs"], "device": c["device"], "frameskip": c["env"]["frameskip"],
                "groups": c["mode"]["groups"], "round": c["round"], "seed": c["seed"]}


def flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def as_today(flat: dict) -> dict:
    """A flat config in today's schema, the one rule by which resume and the collector tell jobs apart:
    old keys under their new names (`config.keys.RENAMES`: agent.compile, a bool before agent.runtime, as
    runtime compiled or eager), keys gained since at their defaults, and the agent's keys narrowed to its
    algorithm's own at its defaults (`config.agent.narrowed_agent`: a record that kept every
    algorithm's keys, as records did before, reads as one that keeps its own). So no key added with its
    default, and no algorithm registered since (a plugin's), makes an earlier record another job's."""
    flat = {**SCHEMA_DEFAULTS, **renamed(flat)}
    agent = narrowed_agent({k[len("agent."):]: v for k, v in flat.items() if k.startswith("agent.")})
    return {**{k: v for k, v in flat.items() if not k.startswith("agent.")},
            **{f"agent.{k}": v for k, v in agent.items()}}


def learns(flat: dict) -> bool:
    """Whether a flat config's job is a learning run: the registry's flag; an algorithm not registered in
    the reading process learns unless it is the reference."""
    algo = flat.get("agent.algo", ALGOS.reference.name)
    return ALGOS[algo].learns if algo in ALGOS else algo != ALGOS.reference.name


def group_identity(flat: dict) -> dict:
    """The keys that say what was measured: all but the mode's, num_envs, round, profile and interleave
    (what runs beside the timed reps, not in them; but a pair of loop modes that took turns over one
    build keeps `schedule.interleave` as the pair, `paired_modes`); and
    for a learning run the seed (its seeds are samples of one configuration) and where it stops
    (`STOPS`: they cut a curve short, they do not change it)."""
    pooled = NOT_IDENTITY + (("seed", *STOPS) if learns(flat) else ())
    out = {k: v for k, v in flat.items() if k not in pooled and not k.startswith("mode.")}
    # a pair's figures came from turns with another mode over one build: grouped apart, both modes
    # together; the key is in every identity (null elsewhere), since one that lacks it matches any
    out["schedule.interleave"] = paired_modes(flat)
    return out


def paired_modes(flat: dict) -> Optional[str]:
    """"sendrecv+step" where a flat config's job took turns with another loop mode over one build
    (schedule.interleave naming one, not its own mode); None else (a probe, or nothing, interleaved)."""
    other, mode = flat.get("schedule.interleave"), flat.get("mode.name")
    if other is None or other == mode or other not in MODES or not MODES[other].agent:
        return None
    return "+".join(sorted((other, mode)))
