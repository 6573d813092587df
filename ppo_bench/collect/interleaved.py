"""Loops timed with a probe in the same job (schedule.interleave): the loop over the probe and over its
bound per design, rep by rep.

A loop job that also timed a probe of the emulators (or the other of step and sendrecv) in turn with its reps, A B B A, in the same process over
the same emulators, carries those reps (`interleaved`). On a machine where the emulators' speed
drifts 10-30% between processes but a few % within one, the loop's ratio to that probe is best read
rep by rep within the job: per pair, the loop's rep over its partner (rep i of each side). Per group
x mode x groups x num_envs, all pairs of its jobs are pooled (geometric mean, t-interval on the log
ratios), and each job's own ratio is listed beside them, so that drift between jobs shows against
the spread within one. This is a section of table.md and interleaved.csv (a row per cell, then one
per job), none without such jobs. A job whose two lists differ in length is paired on their common
prefix, and said so. Where the probe also ran in jobs of its own at a cell, the cell's row sets its
interleaved reps against theirs (`own_*`): the limit (probe_limit) divides by those jobs, so the two
timings of the same emulators should agree.

Where the env probe ran interleaved, the bound per design (bound_per_design) rep by rep as well.
Paired by round, a chain row's bound moves with the emulators' drift between processes (env_only
averaged 4.6k-7.1k env-steps/s at 8 envs in four rounds' jobs on the H200,
docs/results/2026-12-02-h200), so its interval spans the bar it is read against. A loop job that
times env_only in turn with its reps has E per rep, from the same process and emulators; A (the
agent alone, steadier, and a small part of the chain where E is the slower side) is the agent
probe's mean in the job's round, or over all rounds where its round has none. Each rep's bound is
then computed by the row's design, and the loop's rep over it is pooled over the cell's jobs:
columns of interleaved.csv and a table of its own in table.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from ppo_bench.record import stats
from .bound_per_design import CHAIN, LIMIT, agent_probe, chain_bound, design, env_probe
from .common import bounded, csv_of, decimals, interval, marks_legend, md_table, mode_order, pooled, ratio_cell
from .load import Collection
from .probe_limit import keys_by_group, lender, probe_means, probe_rounds

INTERLEAVED_FILE = "interleaved.csv"
INTERLEAVED_KEY = ["group", "mode", "groups", "num_envs", "probe"]


def build(c: Collection) -> None:
    """`c.interleaved`: the loop's reps over the probe's (`_loop_over_probe`), then over the bound
    they give (`_loop_over_bound`)."""
    _loop_over_probe(c)
    _loop_over_bound(c)


def markdown(c: Collection) -> list[str]:
    """The sections of table.md: the loop over each probe interleaved, then over its bound."""
    return _probe_markdown(c) + _bound_markdown(c)


def _pairs(loop: list[float], probe: list[float]) -> dict:
    """Both sides' means and the loop over the probe paired rep by rep: geometric mean of the ratios,
    t-interval on their logs (none for one pair)."""
    ratio, lo, hi = interval(stats.paired_ratio_interval([a / b for a, b in zip(loop, probe)]))
    return {"loop_mean": float(np.mean(loop)), "probe_mean": float(np.mean(probe)), "ratio": ratio, "lo": lo,
            "hi": hi, "pairs": len(loop), "loop_reps": json.dumps(loop), "probe_reps": json.dumps(probe)}


def _loop_over_probe(c: Collection) -> None:
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
    emulators, which the limit and the chain bound of jobs of its own take to agree; for a loop mode
    that took turns with another over one build, whether it reads as in a job of its own. NaN where
    it ran in no job of its own there."""
    out = dict.fromkeys(("own_mean", "own_ratio", "own_lo", "own_hi"), np.nan)
    group, _, groups, num_envs, probe = key
    if not c.ok:
        return out
    alone = c.jobs["ident"].map(lambda i: i.get("schedule.interleave") is None)  # not a record of a pair
    jobs = c.jobs[alone & (c.jobs["mode_name"] == probe) & (c.jobs["groups"] == groups) & (c.jobs["num_envs"] == num_envs)]
    src = lender(keys_by_group(c.jobs, probe), group, set(jobs["group"]))
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


def _probe_markdown(c: Collection) -> list[str]:
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
                  f"the loop's rep over its {probe} partner in the same job (turns A B B A), geometric mean with a "
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


BOUND_COLUMNS = ("bound_kind", "bound_agent", "bound_ratio", "bound_lo", "bound_hi", "bound_pairs")


def _loop_over_bound(c: Collection) -> None:
    """BOUND_COLUMNS of `c.interleaved` (`_loop_over_probe`) on the rows interleaving the env
    probe whose cell has an agent probe at its groups: per job, each rep's bound by the design (see
    bound_per_design's doc) from that rep's env probe and the agent probe's mean in the job's round (all rounds'
    where the round has none; `bound_agent`), and the loop's reps over those bounds; per cell, the
    same ratios of its jobs pooled (`bound_agent` their agent means' mean)."""
    t = c.interleaved
    if t.empty or not c.ok:
        return
    agent, env = agent_probe(), env_probe()
    rounds = probe_rounds(c.jobs)
    means = probe_means(c.table, c.jobs)[agent]
    overall = {(r.group, r.mode, r.num_envs): a for r, a in zip(c.table.itertuples(), means) if pd.notna(a)}
    jobs = c.jobs_and_stopped.drop_duplicates("path").set_index("path")
    cols = {k: ["" if k == "bound_kind" else np.nan] * len(t) for k in BOUND_COLUMNS}
    cells: dict[tuple, list] = {}
    for i, r in enumerate(t.itertuples()):
        if r.scope != "job" or r.probe != env:
            continue
        j = jobs.loc[r.path]
        a = rounds.get((r.group, agent, r.groups, r.num_envs, j["sweep"], j["round"]),
                       overall.get((r.group, r.mode, r.num_envs)))
        if a is None:
            continue
        chain, _ = design(SimpleNamespace(num_envs=r.num_envs, num_threads=j["num_threads"], groups=r.groups),
                          j["cpus"])
        probe = json.loads(r.probe_reps)
        bounds = [min(chain_bound(e, a, r.groups) if chain else np.inf, e, a) for e in probe]
        kind = CHAIN if any(b < min(e, a) for b, e in zip(bounds, probe)) else LIMIT
        ratios = [x / b for x, b in zip(json.loads(r.loop_reps), bounds)]
        cells.setdefault((r.group, r.mode, r.groups, r.num_envs), []).append((kind, a, ratios))
        _fill(cols, i, kind, a, ratios)
    for i, r in enumerate(t.itertuples()):
        got = cells.get((r.group, r.mode, r.groups, r.num_envs))
        if r.scope == "pooled" and r.probe == env and got:
            _fill(cols, i, "/".join(sorted({k for k, _, _ in got})), float(np.mean([a for _, a, _ in got])),
                  [x for _, _, ratios in got for x in ratios])
    for k, v in cols.items():
        t[k] = v


def _fill(cols: dict, i: int, kind: str, agent: float, ratios: list[float]) -> None:
    ratio, lo, hi = interval(stats.paired_ratio_interval(ratios))
    for k, v in zip(BOUND_COLUMNS, (kind, agent, ratio, lo, hi, len(ratios))):
        cols[k][i] = v


def _bound_markdown(c: Collection) -> list[str]:
    """The section of table.md on the loop over its bound per design, rep by rep (`_loop_over_bound`):
    per cell the pooled ratio and each job's own; nothing where no row has one."""
    t = c.interleaved
    if t.empty or "bound_ratio" not in t or not t["bound_ratio"].notna().any():
        return []
    t = t[t["bound_ratio"].notna()]
    env, agent = env_probe(), agent_probe()
    rows = []
    per_job = dict(list(t[t["scope"] == "job"].groupby(INTERLEAVED_KEY)))
    for r in t[t["scope"] == "pooled"].itertuples():
        each = per_job_cells(per_job[tuple(getattr(r, k) for k in INTERLEAVED_KEY)], prefix="bound_")
        rows.append(([r.group] if t["group"].nunique() > 1 else []) + [
            r.mode, str(r.groups), str(r.num_envs), r.bound_kind, f"{r.bound_agent:.0f}",
            ratio_cell(r.bound_ratio, r.bound_lo, r.bound_hi), str(int(r.bound_pairs)), str(r.jobs),
            "; ".join(bounded(each))])
    header = (["group"] if t["group"].nunique() > 1 else []) + [
        "mode", "groups", "num_envs", "bound", agent, "loop/bound paired", "pairs", "jobs",
        "per job (round: loop/bound)"]
    table = md_table(header, rows)
    return [f"**Loop over its bound per design, {env} interleaved in one job**", ""] + table + [
        "", f"bound per rep, from the {env} rep that followed the loop's in the same job (E) and {agent}'s mean "
        f"in the job's round (A; over all rounds where its round has none): chain = min(1/(1/E + 1/(g x A)), E, "
        "A) where every env waits for its own batch (as in the bound per design), else limit = min(E, A); "
        "loop/bound paired = the loop's reps over their bounds, geometric mean with a 95% t-interval on the "
        "log ratios, all pairs of the row's jobs pooled; per job = the same over one job's pairs"
        + "".join(f"; {m}" for m in marks_legend(table)), ""]



def write(c: Collection, out: Path, plot: bool) -> list[Path]:
    """interleaved.csv where some job interleaved a probe (full precision, the paired reps as JSON);
    returns the files written."""
    return csv_of(c.interleaved, out / INTERLEAVED_FILE)
