"""A launcher written outside the package from ppo_bench.launch.launching alone (tests/toy_launcher.py,
`hydra/launcher=toy`) gets what every launcher here has: a failed job fails alone and the sweep's exit
status and last line count it, a job whose folder cannot be written fails alone, and resume=true runs
only what is missing. Also the shared module's own parts: the job notes and their count."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hydra.types import RunMode
from omegaconf import OmegaConf

from conftest import ROOT
from ppo_bench.launch import launching, stops
from ppo_bench.record.folder import JOB_NOTES
from ppo_bench.record.results import read_result

TESTS = Path(__file__).resolve().parent
TINY = ["device=cpu", "schedule.reps=2", "schedule.bench_steps=8", "schedule.warmup=2",
        "agent.num_steps=4", "agent.num_minibatches=2"]


# --- the notes and their count -------------------------------------------------------------------------

def hydra_of(sweep_dir: Path, name: str, mode: RunMode = RunMode.MULTIRUN):
    """The part of a job's Hydra config that `launching.noted` reads."""
    return OmegaConf.create({"mode": mode, "sweep": {"dir": str(sweep_dir)},
                             "runtime": {"output_dir": str(sweep_dir / name)}, "overrides": {"task": [name]}})


def notes(sweep_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (sweep_dir / JOB_NOTES).read_text().splitlines()]


@pytest.fixture
def fresh(monkeypatch):
    """launching's state as in a new process."""
    monkeypatch.setattr(launching, "LOCAL", launching.Tally())
    monkeypatch.setattr(launching, "SWEEP", None)
    monkeypatch.setattr(launching, "UNWRITTEN", [])
    monkeypatch.setattr(launching, "NOTES_ERROR", None)


def test_a_job_is_noted_as_it_starts_and_ends_and_the_sweep_counts_its_own_notes(tmp_path, fresh):
    (tmp_path / JOB_NOTES).write_text(json.dumps({"job": "earlier", "ended": True, "failed": True}) + "\n")
    launching.begin(tmp_path)  # a resumed sweep: the earlier sweep's failure is not this one's
    assert launching.tally() == launching.Tally()
    with launching.noted(hydra_of(tmp_path, "a")):
        pass
    with launching.noted(hydra_of(tmp_path, "b")) as outcome:
        outcome.fail(ValueError("b failed"))
    with launching.noted(hydra_of(tmp_path, "c")) as outcome:
        outcome.fail(ValueError("c refused"), kept="c holds an ok record")
    with pytest.raises(KeyboardInterrupt), launching.noted(hydra_of(tmp_path, "d")):
        raise KeyboardInterrupt
    here = {"host": socket.gethostname(), "pid": os.getpid()}  # where each runs, for a stop sent on
    assert notes(tmp_path)[1:] == [
        {"job": "a", "overrides": ["a"], **here}, {"job": "a", "ended": True},
        {"job": "b", "overrides": ["b"], **here}, {"job": "b", "ended": True, "failed": True},
        {"job": "c", "overrides": ["c"], **here}, {"job": "c", "ended": True, "failed": True, "kept": "c holds an ok record"},
        {"job": "d", "overrides": ["d"], **here}, {"job": "d", "ended": True, "stopped": True}]
    assert launching.tally() == launching.Tally(jobs=4, failed=2, stopped=1)
    assert launching.in_progress() == []


def test_the_jobs_in_progress_are_those_started_and_not_ended_and_a_stop_reaches_them(tmp_path, fresh, monkeypatch):
    launching.begin(tmp_path)
    launching.note_job(tmp_path, "here", overrides=["a"], host=socket.gethostname(), pid=12345)
    launching.note_job(tmp_path, "there", overrides=["b"], host="another-node", pid=12345, slurm_job="77")
    launching.note_job(tmp_path, "done", overrides=["c"], host=socket.gethostname(), pid=1)
    launching.note_job(tmp_path, "done", ended=True)
    jobs = launching.in_progress()
    assert [j[0] for j in jobs] == ["here", "there"]
    sent = []
    monkeypatch.setattr(stops.os, "kill", lambda pid, sig: sent.append(("kill", pid, sig)))
    monkeypatch.setattr(stops.subprocess, "run", lambda cmd, **kw: sent.append(tuple(cmd)))
    for job in jobs:
        stops.send_on(job, signal.SIGTERM)
    assert sent == [("kill", 12345, signal.SIGTERM), ("scancel", "--signal=TERM", "77")]


def test_a_stop_s_line_names_the_jobs_in_progress_that_left_no_record(tmp_path, fresh):
    """A job that a stop ended at once (a second stop) or never reached has a start note and no end:
    the line says so, not that no job was in progress."""
    from ppo_bench.launch.cli import failed_line, stop_line

    launching.begin(tmp_path)
    for name in ("stopped", "unended", "failed"):
        launching.note_job(tmp_path, name, overrides=[name], host=socket.gethostname(), pid=1)
    launching.note_job(tmp_path, "stopped", ended=True, stopped=True)
    launching.note_job(tmp_path, "failed", ended=True, failed=True)
    jobs = launching.tally()
    assert jobs == launching.Tally(jobs=3, failed=1, stopped=1, unended=1)
    assert stop_line(jobs) == ("the job in progress is recorded as failed; 1 job in progress left no record "
                               "(ended at once, or still running), 1 job failed before")
    assert stop_line(launching.Tally(jobs=1, unended=1)) == ("1 job in progress left no record (ended at once, "
                                                            "or still running)")
    assert stop_line(launching.Tally()) == "no job was in progress"
    assert failed_line(launching.Tally()) == "no job ran"  # the sweep stopped before its first job


def test_a_single_run_is_counted_in_its_process_and_writes_no_notes(tmp_path, fresh):
    with launching.noted(hydra_of(tmp_path, "a", RunMode.RUN)) as outcome:
        outcome.fail(ValueError("failed"))
    assert launching.tally() == launching.Tally(jobs=1, failed=1) and not (tmp_path / JOB_NOTES).exists()


def test_notes_that_cannot_be_written_stop_the_sweep_and_the_job_is_still_counted(tmp_path, fresh, capsys):
    sweep_dir = tmp_path / "sweep"
    sweep_dir.mkdir()
    launching.begin(sweep_dir)
    with pytest.raises(launching.NotesUnwritable) as raised, launching.noted(hydra_of(sweep_dir, "bad")) as outcome:
        shutil.rmtree(sweep_dir)  # the folder gone: its end cannot be noted
        outcome.fail(ValueError("the job failed"))
    assert str(raised.value) == (f"the sweep stops: its job notes {sweep_dir / JOB_NOTES} cannot be written "
                                 "(FileNotFoundError: No such file or directory), so no later job could be counted; "
                                 "none runs")
    assert launching.tally() == launching.Tally(jobs=1, failed=1)  # counted from what could not be written
    with pytest.raises(launching.NotesUnwritable), launching.noted(hydra_of(sweep_dir, "next")):
        raise AssertionError("a job ran whose start could not be noted")
    assert launching.tally() == launching.Tally(jobs=1, failed=1)  # it did not run: not counted
    assert capsys.readouterr().err == ""  # the sweep's process says it, once (cli)


def test_unreadable_notes_leave_the_count_unknown(tmp_path, fresh):
    (tmp_path / JOB_NOTES).mkdir()  # a folder where the notes go
    launching.begin(tmp_path)
    assert launching.tally().unread


# --- whole sweeps with the toy launcher ------------------------------------------------------------------

def sweep(sweep_dir: Path, *overrides: str) -> subprocess.CompletedProcess:
    path = os.pathsep.join(p for p in (str(TESTS / "plugins"), str(TESTS), os.environ.get("PYTHONPATH")) if p)
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", "hydra/launcher=toy", *TINY, *overrides]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": path})


def by_job(sweep_dir: Path) -> dict[tuple, dict]:
    return {(r["game"], r["mode"]): r for r in map(read_result, sweep_dir.glob("*/result.json"))}


@pytest.mark.slow
def test_the_toy_launcher_keeps_failures_apart_counts_them_and_resumes(tmp_path):
    # pongg is a typo: its jobs fail; async's 2 groups do not divide 1 env: that job is skipped
    grid = ["env.game=pong,pongg", "env.num_envs=1", "mode=step,async"]
    first = sweep(tmp_path, *grid)
    assert first.returncode == 1, first.stderr[-3000:]
    assert "Traceback" not in first.stdout + first.stderr
    assert first.stderr.splitlines()[-1] == "2 of 4 jobs failed (each one's line says why)"
    got = by_job(tmp_path)
    assert {k: r["status"] for k, r in got.items()} == {
        ("pong", "step"): "ok", ("pong", "async"): "skipped", ("pongg", "step"): "failed", ("pongg", "async"): "failed"}
    started = sorted(got.values(), key=lambda r: r["timing"]["started_at"])
    assert [r["job"]["num"] for r in started] == [3, 2, 1, 0]  # the toy's own order: the last first
    assert "ValueError: env.game=pongg" in (tmp_path / "summary" / "table.md").read_text()

    # resume: the ok job is not run again; a job whose folder cannot be made fails alone, in one line
    ok = tmp_path / Path(got[("pong", "step")]["job"]["output_dir"]).name / "result.json"
    kept = ok.read_bytes()
    blocked = Path(got[("pong", "async")]["job"]["output_dir"])
    shutil.rmtree(blocked)
    blocked.write_text("a file where the job's folder goes")
    again = sweep(tmp_path, *grid, "resume=true")
    out = again.stdout + again.stderr
    assert again.returncode == 1 and "Traceback" not in out
    assert out.count("already ok, skipped") == 1 and ok.read_bytes() == kept
    assert f"FAILED: its folder {blocked} cannot be written" in out
    assert again.stderr.splitlines()[-1] == "3 of 4 jobs failed (each one's line says why)"
    table = (tmp_path / "summary" / "table.md").read_text()
    assert f"- {blocked}: no record written" in table  # its notes name it in the summary


# --- one per-job path ---------------------------------------------------------------------------------

LAUNCHERS = [*(ROOT / "ppo_bench" / "launch" / f for f in ("node.py", "slurm.py", "ray_jobs.py")),
             TESTS / "toy_launcher.py", *sorted((ROOT / "hydra_plugins" / "ppo_bench_launcher").glob("*.py"))]
PER_JOB = ("run_job", "job_config", "stoppable", "set_state")  # the steps of a job's path, launching's own


def per_job_calls(source: str) -> set[str]:
    import ast

    return {node.attr if isinstance(node, ast.Attribute) else node.id for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.Attribute, ast.Name))} & {*PER_JOB, "run_on_worker"}


def test_every_launcher_runs_its_jobs_through_the_one_per_job_path():
    """Each launcher (basic, node, SLURM's, Ray's, the toy) hands every job to launching.run_on_worker (stop held,
    Hydra's state, the plugins, the job's config, the folder guard); none writes those steps again."""
    written = {path.name: per_job_calls(path.read_text()) for path in LAUNCHERS}
    callers = {name for name, calls in written.items() if "run_on_worker" in calls}
    assert {"node.py", "toy_launcher.py", "submitit_launchers.py", "ray_jobs.py"} <= callers
    assert {name: calls - {"run_on_worker"} for name, calls in written.items() if calls - {"run_on_worker"}} == {}
    basic = (ROOT / "ppo_bench" / "launch" / "launching.py").read_text().split("\ndef in_turn", 1)[1]
    assert "run_on_worker" in per_job_calls("def in_turn" + basic.split("\ndef ", 1)[0])  # the basic's
    assert per_job_calls("def f(job):\n    launching.run_job(ctx, fn, job)\n") == {"run_job"}  # the rule sees one


def test_a_worker_loads_the_plugins_its_sweep_names_before_the_job_is_composed(tmp_path, monkeypatch):
    """A fresh worker (a Ray or SLURM job's interpreter) knows only what the sweep's config and the job's
    overrides name: run_on_worker loads those plugins before it composes the job's config."""
    from ppo_bench.config import plugins

    seen = []
    monkeypatch.setattr(plugins, "load", lambda names=(): seen.append(list(names)) or [])
    monkeypatch.setattr(launching, "job_config", lambda *a: seen.append("composed") or (_ for _ in ()).throw(
        RuntimeError("stop here")))
    config = OmegaConf.create({"plugins": ["sweep_plugin.py"]})
    with pytest.raises(RuntimeError, match="stop here"):
        launching.run_on_worker(None, None, config, ["seed=1", "plugins=[job_plugin]"], 0, "w0")
    assert seen == [["sweep_plugin.py", "job_plugin"], "composed"]
