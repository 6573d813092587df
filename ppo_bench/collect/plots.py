"""The figures, drawn with matplotlib: throughput.png (one per group), one of all groups side by
side, and the learning runs' returns against env steps and against wall seconds.

matplotlib is optional (the `plot` extra): it is imported only when a figure is drawn,
and _matplotlib says beforehand whether one can be, so that a collection without it
still writes everything else.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .tables import _order


def plot_throughput(t: pd.DataFrame, path: Path, title: str) -> None:
    """Throughput per mode with 95% error bars and the overlap limit; speed-up over step beneath.

    Log-log on top, since throughput spans orders of magnitude over num_envs.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import ScalarFormatter

    fig = Figure(figsize=(8, 7), layout="constrained")
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2, 1])
    colour = {}
    for m in sorted(t["mode"].unique(), key=_order):
        s = t[t["mode"] == m].sort_values("num_envs")
        err = [s["mean"] - s["lo"].fillna(s["mean"]), s["hi"].fillna(s["mean"]) - s["mean"]]
        bars = top.errorbar(s["num_envs"], s["mean"], yerr=err, fmt="-o", capsize=3, label=m)
        colour[m] = bars.lines[0].get_color()
    for g, s in t[t["limit"].notna()].groupby("groups"):
        s = s.drop_duplicates("num_envs").sort_values("num_envs")
        top.plot(s["num_envs"], s["limit"], "k--" if g == 1 else "k:",
                 zorder=4, label="limit = min(env_only, agent_only)" + ("" if g == 1 else f", groups={g}"))
    top.set_xscale("log", base=2)
    top.set_yscale("log")
    top.set_ylabel("env-steps/s (mean, 95% CI)")
    top.set_title(title)
    top.legend(fontsize="small")
    top.grid(alpha=0.3, which="both")
    bottom.axhline(1.0, color="grey", lw=1)
    for m in colour:
        s = t[t["mode"] == m].sort_values("num_envs")
        for mid, lo, hi, style, shift, suffix in (
                ("speedup", "speedup_lo", "speedup_hi", "-o", 1.0, ""),
                ("paired_speedup", "paired_lo", "paired_hi", "--s", 2**0.1, " paired")):
            sub = s[s[mid].notna()]
            if len(sub):  # paired points nudged right so both bars stay visible
                err = [sub[mid] - sub[lo].fillna(sub[mid]), sub[hi].fillna(sub[mid]) - sub[mid]]
                bottom.errorbar(sub["num_envs"] * shift, sub[mid], yerr=err, fmt=style, capsize=3,
                                color=colour[m], mfc="none" if suffix else colour[m], label=m + suffix)
    bottom.xaxis.set_major_formatter(ScalarFormatter())
    bottom.set_xticks(sorted(t["num_envs"].unique()))
    bottom.set_xlabel("num_envs (log2 scale)")
    bottom.set_ylabel("speed-up over step (x, 95% CI)")
    if bottom.get_legend_handles_labels()[0]:
        bottom.legend(fontsize="small")
    bottom.grid(alpha=0.3)
    fig.savefig(path, dpi=120)


def plot_side_by_side(t: pd.DataFrame, path: Path, title: str) -> None:
    """Every group's throughput on one log-log axis: a colour per group, a marker per mode."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import ScalarFormatter

    fig = Figure(figsize=(9, 6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    modes = sorted(t["mode"].unique(), key=_order)
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
    ax.legend(fontsize="x-small")
    ax.grid(alpha=0.3, which="both")
    fig.savefig(path, dpi=120)


def curve_label(curve: dict, several_groups: bool) -> str:
    return f"{curve['mode']}, num_envs={curve['num_envs']}" + (f", {curve['group']}" if several_groups else "")


def plot_returns(curves: list[dict], x: str, path: Path, title: str) -> None:
    """Return against `x` ("env_steps" or "wall_s"), a colour per configuration: each seed a thin
    line, the IQM over seeds a thick one (where every seed has a value)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    several = len({c["group"] for c in curves}) > 1
    for i, c in enumerate(curves):
        for s in c["seeds"]:
            ax.plot(s[x], [float("nan") if r is None else r for r in s["return_mean"]],
                    color=f"C{i}", lw=0.8, alpha=0.4)
        n = len(c["seeds"])
        ax.plot(c[x]["x"], c[x]["iqm"], color=f"C{i}", lw=2.5,
                label=f"{curve_label(c, several)} (IQM of {n} seed{'s' * (n > 1)})")
    for target in sorted({c["target_return"] for c in curves} - {None}):
        ax.axhline(target, color="grey", ls="--", lw=1, label=f"target {target:g}")
    ax.set_xlabel("env steps" if x == "env_steps" else "wall seconds from job start (setup and compilation included)")
    ax.set_ylabel("episode return (unclipped; running mean of the last episodes)")
    ax.set_title(title)
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    fig.savefig(path, dpi=120)


def _matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
        import matplotlib.backends.backend_agg  # noqa: F401
    except ImportError:
        return False
    return True
