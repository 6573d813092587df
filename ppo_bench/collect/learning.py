"""Learning runs: final return over seeds, time to target, returns at equal env steps.

A learning run is a job whose result has a `learning` record (agent.algo=ppo with
schedule=learn). Its configuration is load's group plus mode and num_envs, the same key
the throughput table uses; load already pooled its seeds (and rounds) into that group, so
there is no second grouping here. The field's habits (rliable, openrlbenchmark):

- Returns are undiscounted, unclipped episode returns, each run's mean over its last
  `window` finished episodes. Across seeds, the interquartile mean (scipy's
  trim_mean(x, 0.25): the mean of the middle half; with 3 seeds or fewer it trims
  nothing, so it is the plain mean) with a 95% percentile bootstrap interval over seeds,
  drawn from a fixed seed so that a collection reads the same twice. With one seed there
  is no interval; with 2-3 seeds there is one, but so few values give a wide and
  unreliable one, and table.md says so.
- Time to target is read off each seed's curve: seconds on the job's monotonic clock from the
  job's start (the runner's reading when it began the job, before the job's process started, so
  process start, imports, set-up and compilation count: they are part of what a user waits for)
  at the first update whose running mean over a full window reached the target. A seed that never reached it
  counts as never (infinitely late), so the median over seeds is "never" once half of
  them never got there. The record's own time_to_target_s is checked against the curve.
- Two configurations that differ only in mode (async against step, say) or only in
  agent.overlap should learn the same thing per env step, at different speeds: they are
  compared at equal env steps (equal_steps), the table saying which key differs.
- A seed whose job failed part-way (load's `stopped`) counts where its curve reaches: in
  the curves and at equal env steps, up to its last point. Final returns, time to target
  and throughput are over the seeds that finished; the tables say how many stopped.
- A seed that stopped because it reached the target counts at its last return past its end
  (equal_steps: it has reached the target), so the IQM curve does not fall where the best seed
  stops first; one that ran out of env steps or seconds ends the IQM curve where it ended.

The section of table.md (per configuration, per seed, pairs at equal env steps) rounds the
figures; returns.csv keeps full precision (per-seed figures as JSON lists), returns.json holds
every seed's curve and the IQM curves, and two figures draw them against env steps and wall
seconds. A collection without learning runs has none of these.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd
from scipy import stats

from ppo_bench.record.parts import to_target
from .common import bounded, md_table, mode_order, sort_modes, to_json
from .equal_steps import TRIM, aggregate_name, end, pairs, reach, values_on
from .equal_steps import markdown as equal_steps_markdown
from .load import Collection

KEY = ["group", "mode", "num_envs"]
LEVEL = 0.95
RESAMPLES = 9999
BOOTSTRAP_SEED = 0
CURVE_POINTS = 200  # per mean curve (plots, returns.json)
PLOTTED = ("env_steps", "wall_s", "return_mean")
FILES = ("returns.csv", "returns.json", "returns_vs_env_steps.png", "returns_vs_wall_s.png")


def iqm(values) -> float:
    """Interquartile mean: scipy's trim_mean cutting a quarter at each end."""
    return float(stats.trim_mean(np.asarray(values, dtype=float), TRIM))


def iqm_interval(values) -> tuple[float, float]:
    """95% percentile bootstrap interval of the IQM over seeds, reproducible; NaNs for one value."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return np.nan, np.nan
    ci = stats.bootstrap((x,), lambda s, axis: stats.trim_mean(s, TRIM, axis=axis), n_resamples=RESAMPLES,
                         confidence_level=LEVEL, method="percentile",
                         random_state=np.random.default_rng(BOOTSTRAP_SEED)).confidence_interval
    return float(ci.low), float(ci.high)


def reached_target(learning: dict) -> tuple[Optional[float], Optional[int]]:
    """(wall seconds, env steps) at which a learning record's curve reached its target (the
    job's own rule, `parts.to_target`); (None, None) if it never did or there is no target."""
    return to_target(learning["curve"], learning["window"], learning["target_return"])


def _seed_rows(jobs: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    rows, warnings = [], []
    for j in jobs[jobs["learning"].notna()].itertuples():
        lr = j.learning
        wall, steps = reached_target(lr)
        if (wall is None) != (lr["time_to_target_s"] is None) or (
                wall is not None and not np.isclose(wall, lr["time_to_target_s"])):
            warnings.append(f"{j.path}: time_to_target_s={lr['time_to_target_s']} but the curve says "
                            f"{'never' if wall is None else wall}; the curve's is used")
        rows.append({
            "group": j.group, "identity": j.identity, "mode": j.mode, "num_envs": j.num_envs, "seed": j.seed,
            "round": j.round,
            "groups": j.groups, "backend": j.backend, "runtime": j.runtime, "algo": j.algo, "network": j.network,
            "final_return_mean": lr["final_return_mean"], "final_return_std": lr["final_return_std"],
            "episodes": lr["episodes"], "total_env_steps": lr["total_env_steps"],
            "target_return": lr["target_return"], "window": lr["window"],
            "time_to_target_s": wall, "env_steps_to_target": steps,
            "env_steps_per_s": lr["env_steps_per_s"], "setup_s": lr["setup_s"], "wall_s": lr["wall_s"],
            "path": j.path, "learning": lr, "stopped": j.stopped, "host_machine": j.host_machine,
        })
    seeds = pd.DataFrame(rows)
    if not seeds.empty:
        seeds = sort_modes(seeds, ["group", "num_envs", "mode", "seed", "round", "path"])
    return seeds, warnings


def _median_never(values) -> float:
    """Median with never (None, NaN in a column) as infinitely late."""
    return float(np.median([np.inf if pd.isna(v) else v for v in values]))


def _listed(values, integer: bool = False) -> str:
    """A column's values in seed order as a JSON list; null for none (no return, never reached)."""
    return to_json([None if pd.isna(v) else int(v) if integer else float(v) for v in values])


def _summary(seeds: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (group, mode, n), every in seeds.groupby(KEY, sort=False):
        sub = every[every["stopped"].isna()]  # the seeds that finished; the stopped ones only count
        finals = sub["final_return_mean"].dropna().to_numpy(dtype=float)
        lo, hi = iqm_interval(finals)
        first = every.iloc[0]
        times, steps = sub["time_to_target_s"], sub["env_steps_to_target"]
        rows.append({
            "group": group, "mode": mode, "num_envs": n, "groups": first["groups"], "backend": first["backend"],
            "runtime": first["runtime"], "algo": first["algo"], "network": first["network"],
            "seeds": len(sub), "stopped_seeds": len(every) - len(sub), "seeds_with_return": len(finals),
            "hosts": sub["host_machine"].nunique(),  # of one hardware (collect.machines)
            "final_iqm": iqm(finals) if len(finals) else np.nan, "final_lo": lo, "final_hi": hi,
            "target_return": first["target_return"], "window": first["window"],
            "reached": int(pd.notna(times).sum()),
            "time_to_target_median": _median_never(times) if len(sub) else np.nan,
            "env_steps_to_target_median": _median_never(steps) if len(sub) else np.nan,
            "env_steps_per_s": sub["env_steps_per_s"].mean(), "setup_s": sub["setup_s"].median(),
            "wall_s": sub["wall_s"].mean(), "total_env_steps": sub["total_env_steps"].mean(),
            "seed_list": _listed(sub["seed"], integer=True), "final_per_seed": _listed(sub["final_return_mean"]),
            "time_to_target_per_seed": _listed(times), "env_steps_to_target_per_seed": _listed(steps, integer=True),
            "paths": json.dumps(list(sub["path"])),
        })
    return sort_modes(pd.DataFrame(rows), ["group", "num_envs", "mode"])


def aggregate(sub: pd.DataFrame, x: str) -> dict:
    """A row's IQM curve against `x` on an even grid of CURVE_POINTS, with the seeds' min and max and
    how many seeds each point is over (`seeds`; None where there is no IQM). Every seed that finished
    counts to the curve's end (`reach` over them: one stopped at its target carried at its last return);
    a seed whose job failed part-way counts up to its failure, the others going on without it, so the
    curve ends over the seeds the final return is over. No IQM where a seed counted has no finished
    episode yet, nor over one seed where there were more."""
    failed = sub["stopped"].notna().to_numpy()
    grid = np.linspace(0.0, reach(sub[~failed] if (~failed).any() else sub, x), CURVE_POINTS)
    values = values_on(sub, x, grid)
    ends = np.array([end(lr, x) for lr in sub["learning"]])
    counted = ~failed[:, None] | (grid[None, :] <= ends[:, None])
    ok = (~np.isnan(values) | ~counted).all(axis=0) & (counted.sum(axis=0) >= min(2, len(sub)))
    out = {"x": grid.tolist(), "iqm": [None] * len(grid), "min": [None] * len(grid), "max": [None] * len(grid),
           "seeds": [None] * len(grid)}
    for j in np.flatnonzero(ok):
        v = values[counted[:, j], j]
        out["iqm"][j], out["min"][j], out["max"][j] = float(stats.trim_mean(v, TRIM)), float(v.min()), float(v.max())
        out["seeds"][j] = len(v)
    return out


def _curves(seeds: pd.DataFrame) -> list[dict]:
    """Per row: each seed's curve and the IQM curve over seeds (`aggregate`), against env steps and wall
    seconds."""
    out = []
    for (group, mode, n), sub in seeds.groupby(KEY, sort=False):
        target = sub["target_return"].iloc[0]
        per_seed = [{"seed": int(s.seed), "path": s.path, **{k: s.learning["curve"][k] for k in PLOTTED}}
                    for s in sub.itertuples()]
        row = {"group": group, "mode": mode, "num_envs": int(n),
               "target_return": None if pd.isna(target) else float(target), "seeds": per_seed}
        for x in ("env_steps", "wall_s"):
            row[x] = aggregate(sub, x)
        out.append(row)
    return sorted(out, key=lambda r: (r["group"], r["num_envs"], mode_order(r["mode"])))


def build(c: Collection) -> None:
    """Fill in the learning tables of a collection whose jobs load has read (nothing if none learned)."""
    jobs = c.jobs_and_stopped
    if jobs.empty or "learning" not in jobs or jobs["learning"].isna().all():
        return
    c.seeds, c.learning_warnings = _seed_rows(jobs)
    c.learning = _summary(c.seeds)
    c.equal_steps = pairs(c.seeds)
    c.curves = _curves(c.seeds)


def _ret(x) -> str:
    return "n/a" if pd.isna(x) else f"{x:.1f}"


def _secs(x) -> str:
    return "never" if pd.isna(x) or x == float("inf") else f"{x:.0f}" if x >= 100 else f"{x:.1f}"


def _steps(x) -> str:
    return "never" if pd.isna(x) or x == float("inf") else f"{x:.0f}"


def _final_cell(r) -> str:
    k = r.seeds_with_return
    if k == 0:
        return "no episode finished"
    if k == 1:
        return f"{_ret(r.final_iqm)} (1 seed: no interval)"
    return f"{_ret(r.final_iqm)} [{_ret(r.final_lo)}, {_ret(r.final_hi)}]" + (f" ({k} seeds: wide)" if k <= 3 else "")


def _num(x, spec: str) -> str:
    return "n/a" if pd.isna(x) else format(x, spec)


def _seeds_cell(r) -> str:
    return (str(r.seeds) + (f" (+{r.stopped_seeds} stopped early)" if r.stopped_seeds else "")
            + (f", on {r.hosts} hosts" if r.hosts > 1 else ""))


def _seed_final_cell(r) -> str:
    """A seed's last return; a stopped seed's is where its job failed, so it says so."""
    ret = "n/a" if pd.isna(r.final_return_mean) else f"{_ret(r.final_return_mean)} ± {_ret(r.final_return_std)}"
    return ret if pd.isna(r.stopped) else f"{ret} (stopped early: job failed)"


def _seed_target_cell(r, value, show) -> str:
    if pd.isna(r.target_return):
        return "no target"
    if pd.isna(value) and pd.notna(r.stopped):
        return "not before it stopped"
    return show(value)


def _to_target_cell(r, median: float, per_seed: str, show) -> str:
    if pd.isna(r.target_return):
        return "no target"
    return f"{show(median)} ({', '.join(show(v) for v in json.loads(per_seed))})"


def markdown(c: Collection) -> list[str]:
    """The Learning section: per configuration, per seed, and pairs at equal env steps."""
    if c.learning.empty:
        return []
    several = c.learning["group"].nunique() > 1
    conf = lambda r: [r.group] if several else []  # noqa: E731
    first = ["configuration"] if several else []
    lines = ["**Learning** (returns of the learning runs; seeds pooled per configuration)", ""]
    rows = [conf(r) + [r.mode, str(r.num_envs), _seeds_cell(r), _final_cell(r),
                       "none" if pd.isna(r.target_return) else _ret(r.target_return),
                       _to_target_cell(r, r.time_to_target_median, r.time_to_target_per_seed, _secs),
                       _to_target_cell(r, r.env_steps_to_target_median, r.env_steps_to_target_per_seed, _steps),
                       _num(r.env_steps_per_s, ".0f"), _num(r.setup_s, ".1f")] for r in c.learning.itertuples()]
    lines += md_table(first + ["mode", "num_envs", "seeds", "final return: IQM [95% CI]", "target",
                                "time to target s from job start: median (per seed)",
                                "env steps to target: median (per seed)",
                                "env-steps/s", "start-up s: median"], rows) + [""]
    rows = [conf(r) + [r.mode, str(r.num_envs), str(r.seed), _seed_final_cell(r),
                       str(r.episodes), str(r.total_env_steps), _seed_target_cell(r, r.time_to_target_s, _secs),
                       _seed_target_cell(r, r.env_steps_to_target, _steps),
                       _num(r.env_steps_per_s, ".0f"), _num(r.setup_s, ".1f"), _secs(r.wall_s)]
            for r in c.seeds.itertuples()]
    lines += ["*Per seed*", ""] + md_table(
        first + ["mode", "num_envs", "seed", "final return: mean ± std", "episodes", "env steps",
                 "time to target s from job start", "env steps to target", "env-steps/s", "start-up s", "wall s"],
        rows) + [""]
    lines += equal_steps_markdown(c.equal_steps, several)
    windows = ", ".join(str(w) for w in sorted(c.learning["window"].unique()))
    lines += [f"return = undiscounted, unclipped episode return, each seed's mean over its last {windows} finished "
              "episodes; IQM = interquartile mean over seeds (with 3 seeds or fewer, the plain mean), 95% percentile "
              f"bootstrap interval ({RESAMPLES} resamples, fixed seed): with 2-3 seeds it is wide and unreliable, with "
              "1 there is none; time to target = seconds on the job's monotonic clock from the job's start (when the "
              "runner began the job, before its process started), so process start, imports, set-up and "
              "compilation count, at the first update whose running mean over a full window reached the target, "
              "never = not reached (the median "
              "counts it as infinitely late); env-steps/s = the learning loop's (setup excluded), mean over seeds "
              "(the throughput table pools the same seeds); start-up s = from the job's start to its loop's, "
              "median over seeds as the start-up section's total; stopped early = a seed whose job failed part-way: "
              "its curve counts up to the failure (curves, equal env steps), not in final return or time to "
              "target; on N hosts = seeds pooled from N hosts of one hardware (GPU model, CPU model and count), "
              "whose configuration's name says which where the collection holds more than one; a seed that stopped at the target counts at its last return past its end (curves, equal "
              "env steps); agree = at those env steps the two IQMs differ by no "
              "more than the wider of the two seed ranges (max - min over seeds) and the two ranges overlap (no "
              "side's every seed beyond the other's every seed); n/a = a seed with no finished "
              "episode yet, or one seed a side (no spread to compare with)", ""]
    if c.learning_warnings:
        lines += ["*Learning warnings*", ""] + [f"- {w}" for w in bounded(c.learning_warnings)] + [""]
    return lines


def returns_chart(curves: list[dict]) -> dict:
    """returns.json: per configuration each seed's curve and the IQM curves with the seeds each point is
    over, rounded (returns and seconds to 2 decimals, env steps to integers); null where there is no
    return yet."""
    r2 = lambda v: [None if x is None or x != x else round(x, 2) for x in v]  # noqa: E731  (x != x: NaN)
    several = len({c["group"] for c in curves}) > 1
    return {"configurations": [
        {"label": curve_label(c, several), "group": c["group"], "mode": c["mode"], "num_envs": c["num_envs"],
         "target_return": c["target_return"],
         "seeds": [{"seed": s["seed"], "path": s["path"], "env_steps": s["env_steps"], "wall_s": r2(s["wall_s"]),
                    "return_mean": r2(s["return_mean"])} for s in c["seeds"]],
         "iqm_vs_env_steps": {"env_steps": [round(x) for x in c["env_steps"]["x"]],
                              "return": r2(c["env_steps"]["iqm"]), "seeds": c["env_steps"]["seeds"]},
         "iqm_vs_wall_s": {"wall_s": r2(c["wall_s"]["x"]), "return": r2(c["wall_s"]["iqm"]),
                           "seeds": c["wall_s"]["seeds"]}}
        for c in curves],
        "meta": {"return": "undiscounted, unclipped episode return; running mean over the last window of episodes",
                 "iqm": "interquartile mean over the seeds counted at each point (seeds: how many): a seed that "
                        "stopped at the target at its last return past its end, one whose job failed up to the "
                        "failure; it ends where the first seed that ran out of env steps or seconds ended",
                 "wall_s": "seconds from job start, setup and compilation included"}}


def write(c: Collection, out: Path, plot: bool) -> list[Path]:
    """returns.csv, returns.json and the two figures; like the charts, only where some job finished.
    Returns the files written."""
    if not c.ok or c.learning.empty:
        return []
    c.learning.to_csv(out / "returns.csv", index=False)
    (out / "returns.json").write_text(to_json(returns_chart(c.curves), indent=2) + "\n")
    if not plot:
        return [out / "returns.csv", out / "returns.json"]
    plot_returns(c.curves, "env_steps", out / "returns_vs_env_steps.png", "Return against env steps")
    plot_returns(c.curves, "wall_s", out / "returns_vs_wall_s.png", "Return against wall time")
    return [out / name for name in FILES]


def curve_label(curve: dict, several_groups: bool) -> str:
    return f"{curve['mode']}, num_envs={curve['num_envs']}" + (f", {curve['group']}" if several_groups else "")


def plot_returns(curves: list[dict], x: str, path: Path, title: str) -> None:
    """Return against `x` ("env_steps" or "wall_s"), a colour per configuration: each seed a thin
    line, the IQM over seeds a thick one (`aggregate`), named for the seeds it is over."""
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
        names = ", then ".join(dict.fromkeys(aggregate_name(k) for k in c[x]["seeds"] if k))
        ax.plot(c[x]["x"], [np.nan if v is None else v for v in c[x]["iqm"]], color=f"C{i}", lw=2.5,
                label=f"{curve_label(c, several)} ({names or 'no return yet'})")
    for target in sorted({c["target_return"] for c in curves} - {None}):
        ax.axhline(target, color="grey", ls="--", lw=1, label=f"target {target:g}")
    ax.set_xlabel("env steps" if x == "env_steps" else "wall seconds from job start (setup and compilation included)")
    ax.set_ylabel("episode return (unclipped; running mean of the last episodes)")
    ax.set_title(title)
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    fig.savefig(path, dpi=120)
