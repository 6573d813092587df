"""The report page's interactive figures (plotly), drawn from what the sections put in the Collection.

Nothing is computed here: every figure reads the columns the sections filled in (throughput's
means and intervals and speed-ups, limits' limit, bounds' efficiency against the bound,
side_by_side's tables, learning's curves as returns.json holds them), so the page and the
tables cannot disagree. Each figure is keyed by a stable div id (`chart-throughput`, ...) and
each trace carries `meta` naming the group and mode (or configuration and seed) it draws, so a
reader (or a test) can match it to a row of table.csv. A figure with no data is left out.
Several groups are drawn as facets of one figure, a panel per group in the same order as
table.md, and a mode keeps its colour in every panel (clicking it in the legend hides it in all).
"""

from __future__ import annotations

import math
import textwrap

import pandas as pd

from ..registry import MODES
from . import side_by_side
from .common import mode_order, probes
from .learning import returns_chart
from .load import Collection

NUDGE = 2 ** 0.08  # paired points sit this factor right of the pooled ones on a log2 axis, so both bars show
PANEL_H, TITLE_LINE_H = 330, 15  # px per panel, per line of a panel's title
COLUMNS = 3  # panels per row at most
THR = "env-steps/s"
X_TITLE = "num_envs (log scale)"


def palette() -> list[str]:
    import plotly.colors
    return plotly.colors.qualitative.Plotly


def nums(values) -> list:
    """Floats for JSON, None where there is no value (a gap, an absent bar)."""
    return [None if v is None or pd.isna(v) else float(v) for v in values]


def error(mid, lo, hi) -> dict:
    """Asymmetric error bars from an interval; none (0) where the interval is missing."""
    mid, lo, hi = (pd.Series(list(v), dtype=float) for v in (mid, lo, hi))
    return {"type": "data", "symmetric": False, "array": nums((hi - mid).fillna(0)),
            "arrayminus": nums((mid - lo).fillna(0)), "thickness": 1.2, "width": 3}


def all_figures(c: Collection) -> list[tuple[str, str, str, object]]:
    """(div id, heading, what it shows, figure) for every figure the collection has data for."""
    found = []
    if c.ok and not c.table.empty:
        t = c.table
        loops = t[~t["mode_name"].isin(probes())]
        ref, colour = MODES.reference.name, colours(t)
        found.append(("chart-throughput", "Throughput against num_envs",
                      "Mean env-steps/s over the pooled repetitions with its 95% t-interval, per mode; the dashed "
                      f"line is the limit min({', '.join(probes())}) at the same batches.",
                      throughput_figure(t, colour)))
        if loops["speedup"].notna().any():
            found.append(("chart-speedup", f"Speed-up over {ref}",
                          f"Ratio to {ref} at the same num_envs: pooled (solid, 95% Welch interval) and paired by "
                          "round (dashed, open markers, t-interval on log ratios; drawn slightly right).",
                          speedup_figure(loops, colour)))
        if loops["bound"].notna().any():
            found.append(("chart-efficiency", "Efficiency against the bound",
                          "Each loop's mean over the bound its design holds it to (the chain or the limit; hover "
                          "for which and why): pooled (solid) and paired by round (dashed, 95% interval). Over "
                          "100% = beat its bound.", efficiency_figure(loops, colour)))
    for column, b in c.side_by_side.items():
        if not b.empty:
            ref = side_by_side.reference_of(column)
            found.append((f"chart-{column}s", f"{column.capitalize()}s side by side",
                          f"Each {column}'s mean env-steps/s at one mode and num_envs (best loop = each one's "
                          f"fastest loop), and its ratio to {ref}: pooled with the 95% Welch interval (solid "
                          "bars) and paired by round (hatched).", side_by_side_figure(b, column)))
    if c.ok and not c.learning.empty:
        chart = returns_chart(c.curves)
        for x, name in (("env_steps", "env steps"), ("wall_s", "wall time")):
            found.append((f"chart-returns-{x.replace('_', '-')}", f"Return against {name}",
                          "Each seed's running mean return (thin) and the interquartile mean over seeds (thick, "
                          "where every seed has a value), as returns.json holds them.", returns_figure(chart, x)))
    return found


def colours(t: pd.DataFrame) -> dict[str, str]:
    """One colour per mode, in mode order, the same in every figure."""
    p = palette()
    return {m: p[i % len(p)] for i, m in enumerate(sorted(t["mode"].unique(), key=mode_order))}


def facets(t: pd.DataFrame, y_title: str, y_log: bool = False):
    """A figure with a panel per group (titled by its name where there are several) and the
    (group, row, col) of each; x is num_envs on a log axis ticked at the values measured."""
    from plotly.subplots import make_subplots

    groups = sorted(t["group"].unique())
    cols = min(COLUMNS, len(groups))
    rows = math.ceil(len(groups) / cols)
    titles = ["<br>".join(textwrap.wrap(g, 150 // cols)) for g in groups] if len(groups) > 1 else None
    lines = max((s.count("<br>") + 1 for s in titles), default=0) if titles else 0
    height = rows * (PANEL_H + lines * TITLE_LINE_H) + 120
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.07,
                        vertical_spacing=min(0.3, (lines * TITLE_LINE_H + 60) / height) if rows > 1 else 0.1)
    fig.update_annotations(font_size=11)
    ticks = sorted(int(n) for n in t["num_envs"].unique())
    fig.update_xaxes(type="log", tickvals=ticks, ticktext=[str(n) for n in ticks], title_text=X_TITLE)
    fig.update_yaxes(title_text=y_title, type="log" if y_log else "linear")
    fig.update_layout(height=height, margin={"t": 40 + lines * TITLE_LINE_H, "b": 50, "l": 70, "r": 20},
                      template="plotly_white", legend={"title": {"text": "mode"}})
    return fig, [(g, i // cols + 1, i % cols + 1) for i, g in enumerate(groups)]


def _line(s: pd.DataFrame, y: str, lo: str, hi: str, show, *, group, mode, kind, colour, shown, paired=False,
          why: str = ""):
    """One mode's points in one panel, with the interval lo..hi as error bars; the hover says the figure
    and its interval (`show` formats one number) and, where given, the column `why`."""
    import plotly.graph_objects as go

    s = s[s[y].notna()].sort_values("num_envs")
    name = mode + (" paired" if paired else "")
    text = [f"{name}, num_envs {r['num_envs']}: {show(r[y])}" + (
        "" if pd.isna(r[lo]) or lo == y else f" [{show(r[lo])}, {show(r[hi])}]")
        + ("<br>" + "<br>".join(textwrap.wrap(r[why], 80)) if why else "") for _, r in s.iterrows()]
    return go.Scatter(
        x=nums(s["num_envs"] * (NUDGE if paired else 1)), y=nums(s[y]), error_y=error(s[y], s[lo], s[hi]),
        mode="lines+markers", name=name, legendgroup=name, showlegend=shown,
        line={"color": colour, "dash": "dash" if paired else "solid"},
        marker={"color": colour, "symbol": "circle-open" if paired else "circle", "size": 7},
        text=text, hovertemplate="%{text}<extra></extra>", meta={"group": group, "mode": mode, "kind": kind})


def throughput_figure(t: pd.DataFrame, colour: dict[str, str]):
    import plotly.graph_objects as go

    # a log axis ticked by decades draws no label inside one decade: linear where the means span less
    log = bool((t["mean"] > 0).all() and t["mean"].max() / t["mean"].min() > 10)
    fig, panels = facets(t, f"{THR} (mean, 95% CI)", y_log=log)
    seen = set()
    for g, row, col in panels:
        tg = t[t["group"] == g]
        for m in sorted(tg["mode"].unique(), key=mode_order):
            fig.add_trace(_line(tg[tg["mode"] == m], "mean", "lo", "hi", lambda v: f"{v:,.0f} {THR}", group=g,
                                mode=m, kind="mean", colour=colour[m], shown=m not in seen), row=row, col=col)
            seen.add(m)
        for k, s in tg[tg["limit"].notna()].groupby("groups"):
            s = s.drop_duplicates("num_envs").sort_values("num_envs")
            name = f"limit = min({', '.join(probes())})" + ("" if k == 1 else f", groups={k}")
            fig.add_trace(go.Scatter(x=nums(s["num_envs"]), y=nums(s["limit"]), mode="lines", name=name,
                                     legendgroup=name, showlegend=name not in seen,
                                     line={"color": "black", "dash": "dash" if k == 1 else "dot", "width": 1.5},
                                     meta={"group": g, "groups": int(k), "kind": "limit"},
                                     hovertemplate=name + ": %{y:,.0f}<extra></extra>"), row=row, col=col)
            seen.add(name)
    if log:
        fig.update_yaxes(dtick=1, minor={"showgrid": True})
    return fig


def _ratio_figure(t: pd.DataFrame, colour: dict[str, str], y_title: str, columns: list[tuple[str, str, str, bool]],
                  line_at_1: str, show, why: str = ""):
    """Pooled and paired ratios (speed-up, efficiency) per mode in a panel per group, with a line at 1.

    The y range is set by the points, not by their intervals: an interval from 2 rounds can be ten
    times wider than the figures, and would flatten every panel; one that runs off the panel says so
    by running off, and its hover gives it."""
    t = t[t[[y for y, *_ in columns]].notna().any(axis=1)]  # a panel only for a group with a ratio
    fig, panels = facets(t, y_title)
    seen, top = set(), 1.0
    for g, row, col in panels:
        tg = t[t["group"] == g]
        for m in sorted(tg["mode"].unique(), key=mode_order):
            s = tg[tg["mode"] == m]
            for y, lo, hi, paired in columns:
                if s[y].notna().any():
                    name = m + (" paired" if paired else "")
                    fig.add_trace(_line(s, y, lo, hi, show, group=g, mode=m, kind=y, colour=colour[m],
                                        paired=paired, shown=name not in seen, why=why), row=row, col=col)
                    seen.add(name)
                    top = max(top, s[y].max())
    fig.add_hline(y=1, line={"color": "grey", "width": 1}, annotation_text=line_at_1,
                  annotation_position="top right", row="all", col="all")
    fig.update_yaxes(range=[0, 1.25 * top])
    return fig


def speedup_figure(loops: pd.DataFrame, colour: dict[str, str]):
    ref = MODES.reference.name
    return _ratio_figure(loops[loops["mode"] != ref], colour, f"speed-up over {ref} (x, 95% CI)",
                         [("speedup", "speedup_lo", "speedup_hi", False),
                          ("paired_speedup", "paired_lo", "paired_hi", True)], f"= {ref}", lambda v: f"{v:.2f}x")


def efficiency_figure(loops: pd.DataFrame, colour: dict[str, str]):
    held = loops[loops["bound"].notna()]
    held = held.assign(why=held["bound_kind"] + " bound: " + held["bound_why"])
    fig = _ratio_figure(held, colour, "mean over its bound (95% CI)",
                        [("bound_efficiency", "bound_efficiency", "bound_efficiency", False),
                         ("bound_efficiency_paired", "bound_efficiency_lo", "bound_efficiency_hi", True)],
                        "= its bound", lambda v: f"{v:.0%}", why="why")
    fig.update_yaxes(tickformat=".0%")
    return fig


def side_by_side_figure(b: pd.DataFrame, column: str):
    """Throughput of each value (bars) and its ratio to the reference (bars with 95% intervals; paired
    hatched), at each configuration x mode x num_envs of the side-by-side table."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    ref = side_by_side.reference_of(column)
    values = [c.removesuffix("_mean") for c in b.columns if c.endswith("_mean")]  # the reference first
    several = b["configuration"].nunique() > 1
    x = [f"{r.mode} n={r.num_envs}" + (f"<br>{r.configuration}" if several else "") for r in b.itertuples()]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.06, row_heights=[0.55, 0.45])
    colour = {v: palette()[i % len(palette())] for i, v in enumerate(values)}
    for v in values:
        loops = [f" ({lp})" if lp is not None and m == side_by_side.BEST_LOOP else ""
                 for lp, m in zip(b[f"{v}_loop"], b["mode"])]
        fig.add_trace(go.Bar(x=x, y=nums(b[f"{v}_mean"]), name=v, legendgroup=v, marker_color=colour[v],
                             customdata=loops, meta={"column": column, "value": v, "kind": "mean"},
                             hovertemplate=v + "%{customdata}: %{y:,.0f} " + THR + "<extra></extra>"), row=1, col=1)
    for v in values[1:]:
        for kind, lo, hi, pattern in (("ratio", "lo", "hi", ""), ("paired", "paired_lo", "paired_hi", "/")):
            if b[f"{v}_{kind}"].notna().any():
                fig.add_trace(go.Bar(
                    x=x, y=nums(b[f"{v}_{kind}"]), error_y=error(b[f"{v}_{kind}"], b[f"{v}_{lo}"], b[f"{v}_{hi}"]),
                    name=f"{v}/{ref}" + (" paired" if pattern else ""), legendgroup=v, marker_color=colour[v],
                    marker_pattern_shape=pattern, meta={"column": column, "value": v, "kind": kind},
                    hovertemplate=f"{v}/{ref}" + (" paired" if pattern else "") + ": %{y:.2f}x<extra></extra>"),
                    row=2, col=1)
    fig.add_hline(y=1, line={"color": "grey", "width": 1}, row=2, col=1)
    top = max([1.0] + [b[f"{v}_{k}"].max() for v in values[1:] for k in ("ratio", "paired")])
    fig.update_yaxes(range=[0, 1.25 * top], row=2, col=1)  # as in _ratio_figure: set by the ratios, not intervals
    fig.update_yaxes(title_text=f"{THR} (mean, log scale)", type="log", dtick=1, minor={"showgrid": True}, row=1, col=1)
    fig.update_yaxes(title_text=f"ratio to {ref} (x, 95% CI)", row=2, col=1)
    fig.update_xaxes(title_text="mode and num_envs", row=2, col=1)
    fig.update_layout(barmode="group", height=640, template="plotly_white", legend={"title": {"text": column}},
                      margin={"t": 30, "b": 60, "l": 70, "r": 20})
    return fig


def returns_figure(chart: dict, x: str):
    """Return against env steps or wall seconds from returns.json's arrays: a colour per configuration,
    each seed thin, the IQM over seeds thick, the target dashed."""
    import plotly.graph_objects as go

    fig = go.Figure()
    p = palette()
    for i, conf in enumerate(chart["configurations"]):
        colour, label = p[i % len(p)], conf["label"]
        for s in conf["seeds"]:
            fig.add_trace(go.Scatter(x=s[x], y=s["return_mean"], mode="lines", name=f"seed {s['seed']}",
                                     legendgroup=label, showlegend=False, opacity=0.45,
                                     line={"color": colour, "width": 1}, meta={"label": label, "seed": s["seed"]},
                                     hovertemplate=f"{label}, seed {s['seed']}: %{{y:.1f}}<extra></extra>"))
        iqm = conf[f"iqm_vs_{x}"]
        n = len(conf["seeds"])
        name = "<br>".join(textwrap.wrap(f"{label} (IQM of {n} seed{'s' * (n > 1)})", 150))
        fig.add_trace(go.Scatter(x=iqm[x], y=iqm["return"], mode="lines", legendgroup=label, name=name,
                                 line={"color": colour, "width": 3},
                                 meta={"label": label, "seed": "iqm"},
                                 hovertemplate=f"{label}, IQM: %{{y:.1f}}<extra></extra>"))
    for target in sorted({conf["target_return"] for conf in chart["configurations"]} - {None}):
        fig.add_hline(y=target, line={"color": "grey", "dash": "dash", "width": 1},
                      annotation_text=f"target {target:g}", annotation_position="bottom right")
    fig.update_xaxes(title_text="env steps" if x == "env_steps" else
                     "wall seconds from job start (setup and compilation included)")
    fig.update_yaxes(title_text="episode return (unclipped, running mean)")
    fig.update_layout(height=480, template="plotly_white", margin={"t": 30, "b": 60, "l": 70, "r": 20},
                      legend={"title": {"text": "configuration"}, "orientation": "h", "y": -0.2})
    return fig
