"""A collection as text and files: table.md, the chart arrays, and the out dir they go into.

Configurations that differ only in env.backend add a "Backends side by side" section to
table.md (each backend's throughput beside ale-py's, with its ratio to it) and backends.csv
(full precision); those that differ only in agent.runtime likewise "Runtimes side by side"
(beside the compiled agent) and runtimes.csv; in side_by_side.json the ratios are arrays too.
A "best loop" row names each value's fastest loop mode beside its figure.

Learning runs add a Learning section to table.md, returns.csv (one row per configuration,
full precision, the per-seed figures as JSON lists), returns.json (every seed's curve and
the IQM curves) and two figures; a collection without learning runs has none of them.

Figures are rounded only here (table.md, chart.json, chart.js); table.csv keeps full
precision and the raw reps, so that a later collection can use it as a baseline. Writing
replaces the summary files an earlier collection wrote into the out dir, by the
collector's own file names; nothing else there is touched.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Optional

import pandas as pd

from .. import results
from .load import SINGLE_GROUP, CollectError, Collection
from .learning import ACCEPT_SEEDS, RESAMPLES
from .plots import _matplotlib, curve_label, plot_returns, plot_side_by_side, plot_throughput
from .tables import BEST_LOOP, PHASE_COLUMNS, PROBES, SIDE_BY_SIDE, _order, _ratio

JS_NAMES = {"step": "stepRaw", "sendrecv": "recvRaw", "async": "asyncRaw",
            "env_only": "envOnlyRaw", "agent_only": "agentOnlyRaw"}
MAX_LISTED = 20  # lines of a warning list in table.md; the rest is counted
SIDE_BY_SIDE_TABLES = {"backend": "backends.csv", "runtime": "runtimes.csv"}
SUMMARY_FILES = ("table.csv", "table.md", "phases.csv", *SIDE_BY_SIDE_TABLES.values())  # what a collection writes
CHART_FILES = ("chart.json", "chart.js", "throughput.png")  # ... and per group (in the out dir when one)
SIDE_BY_SIDE_FILES = ("side_by_side.json", "side_by_side.js", "side_by_side.png")
LEARNING_FILES = ("returns.csv", "returns.json", "returns_vs_env_steps.png", "returns_vs_wall_s.png")
"""With several groups (backends, runtimes, ...): every group's arrays in one chart and one plot."""
FOOTER = ("env-steps/s; ± = 95% t half-width over {n} reps; (!) = CV > 10%; speedup = ratio of "
          "geometric means with a 95% Welch t-interval on log throughput; paired = per-round ratios "
          "of back-to-back jobs, t-interval on log ratios")
EFFICIENCY_FOOTER = ("; eff = mean over limit, and paired: per round, the loop over that round's "
                     "min(env_only, agent_only), t-interval on log ratios")
SIDE_BY_SIDE_FOOTER = ("env-steps/s, mean over the pooled reps of every round; configurations that differ only in "
                       "{key}; <{column}>/{reference} = ratio to {reference}: ratio of geometric means with a 95% "
                       "Welch t-interval on log throughput; paired = per round of one sweep with both, the ratio of the "
                       "two sides' mean reps, t-interval on log ratios (2 rounds or more); empty = that {column} did not "
                       "run there; {unaffected}, which {column} cannot change, is left out")
BEST_LOOP_FOOTER = ("; best loop = each {column}'s fastest loop mode by mean (named beside its figure) against "
                    "{reference}'s, paired on those two loops; picked on the same reps, so a {column} that ran more "
                    "loops is favoured slightly")


def _decimals(x: float) -> int:
    return 0 if x >= 100 else 1 if x >= 10 else 2  # keep a slow job's interval visible


def _mean_cell(r) -> str:
    d = _decimals(r.mean)
    cell = f"{r.mean:.{d}f}" if pd.isna(r.ci95) else f"{r.mean:.{d}f} ± {r.ci95:.{d}f}"
    return cell + (" (!)" if r.noisy else "")


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|",
            *("| " + " | ".join(row) + " |" for row in rows)]


def _group_markdown(t: pd.DataFrame) -> list[str]:
    labels = sorted(t["mode"].unique(), key=_order)
    loops = [m for m in labels if m.split("[")[0] not in PROBES]
    cell = {(r.mode, r.num_envs): r for r in t.itertuples()}
    others = [m for m in loops if m != "step" and t.loc[t["mode"] == m, "speedup"].notna().any()]
    paired = [m for m in others if t.loc[t["mode"] == m, "paired_speedup"].notna().any()]
    limits = t[t["limit"].notna()].drop_duplicates(["groups", "num_envs"]).set_index(["groups", "num_envs"])["limit"]
    limit_groups = sorted(set(limits.index.get_level_values("groups")))
    header = (["num_envs"] + labels + [f"{m}/step" for m in others] + [f"{m}/step paired" for m in paired]
              + ["limit" if g == 1 else f"limit groups={g}" for g in limit_groups]
              + ([f"eff {m}" for m in loops] if limit_groups else []))
    rows = []
    for n in sorted(t["num_envs"].unique()):
        get = lambda m: cell.get((m, n))  # noqa: E731
        row = [str(n)] + [_mean_cell(get(m)) if get(m) else "" for m in labels]
        row += [_ratio(get(m).speedup, get(m).speedup_lo, get(m).speedup_hi) if get(m) else "" for m in others]
        row += [_ratio(get(m).paired_speedup, get(m).paired_lo, get(m).paired_hi) if get(m) else ""
                for m in paired]
        row += [f"{limits[(g, n)]:.0f}" if (g, n) in limits.index else "" for g in limit_groups]
        if limit_groups:
            row += [_efficiency_cell(get(m)) for m in loops]
        rows.append(row)
    return _md_table(header, rows) + _limit_gaps(t)


def _efficiency_cell(r) -> str:
    """The pooled efficiency, and the paired one with its interval where 2 rounds or more had the loop
    and both probes."""
    if r is None or pd.isna(r.efficiency):
        return ""
    if pd.isna(r.efficiency_paired):
        return f"{r.efficiency:.0%}"
    lo, hi = ("?" if pd.isna(x) else f"{x:.0%}" for x in (r.efficiency_lo, r.efficiency_hi))
    return f"{r.efficiency:.0%}; paired {r.efficiency_paired:.0%} [{lo}, {hi}]"


def _limit_gaps(t: pd.DataFrame) -> list[str]:
    """Which probe an empty limit waits for; said only where the configuration has probes at all."""
    gaps = t[t["limit_missing"] != ""]
    if gaps.empty or not t["mode_name"].isin(PROBES).any():
        return []
    return [""] + [f"- no limit for {mode} at num_envs {', '.join(map(str, sorted(s['num_envs'])))}: {missing} "
                   "not measured" for (mode, missing), s in gaps.groupby(["mode", "limit_missing"], sort=False)]


def _side_by_side_markdown(b: pd.DataFrame, column: str) -> list[str]:
    """One table of every backend (runtime) beside the reference's, so that which serves the loop best
    is read in one place."""
    if b.empty:
        return []
    key, reference, unaffected = SIDE_BY_SIDE[column]
    others = _others(b, reference)
    paired = [o for o in others if b[f"{o}_paired"].notna().any()]
    several = b["configuration"].nunique() > 1
    header = ((["configuration"] if several else []) + ["mode", "num_envs", reference, *others]
              + [f"{o}/{reference}" for o in others] + [f"{o}/{reference} paired" for o in paired])
    rows = []
    for r in b.to_dict("records"):
        thr = ["" if pd.isna(x := r[f"{k}_mean"]) else f"{x:.{_decimals(x)}f}"
               + (f" ({r[f'{k}_loop']})" if r["mode"] == BEST_LOOP else "") for k in [reference, *others]]
        rows.append(([r["configuration"]] if several else []) + [r["mode"], str(r["num_envs"]), *thr]
                    + [_ratio(r[f"{o}_ratio"], r[f"{o}_lo"], r[f"{o}_hi"]) for o in others]
                    + [_ratio(r[f"{o}_paired"], r[f"{o}_paired_lo"], r[f"{o}_paired_hi"]) for o in paired])
    title = (f"**{column.capitalize()}s side by side** (ratios are to {reference}; paired = per-round ratios "
             "of jobs of the same round)")
    footer = (SIDE_BY_SIDE_FOOTER + (BEST_LOOP_FOOTER if (b["mode"] == BEST_LOOP).any() else "")).format(
        key=key, column=column, reference=reference, unaffected=unaffected)
    return [title, ""] + _md_table(header, rows) + ["", footer, ""]


def _others(b: pd.DataFrame, reference: str) -> list[str]:
    """The values compared with the reference, read off the side-by-side table's `<value>_mean` columns."""
    return [c[:-len("_mean")] for c in b.columns if c.endswith("_mean") and c != f"{reference}_mean"]


def _phases_markdown(phases: pd.DataFrame) -> list[str]:
    if phases.empty:
        return []
    lines = ["**Where the time goes** (schedule.profile=true: ms per loop step, seen from the host; "
             "action_download holds the wait for the device)", ""]
    for g, t in phases.groupby("group", sort=False):
        if phases["group"].nunique() > 1:
            lines += [f"*{g}*", ""]
        rows = [[r.mode, str(r.num_envs), *(f"{getattr(r, k):.3f}" for k in PHASE_COLUMNS), f"{r.total:.3f}"]
                for r in t.itertuples()]
        lines += _md_table(["mode", "num_envs", *PHASE_COLUMNS, "total"], rows) + [""]
    return lines


def _ret(x) -> str:
    return "n/a" if pd.isna(x) else f"{x:.1f}"


def _secs(x) -> str:
    return "never" if pd.isna(x) or x == float("inf") else f"{x:.0f}" if x >= 100 else f"{x:.1f}"


def _steps(x) -> str:
    return "never" if pd.isna(x) or x == float("inf") else f"{x:.0f}"


def _final_cell(r) -> str:
    k = r.seeds_with_return
    if k == 0:
        return "no episode finished"
    if k == 1:
        return f"{_ret(r.final_iqm)} (1 seed: no interval)"
    return f"{_ret(r.final_iqm)} [{_ret(r.final_lo)}, {_ret(r.final_hi)}]" + (f" ({k} seeds: wide)" if k <= 3 else "")


def _num(x, spec: str) -> str:
    return "n/a" if pd.isna(x) else format(x, spec)


def _seeds_cell(r) -> str:
    return str(r.seeds) + (f" (+{r.stopped_seeds} stopped early)" if r.stopped_seeds else "")


def _seed_final_cell(r) -> str:
    """A seed's last return; a stopped seed's is where its job failed, so it says so."""
    ret = "n/a" if pd.isna(r.final_return_mean) else f"{_ret(r.final_return_mean)} ± {_ret(r.final_return_std)}"
    return ret if pd.isna(r.stopped) else f"{ret} (stopped early: job failed)"


def _seed_target_cell(r, value, show) -> str:
    if pd.isna(r.target_return):
        return "no target"
    if pd.isna(value) and pd.notna(r.stopped):
        return "not before it stopped"
    return show(value)


def _to_target_cell(r, median: float, per_seed: str, show) -> str:
    if pd.isna(r.target_return):
        return "no target"
    return f"{show(median)} ({', '.join(show(v) for v in json.loads(per_seed))})"


def _learning_markdown(c: Collection) -> list[str]:
    """The Learning section: per configuration, per seed, and pairs at equal env steps."""
    if c.learning.empty:
        return []
    several = c.learning["group"].nunique() > 1
    conf = lambda r: [r.group] if several else []  # noqa: E731
    first = ["configuration"] if several else []
    lines = ["**Learning** (returns of the learning runs; seeds pooled per configuration)", ""]
    rows = [conf(r) + [r.mode, str(r.num_envs), _seeds_cell(r), _final_cell(r),
                       "none" if pd.isna(r.target_return) else _ret(r.target_return),
                       _to_target_cell(r, r.time_to_target_median, r.time_to_target_per_seed, _secs),
                       _to_target_cell(r, r.env_steps_to_target_median, r.env_steps_to_target_per_seed, _steps),
                       _num(r.env_steps_per_s, ".0f"), _num(r.setup_s, ".1f")] for r in c.learning.itertuples()]
    lines += _md_table(first + ["mode", "num_envs", "seeds", "final return: IQM [95% CI]", "target",
                                "time to target s: median (per seed)", "env steps to target: median (per seed)",
                                "env-steps/s", "setup s"], rows) + [""]
    rows = [conf(r) + [r.mode, str(r.num_envs), str(r.seed), _seed_final_cell(r),
                       str(r.episodes), str(r.total_env_steps), _seed_target_cell(r, r.time_to_target_s, _secs),
                       _seed_target_cell(r, r.env_steps_to_target, _steps),
                       _num(r.env_steps_per_s, ".0f"), _num(r.setup_s, ".1f"), _secs(r.wall_s)]
            for r in c.seeds.itertuples()]
    lines += ["*Per seed*", ""] + _md_table(
        first + ["mode", "num_envs", "seed", "final return: mean ± std", "episodes", "env steps",
                 "time to target s", "env steps to target", "env-steps/s", "setup s", "wall s"], rows) + [""]
    for p in c.equal_steps:
        few = "" if p["enough_seeds"] else f"; fewer than {ACCEPT_SEEDS} seeds a side: not the acceptance test"
        where = f", {p['group']}" if several else ""
        lines += [f"*{p['b']} vs {p['a']} at equal env steps* (num_envs={p['num_envs']}{where}; "
                  f"{p['seeds_b']} and {p['seeds_a']} seeds{few})", ""]
        rng = lambda i, lo, hi: "no return yet" if pd.isna(i) else f"{_ret(i)} [{_ret(lo)}, {_ret(hi)}]"  # noqa: E731
        rows = [[f"{q.env_steps:.0f}", rng(q.iqm_a, q.min_a, q.max_a), rng(q.iqm_b, q.min_b, q.max_b),
                 "n/a" if pd.isna(q.agree) else "yes" if q.agree else "no"] for q in p["points"].itertuples()]
        lines += _md_table(["env steps", f"{p['a']}: IQM [min, max]", f"{p['b']}: IQM [min, max]", "agree"], rows)
        lines += [""]
    windows = ", ".join(str(w) for w in sorted(c.learning["window"].unique()))
    lines += [f"return = undiscounted, unclipped episode return, each seed's mean over its last {windows} finished "
              "episodes; IQM = interquartile mean over seeds (with 3 seeds or fewer, the plain mean), 95% percentile "
              f"bootstrap interval ({RESAMPLES} resamples, fixed seed): with 2-3 seeds it is wide and unreliable, with "
              "1 there is none; time to target = job wall seconds (setup and compilation included) at the first "
              "update whose running mean over a full window reached the target, never = not reached (the median "
              "counts it as infinitely late); env-steps/s = the learning loop's (setup excluded), mean over seeds "
              "(the throughput table pools the same seeds); stopped early = a seed whose job failed part-way: "
              "its curve counts up to the failure (curves, equal env steps), not in final return or time to "
              "target; agree = at those env steps the two IQMs differ by no "
              "more than the wider of the two seed ranges (max - min over seeds); n/a = a seed with no finished "
              "episode yet, or one seed a side (no spread to compare with)", ""]
    if c.learning_warnings:
        lines += ["*Learning warnings*", ""] + [f"- {w}" for w in _bounded(c.learning_warnings)] + [""]
    return lines


def _bounded(items: list[str], limit: int = MAX_LISTED) -> list[str]:
    """Lists that can grow with the pairs or rounds of a collection show a few, then a count."""
    return items if len(items) <= limit else items[:limit] + [f"... and {len(items) - limit} more"]


def render(c: Collection, baseline: Optional[Path]) -> str:
    lines = []
    if not c.table.empty:
        groups = sorted(c.table["group"].unique())
        for g in groups:
            if len(groups) > 1:
                lines += [f"## {g}", ""]
            lines += _group_markdown(c.table[c.table["group"] == g]) + [""]
        ns = sorted(c.table["n"].unique())
        eff = EFFICIENCY_FOOTER if c.table["limit"].notna().any() else ""
        lines += [FOOTER.format(n=ns[0] if len(ns) == 1 else f"{ns[0]}-{ns[-1]}") + eff, ""]
    for column, b in c.side_by_side.items():
        lines += _side_by_side_markdown(b, column)
    lines += _phases_markdown(c.phases)
    lines += _learning_markdown(c)
    job = lambda f: f"{f['path']} ({f['mode']}, num_envs={f['num_envs']}): {f['error']}"  # noqa: E731
    sections = [
        ("Paths not found", c.missing),
        ("Failed jobs", [job(f) for f in c.failed]),
        ("Skipped jobs (the combination does not apply here; not failures)", [job(f) for f in c.skipped]),
        ("No result (job folders without result.json: killed, or still running)", c.no_result),
        ("Duplicates (the same measurement read twice; used once)",
         [f"{d['path']}: same measurement as {d['kept']}" for d in c.duplicates]),
        ("Unusable files", [f"{b['path']}: {b['reason']}" for b in c.bad]),
        (f"Contended: {len(c.contended)} of {len(c.jobs)} jobs were measured while another job ran on the "
         "same host (another sweep writing into this folder, or a parallel launcher); table.csv marks their "
         "rows contended", _bounded(c.contention)),
        ("Machine overloaded while measuring (1-minute load above the CPU count: these figures are slowed "
         "and ratios between them unreliable; table.csv marks the rows overloaded)", _bounded(c.overloaded)),
        ("Machine-state warnings", _bounded(c.machine_warnings)),
        (f"Regressions against {baseline}", c.regressions if baseline else []),
    ]
    for title, items in sections:
        if items:
            lines += [f"**{title}**", ""] + [f"- {i}" for i in items] + [""]
    if baseline and not c.regressions:
        lines += [f"No regressions against {baseline}.", ""]
    return "\n".join(lines).rstrip() + "\n"


def _camel(text: str) -> str:
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", text) if p]
    return parts[0].lower() + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def js_name(label: str) -> str:
    return JS_NAMES.get(label) or _camel(label) + "Raw"


def chart(t: pd.DataFrame, jobs: pd.DataFrame, group: str) -> dict:
    """The reference's arrays ({n, thr, thr_lo, thr_hi} integers, sorted by n) plus meta."""
    out = {}
    for m in sorted(t["mode"].unique(), key=_order):
        s = t[t["mode"] == m].sort_values("num_envs")
        out[js_name(m)] = [{"n": int(r.num_envs), "thr": round(r.mean),
                            "thr_lo": round(r.mean if pd.isna(r.lo) else r.lo),
                            "thr_hi": round(r.mean if pd.isna(r.hi) else r.hi)} for r in s.itertuples()]
    j = jobs[jobs["group"] == group]
    distinct = lambda col: ", ".join(sorted({str(v) for v in j[col] if v is not None})) or None  # noqa: E731
    out["meta"] = {"game": distinct("game"), "agent": distinct("agent"), "device": distinct("device"),
                   "gpu": distinct("gpu"), "schedule": j.iloc[0]["schedule"],
                   "date": max((d for d in j["finished_at"] if d), default=None), "group": group,
                   "frameskip": j.iloc[0]["frameskip"], "unit": results.UNIT}
    return out


def side_by_side(t: pd.DataFrame, charts: dict[str, dict], compared: dict[str, pd.DataFrame]) -> dict:
    """Every group's chart arrays in one chart, named `<mode> <group>` (e.g. stepEnvBackendEnvpoolRaw);
    `meta.groups` says which arrays are whose, with each group's own meta. With backends (runtimes)
    side by side, each other one's ratio to the reference too (`ratio_arrays`), named in `meta.ratios`."""
    out: dict = {}
    metas = {}
    for g, one in charts.items():
        modes = sorted(t.loc[t["group"] == g, "mode"].unique(), key=_order)
        names = {js_name(f"{m} {g}"): one[js_name(m)] for m in modes}
        out.update(names)
        metas[g] = {"arrays": list(names), **one["meta"]}
    out["meta"] = {"unit": results.UNIT, "groups": metas}
    for column, b in compared.items():
        ratios = ratio_arrays(b, column)
        if ratios:
            out.update(ratios)
            out["meta"].setdefault("ratios", {})[column] = {
                "arrays": list(ratios), "over": SIDE_BY_SIDE[column][1],
                "paired": "per-round ratios of jobs of the same round; null under 2 rounds"}
    return out


def ratio_arrays(b: pd.DataFrame, column: str) -> dict:
    """Per other backend (runtime) and mode, its ratio to the reference by num_envs ({n, ratio, lo, hi,
    paired, paired_lo, paired_hi}, 3 decimals, null where there is none), named `<value> over
    <reference> <mode>` (e.g. envpoolOverAleAsyncGroups2), the configuration added where the table
    has several. The best loop's points also name the two loops compared ({loop, over_loop}): which
    is fastest can change with num_envs."""
    out: dict = {}
    if b.empty:
        return out
    reference = SIDE_BY_SIDE[column][1]
    several = b["configuration"].nunique() > 1
    r3 = lambda x: None if pd.isna(x) else round(float(x), 3)  # noqa: E731
    for (conf, mode), s in b.groupby(["configuration", "mode"], sort=False):
        for o in _others(b, reference):
            ran = s[s[f"{o}_ratio"].notna()].sort_values("num_envs")
            if not ran.empty:
                name = _camel(f"{o} over {reference} {mode}" + (f" {conf}" if several else ""))
                out[name] = [{"n": int(r["num_envs"]), **{k: r3(r[f"{o}_{k}"]) for k in (
                    "ratio", "lo", "hi", "paired", "paired_lo", "paired_hi")},
                    **({"loop": r[f"{o}_loop"], "over_loop": r[f"{reference}_loop"]} if mode == BEST_LOOP else {})}
                    for r in ran.to_dict("records")]
    return out


def _py(v):  # json's fallback for numpy scalars
    return v.item()


def chart_js(ch: dict) -> str:
    parts = []
    for name, points in ch.items():
        if name == "meta":
            continue
        body = "".join("  { " + ", ".join(f"{k}: {json.dumps(v, default=_py)}" for k, v in p.items()) + " },\n"
                       for p in points)
        parts.append(f"const {name} = [\n{body}];\n")
    parts.append(f"const chartMeta = {json.dumps(ch['meta'], default=_py)};\n")
    return "\n".join(parts)


SLUG_MAX = 120  # bytes of a group's folder name; file systems refuse names past 255


def slug(name: str) -> str:
    """A group's name as a folder name: a long one (many differing keys) is cut and given a hash of
    the whole, so two long names that share a beginning stay apart."""
    s = re.sub(r"[^\w.=-]+", "_", name).strip("_") or SINGLE_GROUP
    if len(s.encode()) <= SLUG_MAX:
        return s
    return s.encode()[:SLUG_MAX - 13].decode(errors="ignore") + "_" + hashlib.sha1(name.encode()).hexdigest()[:12]


def write_summary(c: Collection, out: Path, plot: bool) -> None:
    """The summary files into `out`, replacing what an earlier collection wrote there."""
    if out.exists() and not out.is_dir():
        raise CollectError(out, "not a directory")
    out.mkdir(parents=True, exist_ok=True)
    remove_earlier(out)
    c.table.to_csv(out / "table.csv", index=False)
    for column, b in c.side_by_side.items():
        if not b.empty:
            b.to_csv(out / SIDE_BY_SIDE_TABLES[column], index=False)
    if not c.phases.empty:
        c.phases.to_csv(out / "phases.csv", index=False)
    (out / "table.md").write_text(c.markdown)
    if not c.ok:
        return
    can_plot = plot and _matplotlib()
    if plot and not can_plot:
        print("plot skipped: matplotlib is not importable (pip install 'ppo-bench[plot]')", file=sys.stderr)
    groups = sorted(c.table["group"].unique())
    charts = {g: chart(c.table[c.table["group"] == g], c.jobs, g) for g in groups}
    if len(groups) > 1:
        json_name, js_file, png_name = SIDE_BY_SIDE_FILES
        _write_chart(side_by_side(c.table, charts, c.side_by_side), out / json_name, out / js_file)
        if can_plot:
            plot_side_by_side(c.table, out / png_name, "PPO loop throughput by configuration")
    if not c.learning.empty:
        _write_learning(c, out, can_plot)
    for g, ch in charts.items():
        where = out if len(groups) == 1 else out / slug(g)
        where.mkdir(exist_ok=True)
        _write_chart(ch, where / "chart.json", where / "chart.js")
        if can_plot:
            m = ch["meta"]
            title = f"PPO loop throughput: {m['game']}, {m['agent']} on {m['device']}" + (
                "" if g == SINGLE_GROUP else f"\n{g}")
            plot_throughput(c.table[c.table["group"] == g], where / "throughput.png", title)


def returns_chart(curves: list[dict]) -> dict:
    """returns.json: per configuration each seed's curve and the IQM curves, rounded (returns and
    seconds to 2 decimals, env steps to integers); null where there is no return yet."""
    r2 = lambda v: [None if x is None or x != x else round(x, 2) for x in v]  # noqa: E731  (x != x: NaN)
    several = len({c["group"] for c in curves}) > 1
    return {"configurations": [
        {"label": curve_label(c, several), "group": c["group"], "mode": c["mode"], "num_envs": c["num_envs"],
         "target_return": c["target_return"],
         "seeds": [{"seed": s["seed"], "path": s["path"], "env_steps": s["env_steps"], "wall_s": r2(s["wall_s"]),
                    "return_mean": r2(s["return_mean"])} for s in c["seeds"]],
         "iqm_vs_env_steps": {"env_steps": [round(x) for x in c["env_steps"]["x"]],
                              "return": r2(c["env_steps"]["iqm"])},
         "iqm_vs_wall_s": {"wall_s": r2(c["wall_s"]["x"]), "return": r2(c["wall_s"]["iqm"])}}
        for c in curves],
        "meta": {"return": "undiscounted, unclipped episode return; running mean over the last window of episodes",
                 "iqm": "interquartile mean over seeds, where every seed has a value",
                 "wall_s": "seconds from job start, setup and compilation included"}}


def _write_learning(c: Collection, out: Path, can_plot: bool) -> None:
    c.learning.to_csv(out / "returns.csv", index=False)
    (out / "returns.json").write_text(json.dumps(returns_chart(c.curves), indent=2, default=_py) + "\n")
    if can_plot:
        plot_returns(c.curves, "env_steps", out / "returns_vs_env_steps.png", "Return against env steps")
        plot_returns(c.curves, "wall_s", out / "returns_vs_wall_s.png", "Return against wall time")


def _write_chart(ch: dict, json_path: Path, js_path: Path) -> None:
    json_path.write_text(json.dumps(ch, indent=2, default=_py) + "\n")
    js_path.write_text(chart_js(ch))


def remove_earlier(out: Path) -> None:
    """Delete what an earlier collection wrote into `out`, by the collector's own file names only.

    Otherwise charts of configurations no longer present, or a phase table when nothing is
    profiled now, would survive as if current. Looks at `out` and the chart folders one level
    down; a folder goes only when removing the collector's files left it empty.
    """
    for name in SUMMARY_FILES + CHART_FILES + SIDE_BY_SIDE_FILES + LEARNING_FILES:
        (out / name).unlink(missing_ok=True)
    for folder in [d for d in out.iterdir() if d.is_dir()]:
        own = [folder / n for n in CHART_FILES if (folder / n).is_file()]
        for f in own:
            f.unlink()
        if own and not any(folder.iterdir()):
            folder.rmdir()
