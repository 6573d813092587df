"""The comparison with an earlier collection (--baseline): which rows got slower.

A baseline is an earlier summary dir (its table.csv keeps full precision and the raw reps
for this), or a dir of result files or a sweep's archive, collected here into the same rows. Per row present in
both, new over old with its interval: columns of table.csv, and a row whose whole interval
lies below 1 is listed as a regression in table.md; where no row is in both, table.md says
that nothing was comparable (not "No regressions"). It is read before anything is collected,
so that a bad baseline stops the collection before anything is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ppo_bench.record import stats
from . import throughput
from .common import ratio_cell
from .load import BASELINE_COLUMNS, CollectError, Collection, load_jobs, read_table
from .sources import is_archive


def load(path: Path) -> pd.DataFrame:
    """An earlier collection: a summary dir (its table.csv, raw reps), a dir of result files or an archive of one."""
    path = Path(path)
    if not path.exists():
        raise CollectError(path, "no such file or directory")
    csv = path if path.is_file() and not is_archive(path) else path / "table.csv"
    if csv.is_file():
        return read_table(csv)
    jobs = load_jobs([path])[0].jobs
    if jobs.empty:
        raise CollectError(path, "no table.csv and no usable result files")
    return throughput.summarise(jobs)[BASELINE_COLUMNS]


def compare(c: Collection, baseline: pd.DataFrame) -> None:
    """new/baseline ratio per row of c.table; a row whose whole interval lies below 1 is a regression."""
    old = {(b.identity, b.mode, int(b.num_envs)): b for b in baseline.itertuples()}
    cols = {k: [] for k in ("baseline_mean", "baseline_ratio", "baseline_lo", "baseline_hi", "regression")}
    for r in c.table.itertuples():
        b = old.get((r.identity, r.mode, r.num_envs))
        if b is None:
            for k, v in zip(cols, (np.nan,) * 4 + (False,)):
                cols[k].append(v)
            continue
        c.baseline_rows += 1
        ri = stats.ratio_interval(json.loads(r.reps), json.loads(b.reps))
        lo, hi = (np.nan if ri[k] is None else ri[k] for k in ("lo", "hi"))
        slower = bool(hi < 1)
        for k, v in zip(cols, (b.mean, ri["ratio"], lo, hi, slower)):
            cols[k].append(v)
        if slower:
            c.regressions.append(f"{r.group} {r.mode} n={r.num_envs}: {ratio_cell(ri['ratio'], lo, hi, mark=False)} of "
                                 f"baseline ({b.mean:.0f} -> {r.mean:.0f} env-steps/s)")
    for k, v in cols.items():
        c.table[k] = v


def markdown(c: Collection) -> list[str]:
    """The regressions against c.baseline, that there were none, or that nothing could be compared
    (no row in both: "No regressions" would claim a check that never happened)."""
    if not c.baseline:
        return []
    if not c.baseline_rows:
        return [f"Nothing comparable with {c.baseline}: no configuration, mode and num_envs is in both, "
                "so nothing was checked for regressions.", ""]
    if not c.regressions:
        return [f"No regressions against {c.baseline}.", ""]
    return [f"**Regressions against {c.baseline}**", ""] + [f"- {i}" for i in c.regressions] + [""]
