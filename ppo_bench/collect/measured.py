"""What was measured: the lines table.md opens with, and the same in each chart.json's `meta`.

A table read away from its sweep (pasted in a report, a summary committed without its results)
must say what its figures are of: the game, network, agent runtime and env backend, the device
with its model (the GPU's name, or the CPU's where the loop ran there) and the CPU the emulators
ran on, the torch and ale-py versions, the commit and whether it had uncommitted changes, and the
commands that ran. All of it is read from the records' `provenance` and config; where the jobs
differ, the distinct values are listed ("runtime: compiled, graphed"), a few and then a count.

Every command that ran a sweep into a folder is listed, oldest first, from the folder's history,
`<sweep dir>/.commands.jsonl` (launch.history writes a line per command: its overrides, the Hydra
overrides that chose how it ran, the sweeper's params): `python run.py -m`, the Hydra ones less this
machine's folder and mode, then its own. Where a folder has none, Hydra's `multirun.yaml` gives one
command, its last sweep's (Hydra writes it over the one before). A sweep with neither (an older copy,
single runs) gets its commands rebuilt from its jobs' overrides, each key with its values in the order
its jobs ran, and says so; never merged into one command that would fail or run jobs that never ran:
jobs of other keys are another command, and jobs that are no one sweep's product are split until each
command is one.
"""

from __future__ import annotations

import json
import math
import shlex
from typing import Optional

import pandas as pd
import yaml

from .load import Collection

LISTED = 4  # distinct values shown per field; the rest counted
COMMANDS = 8  # distinct commands shown in table.md (chart.json's meta has them all)
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


def _command(task: list, how: list) -> str:
    """`python run.py -m` with a sweep's Hydra overrides (less this machine's: MACHINE_OVERRIDES) and its own."""
    how = [str(o) for o in how if not str(o).startswith(MACHINE_OVERRIDES)]
    return " ".join(["python run.py -m", *map(shlex.quote, how + [str(o) for o in task])])


def _from_history(history: Optional[str]) -> list[str]:
    """The commands a folder's history (.commands.jsonl) names, oldest first, each once; a line that is no
    command's is passed over (the others still say theirs)."""
    found = []
    for line in (history or "").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("task"), list):
            found.append(_command(entry["task"], entry.get("hydra") if isinstance(entry.get("hydra"), list) else []))
    return list(dict.fromkeys(found))


def _from_multirun(multirun: Optional[str]) -> list[str]:
    """The command in Hydra's multirun.yaml (its last sweep's only); none where it says none."""
    try:
        said = (yaml.safe_load(multirun or "") or {})["hydra"]["overrides"]
        return [_command(said.get("task") or [], said.get("hydra") or [])]
    except (yaml.YAMLError, KeyError, TypeError, AttributeError):
        return []  # not Hydra's record: the jobs' overrides say it instead


def _products(jobs: list[dict], keys: list[str]) -> list[dict[str, list[str]]]:
    """Jobs of the same keys as sweeps that would run exactly them: each a value list per key whose product is
    its jobs. Where the jobs are not one product (two commands' jobs, or one sweep's with some missing), they
    are split by their first varying key, and parts that differ in that key alone are joined again."""
    values = {k: list(dict.fromkeys(j[k] for j in jobs)) for k in keys}
    if len({tuple(j[k] for k in keys) for j in jobs}) == math.prod(len(v) for v in values.values()):
        return [values]
    split = next(k for k in keys if len(values[k]) > 1)
    parts: list[dict[str, list[str]]] = []
    for value in values[split]:
        for part in _products([j for j in jobs if j[split] == value], keys):
            same = next((p for p in parts if all(set(p[k]) == set(part[k]) for k in keys if k != split)), None)
            if same is None:
                parts.append(part)
            else:
                same[split] += [v for v in part[split] if v not in same[split]]
    return parts


def _rebuilt(overrides: list[list[str]]) -> list[str]:
    """Commands rebuilt from the jobs' overrides, each key with its values in the order its jobs ran, never
    two commands merged into one: jobs of other keys are another command, and jobs of the same keys that
    are no one sweep's product are split until each is (`_products`). REBUILT appended; -m where a command
    runs more than one job."""
    by_keys: dict[tuple, list[dict]] = {}
    for job in overrides:
        pairs = dict(o.partition("=")[::2] for o in job)
        by_keys.setdefault(tuple(pairs), []).append(pairs)
    found = []
    for keys, jobs in by_keys.items():
        for values in _products(jobs, list(keys)):
            sweep = math.prod(len(v) for v in values.values()) > 1
            found.append(" ".join(["python run.py" + " -m" * sweep,
                                   *(shlex.quote(f"{k}={','.join(v)}") for k, v in values.items())]) + REBUILT)
    return found


def commands(history: Optional[str], multirun: Optional[str], overrides: list[list[str]]) -> list[str]:
    """Every command that ran a sweep into a folder: its history's (`<sweep dir>/.commands.jsonl`, oldest
    first), else its multirun.yaml's (Hydra keeps the last only), else rebuilt from its jobs' overrides
    (`_rebuilt`); none where nothing says."""
    return _from_history(history) or _from_multirun(multirun) or _rebuilt([o for o in overrides if o])


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


def fields(jobs: pd.DataFrame, sweeps: dict, histories: Optional[dict] = None, unmeasured: list[dict] = ()) -> dict:
    """Each field of what was measured over the jobs, as text: its distinct values (None: not recorded);
    `dirty`: true where any job ran with uncommitted changes, false where every job recorded none, null
    where not recorded; `command`: every sweep's commands (`commands`; `sweeps` and `histories`: each sweep
    folder's multirun.yaml and .commands.jsonl; `unmeasured`: the failed and skipped jobs, which a command
    named too), the distinct ones in a list, in the order they ran."""
    prov = list(jobs["provenance"])
    dirty = {p.get("git_dirty") for p in prov if p.get("git_commit")}
    launched = pd.concat([jobs[["sweep", "run_start", "path", "overrides"]], pd.DataFrame(
        list(unmeasured), columns=["sweep", "path", "overrides"])], ignore_index=True)
    found = [x for sweep, sub in launched.groupby("sweep")
             for x in commands((histories or {}).get(sweep), sweeps.get(sweep),
                               list(sub.sort_values(["run_start", "path"], na_position="last")["overrides"]))]
    return {
        "game": text(jobs["game"]), "network": text(jobs["network"]), "runtime": text(jobs["runtime"]),
        "backend": text(jobs["backend"]), "device": text(_device(r) for r in jobs.itertuples()),
        "cpu": text(map(_cpu, prov)), "torch": text(p.get("torch") for p in prov),
        "ale_py": text(p.get("ale_py") for p in prov), "python": text(p.get("python") for p in prov),
        "commit": text(map(_commit, prov)),
        "dirty": True if True in dirty else False if dirty == {False} else None,
        "command": list(dict.fromkeys(found)),
    }


def meta(jobs: pd.DataFrame, sweeps: dict, histories: Optional[dict] = None) -> dict:
    """What chart.json's `meta` adds (`fields`)."""
    return fields(jobs, sweeps, histories) if len(jobs) else {}


def command_text(found: list[str]) -> str:
    """Commands as table.md says them: each in backticks (REBUILT after it), the first COMMANDS, then a count."""
    shown = [f"`{x.removesuffix(REBUILT)}`" + REBUILT * x.endswith(REBUILT) for x in found[:COMMANDS]]
    more = len(found) - len(shown)
    return "; ".join(shown) + (f" and {more} more (chart.json's meta lists them all)" if more > 0 else "")


def markdown(c: Collection) -> list[str]:
    """The lines table.md opens with; none where no job was read."""
    jobs = c.jobs_and_stopped
    if jobs.empty:
        return []
    f = fields(jobs, c.sweeps, c.histories, c.unmeasured)
    said = lambda key: f[key] or "not recorded"  # noqa: E731
    versions = ", ".join(f"{name} {f[key]}" for name, key in (("torch", "torch"), ("ale-py", "ale_py"),
                                                                ("python", "python")) if f[key])
    times = sorted(t for t in jobs["finished_at"] if t)
    when = f", the last finished {times[-1][:16].replace('T', ' ')} UTC" if times else ""
    return ["**What was measured**", "",
            f"- game: {said('game')}; network: {said('network')}; runtime: {said('runtime')}; "
            f"backend: {said('backend')}",
            f"- device: {said('device')}; CPU: {said('cpu')}",
            f"- versions: {versions or 'not recorded'}",
            f"- commit: {said('commit')}",
            f"- command: {command_text(f['command']) or 'not recorded'}",
            f"- jobs: {len(jobs)}{when}", ""]
