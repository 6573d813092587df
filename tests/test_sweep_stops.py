"""A stop (Ctrl-C, SIGTERM, SIGHUP) reaches every job in progress under every launcher, sent to the
sweep's process alone (`kill PID`) or to its whole process group (what a terminal sends): each job
records it and notes its end, and the sweep counts them. Real sweeps, stopped as their jobs begin
(their start notes written, their runners checking their configs)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, as_a_terminal_s
from ppo_bench.record.folder import JOB_NOTES
from ppo_bench.record.results import read_result
from test_sweep import kill_session, none_left

pytestmark = pytest.mark.slow

TINY = ["device=cpu", "schedule.reps=2000", "schedule.bench_steps=8", "schedule.warmup=2", "agent.num_steps=4",
        "agent.num_minibatches=2", "collect=false", "env.num_envs=1,2"]  # two jobs that would run for minutes
LAUNCHERS = {
    "basic": [],  # one job at a time, in the sweep's process
    "node": ["hydra/launcher=node", "hydra.launcher.cpu_jobs=2"],  # both at once, in pool workers
    "local": ["hydra/launcher=submitit_local",  # both at once, each in a process of submitit's
              "hydra.launcher._target_=hydra_plugins.ppo_bench_launcher.submitit_launchers.LocalLauncher"],
}
AT_ONCE = {"basic": 1, "node": 2, "local": 2}
ERROR = {signal.SIGINT: "KeyboardInterrupt", signal.SIGTERM: "Terminated: SIGTERM", signal.SIGHUP: "Terminated: SIGHUP"}
BY = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}

# Every signal to the process group, and to the sweep's process alone where no other test sends it there
# (test_sweep: the basic launcher's SIGTERM and SIGHUP; test_launcher: the node launcher's SIGTERM; test_sweep:
# the local launcher's SIGTERM). The basic launcher's Ctrl-C to the group is test_sweep's.
CASES = [(launcher, group, sig, False) for launcher in LAUNCHERS for group in (True, False) for sig in ERROR
         if (launcher, group, sig) not in {("basic", True, signal.SIGINT), ("basic", False, signal.SIGTERM),
                                           ("basic", False, signal.SIGHUP), ("node", False, signal.SIGTERM),
                                           ("local", False, signal.SIGTERM)}]
# The same stop twice, milliseconds apart: what `timeout python run.py ...` sends its group, the signal
# forwarded after the terminal's own. One stop, recorded as one: not a person's second Ctrl-C.
CASES += [("node", True, signal.SIGINT, True), ("node", True, signal.SIGTERM, True)]


def notes(sweep_dir: Path) -> list[dict]:
    try:
        return [json.loads(line) for line in (sweep_dir / JOB_NOTES).read_text().splitlines()]
    except FileNotFoundError:
        return []


@pytest.mark.parametrize("launcher,group,sig,echo", CASES,
                         ids=[f"{l}-{'group' if g else 'process'}-{signal.Signals(s).name}{'-echo' * e}"
                              for l, g, s, e in CASES])
def test_a_stop_reaches_every_job_in_progress_which_records_it(tmp_path, launcher, group, sig, echo):
    sweep_dir, log = tmp_path / "sweep", tmp_path / "output"
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", *LAUNCHERS[launcher], *TINY]
    with open(log, "w") as out:  # a file, not a pipe that nobody reads while the sweep runs
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=as_a_terminal_s, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    try:
        deadline = time.time() + 300
        while len([n for n in notes(sweep_dir) if not n.get("ended")]) < AT_ONCE[launcher]:
            assert proc.poll() is None and time.time() < deadline, "the jobs never started"
            time.sleep(0.1)
        (os.killpg if group else os.kill)(proc.pid, sig)  # the group: as a terminal sends it
        if echo:
            time.sleep(0.005)
            os.killpg(proc.pid, sig)
        proc.wait(timeout=120)
        none_left(proc.pid)
    finally:
        kill_session(proc.pid)
    output = log.read_text()
    started = [n["job"] for n in notes(sweep_dir) if not n.get("ended")]
    ended = {n["job"]: n for n in notes(sweep_dir) if n.get("ended")}
    assert len(started) == AT_ONCE[launcher], output[-3000:]  # no other job started
    records = {name: read_result(sweep_dir / name / "result.json") for name in started
               if (sweep_dir / name / "result.json").exists()}
    assert {name: (r["status"], r["error"]) for name, r in records.items()} == {
        name: ("failed", ERROR[sig]) for name in started}, output[-3000:]
    assert {name: ended.get(name, {}).get("stopped") for name in started} == {name: True for name in started}
    assert len(list(sweep_dir.glob("*/result.json"))) == len(started)
    in_progress = "the job in progress is" if len(started) == 1 else f"the {len(started)} jobs in progress are"
    assert output.splitlines()[-1] == (f"stopped by {BY[sig]}: {in_progress} recorded as failed; "
                                       "run again with resume=true to finish"), output[-3000:]
    assert proc.returncode == 128 + sig and "Traceback" not in output, output[-3000:]
