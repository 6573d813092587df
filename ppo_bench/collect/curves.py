"""The report page's learning charts: return against env steps and against wall time.

Per learning configuration (a mode at a num_envs, seeds pooled as the tables pool them), in a
panel per what users compare (panels), drawn in the mode's colour: each seed's running mean
return (thin), the aggregate over seeds (thick) and the band from the lowest to the highest seed
(shaded), the target as a line and, on it, a star where each seed first reached it.

The aggregate is the tables' own IQM curve (learning.aggregate, returns.json's), drawn as it is:
scipy's trim_mean cutting a quarter at each end, so with 4 seeds or more an interquartile mean,
with 3 or fewer the plain mean, and the legend says which and over how many seeds. A seed that
stopped because it reached the target counts at its last return past its end, drawn dotted (it
has reached the target: the best seed stopping first does not drop the aggregate); the aggregate
ends where the first seed that ran out of env steps or seconds ended. A seed whose job failed
part-way counts up to its failure (a cross there); past it the aggregate goes on over the seeds
left, a thinner line named for how many, so a change of seeds never reads as a change of return.
Before a seed's first finished episode there is no aggregate (as in the tables). Each seed's curve
is thinned to SEED_POINTS points of its own for the page's size; the stars are the tables' per-seed
time and env steps to target.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import palette, view
from .equal_steps import aggregate_name, carried, end
from .chart import Chart, Legend, Panel, layout, nums, scatter

SEED_POINTS = 150
X = {"env_steps": ("env steps", "env steps"),
     "wall_s": ("wall time", "seconds from job start (set-up included)")}
DASHES = ("solid", "dash", "dot", "dashdot")
SEED = "each seed (thin)"
BAND = "band: lowest to highest seed"
STAR = "star: a seed first reached the target"
CARRIED = "dotted: a seed stopped at the target, counted at its last return"
FAILED = "cross: a seed's job failed there (counted up to it)"
TARGET = "target return (dashed grey)"


def thin(xs: list, ys: list) -> tuple[list, list]:
    """At most SEED_POINTS of a seed's own points, evenly by index, its last one kept."""
    if len(xs) <= SEED_POINTS:
        return list(xs), list(ys)
    keep = np.unique(np.linspace(0, len(xs) - 1, SEED_POINTS).round().astype(int))
    return [xs[i] for i in keep], [ys[i] for i in keep]


def _r(v, d: int = 2) -> list:
    return [None if u is None or pd.isna(u) else round(float(u), d) for u in v]


def configurations(c) -> pd.DataFrame:
    """learning's rows (group x mode x num_envs) with their panel, colour, dash and curve name."""
    rows = view.placed(c.learning, c.learning["group"])
    rows = rows.assign(label=[palette.label(m, g) for m, g in zip(rows["mode"], rows["groups"])])
    several_n = rows.groupby("panel")["num_envs"].transform("nunique") > 1
    rows["label"] = [f"{lab}, {n} envs" if s else lab for lab, n, s in zip(rows["label"], rows["num_envs"], several_n)]
    rows["curve"] = view.curves(rows)
    rows["dash"] = [DASHES[i % len(DASHES)] for i in rows.groupby(["panel", "mode"]).cumcount()]
    return rows


def learning_charts(c) -> list[Chart]:
    confs = configurations(c)
    return [chart(c, confs, x) for x in X]


def segments(seeds: list) -> list[tuple[int, list[int]]]:
    """The aggregate's points split where the seeds it is over change: (how many, indices), in order."""
    out: list[tuple[int, list[int]]] = []
    for j, k in enumerate(seeds):
        if k is None:
            continue
        if out and out[-1][0] == k:
            out[-1][1].append(j)
        else:
            out.append((k, [j]))
    return out


def _seed_traces(r, sub: pd.DataFrame, x: str, top: float, colour: str, key: dict, legend: Legend) -> list[dict]:
    """Each seed's thin line; a seed stopped at the target dotted on to the aggregate's end at its last
    return, a failed one's end crossed."""
    data = []
    for s, carry in zip(sub.itertuples(), carried(sub)):
        xs, rs = thin(s.learning["curve"][x], s.learning["curve"]["return_mean"])
        data.append(legend.mark(scatter(
            x=_r(xs, 0 if x == "env_steps" else 2), y=_r(rs), mode="lines", opacity=0.35,
            line={"color": colour, "width": 1, "dash": r.dash},
            hovertemplate=f"{r.curve}, seed {s.seed}: %{{y:.1f}}<extra></extra>",
            meta={"kind": "seed", "seed": int(s.seed), **key}), SEED, colour, width=1, extra=True))
        last = [v for v in s.learning["curve"]["return_mean"] if v is not None]
        stop = end(s.learning, x)
        if carry and last and top > stop:
            data.append(legend.mark(scatter(
                x=_r([stop, top]), y=_r([last[-1]] * 2), mode="lines", opacity=0.6,
                line={"color": colour, "width": 1.2, "dash": "dot"},
                hovertemplate=f"{r.curve}, seed {s.seed}: stopped at the target, counted at %{{y:.1f}}<extra></extra>",
                meta={"kind": "carried", "seed": int(s.seed), **key}), CARRIED, colour, dash="dot", width=1.2,
                extra=True))
        if pd.notna(s.stopped) and last:
            data.append(legend.mark(scatter(
                x=_r([stop]), y=_r(last[-1:]), mode="markers", marker={"symbol": "x", "size": 9, "color": colour},
                text=[f"{r.curve}, seed {s.seed}: its job failed here ({s.stopped})"],
                hovertemplate="%{text}<extra></extra>", meta={"kind": "failed", "seed": int(s.seed), **key}),
                FAILED, colour, "marker", symbol="x", extra=True))
    return data


def _aggregate_traces(r, a: dict, colour: str, key: dict, legend: Legend) -> list[dict]:
    """The band over the aggregate's seeds, and the aggregate itself, a trace per set of seeds: the
    first thick, any after a failure thinner, each named for how many seeds it is over."""
    data = []
    if max((k for k in a["seeds"] if k), default=0) > 1:
        rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        data.append(legend.mark(scatter(x=_r(a["x"]), y=_r(a["max"], 3), mode="lines", line={"width": 0},
                                        hoverinfo="skip", meta={"kind": "band_max", **key}), BAND, colour, "band",
                                extra=True))
        data.append(legend.mark(scatter(x=_r(a["x"]), y=_r(a["min"], 3), mode="lines", line={"width": 0},
                                        fill="tonexty", fillcolor=f"rgba({rgb[0]},{rgb[1]},{rgb[2]},0.18)",
                                        hoverinfo="skip", meta={"kind": "band_min", **key}), BAND, colour, "band",
                                extra=True))
    for i, (k, idx) in enumerate(segments(a["seeds"])):
        width = 3 if i == 0 else 2
        data.append(legend.mark(scatter(
            x=_r([a["x"][j] for j in idx]), y=_r([a["iqm"][j] for j in idx], 3), mode="lines",
            line={"color": colour, "width": width, "dash": r.dash}, customdata=[k] * len(idx),
            hovertemplate=f"{r.curve}: %{{y:.2f}}, {aggregate_name(k)}<extra></extra>",
            meta={"kind": "aggregate", "name": aggregate_name(k), **key}),
            f"{r.curve}: {aggregate_name(k)}", colour, dash=r.dash, width=width))
    return data


def _target_trace(r, sub: pd.DataFrame, x: str, colour: str, key: dict, legend: Legend) -> list[dict]:
    col = "env_steps_to_target" if x == "env_steps" else "time_to_target_s"
    hit = sub[sub[col].notna()]
    if not len(hit) or pd.isna(r.target_return):
        return []
    return [legend.mark(scatter(
        x=nums(hit[col]), y=[float(r.target_return)] * len(hit), mode="markers",
        marker={"symbol": "star", "size": 13, "color": colour, "line": {"color": "#222222", "width": 1}},
        text=[f"{r.curve}, seed {s.seed}: target at {s.time_to_target_s:.1f} s, "
              f"{s.env_steps_to_target:,.0f} env steps" for s in hit.itertuples()],
        hovertemplate="%{text}<extra></extra>", meta={"kind": "target", "seeds": [int(s) for s in hit["seed"]], **key}),
        STAR, colour, "marker", symbol="star", outline="#222222", extra=True)]


def chart(c, confs: pd.DataFrame, x: str) -> Chart:
    legend = Legend()
    seeds = c.seeds
    aggregates = {(cv["group"], cv["mode"], cv["num_envs"]): cv[x] for cv in c.curves}
    traces: dict[str, list] = {}
    ys = []
    for r in confs.itertuples():
        sub = seeds[(seeds["group"] == r.group) & (seeds["mode"] == r.mode) & (seeds["num_envs"] == r.num_envs)]
        colour = palette.mode_colour(r.mode.split("[")[0])
        key = {"group": r.group, "mode": r.mode, "num_envs": int(r.num_envs), "mode_name": r.mode.split("[")[0]}
        a = aggregates[(r.group, r.mode, int(r.num_envs))]
        data = traces.setdefault(r.panel, [])
        data += _seed_traces(r, sub, x, a["x"][-1], colour, key, legend)
        data += _aggregate_traces(r, a, colour, key, legend)
        data += _target_trace(r, sub, x, colour, key, legend)
        ys += [v for s in sub["learning"] for v in s["curve"]["return_mean"] if v is not None]
    targets = sorted({float(t) for t in confs["target_return"] if pd.notna(t)})
    ys += targets
    pad = 0.05 * (max(ys) - min(ys) or 1.0) if ys else 1.0
    y = {"title": {"text": "episode return (running mean)"}, "range": [min(ys) - pad, max(ys) + pad] if ys else None}
    shapes = [legend.name_shape({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": t, "y1": t,
                                 "line": {"color": "#555555", "width": 1, "dash": "dash"}},
                                TARGET, "#555555", dash="dash", width=1, extra=True) for t in targets]
    notes = [{"xref": "paper", "x": 0, "y": t, "text": f"target {t:g}", "showarrow": False, "xanchor": "left",
              "yanchor": "bottom", "font": {"size": 10, "color": "#555555"}} for t in targets]
    xa = {"title": {"text": X[x][1]}, "rangemode": "tozero"}
    panels = [Panel(p, d, layout(xa, y, height=330, shapes=shapes, annotations=notes)) for p, d in traces.items()]
    return Chart(f"chart-returns-{x.replace('_', '-')}", f"Return against {X[x][0]}", caption(legend), legend.list(),
                 panels, wide=True)


def caption(legend: Legend) -> str:
    """What the learning chart draws, said where it is drawn."""
    text = ("Each seed's running mean return (thin) and the aggregate over seeds (thick: an interquartile mean "
            "with 4 seeds or more, else the plain mean, named in the legend with its seeds, as returns.json "
            "holds it), to where the last seed stopped at the target or the first ran out of env steps or seconds")
    if legend.has(CARRIED):
        text += ("; a seed that stopped at the target has reached it: past its end it counts at its last return "
                 "(dotted), so a seed stopping never drops the aggregate")
    if legend.has(FAILED):
        text += ("; a seed whose job failed part-way (cross) counts up to its failure, the aggregate going on "
                 "over the seeds left, thinner and named for how many")
    text += "; shaded: lowest to highest seed" if legend.has(BAND) else ""
    return text + ("; stars: where a seed first reached the target (its time and env steps to target in the "
                   "tables)." if legend.has(STAR) else ".")
