"""The building blocks of the report page's charts: a chart of panels, its legend, traces and axes.

A chart is a grid of small figures (panels), each a plotly figure of its own as JSON: traces built
with plotly.py's graph objects (their validators check every property) and a layout, without a
template (the page gives one to all: html). Axes are the same in every panel of a chart where
values are compared (`x_axis`, `log_axis`, `ratio_axis`), and the legend is the page's, one per
chart, made from what was drawn (`Legend`): each key names the traces it stands for (their
`meta.legend`) and is drawn in their colours, all of them, so a key never shows a colour that no mark
has. An axis is set by the points, not by their intervals, which 2 reps can make wider than the
points by decades; an interval that runs beyond it is cut at the axis and an arrow marks the cut
(`cut_marks`), its hover the point's own, with the interval whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from . import palette

PANEL_H = 290  # px per panel
MARGIN = {"l": 64, "r": 12, "t": 10, "b": 44}


@dataclass
class Panel:
    title: str
    data: list
    layout: dict
    notes: list[str] = field(default_factory=list)


@dataclass
class Chart:
    id: str
    heading: str
    caption: str
    legend: list[dict]
    panels: list[Panel]
    wide: bool = False  # panels at least 480 px wide (curves over time), else 360


class Legend:
    """What a chart draws, each look once, in the order first drawn: the page's legend and caption
    are made from it, so they never name a line that is not there."""

    def __init__(self):
        self.entries: dict[str, dict] = {}

    def mark(self, trace: dict, name: str, colour: str, kind: str = "line", dash: str = "solid", symbol: str = "",
             width: float = 2.0, extra: bool = False, outline: str = "") -> dict:
        """`trace`, named in the legend as `name` (its `meta.legend`), drawn in `colour` (`symbol`: its
        marker, "" for a line without; `outline`: the marker's edge where it is not its colour); `extra`
        (reps, rings, bounds, bands, stars) is listed after the curves. A trace with no point drawn is
        left out of the legend."""
        if not any(v is not None for v in trace.get("y", ())):
            return trace
        trace["meta"] = {**trace.get("meta", {}), "legend": name}
        self._entry(name, colour, kind=kind, dash=dash, symbol=symbol, width=width, extra=extra, outline=outline)
        return trace

    def name_shape(self, shape: dict, name: str, colour: str, **look) -> dict:
        """A layout shape (a target's line) named in the legend as `name` (the shape's own `name`)."""
        self._entry(name, colour, **look)
        return {**shape, "name": name}

    def _entry(self, name: str, colour: str, **look) -> None:
        look = {"kind": "line", "dash": "solid", "symbol": "", "width": 2.0, "extra": False, "outline": "", **look}
        entry = self.entries.setdefault(name, {"name": name, "colours": [], **look})
        if colour not in entry["colours"]:
            entry["colours"].append(colour)

    def has(self, name: str) -> bool:
        return name in self.entries

    def list(self) -> list[dict]:
        return sorted(self.entries.values(), key=lambda e: e["extra"])


CUT = "arrow: an interval cut at the axis (hover: whole)"


def cut_marks(data: list[dict], y: dict, legend: Legend) -> list[dict]:
    """An arrow at the edge of the y axis (`y`, a panel's) over each interval of `data` that runs beyond
    it, one trace per trace cut, in its colour; its hover is the point's own, the interval whole."""
    lo, hi = y["range"]
    log = y.get("type") == "log"
    inset = 0.022 * (hi - lo)  # the arrow's centre, about half its height inside the plot: its tip at the axis
    out = []
    for tr in data:
        err = tr.get("error_y")
        if not err:
            continue
        at = lambda v: math.log10(v) if log and v > 0 else -math.inf if log else v  # noqa: E731
        cut = [(x, hi - inset, "arrow-up", text) for x, v, up, text in
               zip(tr["x"], tr["y"], err["array"], tr["text"]) if v is not None and at(v + up) > hi]
        cut += [(x, lo + inset, "arrow-down", text) for x, v, down, text in
                zip(tr["x"], tr["y"], err["arrayminus"], tr["text"]) if v is not None and at(v - down) < lo]
        if not cut:
            continue
        colour = tr["marker"]["color"]
        out.append(legend.mark(scatter(
            x=[c[0] for c in cut], y=[10 ** c[1] if log else c[1] for c in cut], mode="markers", cliponaxis=False,
            marker={"symbol": [c[2] for c in cut], "size": 10, "color": colour}, text=[c[3] for c in cut],
            hovertemplate="%{text}<extra></extra>",
            meta={**{k: v for k, v in tr["meta"].items() if k in ("mode_name", "value")}, "kind": "cut",
                  "of": tr["meta"]["kind"]}),
            CUT, colour, "marker", symbol="arrow-up", extra=True))
    return out


def cut_caption(legend: Legend) -> str:
    """The caption's sentence on cut intervals, where the chart has any."""
    return (" An interval that runs beyond the axis is cut at it, an arrow marking the cut; hover for it whole."
            if legend.has(CUT) else "")


def nums(values) -> list:
    """Floats for JSON, None where there is no value (a gap, an absent bar)."""
    return [None if v is None or pd.isna(v) else float(v) for v in values]


def error(mid, lo, hi) -> dict:
    """Asymmetric error bars from an interval; none (0) where the interval is missing."""
    mid, lo, hi = (pd.Series(list(v), dtype=float) for v in (mid, lo, hi))
    return {"type": "data", "symmetric": False, "array": nums((hi - mid).fillna(0)),
            "arrayminus": nums((mid - lo).fillna(0)), "thickness": 1.2, "width": 3}


def scatter(**kw) -> dict:
    """A scatter trace, checked by plotly's own validators, as the JSON the page embeds."""
    import plotly.graph_objects as go
    return go.Scatter(**kw).to_plotly_json()


def layout(x: dict, y: dict, height: int = PANEL_H, shapes=(), annotations=()) -> dict:
    import plotly.graph_objects as go
    return go.Layout(xaxis=x, yaxis=y, height=height, margin=MARGIN, showlegend=False, hovermode="closest",
                     shapes=list(shapes), annotations=list(annotations)).to_plotly_json()


def x_axis(ns, title: str = "num_envs (log scale)") -> dict:
    """num_envs on a log axis ticked at the values measured, the same range in every panel."""
    ns = sorted({int(n) for n in ns})
    lo, hi = math.log10(ns[0]), math.log10(ns[-1])
    pad = 0.3 if hi == lo else 0.06 * (hi - lo) + 0.08
    return {"type": "log", "tickvals": ns, "ticktext": [str(n) for n in ns], "range": [lo - pad, hi + pad],
            "title": {"text": title}, "showgrid": True}


def log_axis(values, title: str, reach=()) -> dict:
    """A log axis over every positive value drawn in the chart (points, bounds, reps), the same in every
    panel, and over the intervals (`reach`) up to a decade beyond: an interval of 2 reps can span five
    decades and would flatten every panel; one that runs further is cut there (`cut_marks`)."""
    pos = lambda xs: [x for x in xs if x is not None and not pd.isna(x) and x > 0]  # noqa: E731
    v, r = pos(values), pos(reach)
    lo, hi = (math.log10(min(v)), math.log10(max(v))) if v else (0.0, 1.0)
    if r:
        lo, hi = min(lo, max(lo - 1, math.log10(min(r)))), max(hi, min(hi + 1, math.log10(max(r))))
    pad = 0.05 * max(hi - lo, 0.5)
    lo, hi = lo - pad, hi + pad
    ticks = {"dtick": 1} if hi - lo > 2.5 else {  # a decade or two: label 1, 2, 5 of each decade
        "tickvals": [m * 10 ** k for k in range(math.floor(lo), math.ceil(hi) + 1) for m in (1, 2, 5)
                     if lo <= math.log10(m * 10 ** k) <= hi]}
    if "tickvals" in ticks:
        ticks["ticktext"] = [short(v) for v in ticks["tickvals"]]
    # no minor gridlines: a decade's 2..9 crowd into a grey band in a panel's height; 1, 2, 5 have their own
    return {"type": "log", "range": [lo, hi], "title": {"text": title}, **ticks}


def short(v: float) -> str:
    """A tick's label: 2k, 50k, 1M, 0.5."""
    for unit, size in (("M", 1e6), ("k", 1e3)):
        if v >= size:
            return f"{v / size:g}{unit}"
    return f"{v:g}"


def ratio_axis(points, title: str) -> dict:
    """A linear axis from 0 over the points and 1, the same in every panel: set by the points, not their
    intervals (one of 2 rounds can be ten times wider than the figures and would flatten every panel; it
    is cut at the axis, `cut_marks`)."""
    v = [x for x in points if x is not None and not pd.isna(x)] + [1.0]
    return {"range": [0, 1.2 * max(v)], "title": {"text": title}}


def one_line(y: float, text: str) -> tuple[dict, dict]:
    """A grey line across the panel at `y` (the reference: = step, = compiled, = baseline) and its label,
    at the left under the line, where the fewest points are (the smallest num_envs often has no ratio)."""
    return ({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": y, "y1": y,
             "line": {"color": palette.REFERENCE_LINE, "width": 1}},
            {"xref": "paper", "x": 0, "y": y, "text": text, "showarrow": False, "xanchor": "left",
             "yanchor": "top", "bgcolor": "rgba(255,255,255,0.8)",
             "font": {"size": 10, "color": palette.REFERENCE_LINE}})


def rows_of(s: pd.DataFrame, group: str = "group") -> list[list]:
    return [[g, m, int(n)] for g, m, n in zip(s[group], s["mode"], s["num_envs"])]
