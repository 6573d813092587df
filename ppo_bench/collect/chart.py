"""The building blocks of the report page's charts: a chart of panels, its legend, traces and axes.

A chart is a grid of small figures (panels), each a plotly figure of its own as JSON: traces built
with plotly.py's graph objects (their validators check every property) and a layout, without a
template (the page gives one to all: html). Axes are the same in every panel of a chart where
values are compared (`x_axis`, `log_axis`, `ratio_axis`), and the legend is the page's, one per
chart, made from what was drawn (`Legend`).
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

    def add(self, name: str, colour: str, kind: str = "line", dash: str = "solid", symbol: str = "",
            width: float = 2.0, extra: bool = False) -> None:
        """One look (`symbol`: its marker, "" for a line without); `extra` (reps, rings, bounds, bands,
        stars) is listed after the curves."""
        self.entries.setdefault(name, {"name": name, "colour": colour, "kind": kind, "dash": dash,
                                       "symbol": symbol, "width": width, "extra": extra})

    def has(self, name: str) -> bool:
        return name in self.entries

    def list(self) -> list[dict]:
        return sorted(self.entries.values(), key=lambda e: e["extra"])


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
    decades and would flatten every panel; one that runs off says so by running off, its hover gives it."""
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
    return {"type": "log", "range": [lo, hi], "title": {"text": title}, "minor": {"showgrid": True}, **ticks}


def short(v: float) -> str:
    """A tick's label: 2k, 50k, 1M, 0.5."""
    for unit, size in (("M", 1e6), ("k", 1e3)):
        if v >= size:
            return f"{v / size:g}{unit}"
    return f"{v:g}"


def ratio_axis(points, title: str) -> dict:
    """A linear axis from 0 over the points and 1, the same in every panel: set by the points, not their
    intervals (one of 2 rounds can be ten times wider than the figures and would flatten every panel; it
    says so by running off, and its hover gives it)."""
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
