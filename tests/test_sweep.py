"""Real multiruns in subprocesses: what `python run.py -m ...` leaves on disk, also when jobs fail or die."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT
from ppo_bench.results import read_result

pytestmark = pytest.mark.slow

TINY = ["device=cpu", "schedule.reps=2", "schedule.bench_steps=8", "schedule.warmup=2",
        "agent.num_steps=4", "agent.num_minibatches=2"]


def sweep(sweep_dir: Path, *overrides: str, **popen) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", *overrides]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, **popen)


def results_in(sweep_dir: Path) -> dict[tuple, dict]:
    found = {}
    for path in sweep_dir.glob("*/result.json"):
        record = read_result(path)
        found[(record["num_envs"], record["mode"])] = record
    return found


def test_quick_preset_sweeps_its_grid_and_is_collected(tmp_path):
    out = sweep(tmp_path, "+preset=quick", *TINY)
    assert out.returncode == 0, out.stderr[-3000:]
    got = results_in(tmp_path)
    assert set(got) == {(1, "step"), (1, "sendrecv"), (8, "step"), (8, "sendrecv")}
    assert all(r["status"] == "ok" and len(r["throughput"]["reps"]) == 2 for r in got.values())
    # mode varies fastest: step and sendrecv of one num_envs run back to back
    order = sorted(got, key=lambda k: got[k]["job"]["num"])
    assert order == [(1, "step"), (1, "sendrecv"), (8, "step"), (8, "sendrecv")]
    # collected by itself at the end of the sweep ...
    auto = tmp_path / "summary"
    assert {p.name for p in auto.iterdir()} >= {"table.csv", "table.md", "chart.json", "chart.js", "throughput.png"}
    assert "| num_envs | step | sendrecv |" in out.stdout
    # ... and by the CLI, which is the contract
    cli = subprocess.run([sys.executable, "-m", "ppo_bench.collect", str(tmp_path), "--out", str(tmp_path / "again")],
                         capture_output=True, text=True, timeout=300)
    assert cli.returncode == 0, cli.stderr
    chart = json.loads((tmp_path / "again" / "chart.json").read_text())
    for name in ("stepRaw", "recvRaw"):
        assert [p["n"] for p in chart[name]] == [1, 8]
        assert all(isinstance(p[k], int) and p["thr"] > 0 for p in chart[name] for k in ("thr", "thr_lo", "thr_hi"))
    assert chart["meta"]["game"] == "pong" and chart["meta"]["device"] == "cpu"
    table = pd.read_csv(tmp_path / "again" / "table.csv")
    assert len(table) == 4 and table["n"].tolist() == [2, 2, 2, 2]


def test_a_failed_job_keeps_the_others_and_resume_runs_only_what_is_missing(tmp_path):
    grid = ["env.num_envs=1,8", "mode=step,async", *TINY]
    first = sweep(tmp_path, *grid)
    assert first.returncode != 0
    got = results_in(tmp_path)
    assert {k: r["status"] for k, r in got.items()} == {
        (1, "step"): "ok", (1, "async"): "failed", (8, "step"): "ok", (8, "async"): "ok"}
    assert got[(1, "async")]["error"] == "ValueError: mode.groups=2: must divide env.num_envs=1"
    assert "Failed jobs" in first.stdout and "must divide env.num_envs=1" in first.stdout

    files = {p: p.read_bytes() for p in tmp_path.glob("*/result.json")}
    again = sweep(tmp_path, *grid, "resume=true")
    assert again.returncode != 0  # the bad job is still bad
    assert again.stderr.count("already ok, skipped") + again.stdout.count("already ok, skipped") == 3
    changed = [p.parent.name for p, data in files.items() if p.read_bytes() != data]
    assert len(changed) == 1 and "env.num_envs=1," in changed[0] and "mode=async" in changed[0]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill"])
def test_an_interrupted_sweep_leaves_only_whole_files(tmp_path, sig):
    # job 0 is short; job 1 (200 reps) is still running when the signal comes
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={tmp_path}", *TINY, "schedule.reps=1,200"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    deadline = time.time() + 300
    while len(list(tmp_path.glob("*/result.json"))) < 1 or not list(tmp_path.glob("*reps=200*")):
        assert proc.poll() is None and time.time() < deadline, "the first job never finished"
        time.sleep(0.2)
    time.sleep(3)  # into job 1's timed repetitions
    os.killpg(proc.pid, sig)
    proc.communicate(timeout=120)
    records = {p.parent.name: read_result(p) for p in tmp_path.glob("*/result.json")}
    short = [r for name, r in records.items() if "reps=1," in name or name.endswith("reps=1")]
    assert len(short) == 1 and short[0]["status"] == "ok"
    long_ = [r for name, r in records.items() if "reps=200" in name]
    if sig == signal.SIGINT:  # the runner saw KeyboardInterrupt and said so
        assert len(long_) == 1 and long_[0]["status"] == "failed" and long_[0]["error"] == "KeyboardInterrupt"
        assert "KeyboardInterrupt" in (tmp_path / "summary" / "table.md").read_text()  # collected on the way out
    else:  # killed outright: no file rather than half of one
        assert long_ == []
    assert not [p for p in tmp_path.rglob("result.json") if p.stat().st_size == 0]


def test_submitit_local_sweep_is_collected_and_overlap_is_marked(tmp_path):
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    out = sweep(tmp_path, "hydra/launcher=submitit_local", "env.num_envs=1,2", *TINY)
    assert out.returncode == 0, out.stderr[-3000:]
    got = results_in(tmp_path)
    assert set(got) == {(1, "step"), (2, "step")} and all(r["status"] == "ok" for r in got.values())
    table = pd.read_csv(tmp_path / "summary" / "table.csv")
    assert sorted(table["num_envs"]) == [1, 2]
    # The two jobs ran at the same time on this host; the collector must say so when their windows overlap.
    a, b = got[(1, "step")]["timing"], got[(2, "step")]["timing"]
    overlap = a["measure_started_at"] < b["measure_finished_at"] and b["measure_started_at"] < a["measure_finished_at"]
    assert table["contended"].tolist() == [overlap, overlap]
