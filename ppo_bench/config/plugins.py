"""Plugins: packages that add algorithms, backends, networks, runtimes or modes, in every process.

A user's learner or env adapter has to be known wherever a job is checked or built: the sweep's
process, a job's child (forked from a server that started before the job), the node launcher's
workers, a SLURM job's fresh interpreter, the collector. Registering it in a copy of run.py
reached the processes forked from that script only (the node launcher's workers refused
`agent.algo=a2c`). So a plugin is loaded by name, by every one of those processes, from three
places, each once per process:

- the entry-point group `ppo_bench.plugins` of the installed packages (in a plugin's
  pyproject.toml: `[project.entry-points."ppo_bench.plugins"]` with `a2c = "my_a2c.plugin"`);
- the environment variable `PPO_BENCH_PLUGINS` (names, comma-separated), which processes
  started by the sweep inherit;
- the config key `plugins` (a list of names), which run.py reads off the command line before
  Hydra composes the config (so that a plugin's own keys are in the schema), and which every
  job's runner and child read off the job's config.

A name is a module (`my_a2c.plugin`) or a path: of a `.py` file (`plugins/a2c.py`) or of a
package's folder (`plugins/my_a2c`), whose own folder then joins sys.path, so that the
"module:attr" targets it registers import (every process that loads it does the same, from the
job's config). Importing a plugin registers its entries (`registry.ALGOS.add(...)`); a function
`register()` in it, where it has one, is then called. An entry point may also name that function
(`"my_a2c.plugin:register"`). Launchers come through Hydra's own route, a `hydra_plugins`
package (docs/launchers.md). After a plugin is loaded the config's schema is registered again:
an algorithm's keys join it (config.schema.register_configs).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Iterable, Sequence

GROUP = "ppo_bench.plugins"
ENV = "PPO_BENCH_PLUGINS"
KEY = "plugins"
"""The config key: a list of plugin names (config.schema.Config.plugins)."""

_loaded: dict[str, str] = {}
"""What this process has loaded: each plugin's name, and where it came from (entry point, env, config)."""


_entry_points: list | None = None


class PluginError(ValueError):
    """A plugin that cannot be loaded: one line naming it, where it was named, and why."""


def loaded() -> dict[str, str]:
    """The plugins this process has loaded, by name, with where each was named (a record's provenance)."""
    return dict(_loaded)


def load(names: Iterable[str] = ()) -> list[str]:
    """Load the installed entry points, PPO_BENCH_PLUGINS's names and `names` (the config's), each
    once in this process; then, if any was new, register the config's schema again. Returns the
    names loaded now. Raises PluginError in one line for one that cannot be loaded."""
    new = []
    global _entry_points
    if _entry_points is None:  # the installed packages' metadata, read once a process
        _entry_points = list(importlib.metadata.entry_points(group=GROUP))
    for point in _entry_points:
        new += _load_one(point.value, f"entry point {point.name} ({GROUP})", point.load)
    for name in _split(os.environ.get(ENV, "")):
        new += _load_one(name, ENV, lambda name=name: _import(name))
    for name in names:
        new += _load_one(name, f"{KEY}=", lambda name=name: _import(name))
    if new:
        from ppo_bench.config.schema import register_configs

        try:
            register_configs()
        except ValueError as e:  # two algorithms that give one key two types
            raise PluginError(f"plugins {', '.join(new)}: {e}") from None
    return new


def named_on(args: Sequence[str]) -> list[str]:
    """The plugins a command line names (`plugins=[my_a2c,plugins/toy.py]`, `plugins=my_a2c`), read
    with Hydra's own override parser; none where the line has no such override or does not parse
    (Hydra then says why)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        overrides = OverridesParser.create().parse_overrides([a for a in args if not a.startswith("-")])
    except Exception:  # noqa: BLE001 - Hydra reports a bad line itself, in its own words
        return []
    for o in overrides:
        if o.key_or_group in (KEY, f"+{KEY}", f"++{KEY}") and not o.is_delete():
            value = o.value()
            return [str(v) for v in value] if isinstance(value, list) else _split(str(value))
    return []


def _split(names: str) -> list[str]:
    return [n.strip() for n in names.split(",") if n.strip()]


def _load_one(name: str, where: str, load) -> list[str]:
    if name in _loaded:
        return []
    try:
        found = load()
        register = found if callable(found) and not isinstance(found, ModuleType) else getattr(found, "register", None)
        if callable(register):
            register()
    except PluginError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure of a user's code: one line that names the plugin
        raise PluginError(f"plugin {name} ({where}): {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                          .rstrip(": ")) from None
    _loaded[name] = where
    return [name]


def _import(name: str) -> ModuleType:
    """A module by name, or by its path: a .py file or a package's folder, whose own folder joins
    sys.path (so that the "module:attr" targets it registers import by name)."""
    if name.endswith(".py") or os.sep in name or (os.altsep and os.altsep in name):
        path = Path(name).resolve()
        if not (path.is_file() if name.endswith(".py") else (path / "__init__.py").is_file()):
            raise FileNotFoundError(f"no {'file' if name.endswith('.py') else 'package'} {path}")
        folder = str(path.parent)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        name = path.stem if name.endswith(".py") else path.name
    return importlib.import_module(name)
