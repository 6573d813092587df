"""Self-describing tables: throughput intervals that never go below zero, what was measured at the
top of table.md and in chart.json's meta, a legend of the columns shown, ratio intervals marked
where they say little, and the records' warnings beside the rows they weaken.

Properties, not figures: lo > 0, lo <= mean <= hi, narrower with more reps.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ppo_bench import stats
from ppo_bench.collect import collect
from test_collect import row, write

SPREAD = [120.0, 9000.0, 700.0]  # a wide spread of few reps: mean - t half-width is far below zero
SKEWED = [1.0, 1.0, 1.0, 1.0, 1000.0]  # one rep far above the others: the mean sits above the log interval


def test_a_throughput_interval_never_goes_below_zero_and_holds_its_mean():
    for reps in (SPREAD, SKEWED, [100.0, 104.0, 96.0], [5.0, 5.0]):
        s = stats.summary(reps)
        assert s["lo"] > 0 and s["lo"] <= s["mean"] <= s["hi"], (reps, s)
    assert stats.summary(SPREAD)["mean"] - stats.summary(SPREAD)["ci95"] < 0  # what the old bounds were
    one = stats.summary([100.0])
    assert one["lo"] is None and one["hi"] is None and one["ci95"] is None


def test_a_throughput_interval_narrows_with_more_reps():
    rng = np.random.default_rng(0)
    reps = list(rng.lognormal(8.0, 0.3, size=40))
    widths = [(lambda s: s["hi"] / s["lo"])(stats.summary(reps[:k])) for k in (3, 10, 40)]
    assert widths[0] > widths[1] > widths[2] > 1


def test_the_tables_and_charts_give_positive_intervals_around_the_mean(tmp_path):
    write(tmp_path, "s", mode="step", n=8, reps=SPREAD)
    write(tmp_path, "s64", mode="step", n=64, reps=SKEWED)
    c = collect([tmp_path], plot=False)
    csv = pd.read_csv(tmp_path / "summary" / "table.csv")
    assert (csv["lo"] > 0).all() and (csv["lo"] <= csv["mean"]).all() and (csv["mean"] <= csv["hi"]).all()
    chart = json.loads((tmp_path / "summary" / "chart.json").read_text())
    points = chart["stepRaw"]
    assert [p["n"] for p in points] == [8, 64]
    for p in points:
        assert all(isinstance(p[k], int) for k in ("n", "thr", "thr_lo", "thr_hi"))
        assert 0 <= p["thr_lo"] <= p["thr"] <= p["thr_hi"], p
    r = row(c, "step", 8)
    md = (tmp_path / "summary" / "table.md").read_text()
    assert f"| 8 | {r['mean']:.0f} [{r['lo']:.0f}, {r['hi']:.0f}] (!) |" in md
    assert " ± " not in md
