"""Learning runs at equal env steps: curves on a common grid, IQM and spread over seeds, and the
pairs of configurations compared there.

Two learning configurations that differ in one setting that should not change what is learned per
env step (the loop's mode: async against step, say; or `agent.overlap`, the update run beside the
next rollout one update behind) should learn alike at different speeds. A pair differs in exactly
one of those (PAIRED: the mode, or a config key of KEYS), at the same num_envs, and in the same
mode where it differs in a config key; two configurations that differ in two keys are never
paired, except that keys of SPEED_ONLY may differ too: they set how fast the loop runs, not what it
learns per env step (runs side by side on a share of the cores each set `env.num_threads`, and are
then compared with runs alone that left it at its default), and the heading names them. Their
curves are interpolated onto common env steps, where per point the two IQMs over seeds must differ
by no more than the wider of the two seed ranges (see `at_equal_steps`): the acceptance test, which
asks for ACCEPT_SEEDS seeds a side. A file from before a key of KEYS reads as its default (load
reads every config in today's schema), so an older run pairs with a new one. The learning section
fills and shows these (this module reads no file and writes none).

Where a run ended decides how it counts past its end (`values_on`, `reach`), here and in every curve
over seeds (learning's IQM curve, the page's aggregate). A run that stopped because it reached its
target (its record's `stopped_by`, schedule.stop_at_target) has reached it, by definition: past its
end it counts at its last return (carried), so the best seed stopping first does not drop the IQM. A
run that ended otherwise (its env steps or its seconds ran out, or its job failed part-way) says
nothing past its end: an aggregate over every seed ends there (`reach`: where the first such seed
ended; where every seed stopped at its target, where the last did).
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
from scipy import stats

from .common import md_table, mode_order

TRIM = 0.25  # the interquartile mean: scipy's trim_mean cutting a quarter at each end
ACCEPT_SEEDS = 3  # seeds per side the equal-env-steps test asks for
GRID = (0.25, 0.5, 0.75, 1.0)  # of the smaller side's final env steps, for table.md
MODE = "mode"
KEYS = ("agent.overlap",)  # config keys (flat, as in a group's identity) whose values are compared
PAIRED = (MODE, *KEYS)
SPEED_ONLY = ("env.num_threads",)  # may differ within a pair besides the compared key (see above)
AT_TARGET = "target_return"  # a learning record's stopped_by when its run stopped at its target


def aggregate_name(seeds: int) -> str:
    """What trim_mean(x, TRIM) over this many seeds is: it trims a seed at each end from 4 seeds on."""
    return f"IQM of {seeds} seeds" if seeds >= 4 else "1 seed" if seeds == 1 else f"mean of {seeds} seeds"


def curve_on(learning: dict, x: str, grid: np.ndarray) -> np.ndarray:
    """The running mean return interpolated at `grid` (x: "env_steps" or "wall_s"); NaN before the
    first finished episode and past the run's last update."""
    c = learning["curve"]
    have = [(xi, r) for xi, r in zip(c[x], c["return_mean"]) if r is not None]
    if not have:
        return np.full(len(grid), np.nan)
    xs, rs = (np.asarray(v, dtype=float) for v in zip(*have))
    return np.interp(grid, xs, rs, left=np.nan, right=np.nan)


def across_seeds(values: np.ndarray) -> dict:
    """Per grid point (columns), IQM and min-max over seeds (rows); NaN where a seed has no value."""
    full = ~np.isnan(values).any(axis=0)
    out = {k: np.full(values.shape[1], np.nan) for k in ("iqm", "min", "max")}
    if full.any():
        out["iqm"][full] = stats.trim_mean(values[:, full], TRIM, axis=0)
        out["min"][full], out["max"][full] = values[:, full].min(axis=0), values[:, full].max(axis=0)
    return out


def end(learning: dict, x: str) -> float:
    """A run's last curve point on `x` (0 where it has none)."""
    return learning["curve"][x][-1] if learning["curve"][x] else 0.0


def carried(sub: pd.DataFrame) -> list[bool]:
    """Per seed (rows of `seeds`), whether its run stopped at its target: a finished job whose record says so."""
    failed = sub["stopped"].notna() if "stopped" in sub else pd.Series(False, index=sub.index)
    return [lr.get("stopped_by") == AT_TARGET and not f for lr, f in zip(sub["learning"], failed)]


def values_on(sub: pd.DataFrame, x: str, grid: np.ndarray) -> np.ndarray:
    """Each seed's running mean return at `grid` (a row per seed, `curve_on`), a seed that stopped at
    its target carried at its last return past its end."""
    rows = [curve_on(lr, x, grid) for lr in sub["learning"]]
    for v, lr, carry in zip(rows, sub["learning"], carried(sub)):
        last = [r for r in lr["curve"]["return_mean"] if r is not None]
        if carry and last:
            v[grid > end(lr, x)] = last[-1]
    return np.array(rows, dtype=float).reshape(len(rows), len(grid))


def reach(sub: pd.DataFrame, x: str) -> float:
    """How far every seed of a row counts: to where the first run that did not stop at its target ended
    (its budget, or its job failed); where every one stopped at its target, to where the last did."""
    ends = [end(lr, x) for lr in sub["learning"]]
    short = [e for e, carry in zip(ends, carried(sub)) if not carry]
    return min(short) if short else max(ends, default=0.0)


def at_equal_steps(a: pd.DataFrame, b: pd.DataFrame, grid) -> pd.DataFrame:
    """Two configurations' seeds (rows of `seeds`) at common env steps: per grid point each side's
    IQM and seed range, and whether they agree: the IQMs differ by no more than the wider of the two
    seed ranges (the two settings differ no more than seeds of one do), and the two seed ranges
    overlap; no verdict (NaN) with one seed a side. (Not "each IQM inside the other's range": three
    seeds of one mode can land within 0.1 of each other, early in Pong when all lose 21-0, and a
    difference of 0.03 then read as disagreement. Nor the spread alone: one side's wide range then
    excused every seed of the other lying beyond all of its own, as 5 seeds with overlap did below 3
    without on the H200. Such a separation comes by chance at one point 1 time in 10 with 3 seeds a
    side, 1 in 28 with 3 against 5.)"""
    grid = np.asarray(grid, dtype=float)
    sa, sb = (across_seeds(values_on(s, "env_steps", grid)) for s in (a, b))
    out = pd.DataFrame({"env_steps": grid, **{f"{k}_a": v for k, v in sa.items()},
                        **{f"{k}_b": v for k, v in sb.items()}})
    # one seed a side has no spread to compare with: no verdict rather than "no" on any difference
    known = out[["iqm_a", "iqm_b"]].notna().all(axis=1) & (min(len(a), len(b)) >= 2)
    spread = np.maximum(out["max_a"] - out["min_a"], out["max_b"] - out["min_b"])
    overlap = (out["min_a"] <= out["max_b"]) & (out["min_b"] <= out["max_a"])
    agree = ((out["iqm_a"] - out["iqm_b"]).abs() <= spread) & overlap
    out["agree"] = agree.where(known)  # NaN where a seed had no finished episode yet
    return out


def _pair(seeds_a: pd.DataFrame, seeds_b: pd.DataFrame, also: tuple = (), **what) -> dict:
    top = min(reach(seeds_a, "env_steps"), reach(seeds_b, "env_steps"))
    return {**what, "also": list(also), "seeds_a": len(seeds_a), "seeds_b": len(seeds_b),
            "enough_seeds": min(len(seeds_a), len(seeds_b)) >= ACCEPT_SEEDS,
            "points": at_equal_steps(seeds_a, seeds_b, [round(f * top) for f in GRID])}


def _show(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)  # as load names groups


def pairs(seeds: pd.DataFrame) -> list[dict]:
    """Every pair of rows (seeds pooled) that differ in one of PAIRED only, compared at GRID: `key`
    is what differs, `a` and `b` its two values (a mode label, or "key=value"), `mode` the mode both
    ran (None where the mode is what differs), `group` and `group_b` their groups, `shared` what the
    two groups' names share (the keys that differ left out), `also` the SPEED_ONLY keys that differ too."""
    found = []
    for (group, n), cell in seeds.groupby(["group", "num_envs"], sort=False):
        modes = sorted(cell["mode"].unique(), key=mode_order)
        for ma, mb in itertools.combinations(modes, 2):
            found.append(_pair(cell[cell["mode"] == ma], cell[cell["mode"] == mb], key=MODE, a=ma, b=mb,
                               mode=None, num_envs=n, group=group, group_b=group, shared=group))
    idents = {g: json.loads(i) for g, i in zip(seeds["group"], seeds["identity"])}
    for ga, gb in itertools.combinations(sorted(idents), 2):
        differ = {k for k in idents[ga].keys() | idents[gb].keys() if idents[ga].get(k) != idents[gb].get(k)}
        also = tuple(sorted(differ & set(SPEED_ONLY)))
        differ -= set(also)
        if len(differ) != 1 or not differ <= set(KEYS):
            continue
        key = differ.pop()
        ga, gb = sorted((ga, gb), key=lambda g: json.dumps(idents[g].get(key)))
        shared = ", ".join(p for p in ga.split(", ") if not p.startswith(tuple(f"{k}=" for k in (key, *also))))
        sa, sb = seeds[seeds["group"] == ga], seeds[seeds["group"] == gb]
        for (mode, n), side_a in sa.groupby(["mode", "num_envs"], sort=False):
            side_b = sb[(sb["mode"] == mode) & (sb["num_envs"] == n)]
            if len(side_b):
                found.append(_pair(side_a, side_b, also, key=key, a=f"{key}={_show(idents[ga].get(key))}",
                                   b=f"{key}={_show(idents[gb].get(key))}", mode=mode, num_envs=n, group=ga,
                                   group_b=gb, shared=shared))
    return sorted(found, key=lambda p: (PAIRED.index(p["key"]), p["shared"], p["num_envs"],
                                        mode_order(p["mode"] or ""), mode_order(p["a"]), mode_order(p["b"])))


def _ret(x) -> str:
    return "n/a" if pd.isna(x) else f"{x:.1f}"


def markdown(found: list[dict], several: bool) -> list[str]:
    """Per pair a heading (the two settings, where, seeds, and the key that differs) and its table."""
    lines = []
    for p in found:
        few = "" if p["enough_seeds"] else f"; fewer than {ACCEPT_SEEDS} seeds a side: not the acceptance test"
        mode = "" if p["mode"] is None else f"{p['mode']}, "
        where = f", {p['shared']}" if (several if p["key"] == MODE else p["shared"]) else ""
        also = "".join(f" and in {k}, which sets the speed, not what is learned per env step"
                       for k in p.get("also", ()))
        lines += [f"*{p['b']} vs {p['a']} at equal env steps* ({mode}num_envs={p['num_envs']}{where}; "
                  f"{p['seeds_b']} and {p['seeds_a']} seeds{few}), differing only in {p['key']}{also}", ""]
        rng = lambda i, lo, hi: "no return yet" if pd.isna(i) else f"{_ret(i)} [{_ret(lo)}, {_ret(hi)}]"  # noqa: E731
        rows = [[f"{q.env_steps:.0f}", rng(q.iqm_a, q.min_a, q.max_a), rng(q.iqm_b, q.min_b, q.max_b),
                 "n/a" if pd.isna(q.agree) else "yes" if q.agree else "no"] for q in p["points"].itertuples()]
        lines += md_table(["env steps", f"{p['a']}: IQM [min, max]", f"{p['b']}: IQM [min, max]", "agree"], rows)
        lines += [""]
    return lines
