"""Where the loop step's time goes: the phase clocks of profiled jobs, averaged over rounds.

Jobs run with `schedule.profile=true` carry the ms per loop step of each phase (see
ppo_bench.loop.phases); per group x mode x num_envs their mean over the jobs (rounds) is one row
of phases.csv and of a section of table.md. Without profiled jobs there is neither.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ppo_bench.record.parts import PHASES
from .common import csv_of, md_table, sort_modes
from .load import Collection

COLUMNS = [*PHASES, "drain", "other"]
FILES = ("phases.csv",)


def build(c: Collection) -> None:
    """Mean ms per loop step of each phase over the profiled jobs (rounds) of a cell."""
    have = c.jobs[c.jobs["phases"].notna()]
    if have.empty:
        c.phases = pd.DataFrame()
        return
    # a phase a job's record does not hold (clocked since: `observe`) stays empty, not 0: its time is in `other`
    ms = pd.DataFrame(list(have["phases"]), index=have.index).reindex(columns=COLUMNS)
    cells = pd.concat([have[["group", "mode", "num_envs"]], ms], axis=1).groupby(["group", "mode", "num_envs"])
    t = cells.mean()
    t["total"] = t[COLUMNS].sum(axis=1)
    t["jobs"] = cells.size()
    c.phases = sort_modes(t.reset_index(), ["group", "mode", "num_envs"])


def markdown(c: Collection) -> list[str]:
    if c.phases.empty:
        return []
    lines = ["**Where the time goes** (schedule.profile=true: ms per loop step, seen from the host; "
             "action_download holds the wait for the device)", ""]
    for g, t in c.phases.groupby("group", sort=False):
        if c.phases["group"].nunique() > 1:
            lines += [f"*{g}*", ""]
        rows = [[r.mode, str(r.num_envs), *("-" if pd.isna(getattr(r, k)) else f"{getattr(r, k):.3f}"
                                            for k in COLUMNS), f"{r.total:.3f}"]
                for r in t.itertuples()]
        lines += md_table(["mode", "num_envs", *COLUMNS, "total"], rows) + [""]
    return lines


def write(c: Collection, out: Path, plot: bool) -> list[Path]:
    """phases.csv where some job was profiled; returns the files written."""
    return csv_of(c.phases, out / "phases.csv")
