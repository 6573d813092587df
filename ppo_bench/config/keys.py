"""The keys a config may have, and one line for a key it may not.

The schema (config.schema's dataclasses) makes Hydra refuse `env.num_env=64`, but
`+` adds a key whatever the schema says, so `+env.num_env=64` ran the default 8
envs and reported ok. The runner compares the composed config with the
dataclasses before anything is built and names the closest real key, or, for a key the
tool had once (`RENAMES`), the key that took its place. The schema is `schema.schema()`: the
agent keys of every algorithm registered now.
"""

from __future__ import annotations

import dataclasses
import difflib
import typing
from dataclasses import dataclass, field
from typing import Any, Optional

from ppo_bench.config.checks import shown
from ppo_bench.config.schema import schema
from ppo_bench.registry import RUNTIMES


@dataclass(frozen=True)
class Rename:
    """A key the tool had once, and the key that took its place: what the old key's values now are."""

    new: str
    values: dict = field(default_factory=dict)
    """An old value and the new key's value that says the same; empty: the value is unchanged."""

    def value(self, old: Any) -> Any:
        if not self.values:
            return old
        return self.values.get(bool(old) if isinstance(old, (bool, int)) else old, old)

    def said(self, key: str) -> str:
        """One line for the old key given today."""
        meaning = ", ".join(f"{key}={shown(o)} is {self.new}={shown(n)}" for o, n in self.values.items())
        return f"{key}: renamed {self.new}" + (f" ({meaning})" if meaning else "")


RENAMES: dict[str, Rename] = {
    # agent.compile (a bool) before agent.runtime: registry.Runtime.old_compile_flag says what it meant
    "agent.compile": Rename("agent.runtime", {r.old_compile_flag: r.name for r in RUNTIMES
                                              if r.old_compile_flag is not None}),
}
"""Every key renamed since results were first written: a command line that gives the old key is
answered with the new one (`unknown_key_message`), and an older record's config reads under the new
names (`renamed`, for its identity)."""


def renamed(flat: dict) -> dict:
    """A flat config with its old keys under their new names and values (a new key given too wins)."""
    flat = dict(flat)
    for old, rename in RENAMES.items():
        if old in flat:
            flat.setdefault(rename.new, rename.value(flat.pop(old)))
    return flat

ALLOWED_EXTRA = ("hydra", "preset")
"""Top-level keys that are not the schema's but legitimate: Hydra's own node, and the
name of a preset that does not put itself in the `_global_` package."""


def _fields(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def known_keys(cls: Optional[type] = None, prefix: str = "") -> list[str]:
    """Every leaf key of the schema, dotted: env.num_envs, ..., stall_timeout_s."""
    keys = []
    for name, kind in _fields(cls or schema()).items():
        if dataclasses.is_dataclass(kind):
            keys += known_keys(kind, f"{prefix}{name}.")
        else:
            keys.append(f"{prefix}{name}")
    return keys


def unknown_keys(cfg: Any, cls: Optional[type] = None, prefix: str = "") -> list[str]:
    """Keys of `cfg` (a DictConfig or dict) that the schema does not have."""
    fields = _fields(cls or schema())
    found = []
    for key in cfg.keys():
        if not prefix and key in ALLOWED_EXTRA:
            continue
        if key not in fields:
            found.append(f"{prefix}{key}")
        elif dataclasses.is_dataclass(fields[key]) and hasattr(cfg[key], "keys"):
            found += unknown_keys(cfg[key], fields[key], f"{prefix}{key}.")
    return found


def unknown_key_message(key: str) -> str:
    if key in RENAMES:
        return RENAMES[key].said(key)
    close = difflib.get_close_matches(key, known_keys(), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}?" if close else "the keys are listed in docs/config.md"
    return f"{key}: not a config key; {hint}"
