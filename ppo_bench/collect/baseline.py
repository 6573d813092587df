"""The comparison with an earlier collection (--baseline): what got slower, what got faster, in figures.

A baseline is an earlier summary dir (its table.csv keeps full precision and the raw reps for this),
or a dir of result files or a sweep's archive, collected here into the same rows. Per row present in
both, new over old with its 95% interval (Welch on log reps): columns of table.csv, a table of
table.md and a column of the page's headline. A row whose whole interval lies below 1 is a
regression, wholly above 1 an improvement, both listed; the rest are counted as "no change shown"
(their interval holds 1: not the same as no change). Where no row is in both, table.md says that
nothing was comparable (not "No regressions").

The baseline is named by what it ran, not by its path alone: its records' date, commit and commands
(measured's, from their provenance, the folder's history or multirun.yaml); a summary dir's, from its
chart.json's meta (what it recorded of them). It is read before anything is collected, so that a
bad baseline stops the collection before anything is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ppo_bench.record import stats
from . import measured, throughput
from .common import decimals, md_table, ratio_cell, sort_modes
from .load import BASELINE_COLUMNS, CollectError, Collection, load_jobs, read_table
from .sources import is_archive

SLOWER, FASTER, SAME = "slower", "faster", "no change shown"


def verdict(lo: float, hi: float) -> str:
    """A ratio to the baseline in words: slower (its whole interval below 1), faster (above), else no
    change shown (it holds 1, or there is no interval)."""
    return SLOWER if hi < 1 else FASTER if lo > 1 else SAME  # NaN compares False


def load(path: Path) -> tuple[pd.DataFrame, str]:
    """An earlier collection (a summary dir: its table.csv, raw reps; a dir of result files or an archive of
    one) and what it ran, in words (`named`)."""
    path = Path(path)
    if not path.exists():
        raise CollectError(path, "no such file or directory")
    csv = path if path.is_file() and not is_archive(path) else path / "table.csv"
    if csv.is_file():
        return read_table(csv), _named_by_charts(path, csv.parent)
    c = load_jobs([path])[0]
    if c.jobs.empty:
        raise CollectError(path, "no table.csv and no usable result files")
    return throughput.summarise(c.jobs)[BASELINE_COLUMNS], named(path, c)


def _said(commit, commands: list[str]) -> str:
    return f"commit: {commit or 'not recorded'}; command: {measured.command_text(commands) or 'not recorded'}"


def named(path: Path, c: Collection) -> str:
    """A baseline of records by what it ran: its jobs, the last one's end, commit and commands."""
    times = sorted(t for t in c.jobs["finished_at"] if t)
    when = f", the last finished {times[-1][:16].replace('T', ' ')} UTC" if times else ""
    f = measured.fields(c.jobs, c.sweeps, c.histories, c.unmeasured)
    return f"{path}: {len(c.jobs)} jobs{when}; " + _said(f["commit"], f["command"])


def _named_by_charts(path: Path, folder: Path) -> str:
    """A summary dir by what its chart.json files' meta recorded of its runs (none: said so)."""
    metas = []
    for chart in sorted([folder / "chart.json", *folder.glob("*/chart.json")]):
        try:
            metas.append(json.loads(chart.read_text())["meta"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    if not metas:
        return f"{path} (a table.csv without chart.json: its date, commit and commands not recorded there)"
    dates = sorted(m["date"] for m in metas if isinstance(m.get("date"), str))
    when = f": the last finished {dates[-1][:16].replace('T', ' ')} UTC" if dates else ""
    said = [m.get("measured") or {} for m in metas]
    commits = sorted({x.get("commit") for x in said if x.get("commit")})
    commands = list(dict.fromkeys(cmd for x in said for cmd in x.get("command") or []))
    return f"{path}{when}; " + _said(", ".join(commits), commands)


def compare(c: Collection, baseline: pd.DataFrame, named_as: str = "") -> None:
    """new/baseline ratio per row of c.table; a row whose whole interval lies below 1 is a regression,
    above 1 an improvement."""
    c.baseline_named = named_as
    old = {(b.identity, b.mode, int(b.num_envs)): b for b in baseline.itertuples()}
    cols = {k: [] for k in ("baseline_mean", "baseline_ratio", "baseline_lo", "baseline_hi", "regression",
                            "improvement")}
    for r in c.table.itertuples():
        b = old.get((r.identity, r.mode, r.num_envs))
        if b is None:
            for k, v in zip(cols, (np.nan,) * 4 + (False, False)):
                cols[k].append(v)
            continue
        c.baseline_rows += 1
        ri = stats.ratio_interval(json.loads(r.reps), json.loads(b.reps))
        lo, hi = (np.nan if ri[k] is None else ri[k] for k in ("lo", "hi"))
        said = verdict(lo, hi)
        for k, v in zip(cols, (b.mean, ri["ratio"], lo, hi, said == SLOWER, said == FASTER)):
            cols[k].append(v)
        if said != SAME:
            (c.regressions if said == SLOWER else c.improvements).append(
                f"{r.group} {r.mode} n={r.num_envs}: {ratio_cell(ri['ratio'], lo, hi, mark=False)} of baseline "
                f"({b.mean:.0f} -> {r.mean:.0f} env-steps/s)")
    for k, v in cols.items():
        c.table[k] = v


def summary(c: Collection) -> str:
    """One line on the whole comparison, for the page's headline, which shows the fastest loops only."""
    named = f"Baseline: {c.baseline_named or c.baseline}."
    if not c.baseline_rows:
        return named + " Nothing comparable: no configuration, mode and num_envs is in both."
    same = c.baseline_rows - len(c.regressions) - len(c.improvements)
    return (f"{named} Of {c.baseline_rows} rows in both: {len(c.regressions)} slower, {len(c.improvements)} faster "
            f"(whole interval below or above 1), {same} with no change shown; each listed under Tables and warnings.")


def markdown(c: Collection) -> list[str]:
    """The baseline named, each compared row's ratio with its verdict, the regressions and improvements
    listed and the rest counted; or that nothing could be compared (no row in both: "No regressions"
    would claim a check that never happened)."""
    if not c.baseline:
        return []
    title = f"**Against the baseline**: {c.baseline_named or c.baseline}"
    if not c.baseline_rows:
        return [title, "", "Nothing comparable: no configuration, mode and num_envs is in both, so nothing was "
                "checked for regressions or improvements.", ""]
    t = sort_modes(c.table[c.table["baseline_ratio"].notna()], ["group", "num_envs", "mode"])
    several = c.table["group"].nunique() > 1
    rows = [([r.group] if several else []) + [
        r.mode, str(r.num_envs), *(f"{x:.{decimals(x)}f}" for x in (r.baseline_mean, r.mean)),
        ratio_cell(r.baseline_ratio, r.baseline_lo, r.baseline_hi), verdict(r.baseline_lo, r.baseline_hi)]
        for r in t.itertuples()]
    lines = [title, ""] + md_table((["configuration"] if several else []) + [
        "mode", "num_envs", "baseline", "now", "now/baseline", "verdict"], rows) + [""]
    for what, items, where in (("Regressions", c.regressions, "below"), ("Improvements", c.improvements, "above")):
        if items:
            lines += [f"**{what} ({len(items)})**: whole interval {where} 1", ""] + [f"- {i}" for i in items] + [""]
    same, missing = c.baseline_rows - len(c.regressions) - len(c.improvements), len(c.table) - c.baseline_rows
    return lines + [f"No change shown: {same} of {c.baseline_rows} rows compared"
                    + (f" ({missing} row{'s' * (missing > 1)} not in the baseline)." if missing else "."), ""]
