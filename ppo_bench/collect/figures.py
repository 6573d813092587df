"""The report page's charts: throughput with the bound each loop is held to, speed-ups, backends and
runtimes side by side, the ratio to a baseline (learning's curves: curves.py; the building blocks:
chart.py).

Nothing is computed here: every figure reads the page's view of table.csv (view: its rows with
their panel, curve, one name per mode, and throughput's interval on log reps) or
a section's own table (side_by_side's, the baseline's columns), so the page and the tables cannot
disagree. A chart is a panel per configuration that users compare (panels: the network, runtime
or backend; differences of schedule alone are merged into one curve, or named where they meet),
each panel a small figure of its own that the page lays out in a grid (so nothing overlaps at any
width), with the same axes in every panel of a chart where values are compared. Colours, names and
line styles come from palette (a mode's colour is the same on every page). Each trace carries
`meta`: its kind, the mode's name and, per point, the table row it draws ([group, mode, num_envs]),
so a reader (or a test) can match it to table.csv. The legend and caption of a chart list only
what it draws (`Legend`).
"""

from __future__ import annotations

import json

import pandas as pd

from ppo_bench.registry import MODES
from . import bound_per_design, palette, side_by_side, view
from .chart import (Chart, Legend, Panel, cut_caption, cut_marks, error, layout, log_axis, nums, one_line, ratio_axis,
                    rows_of, scatter, x_axis)
from .common import any_precision, mode_order, precision_text, probes, weakened_text

THR = "env-steps/s"
NUDGE = 2 ** 0.08  # paired points sit this factor right of the pooled ones on a log2 axis, so both bars show
FLAG_RING = "#222222"
BOUND = "the bound a loop is held to (dashed, its colour)"


def ordered(t: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """A panel's curves in mode order, each sorted by num_envs."""
    key = lambda kv: (mode_order(kv[1]["mode"].iloc[0]), kv[0])  # noqa: E731
    return sorted(((c, s.sort_values("num_envs")) for c, s in t.groupby("curve")), key=key)


def schedule_notes(t: pd.DataFrame) -> list[str]:
    """Where a panel joins points of different schedules into one curve, which num_envs ran which."""
    if t["schedule"].nunique() < 2:
        return []
    parts = [f"{sched} at {', '.join(str(n) for n in sorted(set(x['num_envs'])))} envs"
             for sched, x in t.groupby("schedule")]
    return [f"Schedules differ: {'; '.join(parts)}."]


def hoist(panels: list[Panel], caption: str) -> str:
    """A note every panel of a chart has is said once, in its caption, and left out of the panels."""
    common = set.intersection(*(set(p.notes) for p in panels)) if len(panels) > 1 else set()
    for p in panels:
        p.notes = [n for n in p.notes if n not in common]
    return " ".join([caption, *sorted(common)])


def flag_ring(s: pd.DataFrame, y: str, legend: Legend) -> list[dict]:
    """A ring around each point measured contended, overloaded, stolen or beside other jobs; its hover says
    which."""
    hit = [(r, view.flags(r)) for r in s.itertuples()]
    hit = [(r, f) for r, f in hit if f]
    if not hit:
        return []
    ring = scatter(x=[r.num_envs for r, _ in hit], y=nums(getattr(r, y) for r, _ in hit), mode="markers",
                   marker={"symbol": "circle-open", "size": 17, "color": FLAG_RING, "line": {"width": 1.5}},
                   text=["; ".join(f) for _, f in hit], hovertemplate="%{text}<extra></extra>",
                   meta={"kind": "flag", "rows": [[r.group, r.mode, int(r.num_envs)] for r, _ in hit]})
    return [legend.mark(ring, "ringed: contended, overloaded, stolen or beside other jobs", FLAG_RING, "marker",
                        symbol="circle-open", extra=True)]


def _bound_text(r) -> str:
    if pd.isna(r.bound):
        missing = getattr(r, "limit_missing", "")
        return "bound: not measured" + (f" (no {missing})" if isinstance(missing, str) and missing else "")
    return bound_per_design.share(r, view.fmt)


def _mean_text(r, loop: bool) -> str:
    interval = "" if pd.isna(r.lo) else f" [{view.fmt(r.lo)}, {view.fmt(r.hi)}]"
    return (f"<b>{r.label}</b>, {r.num_envs} envs<br>{view.fmt(r.mean)} {THR}{interval}{precision_text(r)}"
            f"{weakened_text(r)}, {r.n} reps"
            + (f"<br>{_bound_text(r)}" if loop else "") + (f"<br>{r.schedule}" if r.schedule else "")
            + "".join(f"<br>{f}" for f in view.flags(r)))


def throughput_chart(t: pd.DataFrame) -> Chart:
    """Each mode's mean with its interval, its reps as dots, and each loop's bound (dashed,
    in its colour) per panel; a loop's point where its bound was not measured is drawn open, and a
    note under the panel names the probe that is missing."""
    legend = Legend()
    reps = [x for r in t["reps"] for x in json.loads(r)]
    y = log_axis(list(t["mean"]) + list(t["bound"]) + reps, f"{THR} (log scale)",
                 reach=list(t["lo"]) + list(t["hi"]))
    x = x_axis(t["num_envs"])
    panels, opened = [], False
    for title in view.panel_titles(t):
        tp = t[t["panel"] == title]
        data, notes = [], []
        for curve, s in ordered(tp):
            st = palette.style(s["mode"].iloc[0], s["groups"].iloc[0])
            # each rep a dot, spread over 0.3 of an octave around its num_envs so that equal ones show
            pts = [(n * 2 ** (0.3 * (i / max(len(rr) - 1, 1) - 0.5) if len(rr) > 1 else 0), v, key)
                   for n, rr, key in zip(s["num_envs"], s["reps"], rows_of(s)) for i, v in enumerate(json.loads(rr))]
            data.append(legend.mark(scatter(x=[p[0] for p in pts], y=[p[1] for p in pts], mode="markers", opacity=0.45,
                                            marker={"color": st["colour"], "size": 4}, hoverinfo="skip",
                                            meta={"kind": "reps", "curve": curve, "rows": [p[2] for p in pts]}),
                                    "each rep (dots)", st["colour"], "marker", symbol="circle", extra=True))
            loop = not s["probe"].iloc[0]
            held = s[s["bound"].notna()] if loop else s.iloc[0:0]
            if len(held):
                data.append(legend.mark(scatter(
                    x=nums(held["num_envs"]), y=nums(held["bound"]), mode="lines+markers",
                    line={"color": st["colour"], "dash": "dash", "width": 1.4},
                    marker={"symbol": "line-ew-open", "size": 14, "color": st["colour"], "line": {"width": 2}},
                    text=[f"{curve}'s {k} bound: {view.fmt(b)}" for k, b in zip(held["bound_kind"], held["bound"])],
                    hovertemplate="%{text}<extra></extra>",
                    meta={"kind": "bound", "mode_name": s["mode_name"].iloc[0], "rows": rows_of(held)}),
                    BOUND, st["colour"], dash="dash", width=1.4, extra=True))
            unbound = s["bound"].isna() & loop & bool(t["probe"].any())  # open: no bound measured there
            symbols = [st["symbol"] + "-open" if u else st["symbol"] for u in unbound]
            data.append(legend.mark(scatter(
                x=nums(s["num_envs"]), y=nums(s["mean"]), error_y=error(s["mean"], s["lo"], s["hi"]),
                mode="lines+markers", line={"color": st["colour"], "dash": st["dash"], "width": st["width"]},
                marker={"color": st["colour"], "symbol": symbols, "size": 9 if unbound.any() else 8,
                        "line": {"color": st["colour"], "width": 2}},
                text=[_mean_text(r, loop) for r in s.itertuples()], hovertemplate="%{text}<extra></extra>",
                meta={"kind": "mean", "mode_name": s["mode_name"].iloc[0], "curve": curve, "rows": rows_of(s)}),
                curve, st["colour"], dash=st["dash"], symbol=st["symbol"], width=st["width"]))
            if unbound.any():
                opened = True
                missing = sorted({m for m in s.loc[unbound, "limit_missing"] if isinstance(m, str) and m})
                notes.append(f"{curve}: no bound at {', '.join(map(str, s.loc[unbound, 'num_envs']))} envs "
                             f"(not measured{': no ' + '; '.join(missing) if missing else ''}).")
            data += flag_ring(s, "mean", legend)
        data += cut_marks(data, y, legend)
        panels.append(Panel(title, data, layout(x, y), notes + schedule_notes(tp)))
    caption = (f"Each mode's throughput at each num_envs, on shared axes: the mean of its pooled reps (as in "
               f"table.csv) with a 95% interval on log {THR} (a t-interval on the log reps, exponentiated: never "
               "below zero" + ("; a precision target's cell: its two-stage interval, as in table.csv" if any_precision(t)
                               else "") + ").")
    if legend.has(BOUND):
        caption += (" Dashed, in a loop's colour: the bound its design holds it to (the chain of an env waiting "
                    "for its batch, or the limit min(env_only, agent_only) at its batches); hover for its share.")
    if t["probe"].any():
        caption += " Dotted, thin: the probes (one side of the loop alone) the bounds are made of."
    else:
        caption += f" No probe ({', '.join(probes())}) ran here, so no loop has a bound."
    if opened:
        caption += " An open marker on a loop: no bound measured there (the note under its panel names the probe)."
    caption += cut_caption(legend)
    return Chart("chart-throughput", "Throughput against num_envs", hoist(panels, caption), legend.list(), panels)


def _ratio_traces(s: pd.DataFrame, curve: str, colour: str, symbol: str, columns, legend: Legend, group="group",
                  meta_extra=None, dash: str = "solid") -> list[dict]:
    """Pooled (solid) and paired (dashed, open markers, drawn slightly right) ratios of one curve."""
    data = []
    for y, lo, hi, paired in columns:
        got = s[s[y].notna()]
        if got.empty:
            continue
        name = curve + (" paired by round" if paired else "")
        data.append(legend.mark(scatter(
            x=nums(got["num_envs"] * (NUDGE if paired else 1)), y=nums(got[y]), error_y=error(got[y], got[lo], got[hi]),
            mode="lines+markers", line={"color": colour, "dash": "dash" if paired else dash, "width": 2},
            marker={"color": colour, "symbol": symbol + ("-open" if paired else ""), "size": 8},
            text=[f"<b>{name}</b>, {n} envs: {view.ratio(a, b, c)}" for n, a, b, c in
                  zip(got["num_envs"], got[y], got[lo], got[hi])], hovertemplate="%{text}<extra></extra>",
            meta={"kind": y, "rows": rows_of(got, group), **(meta_extra or {})}),
            name, colour, dash="dash" if paired else dash, symbol=symbol + ("-open" if paired else "")))
    return data


def speedup_chart(t: pd.DataFrame) -> Chart | None:
    ref = MODES.reference.name
    loops = t[~t["probe"] & (t["mode_name"] != ref) & (t["speedup"].notna() | t["paired_speedup"].notna())]
    if loops.empty:
        return None
    legend = Legend()
    cols = [("speedup", "speedup_lo", "speedup_hi", False), ("paired_speedup", "paired_lo", "paired_hi", True)]
    y = ratio_axis(list(loops["speedup"]) + list(loops["paired_speedup"]), f"speed-up over {ref} (x)")
    x = x_axis(t["num_envs"])
    panels = []
    for title in view.panel_titles(loops):
        tp = loops[loops["panel"] == title]
        data = []
        for curve, s in ordered(tp):
            st = palette.style(s["mode"].iloc[0], s["groups"].iloc[0])
            data += _ratio_traces(s, curve, st["colour"], st["symbol"].removesuffix("-open"), cols, legend,
                                  meta_extra={"mode_name": s["mode_name"].iloc[0]})
            data += flag_ring(s, "speedup", legend)
        data += cut_marks(data, y, legend)
        line, label = one_line(1, f"= {ref}")
        panels.append(Panel(title, data, layout(x, y, shapes=[line], annotations=[label]), schedule_notes(tp)))
    caption = (f"Each loop's throughput over {ref}'s at the same num_envs: ratio of geometric means with a 95% "
               "Welch t-interval on log throughput (solid)")
    caption += ("; paired by round (dashed, open markers, drawn slightly right): per-round ratios of jobs run back "
                "to back, t-interval on log ratios." if loops["paired_speedup"].notna().any() else ".")
    caption += cut_caption(legend)
    return Chart("chart-speedup", f"Speed-up over {ref}", hoist(panels, caption), legend.list(), panels)


def side_by_side_chart(b: pd.DataFrame, column: str) -> Chart | None:
    """Each other backend's (runtime's) throughput over the reference's, a panel per mode (and
    configuration): pooled and paired ratios with their intervals, a line at 1."""
    if b.empty:
        return None
    ref = side_by_side.reference_of(column)
    others = [c.removesuffix("_ratio") for c in b.columns if c.endswith("_ratio")]
    b = view.placed(b, b["configuration"])
    b = b.assign(label=[palette.label(m) for m in b["mode"]], group=b["configuration"])
    b["curve"] = view.curves(b)
    b = b.assign(panel=[lab + (f" · {p}" if p else "") for lab, p in zip(b["label"], b["panel"])])
    legend = Legend()
    y = ratio_axis([v for o in others for k in ("ratio", "paired") for v in b[f"{o}_{k}"]], f"ratio to {ref} (x)")
    x = x_axis(b["num_envs"])
    panels = []
    for title in dict.fromkeys(b.assign(_o=b["mode"].map(mode_order)).sort_values(["_o", "panel"])["panel"]):
        s = b[b["panel"] == title].sort_values("num_envs")
        data = []
        for o in others:
            cols = [(f"{o}_ratio", f"{o}_lo", f"{o}_hi", False),
                    (f"{o}_paired", f"{o}_paired_lo", f"{o}_paired_hi", True)]
            for curve, sc in s.groupby("curve"):
                name = o + ("" if curve == sc["label"].iloc[0] else f" ({curve.split(', ', 1)[-1]})")
                data += _ratio_traces(sc, f"{name} / {ref}", palette.value_colour(column, o), "circle", cols, legend,
                                      group="configuration", meta_extra={"value": o})
        data += cut_marks(data, y, legend)
        line, label = one_line(1, f"= {ref}")
        panels.append(Panel(title, data, layout(x, y, shapes=[line], annotations=[label]), schedule_notes(s)))
    best = (f"; best loop = each {column}'s fastest loop" if (b["mode"] == side_by_side.BEST_LOOP).any() else "")
    caption = (f"Each {column}'s throughput over {ref}'s at one mode and num_envs (a panel per mode{best}): ratio of "
               "geometric means with a 95% Welch interval (solid)")
    caption += ("; paired by round (dashed, open markers): per-round ratios, t-interval on log ratios."
                if any(b[f"{o}_paired"].notna().any() for o in others) else ".")
    caption += cut_caption(legend)
    return Chart(f"chart-{column}s", f"{column.capitalize()}s side by side", hoist(panels, caption), legend.list(),
                 panels)


def baseline_chart(t: pd.DataFrame, baseline) -> Chart | None:
    """Each row's throughput over the baseline's (--baseline), per configuration as the throughput chart;
    a regression (its whole interval below 1) ringed."""
    if "baseline_ratio" not in t or not t["baseline_ratio"].notna().any():
        return None
    got = t[t["baseline_ratio"].notna()]
    legend = Legend()
    y = ratio_axis(list(got["baseline_ratio"]), "over the baseline (x)")
    x = x_axis(t["num_envs"])
    panels = []
    for title in view.panel_titles(got):
        tp = got[got["panel"] == title]
        data = []
        for curve, s in ordered(tp):
            st = palette.style(s["mode"].iloc[0], s["groups"].iloc[0])
            data += _ratio_traces(s, curve, st["colour"], st["symbol"].removesuffix("-open"),
                                  [("baseline_ratio", "baseline_lo", "baseline_hi", False)], legend,
                                  meta_extra={"mode_name": s["mode_name"].iloc[0]}, dash=st["dash"])
            slow = s[s["regression"].astype(bool)]
            if len(slow):
                data.append(legend.mark(
                    scatter(x=nums(slow["num_envs"]), y=nums(slow["baseline_ratio"]), mode="markers",
                            marker={"symbol": "circle-open", "size": 18, "color": "#C00000", "line": {"width": 2}},
                            hoverinfo="skip", meta={"kind": "regression", "rows": rows_of(slow)}),
                    "ringed red: slower than the baseline (whole interval below 1)", "#C00000", "marker",
                    symbol="circle-open", extra=True))
        data += cut_marks(data, y, legend)
        line, label = one_line(1, "= baseline")
        panels.append(Panel(title, data, layout(x, y, shapes=[line], annotations=[label]), schedule_notes(tp)))
    caption = (f"Throughput over the baseline's ({baseline}) for each configuration, mode and num_envs in both: "
               "ratio of geometric means with a 95% Welch t-interval on log throughput.") + cut_caption(legend)
    return Chart("chart-baseline", "Against the baseline", hoist(panels, caption), legend.list(), panels)


def all_charts(c) -> list[Chart]:
    """Every chart the collection has data for, in the page's order (learning's last: curves)."""
    from .curves import learning_charts

    found = []
    if c.ok and not c.table.empty:
        t = view.throughput(c.table)
        found += [throughput_chart(t), speedup_chart(t)]
        found += [side_by_side_chart(b, column) for column, b in c.side_by_side.items()]
        found.append(baseline_chart(t, c.baseline))
    if c.ok and not c.learning.empty:
        found += learning_charts(c)
    return [ch for ch in found if ch is not None and ch.panels]


def ids(chart: Chart) -> list[str]:
    """The div id of each of a chart's panels."""
    return [f"{chart.id}-{i}" for i in range(len(chart.panels))]

