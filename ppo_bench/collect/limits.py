"""The limit the probes set on a loop, and how close each loop comes to it (its efficiency).

Each probe (the registry's modes of kind "probe": today env_only, the emulators alone, and
agent_only, the agent alone) measures one side of the loop without the other. No overlap can
beat the slower side, so limit = min over the probes; serial = 1 / (sum of 1/probe) is no
overlap at all. A loop's efficiency is its throughput over that limit, pooled and paired by
round. No loop can beat its slower side, so an efficiency over 1 means the probe that set the
limit (`limit_probe`) measured low, from noise or a disturbed run: such a cell is flagged and a
line under the table names the probe. This section adds those columns to the throughput table
and its limit and efficiency columns to the throughput section's markdown; it writes no file of
its own.

A probe bounds the loops of its own group; a probe of the emulators alone (no agent) also bounds
the loops of any group that differs from its own only in what it does not run (the agent's keys,
the seed): the emulators at agent.overlap=false bound the loop at agent.overlap=true. Its own
group's probe is taken first; another group's only where exactly one matches (`probe_key`).

Interleaved (schedule.interleave): a loop job that also timed a probe of the emulators after each
of its reps, in the same process over the same emulators, carries those reps (`interleaved`). On a
machine where the emulators' speed drifts 10-30% between processes but a few % within one, the
loop's ratio to that probe is best read rep by rep within the job: per pair, the loop's rep over
the probe's rep that followed it. Per group x mode x groups x num_envs, all pairs of its jobs are
pooled (geometric mean, t-interval on the log ratios), and each job's own ratio is listed beside
them, so that drift between jobs shows against the spread within one. This is a section of
table.md and interleaved.csv (a row per cell, then one per job), none without such jobs. A job
whose two lists differ in length is paired on their common prefix, and said so. Where the probe
also ran in jobs of its own at a cell, the cell's row sets its interleaved reps against theirs
(`own_*`): the limit divides by those jobs, so the two timings of the same emulators should agree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ppo_bench.record import stats
from ppo_bench.registry import MODES
from .common import (ROUND, bounded, decimals, interval, marks, marks_legend, md_table, mode_order, paired, pooled,
                     pooled_mean, probes, ratio_cell)
from .load import Collection

OVER = " (over 100%)"  # an efficiency that is none: the limit's probe measured low (`notes`)
INTERLEAVED_FILE = "interleaved.csv"
INTERLEAVED_KEY = ["group", "mode", "groups", "num_envs", "probe"]


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


def _keys_by_group(jobs: pd.DataFrame, probe: str) -> dict:
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
        pkey = _keys_by_group(jobs, name)
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
        pkey = _keys_by_group(jobs, name)
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


def _pairs(loop: list[float], probe: list[float]) -> dict:
    """Both sides' means and the loop over the probe paired rep by rep: geometric mean of the ratios,
    t-interval on their logs (none for one pair)."""
    ratio, lo, hi = interval(stats.paired_ratio_interval([a / b for a, b in zip(loop, probe)]))
    return {"loop_mean": float(np.mean(loop)), "probe_mean": float(np.mean(probe)), "ratio": ratio, "lo": lo,
            "hi": hi, "pairs": len(loop), "loop_reps": json.dumps(loop), "probe_reps": json.dumps(probe)}


def build_interleaved(c: Collection) -> None:
    """`Collection.interleaved`: per cell (INTERLEAVED_KEY) a row of all its jobs' pairs pooled, then a
    row per job (scope "job"); the means are over the paired reps only, as the ratio. A job whose lists
    differ in length pairs their common prefix and gets a line in `interleaved_notes`."""
    every = c.jobs_and_stopped  # a failed job's finished pairs count too
    if "interleaved" not in every:  # no job read
        return
    have = every[every["interleaved"].notna()]
    jobs, notes = [], []
    for j in have.sort_values(["sweep", "round", "path"]).itertuples():
        probe, rep = j.interleaved["mode"], j.interleaved["reps"]
        k = min(len(j.reps), len(rep))
        if pd.notna(j.stopped):
            notes.append(f"- {j.path}: failed after {len(j.reps)} loop reps ({j.stopped}): "
                         f"its {k} finished pairs are pooled")
        elif len(j.reps) != len(rep):
            notes.append(f"- {j.path}: {len(j.reps)} loop reps but {len(rep)} {probe} reps interleaved: "
                         f"only the first {k} are paired")
        if k:
            jobs.append({"group": j.group, "identity": j.identity, "mode": j.mode, "mode_name": j.mode_name,
                         "groups": j.groups, "num_envs": j.num_envs, "probe": probe, "scope": "job",
                         "path": j.path, "sweep": j.sweep, "round": j.round, "jobs": 1,
                         "loop": j.reps[:k], "rep": rep[:k]})
    rows = []
    cells = dict(list(pd.DataFrame(jobs).groupby(INTERLEAVED_KEY))) if jobs else {}
    for key in sorted(cells, key=lambda k: (k[0], mode_order(k[1]), *k[2:])):
        sub = cells[key]
        first = sub.iloc[0]
        rows.append({**dict(zip(INTERLEAVED_KEY, key)), "identity": first["identity"],
                     "mode_name": first["mode_name"], "scope": "pooled", "path": "", "sweep": "", "round": None,
                     "jobs": len(sub), **_pairs(pooled(sub["loop"]), pooled(sub["rep"])),
                     **_against_own_jobs(c, key, pooled(sub["rep"]))})
        rows += [{**{k: v for k, v in j.items() if k not in ("loop", "rep")}, **_pairs(j["loop"], j["rep"])}
                 for j in sub.to_dict("records")]
    c.interleaved = pd.DataFrame(rows).astype({"round": "Int64"}) if rows else pd.DataFrame()
    c.interleaved_notes = notes
    if c.ok:  # table.csv's `interleaved`: the probes that loop jobs at the row's cell interleaved ("a/b")
        ran = {}
        for j in jobs:
            ran.setdefault((j["group"], j["groups"], j["num_envs"]), set()).add(j["probe"])
        c.table["interleaved"] = ["/".join(sorted(ran.get(k, ()))) for k in
                                  zip(c.table["group"], c.table["groups"], c.table["num_envs"])]


def _against_own_jobs(c: Collection, key: tuple, interleaved: list[float]) -> dict:
    """The probe's reps in jobs of its own at the cell `key` (from the group `lender` names), and the
    interleaved reps over them (Welch t on the logs, unpaired): two ways of timing the same
    emulators, which the limit and the chain bound of jobs of its own take to agree. NaN where the
    probe ran in no job of its own there."""
    out = dict.fromkeys(("own_mean", "own_ratio", "own_lo", "own_hi"), np.nan)
    group, _, groups, num_envs, probe = key
    if not c.ok:
        return out
    jobs = c.jobs[(c.jobs["mode_name"] == probe) & (c.jobs["groups"] == groups) & (c.jobs["num_envs"] == num_envs)]
    src = lender(_keys_by_group(c.jobs, probe), group, set(jobs["group"]))
    jobs = jobs[jobs["group"] == src]
    if jobs.empty or len(jobs.drop_duplicates("identity")["mode_cfg"]) > 1:
        return out
    own = pooled(jobs["reps"])
    return dict(zip(out, (float(np.mean(own)), *interval(stats.ratio_interval(interleaved, own)))))


def per_job_cells(jobs: pd.DataFrame, prefix: str = "") -> list[str]:
    """Each interleaved job's own ratio (columns `<prefix>ratio`, `_lo`, `_hi`) as the sections list it:
    `r<round> 0.93x [0.91, 0.96]`, with the sweep's name where the jobs come from several sweeps
    (round 0 of two sweeps)."""
    several = jobs["sweep"].nunique() > 1
    return [f"{Path(j['sweep']).name + ' ' if several else ''}r{j['round']} "
            f"{ratio_cell(j[prefix + 'ratio'], j[prefix + 'lo'], j[prefix + 'hi'], mark=False)}"
            for _, j in jobs.iterrows()]


def interleaved_markdown(c: Collection) -> list[str]:
    """The section of table.md: per probe interleaved, a table of the pooled pairs per cell with each
    job's own ratio beside them (a table per group where there are several), the footer, the notes."""
    t = c.interleaved
    if t.empty and not c.interleaved_notes:
        return []
    lines = []
    for probe, p in (t.groupby("probe", sort=False) if not t.empty else []):
        start = len(lines)
        lines += [f"**Loop over {probe}, interleaved in one job** (same process, same emulators)", ""]
        cells, per_job = p[p["scope"] == "pooled"], dict(list(p[p["scope"] == "job"].groupby(INTERLEAVED_KEY)))
        own = bool("own_mean" in cells and cells["own_mean"].notna().any())
        for g, one in cells.groupby("group", sort=False):
            if cells["group"].nunique() > 1:
                lines += [f"*{g}*", ""]
            rows = []
            for r in one.itertuples():
                each = per_job_cells(per_job[tuple(getattr(r, k) for k in INTERLEAVED_KEY)])
                alone = ([] if not own else [""] if pd.isna(r.own_mean) else
                         [f"{r.own_mean:.{decimals(r.own_mean)}f}; {ratio_cell(r.own_ratio, r.own_lo, r.own_hi)}"])
                rows.append([r.mode, str(r.groups), str(r.num_envs), f"{r.loop_mean:.{decimals(r.loop_mean)}f}",
                             f"{r.probe_mean:.{decimals(r.probe_mean)}f}", *alone, ratio_cell(r.ratio, r.lo, r.hi),
                             str(r.pairs), str(r.jobs), "; ".join(bounded(each))])
            lines += md_table(["mode", "groups", "num_envs", "loop", probe, *([f"{probe} in jobs of its own"] * own),
                               f"loop/{probe} paired", "pairs", "jobs", "per job (round: loop/" + probe + ")"],
                              rows) + [""]
        lines += [f"loop, {probe} = mean env-steps/s over the paired reps; loop/{probe} paired = per repetition, "
                  f"the loop's rep over the {probe} rep that followed it in the same job, geometric mean with a "
                  "95% t-interval on the log ratios, all pairs of the row's jobs pooled; per job = the same over "
                  "one job's pairs: their spread is the drift between jobs (processes)"
                  + (f"; {probe} in jobs of its own = their mean at the row's groups and num_envs (the one the "
                     f"limit takes), then the interleaved {probe} reps over theirs (Welch t on the logs, unpaired): "
                     "off 1, the two timings of the same emulators disagree, and a limit or chain bound from the "
                     "jobs of its own is off as much" if own else "")
                  + "".join(f"; {m}" for m in marks_legend(lines[start:])), ""]
    if c.interleaved_notes:
        lines += ["Interleaved jobs that failed part-way or whose lists differ in length (paired on their "
                  "common prefix):", "",
                  *bounded(c.interleaved_notes), ""]
    return lines


def write(c: Collection, out: Path, plot: bool) -> list[Path]:
    """interleaved.csv where some job interleaved a probe (full precision, the paired reps as JSON);
    returns the files written."""
    if c.interleaved.empty:
        return []
    c.interleaved.to_csv(out / INTERLEAVED_FILE, index=False)
    return [out / INTERLEAVED_FILE]
