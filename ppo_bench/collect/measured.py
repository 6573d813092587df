"""What was measured: the lines table.md opens with, and the same in each chart.json's `meta`.

A table read away from its sweep (pasted in a report, a summary committed without its results)
must say what its figures are of: the game, network, agent runtime and env backend, the device
with its model (the GPU's name, or the CPU's where the loop ran there) and the CPU the emulators
ran on, the torch and ale-py versions, the commit and whether it had uncommitted changes, and the
sweep's command. All of it is read from the records' `provenance` and config; where the jobs
differ, the distinct values are listed ("runtime: compiled, graphed"), a few and then a count.

The command is rebuilt from Hydra's own record of the sweep, `<sweep dir>/multirun.yaml`:
`python run.py -m` and the sweep's overrides (`hydra.overrides.task`, and the `hydra` ones that
choose how it ran, such as the launcher, without its folder and mode, which are this machine's).
A sweep without one (an older copy, single runs) gets a command rebuilt from its jobs' overrides,
each key with its values in the order its jobs ran, and says so.
"""

from __future__ import annotations

import shlex
from typing import Optional

import pandas as pd
import yaml

from .load import Collection

LISTED = 4  # distinct values shown per field; the rest counted
COMMANDS = 3  # distinct sweep commands shown in table.md (chart.json's meta has them all)
MACHINE_OVERRIDES = ("hydra.mode=", "hydra.sweep.dir=", "hydra.sweep.subdir=", "hydra.run.dir=")
REBUILT = " (rebuilt from the jobs' overrides)"


def distinct(values, listed: int = LISTED) -> tuple[list[str], int]:
    """The distinct values recorded, by name: the first `listed`, and how many more there are."""
    shown = sorted({str(v) for v in values if v is not None and v == v and v != ""})  # v == v: not NaN
    return shown[:listed], max(len(shown) - listed, 0)


def text(values, listed: int = LISTED) -> Optional[str]:
    """`distinct` values as one text ("compiled, graphed"; "a, b, c, d and 2 more"); None: none recorded."""
    shown, more = distinct(values, listed)
    if not shown:
        return None
    return ", ".join(shown) + (f" and {more} more" if more else "")


def command(multirun: Optional[str], overrides: list[list[str]]) -> Optional[str]:
    """The sweep's command: from its multirun.yaml's text where it has one that says it, else rebuilt
    from the jobs' overrides (REBUILT appended); None where neither says anything."""
    if multirun is not None:
        try:
            said = (yaml.safe_load(multirun) or {})["hydra"]["overrides"]
            task = [str(o) for o in said.get("task") or []]
            how = [str(o) for o in said.get("hydra") or [] if not str(o).startswith(MACHINE_OVERRIDES)]
            return " ".join(["python run.py -m", *map(shlex.quote, how + task)])
        except (yaml.YAMLError, KeyError, TypeError, AttributeError):
            pass  # not Hydra's record: the jobs' overrides say it instead
    values: dict[str, list[str]] = {}  # each key's values in the order the sweep ran them (its jobs' order)
    for job in overrides:
        for o in job:
            key, _, value = o.partition("=")
            if value not in values.setdefault(key, []):
                values[key].append(value)
    if not values:
        return None
    sweep = len(overrides) > 1
    return " ".join(["python run.py" + " -m" * sweep, *(shlex.quote(f"{k}={','.join(v)}") for k, v in values.items())]
                    ) + REBUILT


def _commit(prov: dict) -> Optional[str]:
    sha = prov.get("git_commit")
    if not sha:
        return None
    return sha[:12] + {True: " with uncommitted changes", False: "", None: " (uncommitted changes not recorded)"}[
        prov.get("git_dirty")]


def _device(row) -> Optional[str]:
    """The device and its model: the GPU's name on CUDA, the CPU's where the loop ran there."""
    prov = row.provenance
    model = prov.get("gpu") if row.device == "cuda" else prov.get("cpu_model") if row.device == "cpu" else None
    return f"{row.device} ({model})" if model else row.device


def _cpu(prov: dict) -> Optional[str]:
    count = prov.get("cpu_count")
    model = prov.get("cpu_model")
    if model is None and count is None:
        return None
    return f"{model or 'model not recorded'}" + (f", {count} CPUs" if count else "")


def fields(jobs: pd.DataFrame, sweeps: dict) -> dict:
    """Each field of what was measured over the jobs, as text: its distinct values (None: not recorded);
    `dirty`: true where any job ran with uncommitted changes, false where every job recorded none, null
    where not recorded; `command`: each sweep's, the distinct ones in a list."""
    prov = list(jobs["provenance"])
    dirty = {p.get("git_dirty") for p in prov if p.get("git_commit")}
    commands = [command(sweeps.get(sweep), list(sub.sort_values(["run_start", "path"])["overrides"]))
                for sweep, sub in jobs.groupby("sweep")]
    return {
        "game": text(jobs["game"]), "network": text(jobs["network"]), "runtime": text(jobs["runtime"]),
        "backend": text(jobs["backend"]), "device": text(_device(r) for r in jobs.itertuples()),
        "cpu": text(map(_cpu, prov)), "torch": text(p.get("torch") for p in prov),
        "ale_py": text(p.get("ale_py") for p in prov), "python": text(p.get("python") for p in prov),
        "commit": text(map(_commit, prov)),
        "dirty": True if True in dirty else False if dirty == {False} else None,
        "command": distinct(commands, listed=len(commands))[0],
    }


def meta(jobs: pd.DataFrame, sweeps: dict) -> dict:
    """What chart.json's `meta` adds (`fields`)."""
    return fields(jobs, sweeps) if len(jobs) else {}


def markdown(c: Collection) -> list[str]:
    """The lines table.md opens with; none where no job was read."""
    jobs = c.jobs_and_stopped
    if jobs.empty:
        return []
    f = fields(jobs, c.sweeps)
    said = lambda key: f[key] or "not recorded"  # noqa: E731
    versions = ", ".join(f"{name} {f[key]}" for name, key in (("torch", "torch"), ("ale-py", "ale_py"),
                                                                ("python", "python")) if f[key])
    shown = [f"`{x.removesuffix(REBUILT)}`" + REBUILT * x.endswith(REBUILT) for x in f["command"][:COMMANDS]]
    more = len(f["command"]) - len(shown)
    commands = "; ".join(shown) + (f" and {more} more sweeps" if more > 0 else "")
    times = sorted(t for t in jobs["finished_at"] if t)
    when = f", the last finished {times[-1][:16].replace('T', ' ')} UTC" if times else ""
    return ["**What was measured**", "",
            f"- game: {said('game')}; network: {said('network')}; runtime: {said('runtime')}; "
            f"backend: {said('backend')}",
            f"- device: {said('device')}; CPU: {said('cpu')}",
            f"- versions: {versions or 'not recorded'}",
            f"- commit: {said('commit')}",
            f"- command: {commands or 'not recorded'}",
            f"- jobs: {len(jobs)}{when}", ""]
