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

from ppo_bench.record import results, stats
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
    rows = {int(r["num_envs"]): r for r in csv.to_dict("records")}
    for p in points:  # whole env-steps/s from 100 up; below, 3 significant figures: never rounded to 0
        assert isinstance(p["n"], int) and 0 < p["thr_lo"] <= p["thr"] <= p["thr_hi"], p
        for k, col in (("thr", "mean"), ("thr_lo", "lo"), ("thr_hi", "hi")):
            v = rows[p["n"]][col]
            assert isinstance(p[k], int) == (v >= 100) and p[k] == (round(v) if v >= 100 else float(f"{v:.3g}")), (
                p, k, v)
    assert points[1]["thr_lo"] < 1  # SKEWED's interval reaches below 1 env-step/s: said so, not as 0
    r = row(c, "step", 8)
    md = (tmp_path / "summary" / "table.md").read_text()
    assert f"| 8 | {r['mean']:.0f} [{r['lo']:.0f}, {r['hi']:.0f}] (noisy) |" in md
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


def _legend(md: str) -> str:
    return next(line for line in md.splitlines() if line.startswith("env-steps/s, mean over"))


def test_the_legend_explains_only_the_columns_and_marks_shown(tmp_path):
    write(tmp_path / "one", "s", mode="step", reps=[100.0, 101.0, 99.0])
    write(tmp_path / "one", "r", mode="sendrecv", reps=[150.0, 151.0, 149.0])
    legend = _legend(collect([tmp_path / "one"], plot=False).markdown)
    assert "<mode>/step = speed-up over step" in legend
    for absent in ("paired", "limit", "eff", "(noisy)", "(?)", "(wide)", "(wN)"):
        assert absent not in legend, absent
    for rnd in (0, 1):
        write(tmp_path / "two", f"s{rnd}", mode="step", round=rnd, reps=[100.0, 101.0])
        write(tmp_path / "two", f"r{rnd}", mode="sendrecv", round=rnd, reps=[150.0, 151.0])
        write(tmp_path / "two", f"e{rnd}", mode="env_only", round=rnd, reps=[300.0, 310.0])
        write(tmp_path / "two", f"a{rnd}", mode="agent_only", round=rnd, reps=[400.0, 900.0])
    md = collect([tmp_path / "two"], plot=False).markdown
    assert "| sendrecv/step paired |" in md
    legend = _legend(md)
    for present in ("paired = per round", "eff <mode> = the loop's share of the one bound", "(noisy) = CV above"):
        assert present in legend, present
    assert "limit = min" not in legend  # the limit is an input of the bound, not a column of the main table


def test_a_ratio_interval_that_says_little_is_marked_and_its_mark_explained(tmp_path):
    write(tmp_path, "s8", mode="step", n=8, reps=[100.0, 102.0, 98.0])
    write(tmp_path, "r8", mode="sendrecv", n=8, reps=[150.0, 153.0, 147.0])  # clearly faster, narrow
    write(tmp_path, "s16", mode="step", n=16, reps=[100.0, 104.0, 96.0])
    write(tmp_path, "r16", mode="sendrecv", n=16, reps=[101.0, 105.0, 97.0])  # no difference shown
    write(tmp_path, "s32", mode="step", n=32, reps=[100.0, 400.0, 30.0])
    write(tmp_path, "r32", mode="sendrecv", n=32, reps=[300.0, 1000.0, 90.0])  # faster, perhaps; wide
    c = collect([tmp_path], plot=False)
    cells = {n: next(line for line in c.markdown.splitlines() if line.startswith(f"| {n} |")).split(" | ")[-1]
             for n in (8, 16, 32)}
    for n, r in ((n, row(c, "sendrecv", n)) for n in (8, 16, 32)):
        inconclusive = r["speedup_lo"] <= 1 <= r["speedup_hi"]
        wide = r["speedup_hi"] > 4 * r["speedup_lo"]
        assert ("(?" in cells[n]) == inconclusive and ("wide)" in cells[n]) == wide, (n, cells[n])
    assert not any(m in cells[8] for m in ("(?", "wide)")) and "(?)" in cells[16] and "wide)" in cells[32]
    legend = _legend(c.markdown)
    assert "(?) = the ratio's 95% interval contains 1" in legend and "(wide) = " in legend


def test_warnings_are_marked_beside_the_cells_they_weaken_and_said_under_the_table(tmp_path):
    from datetime import timedelta

    from test_collect import T0

    weak = write(tmp_path, "s8", mode="step", n=8, reps=[100.0, 101.0])
    rec = json.loads(weak.read_text())
    rec["warnings"] = ["schedule.bench_steps=100 < agent.num_steps=128: no update falls inside the timed steps"]
    results.write_atomic(weak, rec)
    write(tmp_path, "r8", mode="sendrecv", n=8, reps=[150.0, 151.0])
    for rnd in (0, 1):  # one rep per job, pooled over two rounds: their note that one job gives no interval is moot
        one = write(tmp_path, f"s16-{rnd}", mode="step", n=16, round=rnd, reps=[200.0 + rnd], sched_reps=1)
        rec = json.loads(one.read_text())
        rec["warnings"] = ["schedule.reps=1: this job alone gives no interval (pool rounds in the collector)"]
        results.write_atomic(one, rec)
    at = T0 + timedelta(days=1)  # two jobs measured at once on one host: contended
    write(tmp_path, "a", mode="step", n=32, reps=[300.0, 301.0], start=at)
    write(tmp_path, "b", mode="sendrecv", n=32, reps=[310.0, 311.0], start=at + timedelta(seconds=1))
    c = collect([tmp_path], plot=False)
    lines = c.markdown.splitlines()
    row8 = next(line for line in lines if line.startswith("| 8 |"))
    assert row8.split(" | ")[1].endswith("(w1)") and "(w" not in row8.split(" | ")[2]
    assert "- (w1) schedule.bench_steps=100 < agent.num_steps=128: no update falls inside the timed steps" in lines
    row32 = next(line for line in lines if line.startswith("| 32 |"))  # contended: a mark of its own, not a (wN)
    assert row32.split(" | ")[1].endswith("] (contended)") and row32.split(" | ")[2].endswith("] (contended)")
    assert not any(line.startswith("- (w2)") for line in lines)
    assert "(w" not in next(line for line in lines if line.startswith("| 16 |"))
    assert "(wN) = a warning on that cell's jobs" in _legend(c.markdown)
    csv = pd.read_csv(tmp_path / "summary" / "table.csv")
    said = dict(zip(zip(csv["mode"], csv["num_envs"]), csv["warnings"].map(json.loads)))
    assert said[("step", 8)] == [rec_w for rec_w in json.loads(weak.read_text())["warnings"]]
    assert said[("step", 16)] == [] and said[("sendrecv", 8)] == []


def test_throughput_png_takes_every_interval_whole(tmp_path):
    """throughput.png's axes grow to every interval it draws (matplotlib's autoscale over the error bars), so
    none runs off unmarked: the page cuts them with an arrow instead (tests/test_report_html.py)."""
    pytest.importorskip("matplotlib")
    from ppo_bench.collect.throughput import throughput_plot

    for (mode, n), reps in {("step", 1): [40.0, 650.0], ("step", 8): [1000.0, 1010.0],
                            ("sendrecv", 1): [300.0, 380.0], ("sendrecv", 8): [700.0, 2900.0]}.items():
        write(tmp_path, f"{mode}-{n}", mode=mode, n=n, reps=reps, sched_extra={"reps": 2})
    c = collect([tmp_path], plot=False)
    top, bottom = throughput_plot(c.table, "quick").axes
    assert top.get_ylim()[0] <= c.table["lo"].min() < c.table["hi"].max() <= top.get_ylim()[1]
    assert bottom.get_ylim()[0] <= c.table["speedup_lo"].min() < c.table["speedup_hi"].max() <= bottom.get_ylim()[1]
