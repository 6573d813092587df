"""Where a job's start-up went: the seconds from the job's start to its first timed step (or, for a
learning run, to its loop's start), split by the record's own clocks (`timing`).

A job's start-up is what a user waits for before anything is measured, and most of a short job on a
fast machine. Its parts, each from one record:

- check: the parent's config check (it imports torch to ask for CUDA), beside the fork server's imports;
- before the child: from the job's start to the child's first line (`forked_s`: the fork server's start
  and imports, once per sweep, so a sweep's first job pays them and the others barely, and the fork);
- of which imports: the fork server's imports where this job's child waited for them, from the job's start
  (`imports.took_s`, less what a server started with run.py imported before the job began: `imports.began_s` < 0);
- provenance: the child's own start (git, the CUDA probe), `startup_s - forked_s`;
- each part of the set-up (`timing.setup`: emulators, agent, driver, as the job's build names them);
- first step: the loop's first step (CUDA graphs' capture, torch.compile) and the rest of the warm-up;
- parked: a job started ahead of its turn (setup_batch) waiting for it after its first step, set up,
  while the jobs before it ran (`timing.parked_at`, `unparked_at`). Not in the total: the sweep spent
  that time on those jobs, not on this one's start.

Per group x mode x num_envs the median of each part over the jobs (rounds, seeds) is one row of
startup.csv and of a section of table.md, with the total's smallest and largest beside it, since the
sweep's first job differs from the others. Only finished jobs count; jobs whose records predate
these clocks are left out. Without any, there is neither.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Optional

import pandas as pd

from ppo_bench.record.parts import Timing
from ppo_bench.record.typed import UNSET
from .common import csv_of, md_table, sort_modes
from .load import Collection

FILES = ("startup.csv",)
BEFORE_SETUP = ("check", "before_child", "imports", "provenance")
AFTER_SETUP = ("first_step", "parked", "warm_up")


def _given(value) -> Optional[float]:
    return None if value is None or value is UNSET else float(value)


def parts_of(timing: Timing) -> Optional[dict]:
    """A record's start-up in seconds by part, with its total; None where its clocks lack the start-up
    or the set-up (a record from before them, or a job that stopped before its loop)."""
    startup, setup = _given(timing.startup_s), _given(timing.setup_s)
    if startup is None or setup is None:
        return None
    forked, first, warm = _given(timing.forked_s), _given(timing.first_step_s), _given(timing.warmup_s)
    imports = None
    if timing.imports not in (None, UNSET):  # their seconds after the job's start, the part it waited for
        took, began = _given(timing.imports.took_s), _given(timing.imports.began_s)
        imports = None if took is None else took + min(began or 0.0, 0.0)
    setup_parts = {} if timing.setup in (None, UNSET) else {k: float(v) for k, v in timing.setup.items()}
    parked = None
    if timing.parked_at not in (None, UNSET) and timing.unparked_at not in (None, UNSET):
        parked = (datetime.fromisoformat(timing.unparked_at) - datetime.fromisoformat(timing.parked_at)).total_seconds()
    return {"check": _given(timing.check_s), "before_child": forked, "imports": imports,
            "provenance": None if forked is None else startup - forked, **setup_parts,
            "first_step": first, "parked": parked, "warm_up": None if first is None or warm is None else warm - first,
            "total": startup + setup + (warm or 0.0)}


def build(c: Collection) -> None:
    """Median seconds of each start-up part over the finished jobs of a cell, the total's range beside."""
    found = {i: parts_of(t) for i, t in c.jobs["timing"].items()}
    have = c.jobs.loc[[i for i, parts in found.items() if parts is not None]]
    if have.empty:
        c.startup = pd.DataFrame()
        return
    seconds = pd.DataFrame([found[i] for i in have.index], index=have.index)
    setup_cols = [k for k in seconds.columns if k not in (*BEFORE_SETUP, *AFTER_SETUP, "total")]
    seconds = seconds[[*BEFORE_SETUP, *setup_cols, *AFTER_SETUP, "total"]]
    if seconds["parked"].isna().all():  # no job was started ahead: no column of dashes
        seconds = seconds.drop(columns="parked")
    cells = pd.concat([have[["group", "mode", "num_envs"]], seconds], axis=1).groupby(["group", "mode", "num_envs"])
    t = cells.median()
    t["total_min"], t["total_max"], t["jobs"] = cells["total"].min(), cells["total"].max(), cells.size()
    c.startup = sort_modes(t.reset_index(), ["group", "mode", "num_envs"])


def markdown(c: Collection) -> list[str]:
    if c.startup.empty:
        return []
    parts = [k for k in c.startup.columns
             if k not in ("group", "mode", "num_envs", "total", "total_min", "total_max", "jobs")]
    lines = ["**Where start-up went** (seconds from the job's start to its first timed step, a learning run's "
             "to its loop's start; median over the jobs, the total's range beside it)", ""]
    for g, t in c.startup.groupby("group", sort=False):
        if c.startup["group"].nunique() > 1:
            lines += [f"*{g}*", ""]
        rows = [[r["mode"], str(r["num_envs"]), str(r["jobs"]),
                 f"{r['total']:.1f} [{r['total_min']:.1f}, {r['total_max']:.1f}]",
                 *("-" if pd.isna(r[k]) else f"{r[k]:.1f}" for k in parts)]
                for _, r in t.iterrows()]
        lines += md_table(["mode", "num_envs", "jobs", "total", *(k.replace("_", " ") for k in parts)], rows) + [""]
    lines += ["check = the parent's config check, beside the fork server's imports; before child = the job's "
              "start to its process's first line (the fork server's imports: a sweep's first job waits for "
              "them), of which imports = the imports' seconds after the job's start; provenance = the child's "
              "own start; then the set-up's parts; first step = the loop's first step (graph capture, "
              "compilation); parked = a job started ahead (setup_batch) waiting for its turn after its first step, "
              "not in total; warm up = the rest of the warm-up", ""]
    return lines


def write(c: Collection, out: Path, plot: bool) -> list[Path]:
    """startup.csv where some finished job has the start-up clocks; returns the files written."""
    return csv_of(c.startup, out / "startup.csv")
