"""A sweep folder's history: every command that ran a sweep into it, and the jobs they named.

Hydra writes the sweep's command into `<sweep dir>/multirun.yaml`, over the one before it: after
`resume=true` the folder's summary named only the last command, and a resume given other overrides
added jobs beside the sweep's own, so the folder's jobs no longer answered one sweep. So:

- each sweep appends its command to `<sweep dir>/.commands.jsonl` (`note`): the time, its overrides,
  the Hydra overrides that chose how it ran, and the sweeper's own params (a preset's grid); a
  folder from before this file starts with its multirun.yaml's command. The collector lists them all.
- `resume=true` runs only the sweep's jobs (`foreign`): the jobs its overrides name, expanded as
  Hydra's basic sweeper expands them, must be among those the folder's earlier commands named, its
  records hold or its job notes started; else the resume is refused in one line, before any job
  runs, naming the ways on (another folder, or `set_aside=true` to run the whole sweep again).

A job is its overrides without the run-control keys (`record.identity.RUN_CONTROL_KEYS`: how it
runs, not what it measures), as its folder's name is.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Iterable, Optional

import yaml
from omegaconf import DictConfig, OmegaConf

from ppo_bench.record.folder import COMMANDS, JOB_NOTES, MULTIRUN, RESULT
from ppo_bench.record.identity import RUN_CONTROL_KEYS
from ppo_bench.record.parts import utc_iso

Job = frozenset  # a job's overrides, without the run-control keys
SHOWN = 3  # jobs named in a refusal


def _line(cfg: DictConfig) -> dict:
    overrides = cfg.hydra.overrides
    params = cfg.hydra.sweeper.get("params")
    params = OmegaConf.to_container(params, resolve=False) if params else {}
    return {"at": utc_iso(time.time()), "argv": sys.argv[1:], "task": [str(o) for o in overrides.task],
            "hydra": [str(o) for o in overrides.hydra], "params": {str(k): str(v) for k, v in params.items()}}


def _from_multirun(sweep_dir: Path) -> Optional[dict]:
    """The command in the folder's multirun.yaml (Hydra's record of its last sweep), as a history line."""
    try:
        hydra = (yaml.safe_load((sweep_dir / MULTIRUN).read_text()) or {})["hydra"]
        overrides = hydra["overrides"]
        params = (hydra.get("sweeper") or {}).get("params") or {}
        return {"at": None, "task": [str(o) for o in overrides.get("task") or []],
                "hydra": [str(o) for o in overrides.get("hydra") or []],
                "params": {str(k): str(v) for k, v in params.items()}}
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError):
        return None


def read(sweep_dir: Path) -> list[dict]:
    """The commands that ran sweeps into the folder, oldest first: its history, else its multirun.yaml's."""
    try:
        text = (sweep_dir / COMMANDS).read_text()
    except OSError:
        earlier = _from_multirun(sweep_dir)
        return [earlier] if earlier else []
    lines = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("task"), list):
            lines.append(entry)
    return lines


def note(sweep_dir: Path, cfg: DictConfig) -> Optional[int]:
    """Append this sweep's command to the folder's history (after its multirun.yaml's, where the
    history is new and Hydra is about to write over that file). One write with O_APPEND. Returns the
    history's size before (None where it was made now), for `withdraw`."""
    try:
        before: Optional[int] = (sweep_dir / COMMANDS).stat().st_size
    except FileNotFoundError:
        before = None
    earlier = _from_multirun(sweep_dir) if before is None else None
    text = "".join(json.dumps(entry) + "\n" for entry in (earlier, _line(cfg)) if entry)
    with open(sweep_dir / COMMANDS, "a") as f:
        f.write(text)
    return before


def withdraw(sweep_dir: Path, before: Optional[int]) -> None:
    """Take back the command `note` added (it returned `before`): a sweep refused before any job ran
    (Hydra could not write its multirun.yaml) ran nothing, and a resume would otherwise take the jobs
    it named as the folder's. Nothing is said where the history cannot be changed either."""
    with contextlib.suppress(OSError):
        if before is None:
            (sweep_dir / COMMANDS).unlink()
        else:
            os.truncate(sweep_dir / COMMANDS, before)


def _key(override: str) -> str:
    return override.split("=", 1)[0].lstrip("+~")


def job(overrides: Iterable[str]) -> Job:
    return Job(o for o in overrides if _key(o) not in RUN_CONTROL_KEYS)


def jobs_of(command: dict) -> Optional[set[Job]]:
    """The jobs a command names, expanded as Hydra's basic sweeper does (its params first, the command
    line's values winning); None where the overrides cannot be read so."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    given = [f"{k}={v}" for k, v in command.get("params", {}).items()] + list(command["task"])
    try:
        parsed = OverridesParser.create().parse_overrides(given)
        batches = BasicSweeper.split_arguments(parsed, None)
    except (HydraException, ValueError, TypeError, AttributeError):
        return None
    return {job(overrides) for batch in batches for overrides in batch}


def earlier_jobs(sweep_dir: Path) -> set[Job]:
    """The jobs the folder has been asked for: those its commands named, its records hold and its notes
    started."""
    found: set[Job] = set()
    for command in read(sweep_dir):
        found |= jobs_of(command) or set()
    for path in sweep_dir.glob(f"*/{RESULT}"):
        overrides = _json(path).get("overrides")
        if isinstance(overrides, list):
            found.add(job(map(str, overrides)))
    try:
        notes = (sweep_dir / JOB_NOTES).read_text().splitlines()
    except OSError:
        notes = []
    for line in notes:
        overrides = _json_line(line).get("overrides")
        if isinstance(overrides, list):
            found.add(job(map(str, overrides)))
    return found


def _json(path: Path) -> dict:
    try:
        return _json_line(path.read_text())
    except OSError:
        return {}


def _json_line(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def foreign(sweep_dir: Path, cfg: DictConfig) -> Optional[str]:
    """Where `resume=true` names jobs that the folder's sweep never had: the refusal's line; else None
    (also where the folder has no earlier sweep, or the command's jobs cannot be told)."""
    earlier = earlier_jobs(sweep_dir)
    wanted = jobs_of(_line(cfg))
    if not earlier or wanted is None:
        return None
    new = sorted(",".join(sorted(j)) for j in wanted - earlier)
    if not new:
        return None
    shown = "; ".join(new[:SHOWN]) + (f" and {len(new) - SHOWN} more" if len(new) > SHOWN else "")
    return (f"resume=true: hydra.sweep.dir={sweep_dir} holds a sweep whose commands never named {len(new)} of "
            f"these jobs ({shown}); run them into another hydra.sweep.dir, or set_aside=true to move the "
            "earlier results aside and run this sweep's every job")
