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

from ppo_bench import results, stats
from ppo_bench.collect import collect
from test_collect import row, write

MULTIRUN = """hydra:
  overrides:
    hydra:
    - hydra.sweep.dir=/somewhere/2026-01-01
    - hydra.mode=MULTIRUN
    - hydra/launcher=basic
    task:
    - agent.runtime=compiled,graphed
    - mode=step,sendrecv
"""

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


def _edit(path, **provenance):
    rec = json.loads(path.read_text())
    rec["provenance"].update(provenance)
    results.write_atomic(path, rec)


def test_table_md_opens_with_what_was_measured_and_chart_meta_says_it_too(tmp_path):
    sweep = tmp_path / "sweep"
    for runtime in ("compiled", "graphed"):
        for mode in ("step", "sendrecv"):
            path = write(sweep, f"{runtime}-{mode}", mode=mode, reps=[100.0, 110.0],
                         agent={"name": "nature_cnn", "runtime": runtime, "num_steps": 128})
            _edit(path, cpu_model="Some CPU 9000", git_commit="0123456789abcdef", git_dirty=runtime == "graphed",
                  torch="2.13.0", ale_py="0.12.1")
    (sweep / "multirun.yaml").write_text(MULTIRUN)
    c = collect([sweep], plot=False)
    md = (sweep / "summary" / "table.md").read_text()
    head = md.split("\n\n| num_envs")[0]
    assert md.startswith("**What was measured**") or md.split("\n", 2)[2].startswith("**What was measured**")
    for said in ("game: pong", "network: nature_cnn", "runtime: compiled, graphed", "backend: ale",
                 "device: cpu (Some CPU 9000)", "CPU: Some CPU 9000, 2 CPUs", "torch 2.13.0", "ale-py 0.12.1",
                 "commit: 0123456789ab, 0123456789ab with uncommitted changes",
                 "command: `python run.py -m hydra/launcher=basic agent.runtime=compiled,graphed mode=step,sendrecv`"):
        assert said in head, (said, head)
    assert "/somewhere" not in head and "MULTIRUN" not in head  # this machine's folder and mode are left out
    for chart in (sweep / "summary").rglob("chart.json"):
        meta = json.loads(chart.read_text())["meta"]["measured"]
        assert meta["game"] == "pong" and meta["torch"] == "2.13.0" and meta["device"] == "cpu (Some CPU 9000)"
        assert meta["runtime"] in ("compiled", "graphed") and meta["dirty"] is (meta["runtime"] == "graphed")
        assert meta["command"] == ["python run.py -m hydra/launcher=basic agent.runtime=compiled,graphed "
                                   "mode=step,sendrecv"]
    assert len(c.table) == 4


def test_without_multirun_yaml_the_command_is_rebuilt_from_the_jobs_overrides(tmp_path):
    for n in (8, 16):
        for mode in ("step", "sendrecv"):
            path = write(tmp_path, f"{n}-{mode}", mode=mode, n=n, reps=[100.0, 110.0])
            rec = json.loads(path.read_text())
            rec["overrides"] = [f"env.num_envs={n}", f"mode={mode}", "schedule.reps=2"]
            results.write_atomic(path, rec)
    c = collect([tmp_path], plot=False)
    assert ("- command: `python run.py -m env.num_envs=8,16 mode=step,sendrecv schedule.reps=2` (rebuilt from the "
            "jobs' overrides)") in c.markdown
    assert "- commit: abc (uncommitted changes not recorded)" in c.markdown
