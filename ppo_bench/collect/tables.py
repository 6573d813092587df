"""The statistics of a collection: its tables, and the warnings that come with them.

From the jobs that load read, in memory: per group x mode x num_envs the pooled reps and
their interval (table.csv's rows), the speed-up over step (unpaired, and paired per round,
with a warning where the two jobs compared saw a different machine), the limit the probes
set and the loop's efficiency against it, the jobs measured while another job ran or the
machine was overloaded, the phase table of profiled jobs, the backends and runtimes side by
side (each beside ale-py's or the compiled agent's where configurations differ only in
env.backend or agent.runtime), and the comparison with a baseline. Figures keep full precision here; render rounds them.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from .. import stats
from ..phases import PHASES
from .load import BASELINE_COLUMNS, CollectError, Collection, _name_groups, _read_table, _run_window, load_jobs

MODE_ORDER = ("step", "sendrecv", "async", "env_only", "agent_only")
PROBES = ("env_only", "agent_only")  # each measures one side alone; together they bound the loop
# What configurations that differ in one key are put side by side by: the jobs' column, the config
# key, and the value the others are compared with (ale-py's vector env; the reference's compiled agent).
# The probe each key cannot affect (env_only runs no agent, agent_only no env) is left out: its
# ratio would be drift between jobs read as an effect of the key.
SIDE_BY_SIDE = {"backend": ("env.backend", "ale", "agent_only"), "runtime": ("agent.runtime", "compiled", "env_only")}
NOISY_CV = 0.10
CELLS_LISTED = 8  # mode x num_envs cells named on one warning line
PHASE_COLUMNS = [*PHASES, "drain", "other"]


def _pooled(reps: pd.Series) -> list[float]:
    """The repetitions of several jobs (rounds) as one sample."""
    return [x for job_reps in reps for x in job_reps]


def _pooled_mean(jobs: pd.DataFrame) -> float:
    """The mean of several jobs' (rounds') repetitions pooled: the figure every comparison divides."""
    return np.mean(_pooled(jobs["reps"]))


def _order(label: str) -> tuple:
    name = label.split("[")[0]
    return (MODE_ORDER.index(name) if name in MODE_ORDER else len(MODE_ORDER), label)


def _summarise(jobs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (group, mode, n), sub in jobs.sort_values(["round", "path"]).groupby(["group", "mode", "num_envs"]):
        reps = _pooled(sub["reps"])
        s = stats.summary(reps)
        first = sub.iloc[0]
        rows.append({
            "group": group, "identity": first["identity"], "mode": mode, "mode_name": first["mode_name"],
            "groups": first["groups"], "num_envs": n, "backend": first["backend"], "runtime": first["runtime"],
            "algo": first["algo"],
            "mean": s["mean"], "ci95": s["ci95"],
            "lo": s["lo"], "hi": s["hi"], "n": s["n"], "jobs": len(sub), "cv": s["cv"],
            "noisy": s["cv"] is not None and s["cv"] > NOISY_CV,
            "frames_per_s": s["mean"] * first["frameskip"] if first["frameskip"] else np.nan,
            "reps": json.dumps(reps),
        })
    table = pd.DataFrame(rows)
    table["_o"] = table["mode"].map(_order)
    return table.sort_values(["group", "_o", "num_envs"]).drop(columns="_o").reset_index(drop=True)


def _speedups(table: pd.DataFrame, jobs: pd.DataFrame) -> list[str]:
    """Unpaired and paired speed-up over step; returns machine-state warnings on compared jobs.

    Probes get none: env_only or agent_only is not a way to run the loop, only a bound on it.
    """
    warnings = []
    reps = {(r.group, r.mode, r.num_envs): json.loads(r.reps) for r in table.itertuples()}
    cells = dict(list(jobs.groupby(["group", "num_envs"])))
    cols = {c: [] for c in ("speedup", "speedup_lo", "speedup_hi", "paired_speedup",
                            "paired_lo", "paired_hi", "paired_rounds")}
    for r in table.itertuples():
        base = reps.get((r.group, "step", r.num_envs))
        unpaired, ratios = {}, []
        if r.mode != "step" and r.mode_name not in PROBES and base is not None:
            unpaired = stats.ratio_interval(reps[(r.group, r.mode, r.num_envs)], base)
            cell = cells[(r.group, r.num_envs)]
            ratios, notes = _round_ratios(cell[cell["mode"] == r.mode], cell[cell["mode"] == "step"],
                                          f"{r.group} n={r.num_envs}", f"{r.mode} vs step")
            warnings += notes
        for c, v in zip(cols, (*_interval(unpaired), *_interval(_paired(ratios)), len(ratios))):
            cols[c].append(v)
    for c, v in cols.items():
        table[c] = v
    return warnings


ROUND = ["sweep", "round"]  # one round of one sweep: the jobs that ran back to back


def _interval(d: dict) -> tuple:
    """(ratio, lo, hi) of a `stats` interval as columns take them: NaN for what it lacks (none was
    computed, or too few samples for a width)."""
    return tuple(np.nan if d.get(k) is None else d[k] for k in ("ratio", "lo", "hi"))


def _paired(ratios: list[float]) -> dict:
    """The paired interval over per-round ratios; none under 2 rounds."""
    return stats.paired_ratio_interval(ratios) if len(ratios) >= 2 else {}


def _round_ratios(a: pd.DataFrame, b: pd.DataFrame, where: str, what: str) -> tuple[list[float], list[str]]:
    """Per round with both, a over b (each side's jobs pooled), and a machine warning per pair of
    compared jobs that saw a different machine ("<where> round <r>: <what>: ...").

    A round is one round of one sweep folder: round 0 of two sweeps run an hour apart is two
    rounds, never one whose sides came from different sweeps.
    """
    mine, base = dict(list(a.groupby(ROUND))), dict(list(b.groupby(ROUND)))
    ratios, warnings = [], []
    for key in sorted(mine.keys() & base.keys()):
        x, y, rnd = mine[key], base[key], key[1]
        ratios.append(_pooled_mean(x) / _pooled_mean(y))
        warnings += [f"{where} round {rnd}: {what}: {why} ({ja.path}, {jb.path})"
                     for ja in x.itertuples() for jb in y.itertuples() if (why := _machine_warning(ja, jb))]
    return ratios, warnings


def _machine_warning(a, b) -> Optional[str]:
    """What differed in the machine two compared jobs saw (None: nothing): their ratio is suspect.

    Load: the 1-minute load averages differ by more than a quarter of the cores (1.0 when the
    core count is unknown) and by more than 50% of the lower; clock: the mean CPU MHz differ by
    more than 10% of the lower. The load average trails by a minute, so it also carries the
    previous job's own emulator threads: only a difference of several cores means much.
    """
    why = []
    cores = 0.25 * a.cpus if pd.notna(a.cpus) and a.cpus else 1.0
    if pd.notna(a.load) and pd.notna(b.load) and abs(a.load - b.load) > max(cores, 0.5 * min(a.load, b.load)):
        why.append(f"load {a.load:.2f} vs {b.load:.2f}")
    if pd.notna(a.mhz) and pd.notna(b.mhz) and abs(a.mhz - b.mhz) > 0.10 * min(a.mhz, b.mhz):
        why.append(f"cpu MHz {a.mhz:.0f} vs {b.mhz:.0f}")
    return "; ".join(why) or None


def _mode_label(name: str, cfg: dict) -> str:
    """A mode and its settings, groups=1 left out (async[groups=2], step): one label for every backend,
    where `mode` labels a mode only by the settings that differ within its own group."""
    shown = {k: v for k, v in sorted(cfg.items()) if not (k == "groups" and v == 1)}
    return name + (f"[{','.join(f'{k}={v}' for k, v in shown.items())}]" if shown else "")


BEST_LOOP = "best loop"  # the side-by-side row of each value's fastest loop mode


def _side_by_side(jobs: pd.DataFrame, column: str) -> tuple[pd.DataFrame, list[str]]:
    """Every value of one key (`column` of SIDE_BY_SIDE: backend, runtime) beside the reference's,
    with its ratio to it, where configurations differ only in that key; and the machine warnings of
    the jobs compared.

    Which backend (or runtime) serves a PPO loop best is read at one mode and num_envs, so a row is
    one configuration (the identity without the key, named by the keys in which the rows'
    configurations differ) x mode x num_envs where the reference and at least one other value ran:
    `<value>_mean` the pooled reps' mean (empty where that value did not run), `<value>_loop` the
    mode it is of, then per other value the unpaired ratio over the pooled reps (`_ratio`, `_lo`,
    `_hi`) and the paired one over the rounds with both (`_paired`, `_paired_lo`, `_paired_hi`,
    `_rounds`; 2 rounds or more). A user's next question is which serves best whatever loop each
    runs best, so where a value ran more than one loop mode at a num_envs, a "best loop" row puts
    each value's fastest loop (by pooled mean; probes are not loops) beside the reference's,
    paired round by round on those two loops. Empty when no configuration ran with the reference
    and another value.
    """
    key, reference, unaffected = SIDE_BY_SIDE[column]
    jobs = jobs[jobs["mode_name"] != unaffected]
    rest = [json.dumps({k: v for k, v in i.items() if k != key}, sort_keys=True) for i in jobs["ident"]]
    j = jobs.assign(rest=rest, mode_label=[_mode_label(n, m) for n, m in zip(jobs["mode_name"], jobs["mode_cfg"])])
    compared = j.groupby("rest")[column].transform(lambda v: reference in set(v) and v.nunique() > 1)
    j = j[compared.astype(bool)].copy()
    if j.empty:
        return pd.DataFrame(), []
    names = pd.DataFrame({"identity": j["rest"], "ident": [json.loads(r) for r in j["rest"]]})
    _name_groups(names)
    j["configuration"] = names["group"].to_numpy()
    others = sorted(set(j[column]) - {reference})
    rows, warnings = [], []

    def compare(by: dict, conf: str, mode: str, n: int) -> None:
        """One row: each value's jobs in `by` (all of one mode) beside the reference's."""
        ref = by.get(reference)
        if ref is None or len(by) < 2:
            return
        row = {"configuration": conf, "mode": mode, "num_envs": n}
        for v in (reference, *others):
            row[f"{v}_mean"] = _pooled_mean(by[v]) if v in by else np.nan
            row[f"{v}_loop"] = by[v]["mode_label"].iloc[0] if v in by else None
        for v in others:
            unpaired, ratios = {}, []
            if v in by:
                unpaired = stats.ratio_interval(_pooled(by[v]["reps"]), _pooled(ref["reps"]))
                ratios, notes = _round_ratios(by[v], ref, f"{conf} {mode} n={n}", f"{v} vs {reference}")
                if mode != BEST_LOOP or row[f"{v}_loop"] != row[f"{reference}_loop"]:  # else its mode's row warned
                    warnings.extend(notes)
            row.update(zip((f"{v}_{c}" for c in ("ratio", "lo", "hi", "paired", "paired_lo", "paired_hi", "rounds")),
                           (*_interval(unpaired), *_interval(_paired(ratios)), len(ratios))))
        rows.append(row)

    for (_, conf, mode, n), cell in j.groupby(["rest", "configuration", "mode_label", "num_envs"]):
        compare(dict(list(cell.groupby(column))), conf, mode, n)
    loops = j[~j["mode_name"].isin(PROBES)]
    for (_, conf, n), cell in loops.groupby(["rest", "configuration", "num_envs"]):
        if cell.groupby(column)["mode_label"].nunique().max() > 1:
            compare({v: _fastest_loop(s) for v, s in cell.groupby(column)}, conf, BEST_LOOP, n)
    if not rows:
        return pd.DataFrame(), warnings
    table = pd.DataFrame(rows)
    table["_o"] = table["mode"].map(_order)
    return table.sort_values(["configuration", "_o", "num_envs"]).drop(columns="_o").reset_index(drop=True), warnings


def _fastest_loop(jobs: pd.DataFrame) -> pd.DataFrame:
    """The jobs of the mode (label) whose pooled reps have the highest mean."""
    return max((s for _, s in jobs.groupby("mode_label")), key=_pooled_mean)


def _phases(jobs: pd.DataFrame) -> pd.DataFrame:
    """Mean ms per loop step of each phase over the profiled jobs (rounds) of a cell."""
    have = jobs[jobs["phases"].notna()]
    if have.empty:
        return pd.DataFrame()
    ms = pd.DataFrame(list(have["phases"]), index=have.index).reindex(columns=PHASE_COLUMNS).fillna(0.0)
    cells = pd.concat([have[["group", "mode", "num_envs"]], ms], axis=1).groupby(["group", "mode", "num_envs"])
    t = cells.mean()
    t["total"] = t[PHASE_COLUMNS].sum(axis=1)
    t["jobs"] = cells.size()
    t = t.reset_index()
    t["_o"] = t["mode"].map(_order)
    return t.sort_values(["group", "_o", "num_envs"]).drop(columns="_o").reset_index(drop=True)


def _limits(table: pd.DataFrame) -> None:
    """limit = min(env_only, agent_only), serial = 1 / (1/env_only + 1/agent_only), both at the row's groups.

    No overlap can beat the slower side; serial is no overlap at all. A mode with g groups is
    bounded by the probes that ran at g groups too: a probe at another g measures other batch
    sizes, so where one is missing the limit stays empty and `limit_missing` names the probe.
    """
    keys = ["group", "groups", "num_envs"]
    probes = table[keys]
    for name in PROBES:
        rows = table.loc[table["mode_name"] == name, keys + ["mean"]]
        rows = rows[~rows.duplicated(keys, keep=False)]  # probes that differ in another mode key: no one bound
        probes = probes.merge(rows.rename(columns={"mean": name}), on=keys, how="left")
    env, agent = probes["env_only"].to_numpy(), probes["agent_only"].to_numpy()
    table["limit"] = np.minimum(env, agent)  # NaN where either is missing
    table["serial"] = 1 / (1 / env + 1 / agent)
    table["efficiency"] = (table["mean"] / table["limit"]).where(~table["mode_name"].isin(PROBES))
    table["limit_missing"] = [" and ".join(f"{p} groups={g}" for p in PROBES if pd.isna(m[p]))
                              for m, g in zip(probes[list(PROBES)].to_dict("records"), table["groups"])]


def _paired_efficiency(table: pd.DataFrame, jobs: pd.DataFrame) -> None:
    """Per loop row, the efficiency paired by round: per round with the loop and both probes at its
    groups, the loop's mean over that round's min(env_only, agent_only); a t-interval on the logs
    of 2 rounds or more (`efficiency_paired`, `_lo`, `_hi`, `efficiency_rounds`).

    The pooled efficiency divides means taken minutes apart; on a machine that drifts 5-15% the
    per-round quotient of back-to-back jobs is what says whether a loop reaches its limit.
    """
    loops = {k: {rnd: _pooled_mean(r) for rnd, r in s.groupby(ROUND)}
             for k, s in jobs.groupby(["group", "mode", "num_envs"])}
    # keyed by mode name and groups as `_limits` matches probes; where two probe variants share
    # those, `_limits` left the limit empty and the row is passed over below
    probes = {k: _pooled_mean(s) for k, s in jobs[jobs["mode_name"].isin(PROBES)].groupby(
        ["group", "mode_name", "groups", "num_envs", *ROUND])}
    cols = {c: [] for c in ("efficiency_paired", "efficiency_lo", "efficiency_hi", "efficiency_rounds")}
    for r in table.itertuples():
        ratios = []
        if r.mode_name not in PROBES and pd.notna(r.limit):
            for rnd, loop in sorted(loops.get((r.group, r.mode, r.num_envs), {}).items()):
                bound = [probes.get((r.group, p, r.groups, r.num_envs, *rnd)) for p in PROBES]
                if None not in bound:
                    ratios.append(loop / min(bound))
        for c, v in zip(cols, (*_interval(_paired(ratios)), len(ratios))):
            cols[c].append(v)
    for c, v in cols.items():
        table[c] = v


def _run_windows(jobs: pd.DataFrame, records: list[tuple[Path, dict]]) -> pd.DataFrame:
    """Every job's run on its host: the ok ones and the failed ones (a failed job may have run for
    minutes); not the skipped ones, which built nothing."""
    failed = [{"path": str(p), "host": r["provenance"].get("host"), "run_start": w[0], "run_end": w[1]}
              for p, r in records if r["status"] == "failed" for w in [_run_window(r["timing"])]]
    cols = ["path", "host", "run_start", "run_end"]
    windows = pd.concat([jobs[cols], pd.DataFrame(failed, columns=cols)]).dropna()
    return windows.astype({"run_start": float, "run_end": float}).reset_index(drop=True)


def _contended(jobs: pd.DataFrame, windows: pd.DataFrame) -> list[dict]:
    """Jobs whose measurement overlaps another job's run (set-up, warm-up or measurement) on one host.

    A sweep under Hydra's basic launcher runs its jobs one after another, so any overlap means a
    second sweep writing into the same folder, or a parallel launcher. The overlaps are counted
    from sorted window ends (searchsorted), so the cost grows as n log n, not with the pairs.
    """
    jobs["overlaps"] = 0
    by_host = dict(list(windows.groupby("host")))
    for host, mine in jobs.dropna(subset=["host", "start", "end"]).groupby("host"):
        runs = by_host.get(host)
        if runs is None:
            continue
        starts, ends = np.sort(runs["run_start"].to_numpy()), np.sort(runs["run_end"].to_numpy())
        own = (mine["run_start"] < mine["end"]) & (mine["run_end"] > mine["start"])  # a job's run holds its measurement
        jobs.loc[mine.index, "overlaps"] = (np.searchsorted(starts, mine["end"].to_numpy(), "left")
                                            - np.searchsorted(ends, mine["start"].to_numpy(), "right") - own)
    jobs["contended"] = jobs["overlaps"] > 0
    hit = jobs[jobs["contended"]].sort_values("path")
    return [{"path": p, "host": h, "overlaps": int(k)} for p, h, k in zip(hit["path"], hit["host"], hit["overlaps"])]


def _stretches(jobs: pd.DataFrame, windows: pd.DataFrame) -> list[str]:
    """One line per stretch of overlapping runs on a host that disturbed a measurement, with one example.

    Stretches come from one pass over the runs sorted by start (a new one begins where a run starts
    after all earlier ones ended), so the summary stays as short as the number of stretches.
    """
    if not jobs["contended"].any():
        return []
    w = windows.sort_values(["host", "run_start"]).reset_index(drop=True)
    reach = w.groupby("host")["run_end"].cummax().groupby(w["host"]).shift()
    w["stretch"] = ((w["run_start"] >= reach) | reach.isna()).cumsum()
    hit = jobs[jobs["contended"]].merge(w[["path", "stretch"]], on="path").sort_values("start")
    members = dict(list(w.groupby("stretch")))
    lines = []
    for stretch, sub in hit.groupby("stretch"):
        runs, a = members[stretch], sub.iloc[0]
        other = runs[(runs["path"] != a["path"]) & (runs["run_start"] < a["end"]) & (runs["run_end"] > a["start"])]
        lines.append(f"{a['host']}, {_iso(runs['run_start'].min())} to {_iso(runs['run_end'].max())}: "
                     f"{len(sub)} job{'s' * (len(sub) > 1)}, e.g. {a['path']} measured during {other['path'].iloc[0]}")
    return lines


def _overloaded(jobs: pd.DataFrame) -> list[str]:
    """One line per group with jobs measured while the 1-minute load exceeded the CPU count.

    The load is read just before and just after the measurement. Above the core count threads
    queue for a CPU, which slows the emulators unevenly: a speed-up between such jobs (a 9x at
    one env was measured so) says more about the load than about the modes.
    """
    jobs["overloaded"] = jobs["peak_load"] > jobs["cpus"]
    sizes = jobs["group"].value_counts()
    lines = []
    for g, sub in jobs[jobs["overloaded"]].groupby("group"):
        cells = sorted(set(zip(sub["mode"], sub["num_envs"])), key=lambda c: (_order(c[0]), c[1]))
        shown = ", ".join(f"{m} n={n}" for m, n in cells[:CELLS_LISTED]) + (
            f" and {len(cells) - CELLS_LISTED} more" if len(cells) > CELLS_LISTED else "")
        lines.append(f"{g}: {len(sub)} of {sizes[g]} jobs, load up to {sub['peak_load'].max():.1f} on "
                     f"{sub['cpus'].min():.0f} CPUs: {shown}")
    return lines


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


def build(paths: list[Path]) -> Collection:
    """Read and analyse, in memory; nothing is written."""
    c, records = load_jobs(paths)
    if c.jobs.empty:
        return c
    jobs = c.jobs
    runs = jobs.explode("reps").rename(columns={"reps": "thr"}).astype({"thr": float})
    runs["rep"] = runs.groupby(level=0).cumcount()
    c.runs = runs[["group", "identity", "mode", "num_envs", "round", "rep", "thr", "path"]].reset_index(drop=True)
    windows = _run_windows(jobs, records)
    c.contended = _contended(jobs, windows)
    c.contention = _stretches(jobs, windows)
    c.table = _summarise(jobs)
    c.machine_warnings = _speedups(c.table, jobs)
    for column in SIDE_BY_SIDE:
        c.side_by_side[column], notes = _side_by_side(jobs, column)
        c.machine_warnings += notes
    _limits(c.table)
    _paired_efficiency(c.table, jobs)
    c.overloaded = _overloaded(jobs)
    flags = jobs.groupby(["group", "mode", "num_envs"])[["contended", "overloaded"]].any().reset_index()
    c.table = c.table.merge(flags, on=["group", "mode", "num_envs"], how="left")
    c.phases = _phases(jobs)
    return c


def load_baseline(path: Path) -> pd.DataFrame:
    """An earlier collection: a summary dir (its table.csv, raw reps) or a dir of result files."""
    path = Path(path)
    if not path.exists():
        raise CollectError(path, "no such file or directory")
    csv = path if path.is_file() else path / "table.csv"
    if csv.is_file():
        return _read_table(csv)
    table = build([path]).table
    if table.empty:
        raise CollectError(path, "no table.csv and no usable result files")
    return table[BASELINE_COLUMNS]


def compare_baseline(table: pd.DataFrame, baseline: pd.DataFrame) -> list[str]:
    """new/baseline ratio per row; a row whose whole interval lies below 1 is a regression."""
    old = {(b.identity, b.mode, int(b.num_envs)): b for b in baseline.itertuples()}
    cols = {c: [] for c in ("baseline_mean", "baseline_ratio", "baseline_lo", "baseline_hi", "regression")}
    regressions = []
    for r in table.itertuples():
        b = old.get((r.identity, r.mode, r.num_envs))
        if b is None:
            for c, v in zip(cols, (np.nan,) * 4 + (False,)):
                cols[c].append(v)
            continue
        ri = stats.ratio_interval(json.loads(r.reps), json.loads(b.reps))
        lo, hi = (np.nan if ri[k] is None else ri[k] for k in ("lo", "hi"))
        slower = bool(hi < 1)
        for c, v in zip(cols, (b.mean, ri["ratio"], lo, hi, slower)):
            cols[c].append(v)
        if slower:
            regressions.append(f"{r.group} {r.mode} n={r.num_envs}: {_ratio(ri['ratio'], lo, hi)} of "
                               f"baseline ({b.mean:.0f} -> {r.mean:.0f} env-steps/s)")
    for c, v in cols.items():
        table[c] = v
    return regressions


def _ratio(x: float, lo: float, hi: float) -> str:
    if x is None or pd.isna(x):
        return ""
    return f"{x:.2f}x" if pd.isna(lo) else f"{x:.2f}x [{lo:.2f}, {hi:.2f}]"
