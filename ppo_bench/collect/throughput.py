"""Throughput: per group x mode x num_envs the pooled reps and the speed-up over the reference mode.

table.csv holds one row per group x mode x num_envs: the pooled reps and their interval, the
speed-up over the reference mode (the registry's first, step), unpaired and paired per round
with a machine warning where the two jobs compared saw a different machine; the other sections
add their columns to it (probe_limit, bound_per_design, integrity, baseline). Probes get no speed-up: they are not a
way to run the loop, only a bound on it. table.md shows one table per group; each group gets
its chart arrays (chart.json, chart.js: the reference's stepRaw and kin, named by the registry)
and throughput.png, in the out dir with one group, in a folder per group with several.

A table says what it shows and nothing else: a legend under the tables explains the columns and
marks they hold (a paired column only where one is shown), a ratio whose interval contains 1 or
spans over a factor of 4 is marked (common.marks), and what weakens a figure is said beside it: a
cell noisy, contended, overloaded, stolen or on a shared node carries that word (record.marks), and a cell
whose jobs' records carry warnings (no update inside the timed steps, a busy machine) gets a mark
(w1) and the warning's text under its table; table.csv keeps each row's warnings (a JSON list), less
the check of the agent's graphs on a probe that runs no agent. Each loop's `eff` column is its share
of the one bound its design holds it to (bound_per_design).

Figures keep full precision in table.csv (and its raw reps, so that a later collection can use
it as a baseline); they are rounded only in table.md and the chart arrays.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from ppo_bench.record.parts import UNIT
from ppo_bench.record import marks, stats
from ppo_bench.registry import MODES
from . import bound_per_design, measured, probe_limit
from .common import (bounded, camel, decimals, interval, marks_legend, md_table, mode_order, paired, pooled,
                     precision_text, probes, ratio_cell, round_ratios, sort_modes, to_json, weakened,
                     weakened_legend, weakened_text)
from .load import SINGLE_GROUP, Collection

GROUP_FILES = ("chart.json", "chart.js", "throughput.png")  # per group (in the out dir when one)
FILES = ("table.csv", *GROUP_FILES)
POOLED_AWAY = "schedule.reps=1:"  # config.warnings_for's note that a job alone gives no interval: moot once pooled
INFERENCE = "the inference compiled "  # the job's check of the agent's graphs: moot where no agent ran
WARNED = re.compile(r" \(w\d+(, w\d+)*\)")  # a cell's warning marks (`_warned`)
SLUG_MAX = 120  # bytes of a group's folder name; file systems refuse names past 255


def build(c: Collection) -> None:
    """The rows of table.csv and each rep's row (`runs`); the speed-ups' machine warnings."""
    runs = c.jobs.explode("reps").rename(columns={"reps": "thr"}).astype({"thr": float})
    runs["rep"] = runs.groupby(level=0).cumcount()
    c.runs = runs[["group", "identity", "mode", "num_envs", "round", "rep", "thr", "path"]].reset_index(drop=True)
    c.table = summarise(c.jobs)
    c.machine_warnings = _speedups(c.table, c.jobs)


def summarise(jobs: pd.DataFrame) -> pd.DataFrame:
    """One row per group x mode x num_envs: the pooled reps of its jobs (rounds) and their statistics."""
    rows = []
    for (group, mode, n), sub in jobs.sort_values(["round", "path"]).groupby(["group", "mode", "num_envs"]):
        reps = pooled(sub["reps"])
        targets = [t for t in sub["precision"] if t is not None and t == t] if "precision" in sub else []
        # a precision target's reps: their two-stage interval (record.precision), each job's pilot beside
        # the others' reps (a job without a target: all of them)
        pilots = [r[:int(p)] if p is not None and p == p else r for r, p in zip(sub["reps"], sub["pilot"])] \
            if targets else None
        s = stats.summary(reps, pilots)
        first = sub.iloc[0]
        rows.append({
            "group": group, "identity": first["identity"], "mode": mode, "mode_name": first["mode_name"],
            "groups": first["groups"], "num_envs": n, "backend": first["backend"], "runtime": first["runtime"],
            "algo": first["algo"], "num_threads": first["num_threads"],
            "mean": s["mean"], "ci95": s["ci95"],
            "lo": s["lo"], "hi": s["hi"], "n": s["n"], "jobs": len(sub), "cv": s["cv"],
            "noisy": marks.noisy(s["cv"]),
            "precision": max(targets) if targets else np.nan,
            "rel_half_width": stats.relative_half_width(s["mean"], s["lo"], s["hi"]),
            "at_cap": any(marks.at_cap(x) for x in sub.get("stopped_by", [])),
            "frames_per_s": s["mean"] * first["frameskip"] if first["frameskip"] else np.nan,
            "reps": json.dumps(reps), "warnings": json.dumps(_warnings(sub, s["n"], first["mode_name"])),
        })
    table = sort_modes(pd.DataFrame(rows), ["group", "mode", "num_envs"])
    return table.astype({"num_threads": "Int64"}) if not table.empty else table  # null: no emulators, or not recorded


def _warnings(jobs: pd.DataFrame, n: int, mode: str) -> list[str]:
    """The distinct warnings of a row's jobs' records, in order: what weakens its figure (no update inside
    the timed steps, a busy machine, a recompiled graph). A job's note that it alone gives no interval
    is left out where the row pooled the reps of several into one (POOLED_AWAY), and the check of the
    agent's graphs on a probe that runs no agent (INFERENCE: an older job checked it on env_only too,
    where nothing compiles, and warned on every such cell)."""
    found = dict.fromkeys(w for ws in jobs["warnings"] for w in ws)
    agentless = mode in MODES and not MODES[mode].agent
    return [w for w in found
            if not (n > 1 and w.startswith(POOLED_AWAY)) and not (agentless and w.startswith(INFERENCE))]


def _speedups(table: pd.DataFrame, jobs: pd.DataFrame) -> list[str]:
    """Unpaired and paired speed-up over the reference mode; returns machine-state warnings on compared jobs."""
    ref = MODES.reference.name
    warnings = []
    reps = {(r.group, r.mode, r.num_envs): json.loads(r.reps) for r in table.itertuples()}
    cells = dict(list(jobs.groupby(["group", "num_envs"])))
    cols = {c: [] for c in ("speedup", "speedup_lo", "speedup_hi", "paired_speedup",
                            "paired_lo", "paired_hi", "paired_rounds")}
    for r in table.itertuples():
        base = reps.get((r.group, ref, r.num_envs))
        unpaired, ratios = {}, []
        if r.mode != ref and r.mode_name not in probes() and base is not None:
            unpaired = stats.ratio_interval(reps[(r.group, r.mode, r.num_envs)], base)
            cell = cells[(r.group, r.num_envs)]
            ratios, notes = round_ratios(cell[cell["mode"] == r.mode], cell[cell["mode"] == ref],
                                         f"{r.group} n={r.num_envs}", f"{r.mode} vs {ref}")
            warnings += notes
        for c, v in zip(cols, (*interval(unpaired), *interval(paired(ratios)), len(ratios))):
            cols[c].append(v)
    for c, v in cols.items():
        table[c] = v
    return warnings


def markdown(c: Collection) -> list[str]:
    """A table per group (headed by its name where there are several), its warnings under it, then the
    legend of what the tables show (`legend`) and the footer on the bounds per design."""
    if c.table.empty:
        return []
    lines = []
    groups = sorted(c.table["group"].unique())
    for g in groups:
        if len(groups) > 1:
            lines += [f"## {g}", ""]
        lines += _group_markdown(c.table[c.table["group"] == g]) + [""]
    return lines + [legend(c.table, lines), ""] + bound_per_design.footer(c.table)


def legend(table: pd.DataFrame, lines: list[str]) -> str:
    """One line saying what each column and mark that the tables in `lines` show means, and nothing
    they do not show (a paired column, a mark, a limit)."""
    ref = MODES.reference.name
    ns = sorted(table["n"].unique())
    reps = f"{ns[0]} rep{'s' if ns[0] > 1 else ''}" if len(ns) == 1 else f"{ns[0]}-{ns[-1]} reps"
    headers = {h.strip() for line in lines if line.startswith("| num_envs |") for h in line.strip("|").split("|")}
    items = [f"env-steps/s, mean over {reps} (rounds pooled) [95% interval: the t-interval on the log reps, "
             "exponentiated, so never below zero]" if table["lo"].notna().any() else
             f"env-steps/s, mean over {reps} (one rep: no interval)"]
    items += ["±x% = a precision target's cell (schedule.precision): its interval's half-width over its mean, "
              "the two-stage interval of its reps (table.csv: rel_half_width, precision)"] if any(
        "%" in c for line in lines if line.startswith("| ") for c in line.split("|")[2:] if " ±" in c) else []
    items += weakened_legend(lines)
    items += [f"<mode>/{ref} = speed-up over {ref}: ratio of geometric means with a 95% Welch t-interval on "
              "log throughput"] if any(h.endswith(f"/{ref}") for h in headers) else []
    items += ["paired = per round, the ratio of the two back-to-back jobs, t-interval on the log ratios (2 "
              "rounds or more)"] if any(h.endswith(f"/{ref} paired") for h in headers) else []
    items += bound_per_design.legend(table, lines) + marks_legend(lines)
    items += ["(wN) = a warning on that cell's jobs, said under its table"] if any(
        WARNED.search(line) for line in lines) else []
    return "; ".join(items)


def _group_markdown(t: pd.DataFrame) -> list[str]:
    ref = MODES.reference.name
    labels = sorted(t["mode"].unique(), key=mode_order)
    loops = [m for m in labels if m.split("[")[0] not in probes()]
    cell = {(r.mode, r.num_envs): r for r in t.itertuples()}
    others = [m for m in loops if m != ref and t.loc[t["mode"] == m, "speedup"].notna().any()]
    paired_modes = [m for m in others if t.loc[t["mode"] == m, "paired_speedup"].notna().any()]
    bound_header, bound_cells = bound_per_design.columns(t, loops)
    header = (["num_envs"] + labels + [f"{m}/{ref}" for m in others] + [f"{m}/{ref} paired" for m in paired_modes]
              + bound_header)
    rows, notes = [], {}
    for n in sorted(t["num_envs"].unique()):
        get = lambda m: cell.get((m, n))  # noqa: E731
        row = [str(n)] + [_mean_cell(get(m)) + _warned(get(m), notes) if get(m) else "" for m in labels]
        row += [ratio_cell(get(m).speedup, get(m).speedup_lo, get(m).speedup_hi) if get(m) else "" for m in others]
        row += [ratio_cell(get(m).paired_speedup, get(m).paired_lo, get(m).paired_hi) if get(m) else ""
                for m in paired_modes]
        rows.append(row + bound_cells[n])
    said = [f"- (w{k}) {text}" for text, k in notes.items()]
    return (md_table(header, rows) + ([""] + bounded(said) if said else []) + probe_limit.notes(t)
            + bound_per_design.notes(t) + bound_per_design.markdown(t))


def _warned(r, notes: dict[str, int]) -> str:
    """The marks of the warnings its jobs' records carry, each text numbered once per table in `notes`:
    " (w1, w2)" (contended, overloaded and noisy are marks of their own: `_mean_cell`; a job's own
    warning of a busy machine is the overloaded mark's, said once, by it)."""
    overloaded = marks.OVERLOADED in weakened(r)
    texts = [w for w in json.loads(r.warnings) if not (overloaded and w.startswith(marks.BUSY))]
    if not texts:
        return ""
    return " (" + ", ".join(f"w{notes.setdefault(x, len(notes) + 1)}" for x in texts) + ")"


def _mean_cell(r) -> str:
    """The mean and its 95% interval (stats.summary: on log reps, never below zero) and its marks
    (record.marks): 591 [497, 700] (noisy)."""
    d = decimals(r.mean)
    cell = f"{r.mean:.{d}f}" if pd.isna(r.lo) else f"{r.mean:.{d}f} [{r.lo:.{d}f}, {r.hi:.{d}f}]"
    return cell + precision_text(r) + weakened_text(r)


def js_name(label: str) -> str:
    """A chart array's name: the registry's for a mode (stepRaw), else the label in camel case."""
    return (MODES[label].chart if label in MODES else "") or camel(label) + "Raw"


def chart_figure(x: float) -> int | float:
    """A chart array's env-steps/s: a whole number from 100 up, as the reference's arrays hold them;
    below, 3 significant figures, so that a small bound (0.183) is never rounded to 0."""
    return round(x) if x >= 100 else float(f"{x:.3g}")


def chart(t: pd.DataFrame, jobs: pd.DataFrame, group: str, sweeps: Optional[dict] = None,
          histories: Optional[dict] = None) -> dict:
    """The reference's arrays ({n, thr, thr_lo, thr_hi}, `chart_figure`s, sorted by n) plus meta, what was
    measured among it (`measured`: `sweeps` and `histories` are the collection's multirun.yaml and
    .commands.jsonl texts, for the commands)."""
    sweeps = sweeps or {}
    out = {}
    for m in sorted(t["mode"].unique(), key=mode_order):
        s = t[t["mode"] == m].sort_values("num_envs")
        out[js_name(m)] = [{"n": int(r.num_envs), "thr": chart_figure(r.mean),
                            "thr_lo": chart_figure(r.mean if pd.isna(r.lo) else r.lo),
                            "thr_hi": chart_figure(r.mean if pd.isna(r.hi) else r.hi)} for r in s.itertuples()]
    j = jobs[jobs["group"] == group]
    distinct = lambda col: ", ".join(sorted({str(v) for v in j[col] if v is not None})) or None  # noqa: E731
    out["meta"] = {"game": distinct("game"), "agent": distinct("agent"), "device": distinct("device"),
                   "gpu": distinct("gpu"), "schedule": j.iloc[0]["schedule"],
                   "date": max((d for d in j["finished_at"] if d), default=None), "group": group,
                   "frameskip": j.iloc[0]["frameskip"], "unit": UNIT,
                   "measured": measured.meta(j, sweeps, histories)}
    return out


def charts(c: Collection) -> dict[str, dict]:
    """Every group's chart, by group name in order."""
    return {g: chart(c.table[c.table["group"] == g], c.jobs, g, c.sweeps, c.histories)
            for g in sorted(c.table["group"].unique())}


def chart_js(ch: dict) -> str:
    parts = []
    for name, points in ch.items():
        if name == "meta":
            continue
        body = "".join("  { " + ", ".join(f"{k}: {to_json(v)}" for k, v in p.items())
                       + " },\n" for p in points)
        parts.append(f"const {name} = [\n{body}];\n")
    parts.append(f"const chartMeta = {to_json(ch['meta'])};\n")
    return "\n".join(parts)


def write_chart(ch: dict, json_path: Path, js_path: Path) -> None:
    json_path.write_text(to_json(ch, indent=2) + "\n")
    js_path.write_text(chart_js(ch))


def slug(name: str) -> str:
    """A group's name as a folder name: a long one (many differing keys) is cut and given a hash of
    the whole, so two long names that share a beginning stay apart."""
    s = re.sub(r"[^\w.=-]+", "_", name).strip("_") or SINGLE_GROUP
    if len(s.encode()) <= SLUG_MAX:
        return s
    return s.encode()[:SLUG_MAX - 13].decode(errors="ignore") + "_" + hashlib.sha1(name.encode()).hexdigest()[:12]


def write(c: Collection, out: Path, plot: bool) -> list[Path]:
    """table.csv (always: it is what a baseline reads), and each group's chart and figure; returns
    the files written."""
    c.table.to_csv(out / "table.csv", index=False)
    written = [out / "table.csv"]
    if not c.ok:
        return written
    several = c.table["group"].nunique() > 1
    for g, ch in charts(c).items():
        where = out / slug(g) if several else out
        where.mkdir(exist_ok=True)
        write_chart(ch, where / "chart.json", where / "chart.js")
        written += [where / "chart.json", where / "chart.js"]
        if plot:
            m = ch["meta"]
            title = f"PPO loop throughput: {m['game']}, {m['agent']} on {m['device']}" + (
                "" if g == SINGLE_GROUP else f"\n{g}")
            throughput_plot(c.table[c.table["group"] == g], title).savefig(where / "throughput.png", dpi=120)
            written.append(where / "throughput.png")
    return written


def _chain_lines(ax, t: pd.DataFrame) -> None:
    """bound_per_design's chain column as collected, a grey dash-dot line per groups over the loop rows with a
    bound (the rows table.md's bound table lists): open markers where the limit binds, filled where a
    row is held to the chain (bound_kind), so the line never claims to bound a loop its design does not."""
    label = f"chain bound = 1/(1/{bound_per_design.env_probe()} + 1/(g·{bound_per_design.agent_probe()}))"
    note = " (filled: a loop held to it)"  # said once, on the first groups' line
    for g, s in t[t["bound"].notna()].groupby("groups"):
        s = s.sort_values("num_envs")
        line = s.drop_duplicates("num_envs")  # one chain per groups x num_envs: it is the probes'
        style = dict(color="0.35", marker="D", ms=5, ls="-." if g == 1 else (0, (3, 1, 1, 1, 1, 1)), zorder=4)
        ax.plot(line["num_envs"], line["chain"], mfc="none", label=label + ("" if g == 1 else f", groups={g}") + note,
                **style)
        note = ""
        held = s[s["bound_kind"] == bound_per_design.CHAIN].drop_duplicates("num_envs")
        if len(held):
            ax.plot(held["num_envs"], held["chain"], ls="none", gid=f"chain held, groups={g}",
                    **{k: v for k, v in style.items() if k != "ls"})


def throughput_plot(t: pd.DataFrame, title: str):
    """One group's throughput.png as a matplotlib Figure (returned, so a test can read its lines):
    throughput per mode with 95% error bars, the overlap limit and the chain bound; speed-up over the
    reference mode beneath.

    Log-log on top, since throughput spans orders of magnitude over num_envs.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import ScalarFormatter

    fig = Figure(figsize=(8, 7), layout="constrained")
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2, 1])
    colour = {}
    for m in sorted(t["mode"].unique(), key=mode_order):
        s = t[t["mode"] == m].sort_values("num_envs")
        err = [s["mean"] - s["lo"].fillna(s["mean"]), s["hi"].fillna(s["mean"]) - s["mean"]]
        bars = top.errorbar(s["num_envs"], s["mean"], yerr=err, fmt="-o", capsize=3, label=m)
        colour[m] = bars.lines[0].get_color()
    for g, s in t[t["limit"].notna()].groupby("groups"):
        s = s.drop_duplicates("num_envs").sort_values("num_envs")
        top.plot(s["num_envs"], s["limit"], "k--" if g == 1 else "k:", zorder=4,
                 label=f"limit = min({', '.join(probes())})" + ("" if g == 1 else f", groups={g}"))
    _chain_lines(top, t)
    top.set_xscale("log", base=2)
    top.set_yscale("log")
    top.set_ylabel("env-steps/s (mean, 95% CI)")
    top.set_title(title)
    top.legend(fontsize="small")
    top.grid(alpha=0.3, which="both")
    bottom.axhline(1.0, color="grey", lw=1)
    for m in colour:
        s = t[t["mode"] == m].sort_values("num_envs")
        for mid, lo, hi, style, shift, suffix in (
                ("speedup", "speedup_lo", "speedup_hi", "-o", 1.0, ""),
                ("paired_speedup", "paired_lo", "paired_hi", "--s", 2**0.1, " paired")):
            sub = s[s[mid].notna()]
            if len(sub):  # paired points nudged right so both bars stay visible
                err = [sub[mid] - sub[lo].fillna(sub[mid]), sub[hi].fillna(sub[mid]) - sub[mid]]
                bottom.errorbar(sub["num_envs"] * shift, sub[mid], yerr=err, fmt=style, capsize=3,
                                color=colour[m], mfc="none" if suffix else colour[m], label=m + suffix)
    bottom.xaxis.set_major_formatter(ScalarFormatter())
    bottom.set_xticks(sorted(t["num_envs"].unique()))
    bottom.set_xlabel("num_envs (log2 scale)")
    bottom.set_ylabel(f"speed-up over {MODES.reference.name} (x, 95% CI)")
    if bottom.get_legend_handles_labels()[0]:
        bottom.legend(fontsize="small")
    bottom.grid(alpha=0.3)
    return fig
