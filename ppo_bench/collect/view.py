"""table.csv's rows as the report page reads them: each row's panel, curve and name, and its
throughput's interval on the log scale, which cannot go below zero.

The page draws and states nothing that the tables do not hold: a row's throughput is table.csv's
`mean` (so the fastest loop, its share of its bound and the point drawn against that bound agree
with the tables), its interval table.csv's `lo` and `hi` (stats.summary: the t-interval on log reps,
which a log axis can draw and never runs below zero, or a precision target's two-stage interval),
and every other figure (speed-ups, bounds, their shares, learning's) is a column of the tables,
taken as it is. A page that drew its own interval from the reps would show a precision target's
cell with another interval than the table beside it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import palette, panels
from .common import mode_order, probes


def curves(t: pd.DataFrame) -> list[str]:
    """Each row's curve: its mode's name, and its schedule's words where two of the panel's
    configurations ran that mode at one num_envs (else their points join into one curve)."""
    met = t.groupby(["panel", "label", "num_envs"])["group"].transform("nunique") > 1
    clash = met.groupby([t["panel"], t["label"]]).transform("any")
    return [f"{lab}, {s}" if c and s else lab for lab, s, c in zip(t["label"], t["schedule"], clash)]


def placed(t: pd.DataFrame, names: pd.Series) -> pd.DataFrame:
    """`t` with `panel` and `schedule` from its configurations' names (`names`, a column of `t`)."""
    where = panels.places(names.unique())
    return t.assign(panel=[where[n].panel for n in names], schedule=[where[n].schedule for n in names])


def throughput(table: pd.DataFrame) -> pd.DataFrame:
    """table.csv's rows with the page's columns: panel, schedule, label (the mode's one name),
    probe, curve; its mean and interval (mean, lo, hi) are table.csv's, as floats (NaN: no interval)."""
    if table.empty:
        return table
    t = placed(table, table["group"])
    t["label"] = [palette.label(m, g) for m, g in zip(t["mode"], t["groups"])]
    t["probe"] = t["mode_name"].isin(probes())
    t["lo"], t["hi"] = t["lo"].astype(float), t["hi"].astype(float)
    t["curve"] = curves(t)
    t["_o"] = t["mode"].map(mode_order)
    return t.sort_values(["group", "_o", "num_envs"]).drop(columns="_o").reset_index(drop=True)


def panel_titles(t: pd.DataFrame) -> list[str]:
    """The panels of a view in table.md's order (its configurations' names sorted)."""
    return list(dict.fromkeys(t.sort_values("group")["panel"])) if "group" in t else list(dict.fromkeys(t["panel"]))


def flags(r) -> list[str]:
    """What marks a row as not measured alone on an idle machine."""
    return [w for w, col in (("contended: another job ran on the host", "contended"),
                             ("overloaded: load above the CPU count", "overloaded"),
                             ("stolen: the hypervisor took CPU time", "stolen"),
                             ("shared node: ran beside other jobs on cores of their own", "shared_node"))
            if _true(getattr(r, col, False))]


def _true(x) -> bool:
    return bool(x) if isinstance(x, (bool, np.bool_)) else False


def fmt(x: float) -> str:
    """A throughput as the page writes it: thousands separated, 3 significant figures below 100."""
    return "n/a" if pd.isna(x) else f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def ratio(x: float, lo: float = np.nan, hi: float = np.nan) -> str:
    """A ratio as table.md writes it (1.23x [1.10, 1.37])."""
    if pd.isna(x):
        return "n/a"
    return f"{x:.2f}x" if pd.isna(lo) else f"{x:.2f}x [{lo:.2f}, {hi:.2f}]"
