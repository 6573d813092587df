"""The limit the probes set on a loop, and how close each loop comes to it (its efficiency).

Each probe (the registry's modes of kind "probe": today env_only, the emulators alone, and
agent_only, the agent alone) measures one side of the loop without the other. No overlap can
beat the slower side, so limit = min over the probes; serial = 1 / (sum of 1/probe) is no
overlap at all. A loop's efficiency is its throughput over that limit, pooled and paired by
round. No loop can beat its slower side, so an efficiency over 1 means the probe that set the
limit (`limit_probe`) measured low, from noise or a disturbed run: such a cell is flagged and a
line under the table names the probe. This section adds those columns to the throughput table
and its limit and efficiency columns to the throughput section's markdown; it writes no file of
its own. The bound a loop is held to by its design, of which this limit is one, is
bound_per_design's; the loop over a probe timed in its own job, interleaved's.

A probe bounds the loops of its own group; a probe of the emulators alone (no agent) also bounds
the loops of any group that differs from its own only in what it does not run (the agent's keys,
the seed): the emulators at agent.overlap=false bound the loop at agent.overlap=true. Its own
group's probe is taken first; another group's only where exactly one matches (`probe_key`).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from ppo_bench.registry import MODES
from .common import ROUND, bounded, interval, marks, paired, pooled_mean, probes
from .load import Collection

OVER = " (over 100%)"  # an efficiency that is none: the limit's probe measured low (`notes`)


def legend(table: pd.DataFrame, lines: list[str]) -> list[str]:
    """What the throughput legend adds where the tables in `lines` show a limit: the limit, the
    efficiency and, where one is flagged, an efficiency over 100%."""
    if not table["limit"].notna().any():
        return []
    items = [f"limit = min({', '.join(probes())}) at the loop's groups: no overlap beats the slower side",
             "eff <mode> = mean over limit, and paired: per round, the loop over that round's "
             f"min({', '.join(probes())}), t-interval on log ratios"]
    return items + (["(over 100%) = the loop beat its limit: the probe that set it measured low (said under "
                     "its table)"] if any(OVER in line for line in lines) else [])


def build(c: Collection) -> None:
    _limits(c.table, c.jobs)
    _paired_efficiency(c.table, c.jobs)


def probe_key(ident: dict, probe: str) -> str:
    """What a probe's figure depends on, out of a group's identity: all of it for a probe that runs
    the agent; for the emulators alone, all but the agent's keys and the seed."""
    if not MODES[probe].agent:
        ident = {k: v for k, v in ident.items() if not k.startswith("agent.") and k != "seed"}
    return json.dumps(ident, sort_keys=True)


def keys_by_group(jobs: pd.DataFrame, probe: str) -> dict:
    """Each group's `probe_key` for `probe`: what `lender` matches groups by."""
    return {g: probe_key(i, probe) for g, i in zip(jobs["group"], jobs["ident"])}


def lender(pkey: dict, group: Any, measured: set) -> Any:
    """The group whose probe figure `group` takes at a cell where the groups `measured` ran the
    probe: its own, else the one other group with its `probe_key` (None where none or two did:
    which of two would be a guess). The one lending rule of the limit, its rounds and the
    interleaved probe's comparison with jobs of its own."""
    if group in measured:
        return group
    alike = [g for g in measured if pkey.get(g) is not None and pkey.get(g) == pkey.get(group)]
    return alike[0] if len(alike) == 1 else None


def probe_means(table: pd.DataFrame, jobs: pd.DataFrame) -> pd.DataFrame:
    """Per row of `table`, each probe's pooled mean at the row's groups and num_envs (a column per
    probe, in `table`'s order), from the group `lender` names; NaN where that probe was not
    measured there, or where two variants of it differ in another mode key (no one bound)."""
    found = pd.DataFrame(index=table.index)
    cells = list(zip(table["group"], table["groups"], table["num_envs"]))
    for name in probes():
        rows = table[table["mode_name"] == name]
        means = {k: (r["mean"].iloc[0] if len(r) == 1 else np.nan)  # variants: no one bound
                 for k, r in rows.groupby(["group", "groups", "num_envs"])}
        measured: dict = {}
        for g, groups, n in means:
            measured.setdefault((groups, n), set()).add(g)
        pkey = keys_by_group(jobs, name)
        lent = [lender(pkey, g, measured.get((groups, n), set())) for g, groups, n in cells]
        found[name] = [np.nan if src is None else means[(src, groups, n)]
                       for src, (_, groups, n) in zip(lent, cells)]
    return found


def _limits(table: pd.DataFrame, jobs: pd.DataFrame) -> None:
    """limit = min over the probes, serial = 1 / (sum of 1/probe), both at the row's groups.

    A mode with g groups is bounded by the probes that ran at g groups too: a probe at another
    g measures other batch sizes, so where one is missing the limit stays empty and
    `limit_missing` names the probe.
    """
    found = probe_means(table, jobs)
    sides = [found[name].to_numpy() for name in probes()]
    table["limit"] = np.minimum.reduce(sides)  # NaN where any is missing
    table["serial"] = 1 / sum(1 / side for side in sides)
    table["efficiency"] = (table["mean"] / table["limit"]).where(~table["mode_name"].isin(probes()))
    table["limit_missing"] = [" and ".join(f"{p} groups={g}" for p in probes() if pd.isna(m[p]))
                              for m, g in zip(found.to_dict("records"), table["groups"])]
    table["limit_probe"] = [min(probes(), key=lambda p: m[p]) if pd.notna(lim) else ""  # the slower side
                            for m, lim in zip(found.to_dict("records"), table["limit"])]


def loop_rounds(jobs: pd.DataFrame) -> dict:
    """Per (group, mode, num_envs), each round's pooled mean, by round (`ROUND`)."""
    return {k: {rnd: pooled_mean(r) for rnd, r in s.groupby(ROUND)}
            for k, s in jobs.groupby(["group", "mode", "num_envs"])}


def probe_rounds(jobs: pd.DataFrame) -> dict:
    """Each probe's pooled mean per round, keyed (group, probe, groups, num_envs, *round): by mode name
    and groups, as `probe_means` matches probes; where two probe variants share those, `probe_means`
    left the bound empty and the row is passed over. A group that ran no job of a probe at a cell
    borrows it there, round by round, from the group `lender` names."""
    found = {k: pooled_mean(s) for k, s in jobs[jobs["mode_name"].isin(probes())].groupby(
        ["group", "mode_name", "groups", "num_envs", *ROUND])}
    for name in probes():
        pkey = keys_by_group(jobs, name)
        measured: dict = {}
        for g, p, groups, n, *rnd in found:
            if p == name:
                measured.setdefault((groups, n, *rnd), set()).add(g)
        own_cells = {(g, cell[0], cell[1]) for cell, gs in measured.items() for g in gs}
        for group in pkey:
            for cell, gs in measured.items():
                src = lender(pkey, group, gs)
                if src not in (None, group) and (group, cell[0], cell[1]) not in own_cells:
                    found[(group, name, *cell)] = found[(src, name, *cell)]
    return found


def _paired_efficiency(table: pd.DataFrame, jobs: pd.DataFrame) -> None:
    """Per loop row, the efficiency paired by round: per round with the loop and every probe at its
    groups, the loop's mean over that round's smallest probe; a t-interval on the logs of 2 rounds
    or more (`efficiency_paired`, `_lo`, `_hi`, `efficiency_rounds`).

    The pooled efficiency divides means taken minutes apart; on a machine that drifts 5-15% the
    per-round quotient of back-to-back jobs is what says whether a loop reaches its limit.
    """
    loops, bounds = loop_rounds(jobs), probe_rounds(jobs)
    cols = {c: [] for c in ("efficiency_paired", "efficiency_lo", "efficiency_hi", "efficiency_rounds")}
    for r in table.itertuples():
        ratios = []
        if r.mode_name not in probes() and pd.notna(r.limit):
            for rnd, loop in sorted(loops.get((r.group, r.mode, r.num_envs), {}).items()):
                bound = [bounds.get((r.group, p, r.groups, r.num_envs, *rnd)) for p in probes()]
                if None not in bound:
                    ratios.append(loop / min(bound))
        for c, v in zip(cols, (*interval(paired(ratios)), len(ratios))):
            cols[c].append(v)
    for c, v in cols.items():
        table[c] = v


def columns(t: pd.DataFrame, loops: list[str]) -> tuple[list[str], dict[int, list[str]]]:
    """One group's limit and efficiency columns in its throughput table: the header, and the cells
    per num_envs (none where no limit was measured)."""
    limits = t[t["limit"].notna()].drop_duplicates(["groups", "num_envs"]).set_index(["groups", "num_envs"])["limit"]
    limit_groups = sorted(set(limits.index.get_level_values("groups")))
    header = (["limit" if g == 1 else f"limit groups={g}" for g in limit_groups]
              + ([f"eff {m}" for m in loops] if limit_groups else []))
    cell = {(r.mode, r.num_envs): r for r in t.itertuples()}
    cells = {}
    for n in sorted(t["num_envs"].unique()):
        row = [f"{limits[(g, n)]:.0f}" if (g, n) in limits.index else "" for g in limit_groups]
        if limit_groups:
            row += [_efficiency_cell(cell.get((m, n))) for m in loops]
        cells[n] = row
    return header, cells


def _over(r) -> bool:
    """Whether a loop's efficiency, pooled or paired, exceeds 1: no loop can beat its slower side, so
    the probe that set the limit measured low (noise, a disturbed run), and the figure is no efficiency."""
    return bool(r.efficiency > 1 or r.efficiency_paired > 1)  # NaN compares False


def _efficiency_cell(r) -> str:
    """The pooled efficiency, and the paired one with its interval where 2 rounds or more had the loop
    and every probe; flagged where either is over 100% (see `notes`)."""
    if r is None or pd.isna(r.efficiency):
        return ""
    flag = OVER if _over(r) else ""
    if pd.isna(r.efficiency_paired):
        return f"{r.efficiency:.0%}{flag}"
    lo, hi = ("?" if pd.isna(x) else f"{x:.0%}" for x in (r.efficiency_lo, r.efficiency_hi))
    return (f"{r.efficiency:.0%}; paired {r.efficiency_paired:.0%} [{lo}, {hi}]"
            f"{marks(r.efficiency_lo, r.efficiency_hi, about_one=False)}{flag}")


def notes(t: pd.DataFrame) -> list[str]:
    """The lines under a group's table: which probe an empty limit waits for (said only where the
    configuration has probes at all), and each efficiency over 100% with the probe that set its limit."""
    lines = []
    missing = t[t["limit_missing"] != ""]
    if not missing.empty and t["mode_name"].isin(probes()).any():
        lines += [f"- no limit for {mode} at num_envs {', '.join(map(str, sorted(s['num_envs'])))}: {what} "
                  "not measured" + (" in a job of its own (it ran interleaved in the loop's jobs: see the loop "
                                    "over it below)" if _interleaved(s, what) else "")
                  for (mode, what), s in missing.groupby(["mode", "limit_missing"], sort=False)]
    over = [r for r in t.sort_values("num_envs").itertuples() if pd.notna(r.efficiency) and _over(r)]
    lines += bounded([f"- eff over 100% for {r.mode} at num_envs {r.num_envs}: the limit ({r.limit:.0f}) is "
                      f"{r.limit_probe}{'' if r.groups == 1 else f' groups={r.groups}'}'s mean, below what the loop "
                      "reached: that probe measured low (noisy or disturbed), so this efficiency is not a real one"
                      for r in over])
    return [""] + lines if lines else []


def _interleaved(rows: pd.DataFrame, missing: str) -> bool:
    """Whether every probe `missing` names ran interleaved in loop jobs at each of these rows' cells."""
    ran = rows["interleaved"] if "interleaved" in rows else pd.Series("", index=rows.index)
    return all(p in here.split("/") for p in probes() if f"{p} groups=" in missing for here in ran)


