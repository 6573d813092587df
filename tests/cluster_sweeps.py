"""What the tests of the cluster launchers (test_slurm.py, test_ray.py) share: sweeps started in a session
of their own as from a terminal and ended with the test, and the sweep folder read as they run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Optional

import pytest

from conftest import ROOT, as_a_terminal_s
from ppo_bench.record.folder import JOB_NOTES
from ppo_bench.record.results import read_result

LONG = ["schedule.precision=0.0001", "schedule.reps=3", "schedule.max_reps=100000"]
"""A job that times reps for `schedule.max_measure_s` seconds: a precision target it never meets, capped by time."""

STARTED: list[subprocess.Popen] = []


def started(cmd: list[str], env: Optional[dict] = None) -> subprocess.Popen:
    """A sweep started in a session of its own, Ctrl-C heeded as from a terminal (not ignored, as under
    `nohup ... &`), ended with the test (`no_sweep_left`)."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=as_a_terminal_s)
    STARTED.append(proc)
    return proc


@pytest.fixture(autouse=True)
def no_sweep_left():
    """A sweep a failed test started ends with it (its process group), never waiting on after the test."""
    yield
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


def records(sweep_dir: Path) -> dict[str, dict]:
    return {p.parent.name: read_result(p) for p in sweep_dir.glob("*/result.json")}


def notes(sweep_dir: Path) -> list[dict]:
    path = sweep_dir / JOB_NOTES
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def until(what, timeout: float = 240.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"not within {timeout} s: {what}")
