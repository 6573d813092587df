"""Which panel of the report page a configuration is drawn in, and its title in words.

A collection names each configuration by the config keys in which configurations differ
(`agent.runtime=graphed, schedule.bench_steps=500`). Users compare what the loop runs on: the
network, the runtime, the backend, the algorithm; a key of `schedule` only says how long or how
often it was timed. So a panel is the configurations that agree on everything but schedule keys,
titled by its other keys in words (`graphed runtime`); its configurations' schedules are named
in words too (`500 loop steps per rep`), and the figures merge their points into one curve where
they never meet at one num_envs, or draw a curve each, named by its schedule, where they do.
Only the names given are compared, so each chart titles its panels by what differs among its own
configurations (the learning runs' among themselves, say).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ppo_bench.registry import ALGOS, NETWORKS

SCHEDULE = "schedule."
# a config key in words; {v} is its value as the name gives it (a JSON literal or a plain string)
WORDS = {
    "agent.runtime": "{v} runtime", "env.backend": "{v} backend", "agent.name": "{v} network",
    "agent.algo": "{v} algorithm", "agent.num_steps": "{v}-step rollouts", "agent.update_epochs": "{v} epochs",
    "agent.num_minibatches": "{v} minibatches", "agent.clip_coef": "clip {v}", "agent.clip_around": "clip around {v}",
    "agent.normalize_obs": "frames standardised: {v}", "agent.overlap": "update beside the next rollout: {v}",
    "env.num_threads": "{v} emulator threads", "env.game": "{v}", "env.frameskip": "frameskip {v}",
    "env.upload": "{v} upload", "device": "on {v}", "seed": "seed {v}",
    "schedule.bench_steps": "{v} loop steps per rep", "schedule.reps": "{v} reps",
    "schedule.warmup": "{v} warm-up steps", "schedule.max_seconds": "stops at {v} s",
    "schedule.total_env_steps": "stops at {v} env steps", "schedule.target_return": "target return {v}",
    "schedule.stop_at_target": "stops at the target: {v}", "machine": "on {v}", "schedule.interleave": "{v} timed after each rep",
}


@dataclass(frozen=True)
class Place:
    panel: str      # the panel's title in words ("" where every configuration shares one panel)
    schedule: str   # its schedule in words ("" where schedules do not differ)


def parse(name: str) -> dict[str, str]:
    """A configuration's name (k=v, k=v) as {key: value}; the single configuration's name ("all") as {}."""
    parts = re.split(r", (?=[\w.+/-]+=)", name)
    found = dict(p.partition("=")[::2] for p in parts if "=" in p)
    return found if len(found) == len(parts) else ({} if name == "all" else {"configuration": name})


def value(v: str) -> str:
    """A value as a reader writes it: 240.0 as 240, 4000000 as 4,000,000, true as yes, a network's name."""
    try:
        x = json.loads(v)
    except ValueError:
        return _network(v)
    if x is None:
        return "none"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    if isinstance(x, int):
        return f"{x:,}" if abs(x) >= 10000 else str(x)
    return _network(x) if isinstance(x, str) else str(x)


def _network(v: str) -> str:
    """A network's name in words (registry.NETWORKS' label), any other string as it is."""
    return NETWORKS[v].label if v in NETWORKS and NETWORKS[v].label else v


def words(key: str, v: str) -> str:
    if key == "agent.algo" and v in ALGOS:
        return f"{v} (learning)" if ALGOS[v].learns else f"{v} update"
    template = WORDS.get(key, key.rpartition(".")[2].replace("_", " ") + " {v}")
    return template.format(v=value(v))


def places(names) -> dict[str, Place]:
    """Each configuration's panel and schedule, by the keys that differ among `names` alone."""
    names = sorted(set(names))
    parsed = {n: parse(n) for n in names}
    keys = sorted(set().union(*parsed.values())) if parsed else []
    differ = [k for k in keys if len({d.get(k) for d in parsed.values()}) > 1]
    out = {}
    for n, d in parsed.items():
        shown = [(k, d[k]) for k in differ if k in d]
        out[n] = Place(" · ".join(words(k, v) for k, v in shown if not k.startswith(SCHEDULE)),
                       ", ".join(words(k, v) for k, v in shown if k.startswith(SCHEDULE)))
    return out


def panel_order(places_: dict[str, Place]) -> list[str]:
    """The panels' titles in the order of the configurations' names (table.md's order)."""
    return list(dict.fromkeys(places_[n].panel for n in sorted(places_)))
