"""The limit the probes set on a loop: min over the probes, an input of the bound each loop is held to.

Each probe (the registry's modes of kind "probe": today env_only, the emulators alone, and
agent_only, the agent alone) measures one side of the loop without the other. No overlap can
beat the slower side, so limit = min over the probes; serial = 1 / (sum of 1/probe) is no
overlap at all. The limit is no efficiency of its own: bound_per_design holds each loop to ONE
bound (the chain of an env waiting for its batch, or this limit, by the loop's design) and gives
the loop's share of it; the limit is one of that bound's inputs, and the probe that set it
(`limit_probe`) is named where a loop beats it. This section adds its columns to the throughput
table (and under it, the loops whose bound waits for a probe not measured); it writes no file of
its own. The loop over a probe timed in its own job is interleaved's.

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
from .common import ROUND, pooled_mean, probes
from .load import Collection


def build(c: Collection) -> None:
    _limits(c.table, c.jobs)


def probe_key(ident: dict, probe: str) -> str:
    """What a probe's figure depends on, out of a group's identity: all of it for a probe that runs
    the agent; for the emulators alone, all but the agent's keys and the seed. Never a pair of loop
    modes that took turns over one build (`schedule.interleave` in a group's identity): their build
    is the same as a job of its own's."""
    ident = {k: v for k, v in ident.items() if k != "schedule.interleave"}  # null or a pair
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


def notes(t: pd.DataFrame) -> list[str]:
    """The lines under a group's table on its loops without a bound: which probe is missing (said only
    where the configuration has probes at all)."""
    missing = t[(t["limit_missing"] != "") & ~t["mode_name"].isin(probes())]
    if missing.empty or not t["mode_name"].isin(probes()).any():
        return []
    return [""] + [f"- no bound for {mode} at num_envs {', '.join(map(str, sorted(s['num_envs'])))}: {what} "
                   "not measured" + (" in a job of its own (it ran interleaved in the loop's jobs: see the loop "
                                     "over it below)" if _interleaved(s, what) else "")
                   for (mode, what), s in missing.groupby(["mode", "limit_missing"], sort=False)]


def _interleaved(rows: pd.DataFrame, missing: str) -> bool:
    """Whether every probe `missing` names ran interleaved in loop jobs at each of these rows' cells."""
    ran = rows["interleaved"] if "interleaved" in rows else pd.Series("", index=rows.index)
    return all(p in here.split("/") for p in probes() if f"{p} groups=" in missing for here in ran)


