"""Backends and runtimes side by side, and every group's throughput in one chart.

Which backend (or runtime) serves a PPO loop best is read where configurations differ only in
env.backend (agent.runtime): per configuration, mode and num_envs, each value's throughput
beside the registry's reference value (ale, compiled), with its ratio to it, unpaired over the
pooled reps and paired by round: a section of table.md each and backends.csv, runtimes.csv
(full precision). The probe a key cannot change (the mode without emulators for backends,
without an agent for runtimes) is left out: its ratio would be drift between jobs read as an
effect of the key. Where a value ran more than one loop mode at a num_envs, a "best loop" row
compares each value's fastest loop with the reference's (see `_compare`).

With several groups, side_by_side.json and .js hold every group's chart arrays and these
ratios as arrays, and side_by_side.png every group's throughput on one axis.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ppo_bench.record.parts import UNIT
from ppo_bench.record import stats
from ppo_bench.registry import BACKENDS, MODES, RUNTIMES
from . import throughput
from .common import (camel, decimals, interval, marks_legend, md_table, mode_order, paired, pooled, pooled_mean,
                     probes, ratio_cell, round_ratios, sort_modes)
from .load import MACHINE, Collection, group_names

# Configurations that differ in one key are put side by side by the jobs' column: the key's registry
# (its config key, and its reference: the value the others are compared with), and the fields of the
# modes the key cannot change (a backend no run without emulators, a runtime none without an agent).
COMPARED = {"backend": (BACKENDS, {"emulators": False}), "runtime": (RUNTIMES, {"agent": False})}
TABLES = {column: f"{column}s.csv" for column in COMPARED}
CHART_FILES = ("side_by_side.json", "side_by_side.js", "side_by_side.png")
FILES = (*TABLES.values(), *CHART_FILES)
BEST_LOOP = "best loop"  # the side-by-side row of each value's fastest loop mode
FOOTER = ("env-steps/s, mean over the pooled reps of every round; configurations that differ only in "
          "{key}; <{column}>/{reference} = ratio to {reference}: ratio of geometric means with a 95% "
          "Welch t-interval on log throughput; empty = that {column} did not "
          "run there; {unaffected}, which {column} cannot change, is left out")
PAIRED_FOOTER = ("; paired = per round of one sweep with both, the ratio of the two sides' mean reps, t-interval "
                 "on log ratios (2 rounds or more)")
BEST_LOOP_FOOTER = ("; best loop = each {column}'s fastest loop mode by mean (named beside its figure) against "
                    "{reference}'s, paired on those two loops; picked on the same reps, so a {column} that ran more "
                    "loops is favoured slightly")


def reference_of(column: str) -> str:
    return COMPARED[column][0].reference.name


def unaffected(column: str) -> tuple[str, ...]:
    """The modes a key cannot change: their ratio would be drift between jobs read as its effect."""
    return MODES.names(**COMPARED[column][1])


def build(c: Collection) -> None:
    for column in COMPARED:
        c.side_by_side[column], notes = _side_by_side(c.jobs, column)
        c.machine_warnings += notes


def _mode_label(name: str, cfg: dict) -> str:
    """A mode and its settings, groups=1 left out (async[groups=2], step): one label for every backend,
    where `mode` labels a mode only by the settings that differ within its own group."""
    shown = {k: v for k, v in sorted(cfg.items()) if not (k == "groups" and v == 1)}
    return name + (f"[{','.join(f'{k}={v}' for k, v in shown.items())}]" if shown else "")


def _side_by_side(jobs: pd.DataFrame, column: str) -> tuple[pd.DataFrame, list[str]]:
    """Every value of one key (`column`: backend, runtime) beside the reference's, with its ratio to
    it, where configurations differ only in that key; and the machine warnings of the jobs compared.

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
    key, reference = COMPARED[column][0].key, reference_of(column)
    hide = () if jobs["host_machine"].nunique() > 1 else (MACHINE,)  # named where the collection's differ
    jobs = jobs[~jobs["mode_name"].isin(unaffected(column))]
    rest = [json.dumps({**{k: v for k, v in i.items() if k != key}, MACHINE: m}, sort_keys=True)
            for i, m in zip(jobs["ident"], jobs["ran_on"])]  # never a pair of two machines
    j = jobs.assign(rest=rest, mode_label=[_mode_label(n, m) for n, m in zip(jobs["mode_name"], jobs["mode_cfg"])])
    compared = j.groupby("rest")[column].transform(lambda v: reference in set(v) and v.nunique() > 1)
    j = j[compared.astype(bool)].copy()
    if j.empty:
        return pd.DataFrame(), []
    j["configuration"] = group_names([json.loads(r) for r in j["rest"]], hide)
    others = sorted(set(j[column]) - {reference})
    rows, warnings = [], []
    for (_, conf, mode, n), cell in j.groupby(["rest", "configuration", "mode_label", "num_envs"]):
        _compare(rows, warnings, dict(list(cell.groupby(column))), reference, others, conf, mode, n)
    loops = j[~j["mode_name"].isin(probes())]
    for (_, conf, n), cell in loops.groupby(["rest", "configuration", "num_envs"]):
        if cell.groupby(column)["mode_label"].nunique().max() > 1:
            fastest = {v: _fastest_loop(s) for v, s in cell.groupby(column)}
            _compare(rows, warnings, fastest, reference, others, conf, BEST_LOOP, n)
    if not rows:
        return pd.DataFrame(), warnings
    return sort_modes(pd.DataFrame(rows), ["configuration", "mode", "num_envs"]), warnings


def _compare(rows: list, warnings: list, by: dict, reference: str, others: list[str], conf: str, mode: str,
             n: int) -> None:
    """One row: each value's jobs in `by` (all of one mode, or each its fastest loop) beside the reference's.

    A best loop row warns only about pairs of two different loops: where both picked the same,
    that mode's own row has warned already."""
    ref = by.get(reference)
    if ref is None or len(by) < 2:
        return
    row = {"configuration": conf, "mode": mode, "num_envs": n}
    for v in (reference, *others):
        row[f"{v}_mean"] = pooled_mean(by[v]) if v in by else np.nan
        row[f"{v}_loop"] = by[v]["mode_label"].iloc[0] if v in by else None
    for v in others:
        unpaired, ratios = {}, []
        if v in by:
            unpaired = stats.ratio_interval(pooled(by[v]["reps"]), pooled(ref["reps"]))
            ratios, notes = round_ratios(by[v], ref, f"{conf} {mode} n={n}", f"{v} vs {reference}")
            if mode != BEST_LOOP or row[f"{v}_loop"] != row[f"{reference}_loop"]:
                warnings.extend(notes)
        row.update(zip((f"{v}_{c}" for c in ("ratio", "lo", "hi", "paired", "paired_lo", "paired_hi", "rounds")),
                       (*interval(unpaired), *interval(paired(ratios)), len(ratios))))
    rows.append(row)


def _fastest_loop(jobs: pd.DataFrame) -> pd.DataFrame:
    """The jobs of the mode (label) whose pooled reps have the highest mean."""
    return max((s for _, s in jobs.groupby("mode_label")), key=pooled_mean)


def _others(b: pd.DataFrame, reference: str) -> list[str]:
    """The values compared with the reference, read off the side-by-side table's `<value>_mean` columns."""
    return [c[:-len("_mean")] for c in b.columns if c.endswith("_mean") and c != f"{reference}_mean"]


def markdown(c: Collection) -> list[str]:
    return [line for column, b in c.side_by_side.items() for line in _table_markdown(b, column)]


def _table_markdown(b: pd.DataFrame, column: str) -> list[str]:
    """One table of every backend (runtime) beside the reference's, so that which serves the loop best
    is read in one place."""
    if b.empty:
        return []
    key, reference = COMPARED[column][0].key, reference_of(column)
    others = _others(b, reference)
    paired_values = [o for o in others if b[f"{o}_paired"].notna().any()]
    several = b["configuration"].nunique() > 1
    header = ((["configuration"] if several else []) + ["mode", "num_envs", reference, *others]
              + [f"{o}/{reference}" for o in others] + [f"{o}/{reference} paired" for o in paired_values])
    rows = []
    for r in b.to_dict("records"):
        thr = ["" if pd.isna(x := r[f"{k}_mean"]) else f"{x:.{decimals(x)}f}"
               + (f" ({r[f'{k}_loop']})" if r["mode"] == BEST_LOOP else "") for k in [reference, *others]]
        rows.append(([r["configuration"]] if several else []) + [r["mode"], str(r["num_envs"]), *thr]
                    + [ratio_cell(r[f"{o}_ratio"], r[f"{o}_lo"], r[f"{o}_hi"]) for o in others]
                    + [ratio_cell(r[f"{o}_paired"], r[f"{o}_paired_lo"], r[f"{o}_paired_hi"]) for o in paired_values])
    title = f"**{column.capitalize()}s side by side** (ratios are to {reference})"
    table = md_table(header, rows)
    said = FOOTER + (PAIRED_FOOTER if paired_values else "") + (BEST_LOOP_FOOTER if (b["mode"] == BEST_LOOP).any()
                                                                 else "")
    footer = said.format(key=key, column=column, reference=reference, unaffected=", ".join(unaffected(column)))
    return [title, ""] + table + ["", "; ".join([footer, *marks_legend(table)]), ""]


def chart(t: pd.DataFrame, charts: dict[str, dict], compared: dict[str, pd.DataFrame]) -> dict:
    """Every group's chart arrays in one chart, named `<mode> <group>` (e.g. stepEnvBackendEnvpoolRaw);
    `meta.groups` says which arrays are whose, with each group's own meta. With backends (runtimes)
    side by side, each other one's ratio to the reference too (`ratio_arrays`), named in `meta.ratios`."""
    out: dict = {}
    metas = {}
    for g, one in charts.items():
        modes = sorted(t.loc[t["group"] == g, "mode"].unique(), key=mode_order)
        names = {throughput.js_name(f"{m} {g}"): one[throughput.js_name(m)] for m in modes}
        out.update(names)
        metas[g] = {"arrays": list(names), **one["meta"]}
    out["meta"] = {"unit": UNIT, "groups": metas}
    for column, b in compared.items():
        ratios = ratio_arrays(b, column)
        if ratios:
            out.update(ratios)
            out["meta"].setdefault("ratios", {})[column] = {
                "arrays": list(ratios), "over": reference_of(column),
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
    reference = reference_of(column)
    several = b["configuration"].nunique() > 1
    r3 = lambda x: None if pd.isna(x) else round(float(x), 3)  # noqa: E731
    for (conf, mode), s in b.groupby(["configuration", "mode"], sort=False):
        for o in _others(b, reference):
            ran = s[s[f"{o}_ratio"].notna()].sort_values("num_envs")
            if not ran.empty:
                name = camel(f"{o} over {reference} {mode}" + (f" {conf}" if several else ""))
                out[name] = [{"n": int(r["num_envs"]), **{k: r3(r[f"{o}_{k}"]) for k in (
                    "ratio", "lo", "hi", "paired", "paired_lo", "paired_hi")},
                    **({"loop": r[f"{o}_loop"], "over_loop": r[f"{reference}_loop"]} if mode == BEST_LOOP else {})}
                    for r in ran.to_dict("records")]
    return out


def write(c: Collection, out: Path, plot: bool) -> list[Path]:
    """backends.csv and runtimes.csv where compared; with several groups, the chart and figure of all;
    returns the files written."""
    written = []
    for column, b in c.side_by_side.items():
        if not b.empty:
            b.to_csv(out / TABLES[column], index=False)
            written.append(out / TABLES[column])
    if not c.ok or c.table["group"].nunique() < 2:
        return written
    json_name, js_file, png_name = CHART_FILES
    throughput.write_chart(chart(c.table, throughput.charts(c), c.side_by_side), out / json_name, out / js_file)
    written += [out / json_name, out / js_file]
    if plot:
        groups_plot(c.table, "PPO loop throughput by configuration").savefig(out / png_name, dpi=120)
        written.append(out / png_name)
    return written


def groups_plot(t: pd.DataFrame, title: str):
    """Every group's throughput on one log-log axis, a colour per group and a marker per mode, as a
    matplotlib Figure. The legend goes below the axis, its labels wrapped and the figure made taller
    for them: a group's name lists every key that differs (a learning sweep beside a timed one names
    a dozen), and a legend inside the axis that wide squeezed the axis to nothing."""
    import textwrap

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import ScalarFormatter

    fig = Figure(figsize=(9, 6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    modes = sorted(t["mode"].unique(), key=mode_order)
    markers = dict(zip(modes, "osD^vP*Xh"))
    for i, (g, tg) in enumerate(sorted(t.groupby("group"), key=lambda kv: kv[0])):
        for m in modes:
            s = tg[tg["mode"] == m].sort_values("num_envs")
            if len(s):
                err = [s["mean"] - s["lo"].fillna(s["mean"]), s["hi"].fillna(s["mean"]) - s["mean"]]
                ax.errorbar(s["num_envs"], s["mean"], yerr=err, fmt="-" + markers.get(m, "o"), capsize=3,
                            color=f"C{i}", label=f"{m}, {g}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set_xticks(sorted(t["num_envs"].unique()))
    ax.set_xlabel("num_envs (log2 scale)")
    ax.set_ylabel("env-steps/s (mean, 95% CI)")
    ax.set_title(title)
    handles, names = ax.get_legend_handles_labels()
    names = [textwrap.fill(n, 120, subsequent_indent="    ") for n in names]
    fig.set_figheight(6 + 0.14 * sum(n.count("\n") + 1 for n in names))
    fig.legend(handles, names, loc="outside lower left", fontsize="x-small")
    ax.grid(alpha=0.3, which="both")
    return fig
