"""The report page's learning charts: return against env steps and against wall time.

Per learning configuration (a mode at a num_envs, seeds pooled as the tables pool them), in a
panel per what users compare (panels), drawn in the mode's colour: each seed's running mean
return (thin), the aggregate over seeds (thick) and the band from the lowest to the highest seed
(shaded), the target as a line and, on it, a star where each seed first reached it.

The aggregate is the one the tables state (learning: scipy's trim_mean cutting a quarter at each
end), named for what it is: with 4 seeds or more an interquartile mean, with 3 or fewer it trims
nothing and is the plain mean, and the legend says which. It is computed with learning's own
functions (equal_steps.curve_on on learning's grid up to where the shortest seed stops, so it
equals returns.json's IQM there) and then carried on, on the same spacing, over the seeds still
running, while two are: a seed whose run ended (or whose job failed part-way) no longer cuts the
curve short, and the hover says how many seeds a point is over. Before a running seed's first finished episode
there is no aggregate (as in the tables). Each seed's curve is thinned to SEED_POINTS points of
its own for the page's size; the stars are the tables' per-seed time and env steps to target.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from . import palette, view
from .equal_steps import TRIM, curve_on, reach
from .chart import Chart, Legend, Panel, layout, nums, scatter
from .learning import CURVE_POINTS

SEED_POINTS = 150
X = {"env_steps": ("env steps", "env steps"),
     "wall_s": ("wall time", "seconds from job start (set-up included)")}
DASHES = ("solid", "dash", "dot", "dashdot")


def aggregate_name(seeds: int) -> str:
    """What trim_mean(x, 0.25) over this many seeds is: it trims a seed at each end from 4 seeds on."""
    return f"IQM of {seeds} seeds" if seeds >= 4 else "1 seed" if seeds == 1 else f"mean of {seeds} seeds"


def grid(sub: pd.DataFrame, x: str) -> np.ndarray:
    """learning's grid (CURVE_POINTS from 0 to where the shortest seed stops), carried on at the same
    spacing to where the longest stops."""
    ends = [lr["curve"][x][-1] if lr["curve"][x] else 0.0 for lr in sub["learning"]]
    shortest, longest = reach(sub, x), max(ends)
    if shortest <= 0:
        return np.linspace(0.0, longest, CURVE_POINTS)
    base = np.linspace(0.0, shortest, CURVE_POINTS)
    step = base[1] - base[0]
    extra = np.arange(shortest + step, longest, step) if longest > shortest else np.array([])
    return np.concatenate([base, extra, [longest] if longest > shortest else []])


def aggregate(sub: pd.DataFrame, x: str) -> dict:
    """Per grid point the aggregate over the seeds still running, their min and max, and how many;
    NaN where a running seed has no finished episode yet."""
    g = grid(sub, x)
    values = np.array([curve_on(lr, x, g) for lr in sub["learning"]])
    ends = np.array([lr["curve"][x][-1] if lr["curve"][x] else 0.0 for lr in sub["learning"]])
    running = g[None, :] <= ends[:, None]
    have = ~np.isnan(values)
    enough = min(2, len(values))  # carried on while 2 seeds run: one seed alone is no aggregate
    ok = (have | ~running).all(axis=0) & (have.sum(axis=0) >= enough)
    out = {"x": g, "agg": np.full(len(g), np.nan), "min": np.full(len(g), np.nan), "max": np.full(len(g), np.nan),
           "count": have.sum(axis=0)}
    for j in np.flatnonzero(ok):
        v = values[have[:, j], j]
        out["agg"][j], out["min"][j], out["max"][j] = stats.trim_mean(v, TRIM), v.min(), v.max()
    return out


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


def chart(c, confs: pd.DataFrame, x: str) -> Chart:
    legend = Legend()
    seeds = c.seeds
    traces: dict[str, list] = {}
    ys = []
    for r in confs.itertuples():
        sub = seeds[(seeds["group"] == r.group) & (seeds["mode"] == r.mode) & (seeds["num_envs"] == r.num_envs)]
        colour = palette.mode_colour(r.mode.split("[")[0])
        key = {"group": r.group, "mode": r.mode, "num_envs": int(r.num_envs), "mode_name": r.mode.split("[")[0]}
        data = traces.setdefault(r.panel, [])
        for s in sub.itertuples():
            xs, rs = thin(s.learning["curve"][x], s.learning["curve"]["return_mean"])
            data.append(scatter(x=_r(xs, 0 if x == "env_steps" else 2), y=_r(rs), mode="lines", opacity=0.35,
                                line={"color": colour, "width": 1, "dash": r.dash},
                                hovertemplate=f"{r.curve}, seed {s.seed}: %{{y:.1f}}<extra></extra>",
                                meta={"kind": "seed", "seed": int(s.seed), **key}))
            ys += [v for v in rs if v is not None]
        legend.add("each seed (thin)", "#888888", width=1, extra=True)
        a = aggregate(sub, x)
        name = f"{r.curve}: {aggregate_name(len(sub))}"
        if len(sub) > 1:
            rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
            data.append(scatter(x=_r(a["x"], 2), y=_r(a["max"], 3), mode="lines", line={"width": 0}, hoverinfo="skip",
                                meta={"kind": "band_max", **key}))
            data.append(scatter(x=_r(a["x"], 2), y=_r(a["min"], 3), mode="lines", line={"width": 0}, fill="tonexty",
                                fillcolor=f"rgba({rgb[0]},{rgb[1]},{rgb[2]},0.18)", hoverinfo="skip",
                                meta={"kind": "band_min", **key}))
            legend.add("band: lowest to highest seed", colour, "band", extra=True)
        data.append(scatter(
            x=_r(a["x"], 2), y=_r(a["agg"], 3), mode="lines", line={"color": colour, "width": 3, "dash": r.dash},
            customdata=[int(k) for k in a["count"]],
            hovertemplate=f"{r.curve}: %{{y:.2f}} over %{{customdata}} seeds<extra></extra>",
            meta={"kind": "aggregate", "name": aggregate_name(len(sub)), **key}))
        legend.add(name, colour, dash=r.dash, width=3)
        ys += [v for v in a["agg"] if not np.isnan(v)]
        col = "env_steps_to_target" if x == "env_steps" else "time_to_target_s"
        hit = sub[sub[col].notna()]
        if len(hit) and pd.notna(r.target_return):
            data.append(scatter(
                x=nums(hit[col]), y=[float(r.target_return)] * len(hit), mode="markers",
                marker={"symbol": "star", "size": 13, "color": colour, "line": {"color": "#222222", "width": 1}},
                text=[f"{r.curve}, seed {s.seed}: target at {s.time_to_target_s:.1f} s, "
                      f"{s.env_steps_to_target:,.0f} env steps" for s in hit.itertuples()],
                hovertemplate="%{text}<extra></extra>",
                meta={"kind": "target", "seeds": [int(s) for s in hit["seed"]], **key}))
            legend.add("star: a seed first reached the target", "#222222", "marker", symbol="star", extra=True)
    targets = sorted({float(t) for t in confs["target_return"] if pd.notna(t)})
    ys += targets
    pad = 0.05 * (max(ys) - min(ys) or 1.0) if ys else 1.0
    y = {"title": {"text": "episode return (running mean)"}, "range": [min(ys) - pad, max(ys) + pad] if ys else None}
    shapes = [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": t, "y1": t,
               "line": {"color": "#555555", "width": 1, "dash": "dash"}} for t in targets]
    notes = [{"xref": "paper", "x": 0, "y": t, "text": f"target {t:g}", "showarrow": False, "xanchor": "left",
              "yanchor": "bottom", "font": {"size": 10, "color": "#555555"}} for t in targets]
    if targets:
        legend.add("target return (dashed grey)", "#555555", dash="dash", width=1, extra=True)
    xa = {"title": {"text": X[x][1]}, "rangemode": "tozero"}
    panels = [Panel(p, d, layout(xa, y, height=330, shapes=shapes, annotations=notes)) for p, d in traces.items()]
    caption = ("Each seed's running mean return (thin) and the aggregate over seeds (thick: an interquartile mean "
               "with 4 seeds or more, else the plain mean, as named in the legend), carried on over the seeds still "
               "running where one stops, while two are (hover: how many)")
    caption += "; shaded: lowest to highest seed" if legend.has("band: lowest to highest seed") else ""
    caption += ("; stars: where a seed first reached the target (its time and env steps to target in the "
                "tables)." if legend.has("star: a seed first reached the target") else ".")
    return Chart(f"chart-returns-{x.replace('_', '-')}", f"Return against {X[x][0]}", caption, legend.list(), panels,
                 wide=True)
