"""The collector on synthetic result files: exact figures, grouping, pairing, failures, outputs.

Expected intervals are worked out here from the formulas (scipy.stats.t.ppf on
hand-computed logs), not by calling ppo_bench.record.stats.
"""

from __future__ import annotations

import builtins
import itertools
import json
import math
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as student_t

from ppo_bench.record.parts import UNIT
from ppo_bench.record import results
from ppo_bench.collect import collect, main

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
_clock = itertools.count()


def record(mode="step", n=8, reps=(100.0,), *, groups=1, round=0, frameskip=5, seed=0,
           sched_reps=3, host="h1", start=None, setup_s=2, load=0.5, load_after=None, mhz=2400.0, cpus=2, status="ok",
           error=None, env_extra=None, agent=None, sched_extra=None, phases=None, steal=None) -> dict:
    """A minimal record as runner.run writes it; each gets its own 10 s window unless `start` is given.

    The job starts `setup_s` before its 5 s measurement and ends with it.
    """
    start = T0 + timedelta(seconds=10 * next(_clock)) if start is None else start
    end = start + timedelta(seconds=5)
    config = {
        "env": {"game": "pong", "num_envs": n, "frameskip": frameskip, "num_threads": None, **(env_extra or {})},
        "agent": {"name": "nature_cnn", "compile": True, "num_steps": 128} if agent is None else agent,
        "schedule": {"reps": sched_reps, "bench_steps": 1000, "warmup": 64, **(sched_extra or {})},
        "mode": {"name": mode, "groups": groups},
        "device": "auto", "seed": seed, "round": round,
    }
    rec = {
        "schema": 1, "status": status, "error": error, "warnings": [], "mode": mode, "game": "pong",
        "agent": "nature_cnn", "num_envs": n, "device": "cpu", "frameskip": frameskip, "groups": groups,
        "round": round, "seed": seed, "config": config, "overrides": [],
        "timing": {"started_at": (start - timedelta(seconds=setup_s)).isoformat(), "finished_at": end.isoformat()},
        "provenance": {"host": host, "python": "3.11", "torch": "2", "ale_py": "0.12.1", "cuda": None,
                       "gpu": None, "cpu_count": cpus, "git_commit": "abc"},
    }
    if status == "ok":
        rec["throughput"] = {"unit": UNIT, "reps": list(reps)}
        rec["timing"].update(measure_started_at=start.isoformat(), measure_finished_at=end.isoformat())
        after = load if load_after is None else load_after
        rec["machine"] = {"before": {"load_1m": load, "cpu_mhz": mhz}, "after": {"load_1m": after, "cpu_mhz": mhz}}
        if steal is not None:  # the scheduling part's reading (provenance.SchedClock), the rest of it as a job's
            rec["machine"]["scheduling"] = {"wall_s": 5.0, "threads": 3, "cpu_s": 4.0, "waited_s": 0.0,
                                            "loop_cpu_s": 3.0, "loop_waited_s": 0.0, "steal_share": steal}
        rec["phases"] = None if phases is None else {"loop_steps": 1000, "wall_s": 1.0, "ms_per_loop_step": phases}
    return rec


def write(root: Path, name: str, job_num=None, **kw) -> Path:
    """record(**kw) written as the runner does, into the folder it names as the job's."""
    path = root / name / "result.json"
    results.write_atomic(path, {**record(**kw), "job": {"num": job_num, "output_dir": str(path.parent)}})
    assert results.read_result(path)["status"] == kw.get("status", "ok")
    return path


def row(c, mode, n, group=None):
    t = c.table
    sel = t[(t["mode"] == mode) & (t["num_envs"] == n) & ((t["group"] == group) if group else True)]
    assert len(sel) == 1, sel
    return sel.iloc[0]


def welch_log(a, b):
    """Ratio of geometric means and its 95% Welch interval, written out."""
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    ma, mb = sum(la) / len(la), sum(lb) / len(lb)
    va = sum((x - ma) ** 2 for x in la) / (len(la) - 1) / len(la)
    vb = sum((x - mb) ** 2 for x in lb) / (len(lb) - 1) / len(lb)
    df = (va + vb) ** 2 / (va**2 / (len(la) - 1) + vb**2 / (len(lb) - 1))
    half = student_t.ppf(0.975, df) * math.sqrt(va + vb)
    return math.exp(ma - mb), math.exp(ma - mb - half), math.exp(ma - mb + half)


def paired_log(ratios):
    logs = [math.log(r) for r in ratios]
    k, m = len(logs), sum(logs) / len(logs)
    sd = math.sqrt(sum((x - m) ** 2 for x in logs) / (k - 1))
    half = student_t.ppf(0.975, k - 1) * sd / math.sqrt(k)
    return math.exp(m), math.exp(m - half), math.exp(m + half)


def test_exact_mean_interval_and_speedup(tmp_path, capsys):
    step, recv = [100.0, 104.0, 96.0], [150.0, 180.0, 120.0]
    write(tmp_path, "s", mode="step", reps=step)
    write(tmp_path, "r", mode="sendrecv", reps=recv)
    c = collect([tmp_path], plot=False)

    s = row(c, "step", 8)
    half = student_t.ppf(0.975, 2) * 4.0 / math.sqrt(3)  # sample sd of step is exactly 4
    _, lo_s, hi_s = paired_log(step)  # the interval is the t-interval on log reps
    assert s["mean"] == pytest.approx(100.0)
    assert s["ci95"] == pytest.approx(half)
    assert (s["lo"], s["hi"]) == (pytest.approx(lo_s), pytest.approx(hi_s))
    assert (s["n"], s["cv"], s["noisy"]) == (3, pytest.approx(0.04), False)
    assert s["frames_per_s"] == pytest.approx(500.0)
    assert json.loads(s["reps"]) == step
    assert np.isnan(s["speedup"])

    r = row(c, "sendrecv", 8)
    assert (r["cv"], r["noisy"]) == (pytest.approx(0.2), True)
    ratio, lo, hi = welch_log(recv, step)
    assert (r["speedup"], r["speedup_lo"], r["speedup_hi"]) == (
        pytest.approx(ratio), pytest.approx(lo), pytest.approx(hi))
    assert r["paired_rounds"] == 1 and np.isnan(r["paired_speedup"])  # one round: no paired figure

    out = capsys.readouterr().out
    assert "| num_envs | step | sendrecv | sendrecv/step |" in out
    assert f"| 8 | 100 [{lo_s:.0f}, {hi_s:.0f}] | 150 [" in out and " (noisy) |" in out
    assert f"{ratio:.2f}x [{lo:.2f}, {hi:.2f}]" in out
    assert "env-steps/s, mean over 3 reps (rounds pooled) [95% interval: the t-interval on the log reps" in out
    assert "(noisy) = CV above 10%" in out
    assert "paired" not in out  # one round: no paired column, and the legend does not explain one
    assert (tmp_path / "summary" / "table.md").read_text() == out
    assert len(c.runs) == 6 and sorted(c.runs["thr"]) == sorted(step + recv) and c.runs["thr"].dtype == float
    assert list(c.runs.loc[c.runs["mode"] == "step", "rep"]) == [0, 1, 2]


def test_limit_serial_efficiency(tmp_path, capsys):
    for mode, n, groups, thr in [("step", 8, 1, 100), ("env_only", 8, 1, 400), ("agent_only", 8, 1, 200),
                                 ("env_only", 8, 2, 250), ("agent_only", 8, 2, 300),
                                 ("sendrecv", 8, 1, 150), ("async", 8, 2, 240),
                                 ("env_only", 16, 1, 800), ("agent_only", 16, 1, 500), ("env_only", 16, 2, 700),
                                 ("async", 16, 4, 450)]:
        write(tmp_path, f"{mode}{n}g{groups}", mode=mode, n=n, groups=groups, reps=[thr, thr])
    c = collect([tmp_path], plot=False)
    sr = row(c, "sendrecv", 8)
    serial = 1 / (1 / 400 + 1 / 200)  # one batch: held to its chain, which at groups 1 is the serial figure
    assert (sr["limit"], sr["serial"], sr["bound_kind"], sr["bound"]) == (200, pytest.approx(serial), "chain",
                                                                           pytest.approx(serial))
    assert sr["bound_efficiency"] == pytest.approx(150 / serial)
    a8 = row(c, "async[groups=2]", 8)  # both probes at groups=2, never env_only at groups=1
    assert (a8["limit"], a8["serial"], a8["bound_kind"]) == (250, pytest.approx(1 / (1 / 250 + 1 / 300)), "limit")
    assert a8["bound_efficiency"] == 0.96
    a16 = row(c, "async[groups=4]", 16)  # no probe at groups=4: no limit, and no fallback to groups=1
    assert np.isnan([a16["limit"], a16["serial"], a16["bound"], a16["bound_efficiency"]]).all()
    assert a16["limit_missing"] == "env_only groups=4 and agent_only groups=4"
    assert row(c, "env_only[groups=2]", 16)["limit_missing"] == "agent_only groups=2"
    probe = row(c, "env_only[groups=1]", 8)  # a probe bounds the loop: no efficiency, no speed-up of its own
    assert (probe["limit"], np.isnan(probe["bound_efficiency"]), np.isnan(probe["speedup"])) == (200, True, True)
    assert (row(c, "env_only[groups=2]", 8)["limit"], row(c, "env_only[groups=2]", 8)["mean"]) == (250, 250)
    assert row(c, "step", 8)["bound_efficiency"] == pytest.approx(0.75)
    assert row(c, "sendrecv", 8)["speedup"] == pytest.approx(1.5)
    assert set(c.table["mode"]) == {"step", "env_only[groups=1]", "env_only[groups=2]", "agent_only[groups=1]",
                                    "agent_only[groups=2]", "sendrecv", "async[groups=2]", "async[groups=4]"}
    out = capsys.readouterr().out
    assert "| sendrecv/step | async[groups=2]/step | eff step | eff sendrecv | eff async[groups=2] |" in out
    assert ("| 1.50x [1.50, 1.50] | 2.40x [2.40, 2.40] | 75% of chain 133 | 112% of chain 133 (beat its bound) "
            "| 96% of limit 250 |") in out
    assert "| 500 [500, 500] |  |  |  |  |  |  |\n" in out  # 16 envs: no loop with a bound
    assert ("- no bound for async[groups=4] at num_envs 16: env_only groups=4 and agent_only groups=4 "
            "not measured") in out
    assert "env_only[groups=2] at num_envs 16" not in out  # a probe is no loop: it has no bound to miss
    assert "env_only/step" not in out


def test_efficiency_paired_by_round(tmp_path, capsys):
    """Per round the loop over that round's min(env_only, agent_only) at its groups: drift between
    rounds cancels, where the pooled efficiency divides means taken apart."""
    env = {0: 1000.0, 1: 600.0, 2: 800.0}  # the emulators drift a lot between rounds
    loop = {0: 900.0, 1: 480.0, 2: 720.0}  # 0.9, 0.8, 0.9 of them, round by round
    for rnd in env:
        write(tmp_path, f"async{rnd}", mode="async", groups=2, round=rnd, reps=[loop[rnd]])
        write(tmp_path, f"env{rnd}", mode="env_only", groups=2, round=rnd, reps=[env[rnd]])
        write(tmp_path, f"agent{rnd}", mode="agent_only", groups=2, round=rnd, reps=[5000.0])
        write(tmp_path, f"step{rnd}", mode="step", round=rnd, reps=[300.0])  # no probe at groups 1: no efficiency
    write(tmp_path, "async_alone", mode="async", groups=2, round=3, reps=[700.0])  # a round without probes: left out
    c = collect([tmp_path], plot=False)
    a = row(c, "async", 8)  # held to the limit (no num_threads recorded), here the env probe's
    p, lo, hi = paired_log([0.9, 0.8, 0.9])
    assert a["bound_kind"] == "limit"
    assert (a["bound_efficiency_paired"], a["bound_efficiency_lo"], a["bound_efficiency_hi"],
            a["bound_efficiency_rounds"]) == (pytest.approx(p), pytest.approx(lo), pytest.approx(hi), 3)
    assert a["bound_efficiency"] == pytest.approx(np.mean([900, 480, 720, 700]) / 800)  # pooled: another figure
    s = row(c, "step", 8)
    assert np.isnan(s["bound_efficiency_paired"]) and s["bound_efficiency_rounds"] == 0
    assert f"; paired {p:.0%} [{lo:.0%}, {hi:.0%}] |" in capsys.readouterr().out


def test_no_limit_notes_without_probes(tmp_path):
    write(tmp_path, "s", mode="step", reps=[100.0, 100.0])
    write(tmp_path, "a", mode="async", groups=2, reps=[150.0, 150.0])
    c = collect([tmp_path], plot=False)
    assert c.table["limit"].isna().all() and "no limit" not in c.markdown and "limit" not in c.markdown


def test_probe_rows_are_keyed_by_groups_whether_or_not_the_file_names_them(tmp_path):
    for rnd, thr in enumerate([400.0, 420.0]):
        write(tmp_path, f"env_g1_r{rnd}", mode="env_only", round=rnd, reps=[thr])
    old = tmp_path / "env_old" / "result.json"  # an env_only file from before mode.groups was stored
    rec = record(mode="env_only", round=2, reps=[410.0])
    del rec["config"]["mode"]["groups"], rec["groups"]
    results.write_atomic(old, rec)
    write(tmp_path, "env_g2", mode="env_only", groups=2, reps=[300.0])
    write(tmp_path, "agent_g1", mode="agent_only", reps=[200.0])
    write(tmp_path, "agent_g2", mode="agent_only", groups=2, reps=[250.0])
    c = collect([tmp_path], plot=False)
    g1, g2 = row(c, "env_only[groups=1]", 8), row(c, "env_only[groups=2]", 8)
    assert (g1["jobs"], g1["mean"], g1["limit"]) == (3, 410.0, 200.0)
    assert (g2["jobs"], g2["mean"], g2["limit"]) == (1, 300.0, 250.0)


def _rounds(root, step, fast, **kw):
    for r, (b, a) in enumerate(zip(step, fast)):
        write(root, f"step_r{r}_{kw}", mode="step", round=r, reps=[b], sched_reps=1, **kw)
        if a is not None:
            write(root, f"async_r{r}_{kw}", mode="async", groups=2, round=r, reps=[a], sched_reps=1, **kw)


def test_paired_speedup_hand_computed_and_not_pooled_across_seeds(tmp_path, capsys):
    step = [100.0, 102.0, 98.0, 99.0, 101.0]
    fast = [150.0, 148.0, 151.0, 155.0, 149.0]
    _rounds(tmp_path, step, fast)
    _rounds(tmp_path, [50.0, 50.0], [200.0, 200.0], seed=1)  # another seed: its own group, never paired in
    c = collect([tmp_path], plot=False)
    assert sorted(c.table["group"].unique()) == ["seed=0", "seed=1"]
    a = row(c, "async", 8, "seed=0")
    ratio, lo, hi = paired_log([f / s for f, s in zip(fast, step)])
    assert (a["paired_speedup"], a["paired_lo"], a["paired_hi"], a["paired_rounds"]) == (
        pytest.approx(ratio), pytest.approx(lo), pytest.approx(hi), 5)
    assert json.loads(a["reps"]) == fast and a["jobs"] == 5  # rounds pooled
    other = row(c, "async", 8, "seed=1")
    assert (other["paired_speedup"], other["paired_rounds"], other["n"]) == (pytest.approx(4.0), 2, 2)
    out = capsys.readouterr().out
    assert "## seed=0" in out and "| async/step paired |" in out


def test_drift_cancels_in_paired_speedup(tmp_path):
    step = [100.0, 101.0, 70.0, 99.0, 100.0]  # round 2: the machine is 30% slower for both modes
    fast = [1.5 * s for s in step]
    _rounds(tmp_path / "all", step, fast)
    _rounds(tmp_path / "gap", step, fast[:2] + [None] + fast[3:])  # round 2's async job missing
    full = row(collect([tmp_path / "all"], plot=False), "async", 8)
    assert (full["paired_speedup"], full["paired_lo"], full["paired_hi"]) == (
        pytest.approx(1.5), pytest.approx(1.5), pytest.approx(1.5))
    # unpaired: right centre here, but the drift widens its interval to useless
    assert full["speedup"] == pytest.approx(1.5)
    assert full["speedup_lo"] < 1.25 and full["speedup_hi"] > 1.8
    gap = row(collect([tmp_path / "gap"], plot=False), "async", 8)
    assert (gap["paired_speedup"], gap["paired_rounds"]) == (pytest.approx(1.5), 4)
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))  # noqa: E731
    moved = geo(fast[:2] + fast[3:]) / geo(step)
    assert gap["speedup"] == pytest.approx(moved) and moved > 1.6  # the unpaired ratio moved by the drift


def test_machine_state_warnings(tmp_path, capsys):
    # 2 cores: a load difference must exceed 0.5 (a quarter of the cores) and 50% of the lower
    loads, clocks = [0.6, 4.0, None, 0.95], [2400.0, 2000.0, None, 2200.0]  # round 2 not readable
    for r, (load, mhz) in enumerate(zip(loads, clocks)):
        write(tmp_path, f"s{r}", mode="step", round=r, reps=[100.0])
        write(tmp_path, f"a{r}", mode="async", round=r, reps=[150.0], load=load, mhz=mhz)
    c = collect([tmp_path], plot=False)
    assert len(c.machine_warnings) == 1
    assert "round 1: async vs step: load 4.00 vs 0.50; cpu MHz 2000 vs 2400" in c.machine_warnings[0]
    assert "Machine-state warnings" in capsys.readouterr().out


def test_load_above_the_cpu_count_is_one_warning_per_group(tmp_path, capsys):
    write(tmp_path, "s1", mode="step", n=1, reps=[100.0], load=9.0, cpus=2)
    write(tmp_path, "r1", mode="sendrecv", n=1, reps=[900.0], load=2.0, cpus=2)  # at the count: not above
    write(tmp_path, "s8", mode="step", n=8, reps=[100.0], load=0.5, load_after=3.5, cpus=2)
    write(tmp_path, "other", mode="step", n=8, reps=[100.0], frameskip=4, load=1.5, cpus=2)
    c = collect([tmp_path], plot=False)
    assert c.overloaded == ["env.frameskip=5: 2 of 3 jobs, load up to 9.0 on 2 CPUs: step n=1, step n=8"]
    flags = {(r.group, r.mode, r.num_envs): r.overloaded for r in c.table.itertuples()}
    assert flags == {("env.frameskip=4", "step", 8): False, ("env.frameskip=5", "step", 1): True,
                     ("env.frameskip=5", "step", 8): True, ("env.frameskip=5", "sendrecv", 1): False}
    assert "**Machine overloaded while measuring" in capsys.readouterr().out


def test_steal_above_its_share_marks_the_cell_stolen_and_is_one_line_per_group(tmp_path, capsys):
    write(tmp_path, "s1", mode="step", n=1, reps=[100.0, 101.0], steal=0.136)
    write(tmp_path, "r1", mode="sendrecv", n=1, reps=[900.0, 901.0], steal=0.01)  # at the share: not above
    write(tmp_path, "s8", mode="step", n=8, reps=[100.0, 101.0])  # not read (a record before the reading)
    write(tmp_path, "r8", mode="sendrecv", n=8, reps=[100.0, 101.0], steal=0.0)
    write(tmp_path, "other", mode="step", n=8, reps=[100.0, 101.0], frameskip=4, steal=0.018)
    c = collect([tmp_path], plot=False)
    assert c.stolen == ["env.frameskip=4: 1 of 1 jobs, steal up to 1.8% of the CPUs' time: step n=8",
                        "env.frameskip=5: 1 of 4 jobs, steal up to 13.6% of the CPUs' time: step n=1"]
    flags = {(r.group, r.mode, r.num_envs): r.stolen for r in c.table.itertuples()}
    assert flags == {("env.frameskip=4", "step", 8): True, ("env.frameskip=5", "step", 1): True,
                     ("env.frameskip=5", "step", 8): False, ("env.frameskip=5", "sendrecv", 1): False,
                     ("env.frameskip=5", "sendrecv", 8): False}
    assert c.overloaded == []  # a busy host is not a busy guest: the load inside says nothing of it
    out = capsys.readouterr().out
    assert "**CPU time stolen while measuring (the hypervisor took over 1% of the CPUs' time" in out
    cells = [line for line in c.markdown.splitlines() if line.startswith("| 1 |")]
    assert cells and cells[0].split("|")[2].strip().endswith("] (stolen)"), cells
    assert "(stolen) = the hypervisor took over 1% of the CPUs' time while it measured (steal)" in c.markdown
    assert pd.read_csv(tmp_path / "summary" / "table.csv")["stolen"].sum() == 2


def test_load_warnings_stay_bounded(tmp_path):
    for seed in range(30):  # 30 configurations, each measured overloaded
        write(tmp_path, f"s{seed}", mode="step", seed=seed, reps=[100.0], load=5.0)
    c = collect([tmp_path], plot=False)
    assert len(c.overloaded) == 30
    listed = c.markdown.split("**Machine overloaded")[1].split("\n\n")[1].splitlines()
    assert len(listed) == 21 and listed[-1] == "- ... and 10 more"


def test_corrupt_and_failed_are_reported_and_the_rest_collected(tmp_path, capsys):
    good = write(tmp_path, "good", mode="step", reps=[100.0, 110.0])
    failed = write(tmp_path, "failed", mode="sendrecv", n=16, status="failed", error="RuntimeError: boom")
    torn = tmp_path / "torn" / "result.json"
    torn.parent.mkdir()
    torn.write_text(good.read_text()[:200])
    wrong = tmp_path / "wrong" / "result.json"
    wrong.parent.mkdir()
    wrong.write_text(json.dumps({**json.loads(good.read_text()), "schema": 2}))
    c = collect([tmp_path], plot=False)
    assert [(b["path"], b["reason"]) for b in c.bad] == [(str(torn), "not valid JSON: truncated"),
                                                         (str(wrong), "schema=2, expected 1")]
    assert c.failed == [{"path": str(failed), "mode": "sendrecv", "num_envs": 16, "error": "RuntimeError: boom"}]
    assert list(c.table["mode"]) == ["step"] and row(c, "step", 8)["mean"] == 105.0
    out = capsys.readouterr().out
    assert f"- {failed} (sendrecv, num_envs=16): RuntimeError: boom" in out
    assert f"- {torn}: not valid JSON: truncated" in out and f"- {wrong}: schema=2" in out
    assert json.loads((tmp_path / "summary" / "chart.json").read_text())["stepRaw"][0]["thr"] == 105


def test_frameskip_groups_stay_apart(tmp_path, capsys):
    for fs in (4, 5):
        write(tmp_path, f"s{fs}", mode="step", frameskip=fs, reps=[100.0 * fs, 100.0 * fs])
        write(tmp_path, f"r{fs}", mode="sendrecv", frameskip=fs, reps=[150.0 * fs, 150.0 * fs])
    c = collect([tmp_path])
    assert sorted(c.table["group"]) == ["env.frameskip=4"] * 2 + ["env.frameskip=5"] * 2
    assert row(c, "step", 8, "env.frameskip=4")["frames_per_s"] == 1600.0
    assert row(c, "sendrecv", 8, "env.frameskip=5")["speedup"] == pytest.approx(1.5)
    out = tmp_path / "summary"
    assert not (out / "chart.json").exists()
    for fs in (4, 5):
        sub = out / f"env.frameskip={fs}"
        chart = json.loads((sub / "chart.json").read_text())
        assert chart["stepRaw"] == [{"n": 8, "thr": 100 * fs, "thr_lo": 100 * fs, "thr_hi": 100 * fs}]
        assert (chart["meta"]["group"], chart["meta"]["frameskip"]) == (f"env.frameskip={fs}", fs)
        assert (sub / "throughput.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "## env.frameskip=4" in capsys.readouterr().out


def _sweep(root, slow=1.0):
    for n in (8, 16):
        write(root, f"s{n}", mode="step", n=n, reps=[1000.0, 1001.0, 999.0])
        f = slow if n == 16 else 1.0
        write(root, f"r{n}", mode="sendrecv", n=n, reps=[1500.0 * f, 1502.0 * f, 1498.0 * f])


def test_a_key_the_schema_gained_reads_as_its_default_in_older_files(tmp_path, capsys):
    write(tmp_path, "old", mode="step", reps=(100.0, 110.0))  # written before env.upload existed
    write(tmp_path, "new", mode="sendrecv", reps=(120.0, 130.0), env_extra={"upload": "pinned"})
    write(tmp_path, "other", mode="step", reps=(90.0, 95.0), env_extra={"upload": "pageable"})
    c = collect([tmp_path], plot=False)
    assert sorted(c.table["group"].unique()) == ["env.upload=pageable", "env.upload=pinned"]
    assert not pd.isna(row(c, "sendrecv", 8, "env.upload=pinned").speedup), "old and new must compare"


def test_agent_compile_reads_as_runtime_and_backend_defaults_to_ale(tmp_path, capsys):
    new = lambda runtime: {"name": "nature_cnn", "runtime": runtime, "num_steps": 128}  # noqa: E731
    write(tmp_path, "old", mode="step", reps=(100.0, 110.0))  # agent.compile=true, no env.backend
    write(tmp_path, "new", mode="sendrecv", reps=(120.0, 130.0), agent=new("compiled"), env_extra={"backend": "ale"})
    write(tmp_path, "old_eager", mode="step", reps=(50.0, 55.0),
          agent={"name": "nature_cnn", "compile": False, "num_steps": 128})
    write(tmp_path, "pool", mode="step", reps=(90.0, 95.0), agent=new("compiled"), env_extra={"backend": "envpool"})
    c = collect([tmp_path], plot=False)
    compiled, eager, pool = ("agent.runtime=compiled, env.backend=ale", "agent.runtime=eager, env.backend=ale",
                             "agent.runtime=compiled, env.backend=envpool")
    assert sorted(c.table["group"].unique()) == sorted([compiled, eager, pool])
    assert not pd.isna(row(c, "sendrecv", 8, compiled).speedup), "old compile=true and new compiled must compare"
    assert all("agent.compile" not in json.loads(i) for i in c.table["identity"])
    cols = c.table.set_index("group")[["backend", "runtime"]]
    assert cols.loc[eager].tolist() == ["ale", "eager"] and cols.loc[pool].tolist() == ["envpool", "compiled"]
    csv = pd.read_csv(tmp_path / "summary" / "table.csv")
    assert {"backend", "runtime"} <= set(csv.columns) and sorted(set(csv["runtime"])) == ["compiled", "eager"]


def test_a_baseline_table_from_before_agent_runtime_still_matches(tmp_path, capsys):
    _sweep(tmp_path / "old")
    collect([tmp_path / "old"], plot=False)
    csv = tmp_path / "old" / "summary" / "table.csv"
    table = pd.read_csv(csv)

    def older(text):  # as the collector wrote it before agent.runtime and env.backend existed
        ident = json.loads(text)
        del ident["agent.runtime"], ident["env.backend"]
        return json.dumps({**ident, "agent.compile": True}, sort_keys=True)

    table["identity"] = table["identity"].map(older)
    table.to_csv(csv, index=False)
    _sweep(tmp_path / "new", slow=0.7)
    c = collect([tmp_path / "new"], baseline=tmp_path / "old" / "summary", plot=False)
    assert c.table["baseline_ratio"].notna().all() and len(c.regressions) == 1


def test_profiled_jobs_give_a_phase_table_and_stay_in_their_group(tmp_path, capsys):
    ms = lambda emu, inf: {"emulators": emu, "upload": 0.1, "inference": inf, "action_download": 0.05,  # noqa: E731
                           "stores": 0.02, "update": 0.3, "drain": 0.0, "other": 0.03}
    write(tmp_path, "r0", mode="step", round=0, reps=(100.0,), sched_extra={"profile": True}, phases=ms(1.0, 0.4))
    write(tmp_path, "r1", mode="step", round=1, reps=(110.0,), sched_extra={"profile": True}, phases=ms(1.2, 0.6))
    write(tmp_path, "plain", mode="sendrecv", reps=(105.0, 107.0))  # not profiled
    c = collect([tmp_path], plot=False)
    assert list(c.table["group"].unique()) == ["all"], "profile adds a repetition; it is not a different config"
    assert len(c.phases) == 1
    p = c.phases.iloc[0]
    assert (p["mode"], p["num_envs"], p["jobs"]) == ("step", 8, 2)
    assert p["emulators"] == pytest.approx(1.1) and p["inference"] == pytest.approx(0.5)
    assert p["total"] == pytest.approx(1.1 + 0.1 + 0.5 + 0.05 + 0.02 + 0.3 + 0.03)
    assert "Where the time goes" in c.markdown and "| step | 8 | 1.100 | 0.100 | 0.500 |" in c.markdown
    # records from before `observe` was clocked: empty (its time is in their `other`), not 0
    assert pd.isna(p["observe"]) and "| 0.020 | - | 0.300 |" in c.markdown
    assert (c.out_dir / "phases.csv").exists()


def test_no_phase_table_without_profiled_jobs(tmp_path, capsys):
    write(tmp_path, "a", mode="step", reps=(100.0, 101.0))
    c = collect([tmp_path], plot=False)
    assert c.phases.empty and "Where the time goes" not in c.markdown
    assert not (c.out_dir / "phases.csv").exists()


@pytest.mark.parametrize("from_csv", [True, False])
def test_baseline_flags_only_the_planted_regression(tmp_path, capsys, from_csv):
    _sweep(tmp_path / "old")
    _sweep(tmp_path / "new", slow=0.7)
    write(tmp_path / "new", "s32", mode="step", n=32, reps=[900.0, 910.0])  # not in the baseline
    if from_csv:
        collect([tmp_path / "old"], plot=False)
    base = tmp_path / "old" / "summary" if from_csv else tmp_path / "old"
    c = collect([tmp_path / "new"], baseline=base, plot=False)
    t = c.table.set_index(["mode", "num_envs"])
    assert list(t["regression"]) == [False, False, False, False, True]
    assert t.loc[("sendrecv", 16), "baseline_ratio"] == pytest.approx(0.7)
    assert t.loc[("sendrecv", 16), "baseline_hi"] < 0.71
    assert t.loc[("step", 8), "baseline_ratio"] == pytest.approx(1.0)
    assert np.isnan(t.loc[("step", 32), "baseline_ratio"])
    assert len(c.regressions) == 1 and c.regressions[0].startswith("all sendrecv n=16: 0.70x [")
    out = capsys.readouterr().out
    assert "**Regressions (1)**" in out and "(1500 -> 1050 env-steps/s)" in out


def test_contended_same_host_only(tmp_path, capsys):
    at = T0 + timedelta(days=1)
    a = write(tmp_path, "a", mode="step", reps=[100.0, 100.0], host="h1", start=at)
    b = write(tmp_path, "b", mode="sendrecv", reps=[150.0, 150.0], host="h1", start=at + timedelta(seconds=3))
    write(tmp_path, "c", mode="step", n=16, reps=[100.0, 100.0], host="h2", start=at)
    write(tmp_path, "d", mode="sendrecv", n=16, reps=[150.0, 150.0], host="h1", start=at + timedelta(seconds=8),
          setup_s=0)  # starts as b ends
    c = collect([tmp_path], plot=False)
    assert c.contended == [{"path": str(a), "host": "h1", "overlaps": 1}, {"path": str(b), "host": "h1", "overlaps": 1}]
    assert dict(zip(zip(c.table["mode"], c.table["num_envs"]), c.table["contended"])) == {
        ("step", 8): True, ("sendrecv", 8): True, ("step", 16): False, ("sendrecv", 16): False}
    assert (f"- h1, {(at - timedelta(seconds=2)).isoformat()} to {(at + timedelta(seconds=8)).isoformat()}: 2 jobs, "
            f"e.g. {a} measured during {b}") in capsys.readouterr().out


def test_chart_arrays_sorted_integer(tmp_path):
    for n, thr in [(64, 5000.4), (1, 579.0), (8, 2000.6)]:
        write(tmp_path, f"s{n}", mode="step", n=n, reps=[thr - 19, thr, thr + 19])
        write(tmp_path, f"r{n}", mode="sendrecv", n=n, reps=[1.5 * thr] * 3)
    collect([tmp_path], plot=False)
    chart = json.loads((tmp_path / "summary" / "chart.json").read_text())
    assert set(chart) == {"stepRaw", "recvRaw", "meta"}
    assert [p["n"] for p in chart["stepRaw"]] == [1, 8, 64] == [p["n"] for p in chart["recvRaw"]]
    assert all(type(v) is int for p in chart["stepRaw"] + chart["recvRaw"] for v in p.values())
    _, lo, hi = paired_log([579 - 19, 579, 579 + 19])  # the t-interval on log reps
    assert chart["stepRaw"][0] == {"n": 1, "thr": 579, "thr_lo": round(lo), "thr_hi": round(hi)}
    assert chart["recvRaw"][1] == {"n": 8, "thr": 3001, "thr_lo": 3001, "thr_hi": 3001}
    assert {k: chart["meta"][k] for k in ("game", "agent", "device", "frameskip", "unit", "group")} == {
        "game": "pong", "agent": "nature_cnn", "device": "cpu", "frameskip": 5, "unit": "env_steps/s",
        "group": "all"}
    assert chart["meta"]["schedule"] == {"reps": 3, "bench_steps": 1000, "warmup": 64}
    datetime.fromisoformat(chart["meta"]["date"])
    js = (tmp_path / "summary" / "chart.js").read_text()
    assert f"const stepRaw = [\n  {{ n: 1, thr: 579, thr_lo: {round(lo)}, thr_hi: {round(hi)} }},\n" in js
    assert "const recvRaw = [\n" in js and js.count("];") == 2


def test_plot_written(tmp_path):
    pytest.importorskip("matplotlib")
    write(tmp_path, "s", mode="step", reps=[100.0, 101.0])
    write(tmp_path, "r", mode="sendrecv", reps=[150.0, 152.0])
    collect([tmp_path])
    png = (tmp_path / "summary" / "throughput.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


@pytest.mark.parametrize("how", ["sys.modules", "__import__"])
def test_plot_skipped_without_matplotlib(tmp_path, capsys, monkeypatch, how):
    for fs in (4, 5):  # two groups: still one message
        write(tmp_path, f"s{fs}", mode="step", frameskip=fs, reps=[100.0, 101.0])
    if how == "sys.modules":
        monkeypatch.setitem(sys.modules, "matplotlib", None)
    else:
        real = builtins.__import__

        def blocked(name, *args, **kwargs):
            if name.startswith("matplotlib"):
                raise ImportError(f"No module named {name!r}")
            return real(name, *args, **kwargs)

        monkeypatch.setattr(builtins, "__import__", blocked)
    c = collect([tmp_path])
    assert c.ok
    err = capsys.readouterr().err
    assert err.splitlines() == ["plot skipped: matplotlib is not importable (pip install 'ppo-bench[plot]')",
                                f"wrote {tmp_path / 'summary'}"]
    out = tmp_path / "summary"
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == [
        ".collect.json", "env.frameskip=4/chart.js", "env.frameskip=4/chart.json",
        "env.frameskip=5/chart.js", "env.frameskip=5/chart.json", "side_by_side.js", "side_by_side.json",
        "table.csv", "table.md"]


def test_result_files_untouched(tmp_path):
    _sweep(tmp_path / "old")
    _sweep(tmp_path / "new", slow=0.7)
    files = sorted(tmp_path.rglob("result.json"))
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    collect([tmp_path / "new"], baseline=tmp_path / "old", plot=False)
    main([str(tmp_path / "old"), "--no-plot"])
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == before
    assert sorted(tmp_path.rglob("result.json")) == files


def test_main_exit_codes(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty")]) == 1
    assert "no result files under" in capsys.readouterr().err
    assert not (tmp_path / "empty" / "summary").exists()
    write(tmp_path / "bad", "f", mode="step", status="failed", error="ValueError: x")
    assert main([str(tmp_path / "bad"), "--no-plot"]) == 1
    captured = capsys.readouterr()
    assert "nothing usable: 1 failed jobs, 0 skipped, 0 unusable files, 0 jobs with no record" in captured.err
    assert "ValueError: x" in (tmp_path / "bad" / "summary" / "table.md").read_text()
    write(tmp_path / "ok", "s", mode="step", reps=[100.0, 100.0])
    assert main([str(tmp_path / "ok"), "--out", str(tmp_path / "o"), "--no-plot"]) == 0
    assert (tmp_path / "o" / "table.csv").read_text().startswith("group,identity,mode,")
    assert not (tmp_path / "o" / "throughput.png").exists()


def test_several_configurations_also_get_a_chart_and_plot_side_by_side(tmp_path):
    """Backends (or runtimes) stay apart, and the out dir shows them together as well."""
    pytest.importorskip("matplotlib")
    for backend, base in (("ale", 100.0), ("envpool", 80.0)):
        for n in (8, 64):
            for mode, factor in (("step", 1.0), ("async", 1.5)):
                write(tmp_path / "runs", f"{backend}-{mode}-{n}", mode=mode, n=n, groups=2 if mode == "async" else 1,
                      reps=(base * factor * n, base * factor * n * 1.02), env_extra={"backend": backend})
    out = tmp_path / "summary"
    c = collect([tmp_path / "runs"], out_dir=out)
    assert sorted(c.table["group"].unique()) == ["env.backend=ale", "env.backend=envpool"]
    assert not (out / "chart.json").exists()  # chart.json stays one configuration's (stepRaw, ...)
    both = json.loads((out / "side_by_side.json").read_text())
    expected = {"env.backend=ale": ["stepEnvBackendAleRaw", "asyncEnvBackendAleRaw"],
                "env.backend=envpool": ["stepEnvBackendEnvpoolRaw", "asyncEnvBackendEnvpoolRaw"]}
    assert {g: meta["arrays"] for g, meta in both["meta"]["groups"].items()} == expected
    for g, names in expected.items():
        own = json.loads((out / g / "chart.json").read_text())  # each group's own chart is still there
        assert [both[name] for name in names] == [own["stepRaw"], own["asyncRaw"]]
    assert [p["n"] for p in both["stepEnvBackendEnvpoolRaw"]] == [8, 64]
    assert both["stepEnvBackendEnvpoolRaw"][0]["thr"] == 646  # mean of 640 and 652.8
    assert "const stepEnvBackendAleRaw = [" in (out / "side_by_side.js").read_text()
    assert (out / "side_by_side.png").stat().st_size > 0
    # One configuration again: the side-by-side files were an earlier collection's, and go.
    collect([tmp_path / "runs" / "ale-step-8"], out_dir=out)
    assert "stepRaw" in json.loads((out / "chart.json").read_text())
    assert not any((out / name).exists() for name in ("side_by_side.json", "side_by_side.js", "side_by_side.png"))


def test_a_probe_is_lent_by_the_one_group_alike_and_never_by_a_guess():
    """The one lending rule that the limit, its rounds and the interleaved probe's jobs of its own share."""
    from ppo_bench.collect.probe_limit import lender

    pkey = {"a": "k", "b": "k", "c": "k", "d": "other"}
    assert lender(pkey, "a", {"a", "b"}) == "a"  # its own first
    assert lender(pkey, "a", {"b", "d"}) == "b"  # the one group alike
    assert lender(pkey, "a", {"b", "c"}) is None  # two alike: which would be a guess
    assert lender(pkey, "a", {"d"}) is None and lender(pkey, "e", {"b"}) is None
