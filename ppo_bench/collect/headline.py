"""The report page's first block: the answer at a glance, in the tables' own figures.

For timed loops, per panel (what users compare: panels) and num_envs, the loop with the highest mean
of its pooled reps (table.csv's `mean`) and a verdict, not a winner: it is named alone only where it
is shown faster than each other loop there, the 95% interval of their ratio lying wholly above 1
(paired by round where 2 rounds or more have both, else pooled: the speed-up columns' statistics);
else the cell says "not shown faster than" the loops it ties with. Beside it: its throughput with its
interval and marks (record.marks, as table.md writes them), its speed-up over the reference mode
(table.csv's `speedup` and, where rounds were paired, `paired_speedup`, marked as table.md marks
them), its share of the one bound its design holds it to (bound_per_design.share: table.md's `eff`
cell and the chart's hover say the same), or that no bound was measured there and which probe is
missing, and with a baseline its ratio to it with its verdict (baseline.verdict) and a line counting
the rest. For learning runs, per configuration: the seeds, how many reached the target, the median
time and env steps to the target with each seed's (returns.csv's columns, "never" for a seed that
did not get there) and the final return's aggregate with its interval, named IQM only where it trims
(4 seeds or more). Every figure is a column of the tables (or, for throughput, the page's log
interval of the same reps: view); each cell carries its full-precision value in `data-value`, so a
reader or a test can check it against table.csv.
"""

from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd

from ppo_bench.record import marks as figure_marks, stats
from ppo_bench.registry import MODES
from . import baseline, palette, view
from .bound_per_design import share
from .common import (any_precision, interval, marks_legend, mode_order, paired, precision_text, ratio_cell, round_ratios,
                     weakened_text)
from .curves import aggregate_name


def _cell(text: str, value=None, cls: str = "") -> str:
    v = "" if value is None else f' data-value="{html.escape(_value(value))}"'
    c = f' class="{cls}"' if cls else ""
    return f"<td{c}{v}>{html.escape(text)}</td>"


def _value(x) -> str:
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "nan"
    return repr(float(x)) if isinstance(x, (int, float, np.floating, np.integer)) else str(x)


def _speedup(r, cell: pd.DataFrame) -> str:
    """The top loop's speed-up as table.md writes it (marked where its interval says little); where that
    loop is the reference itself, the next loop's beside it."""
    if r.mode_name == MODES.reference.name:
        others = cell[(cell["mode_name"] != r.mode_name) & cell["speedup"].notna()]
        nxt = next(others.loc[[others["mean"].idxmax()]].itertuples()) if len(others) else None
        return f"{r.mode_name} itself" + ("" if nxt is None else f" (next, {nxt.curve}: "
                                          f"{ratio_cell(nxt.speedup, nxt.speedup_lo, nxt.speedup_hi)})")
    if pd.isna(r.speedup):
        return f"n/a: no {MODES.reference.name} at {r.num_envs} envs"
    text = ratio_cell(r.speedup, r.speedup_lo, r.speedup_hi)
    if pd.notna(r.paired_speedup):
        text += f"; paired {ratio_cell(r.paired_speedup, r.paired_lo, r.paired_hi)}"
    return text


def _bound(r) -> str:
    if pd.isna(r.bound):
        missing = r.limit_missing if isinstance(getattr(r, "limit_missing", None), str) and r.limit_missing else ""
        return "not measured" + (f" (no {missing})" if missing else "")
    return share(r, view.fmt)


def _jobs(jobs: pd.DataFrame, r) -> pd.DataFrame:
    return jobs[(jobs["group"] == r.group) & (jobs["mode"] == r.mode) & (jobs["num_envs"] == r.num_envs)]


def lower_end(top, other, jobs: pd.DataFrame) -> float:
    """The lower end of the 95% interval on top / other, as the speed-up columns compute it: paired by round
    where 2 rounds or more have both (the figure to read on a drifting machine), else pooled (Welch on log
    reps); NaN where there is none (one rep a side)."""
    ratios, _ = round_ratios(_jobs(jobs, top), _jobs(jobs, other), "", "")
    if len(ratios) >= 2:
        return interval(paired(ratios))[1]
    return interval(stats.ratio_interval(json.loads(top.reps), json.loads(other.reps)))[1]


def verdict(top, cell: pd.DataFrame, jobs: pd.DataFrame) -> list[str]:
    """The loops at a cell that the top mean is not shown faster than (their ratio's interval reaches 1 or
    below, or has none), in mode order; [] where it is shown faster than each."""
    others = sorted(cell[cell.index != top.Index].itertuples(), key=lambda o: mode_order(o.mode))
    return [o.curve for o in others if not lower_end(top, o, jobs) > 1]  # NaN: not shown


def _fastest(r, tied: list[str]) -> str:
    colour = palette.mode_colour(r.mode_name)
    said = r.curve + ("" if not tied else ", not shown faster than " + (
        tied[0] if len(tied) == 1 else ", ".join(tied[:-1]) + " or " + tied[-1]))
    return f'<td class="text"><span class="swatch" style="background:{colour}"></span>{html.escape(said)}</td>'


def _baseline(r) -> str:
    if pd.isna(getattr(r, "baseline_ratio", np.nan)):
        return "not in the baseline"
    said = baseline.verdict(r.baseline_lo, r.baseline_hi)
    return f"{ratio_cell(r.baseline_ratio, r.baseline_lo, r.baseline_hi)}: {said}"


def throughput(t: pd.DataFrame, c) -> str:
    """The top loop per panel and num_envs, with its verdict (empty where no loop ran)."""
    loops = t[~t["probe"]] if not t.empty else t
    if loops.empty:
        return ""
    titles = view.panel_titles(loops)
    several = len(titles) > 1
    bounded = bool(t["probe"].any())  # no probe ran: no loop has a bound, said once below
    against = c.baseline is not None
    rows, shown = [], []
    for title in titles:
        tp = loops[loops["panel"] == title]
        members = html.escape(json.dumps(sorted(tp["group"].unique())))
        for n, cell in tp.groupby("num_envs"):
            r = next(cell.loc[[cell["mean"].idxmax()]].itertuples())
            tied = verdict(r, cell, c.jobs)
            interval_text = "" if pd.isna(r.lo) else f" [{view.fmt(r.lo)}, {view.fmt(r.hi)}]"
            shown.append(precision_text(r) + weakened_text(r))
            rows.append(
                f'<tr data-group="{html.escape(r.group)}" data-mode="{html.escape(r.mode)}" data-num-envs="{n}" '
                f'data-groups="{members}" data-verdict="{"tie" if tied else "faster"}" '
                f'data-ties="{html.escape(json.dumps(tied))}">' + (_cell(title or "all") if several else "")
                + _cell(str(n), cls="num") + _fastest(r, tied)
                + _cell(f"{view.fmt(r.mean)}{interval_text}{shown[-1]}", r.mean, "thr num")
                + _cell(_speedup(r, cell), r.speedup, "speedup")
                + (_cell(_bound(r), r.bound_efficiency, "bound") if bounded else "")
                + (_cell(_baseline(r), getattr(r, "baseline_ratio", np.nan), "baseline") if against else "")
                + "</tr>")
    ref = MODES.reference.name
    head = (["configuration"] if several else []) + [
        "num_envs", "fastest loop", "env-steps/s: mean [95% CI]", f"speed-up over {ref} [95% CI]"] + (
        ["share of the bound it is held to"] if bounded else []) + (["over the baseline [95% CI]"] if against else [])
    said = figure_marks.legend(m for m in figure_marks.ORDER if any(f"{m}" in x for x in shown))
    return ('<table class="headline" id="headline-throughput"><thead><tr>'
            + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
            + '<p class="blurb">Fastest loop = the highest mean of the pooled reps, shown faster than another loop '
              "where the 95% interval of their ratio (paired by round with 2 rounds or more, else pooled: Welch on "
              "log reps) lies wholly above 1; \"not shown faster than\" names the loops where it does not. Mean, "
              "speed-up" + (" and share of the bound" if bounded else "") + " as table.csv states them, the "
              "interval (on log reps" + ("; ±x%: a precision target's two-stage interval, its half-width over the "
              "mean" if any_precision(loops) else "") + ") as drawn below" + ("." if bounded else "; no probe ran, so no loop has a bound.")
            + "".join(f" {html.escape(x)}." for x in said + (marks_legend([" ".join(rows)])))
            + "</p>" + (f'<p class="blurb" id="headline-baseline">{html.escape(baseline.summary(c))}</p>'
                        if against else ""))


def _per_seed(values: str, show) -> str:
    return ", ".join(show(v) for v in json.loads(values))


def _secs(v) -> str:
    return "never" if v is None or pd.isna(v) or v == float("inf") else f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def _steps(v) -> str:
    return "never" if v is None or pd.isna(v) or v == float("inf") else f"{v:,.0f}"


def learning(c) -> str:
    """Per learning configuration: seeds, target reached, time and env steps to it, final return."""
    if c.learning.empty:
        return ""
    from .curves import configurations

    confs = configurations(c)
    several = confs["panel"].nunique() > 1
    rows = []
    for r in confs.itertuples():
        seeds = json.loads(r.seed_list)
        seeds_text = f"{r.seeds}: {', '.join(map(str, seeds))}" + (f" (+{r.stopped_seeds} stopped early)"
                                                                   if r.stopped_seeds else "")
        colour = palette.mode_colour(r.mode.split("[")[0])
        if pd.isna(r.target_return):
            reached = time = steps = "no target"
        else:
            reached = f"{r.reached} of {r.seeds} (target {r.target_return:g})"
            time = f"{_secs(r.time_to_target_median)} ({_per_seed(r.time_to_target_per_seed, _secs)})"
            steps = f"{_steps(r.env_steps_to_target_median)} ({_per_seed(r.env_steps_to_target_per_seed, _steps)})"
        k = r.seeds_with_return
        final = ("no episode finished" if k == 0 else f"{r.final_iqm:.1f}" + (
            "" if pd.isna(r.final_lo) else f" [{r.final_lo:.1f}, {r.final_hi:.1f}]") + f" ({aggregate_name(k)})")
        rows.append(
            f'<tr data-group="{html.escape(r.group)}" data-mode="{html.escape(r.mode)}" data-num-envs="{r.num_envs}">'
            + (_cell(r.panel or "all") if several else "")
            + f'<td class="text"><span class="swatch" style="background:{colour}"></span>{html.escape(r.curve)}</td>'
            + _cell(str(r.num_envs), cls="num") + _cell(seeds_text) + _cell(reached, r.reached)
            + _cell(time, r.time_to_target_median, "time") + _cell(steps, r.env_steps_to_target_median, "steps")
            + _cell(final, r.final_iqm, "final") + "</tr>")
    head = (["configuration"] if several else []) + [
        "mode", "num_envs", "seeds", "reached the target", "time to target, s from job start: median (per seed)",
        "env steps to target: median (per seed)", "final return [95% CI]"]
    return ('<table class="headline" id="headline-learning"><thead><tr>' + "".join(f"<th>{h}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
            + '<p class="blurb">As returns.csv states them; never = not reached (the median counts it as '
              "infinitely late).</p>")


def block(c, t: pd.DataFrame) -> str:
    parts = [p for p in (throughput(t, c), learning(c)) if p]
    if not parts:
        return ""
    return '<section id="headline"><h2>At a glance</h2>' + "".join(parts) + "</section>"
