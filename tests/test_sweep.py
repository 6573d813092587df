"""Real multiruns in subprocesses: what `python run.py -m ...` leaves on disk, also when jobs fail or die."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT, as_a_terminal_s, compose_config, fault_env
from ppo_bench.job import prepared
from ppo_bench.record.results import read_result

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
    # the preset's own schedule (a pilot of 5 to a 10% target, capped), on tiny repetitions
    out = sweep(tmp_path, "+preset=quick", *[o for o in TINY if not o.startswith("schedule.reps=")])
    assert out.returncode == 0, out.stderr[-3000:]
    got = results_in(tmp_path)
    assert set(got) == {(1, "step"), (1, "sendrecv"), (8, "step"), (8, "sendrecv")}
    for r in got.values():
        thr = r["throughput"]
        assert r["status"] == "ok" and (thr["precision"], thr["pilot"]) == (0.1, 5)
        assert 5 <= len(thr["reps"]) <= 20 and thr["stopped_by"] in ("precision", "max_reps", "max_measure_s")
    # mode varies fastest: step and sendrecv of one num_envs run back to back
    order = sorted(got, key=lambda k: got[k]["job"]["num"])
    assert order == [(1, "step"), (1, "sendrecv"), (8, "step"), (8, "sendrecv")]
    # the preset sets its jobs up side by side as this machine's CPUs allow (setup_batch: 0), timed one at a time
    cpus = len(os.sched_getaffinity(0))
    batch = prepared.batch_size(0, cpus)
    assert f"setup_batch=0: {batch} job{'s' * (batch > 1)} set up at a time on {cpus} CPUs" in out.stdout + out.stderr
    timing = [got[k]["timing"] for k in order]
    assert all(a["measure_finished_at"] <= b["measure_started_at"] for a, b in zip(timing, timing[1:]))
    if batch > 1:  # the first batch's jobs all parked before the first of them was timed
        assert all(t.get("parked_at") and t.get("unparked_at") for t in timing[:batch]), timing
        assert max(t["parked_at"] for t in timing[:batch]) < timing[0]["measure_started_at"]
    else:
        assert not any(t.get("parked_at") for t in timing), timing
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
        assert all((isinstance(p[k], int) or p[k] < 100) and p[k] > 0  # whole from 100 up, never rounded to 0
                   for p in chart[name] for k in ("thr", "thr_lo", "thr_hi"))
    assert chart["meta"]["game"] == "pong" and chart["meta"]["device"] == "cpu"
    table = pd.read_csv(tmp_path / "again" / "table.csv")
    # each row pools its job's reps: as many as its precision target asked for
    reps = {(r["num_envs"], r["mode"]): len(r["throughput"]["reps"]) for r in got.values()}
    assert len(table) == 4
    assert {(r.num_envs, r.mode): r.n for r in table.itertuples()} == reps
    assert "precision" in table and set(table["precision"]) == {0.1}


def test_failed_and_skipped_jobs_keep_the_others_and_resume_runs_only_what_is_missing(tmp_path):
    # pongg is a typo: its jobs fail. async's 2 groups do not divide 1 env: that job does not apply.
    grid = ["env.game=pong,pongg", "env.num_envs=1,2", "mode=step,async", *TINY]
    first = sweep(tmp_path, *grid)
    assert first.returncode != 0
    status = {}
    for path in tmp_path.glob("*/result.json"):
        r = json.loads(path.read_text())  # read_result may not know "skipped" yet
        status[(r["game"], r["num_envs"], r["mode"])] = (r["status"], r["error"])
    typo = "ValueError: env.game=pongg: not a ROM that ale-py has; did you mean pong?"
    assert status == {
        ("pong", 1, "step"): ("ok", None), ("pong", 1, "async"): ("skipped", "mode.groups=2: must divide env.num_envs=1"),
        ("pong", 2, "step"): ("ok", None), ("pong", 2, "async"): ("ok", None),
        **{("pongg", n, m): ("failed", typo) for n in (1, 2) for m in ("step", "async")}}
    assert "Failed jobs" in first.stdout and "Traceback" not in first.stdout + first.stderr

    files = {p: p.read_bytes() for p in tmp_path.glob("*/result.json")}
    again = sweep(tmp_path, *grid, "resume=true")
    assert again.returncode != 0  # the bad jobs are still bad
    assert again.stderr.count("already ok, skipped") + again.stdout.count("already ok, skipped") == 3
    changed = {p.parent.name for p, data in files.items() if p.read_bytes() != data}
    assert changed == {p.parent.name for p in files if json.loads(files[p])["status"] != "ok"}


def test_a_sweep_of_ok_and_skipped_jobs_exits_zero_and_a_failed_summary_does_not(tmp_path):
    grid = ["env.num_envs=1", "mode=async", *TINY]  # one job, skipped: nothing to build
    ok = sweep(tmp_path / "a", *grid)
    assert ok.returncode == 0, ok.stderr[-3000:]
    record = json.loads(next((tmp_path / "a").glob("*/result.json")).read_text())
    assert record["status"] == "skipped"
    broken = sweep(tmp_path / "b", *grid, env={**os.environ, **fault_env("ppo_bench.collect:collect:1:raise")})
    assert broken.returncode != 0
    assert "collecting" in broken.stdout + broken.stderr and "injected fault in collect" in broken.stdout + broken.stderr


def test_a_stalled_job_is_killed_and_recorded_and_the_sweep_goes_on(tmp_path):
    # sendrecv's third recv (its second timed loop step; warm-up is 2) never returns, as ale-py's
    # can (ALE #641); step never calls recv.
    out = sweep(tmp_path, "env.num_envs=2", "mode=sendrecv,step", "stall_timeout_s=10", *TINY,
                env={**os.environ, **fault_env("ppo_bench.env.torch_envs:TorchEnvs.recv:3:hang")})
    assert out.returncode != 0
    got = results_in(tmp_path)
    assert got[(2, "step")]["status"] == "ok"
    stalled = got[(2, "sendrecv")]
    assert stalled["status"] == "failed"
    where, _, place = stalled["error"].partition("; ")
    assert where == "no progress for 10 s in repetition 1 of 2 after 1 of 8 loop steps"
    # where the job's thread waited: the injected hang's wait, and the frame of the injection that called it
    assert place.startswith("its main thread was in wait (") and ", called from faulty (fault_injection/" in place
    assert 'ppo_bench/loop/drivers.py", line' in stalled["traceback"]  # every frame, down from the driver's step
    assert "no progress for 10 s" in (tmp_path / "summary" / "table.md").read_text()


def session_processes(sid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.getsid(int(name)) == sid:
                found.append(int(name))
        except OSError:
            pass
    return found


def none_left(sid: int, wait_s: float = 60.0) -> None:
    """Wait up to `wait_s` for every process of the session `sid` (a sweep started in a session of its
    own) to end, and assert that none outlived it."""
    deadline = time.time() + wait_s
    while session_processes(sid) and time.time() < deadline:
        time.sleep(0.2)
    assert session_processes(sid) == [], "a process of the sweep outlived it"


def kill_session(sid: int) -> None:
    """SIGKILL whatever of the session `sid` is left (a test's clean-up, whatever it found)."""
    for pid in session_processes(sid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


# Ctrl-C reaches the whole process group; SIGTERM and SIGKILL the sweep's process alone (as
# `kill PID` does), so its job process must be ended by it, or end itself when it dies. SIGHUP (the
# terminal closed) is handled as SIGTERM.
SIGNALS = [(signal.SIGINT, True), (signal.SIGTERM, False), (signal.SIGKILL, False), (signal.SIGHUP, False)]


def looping(sweep_dir: Path, jobs: int, pattern: str = "*") -> bool:
    """Whether `jobs` jobs (of the folders matching `pattern`) have their children in their loops: each
    logs its schedule as it begins (child.py)."""
    return sum("warm-up steps, then" in p.read_text() for p in sweep_dir.glob(f"{pattern}/run.log")) >= jobs


@pytest.mark.parametrize("sig,group", SIGNALS, ids=["ctrl-c", "sigterm", "kill", "sighup"])
def test_an_interrupted_sweep_leaves_whole_files_and_no_process(tmp_path, sig, group):
    # job 0 is short; job 1 (2000 reps: minutes) is in its loop when the signal comes
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={tmp_path}", *TINY, "schedule.reps=1,2000"]
    # Ctrl-C as a terminal gives it: a shell that starts the tests in the background (`cmd &`) makes
    # them and their children ignore SIGINT, and Python then never raises KeyboardInterrupt.
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, preexec_fn=as_a_terminal_s)
    deadline = time.time() + 300
    while len(list(tmp_path.glob("*/result.json"))) < 1 or not looping(tmp_path, 1, "*reps=2000*"):
        assert proc.poll() is None and time.time() < deadline, "job 1 never began its loop"
        time.sleep(0.2)
    if group:
        os.killpg(proc.pid, sig)
    else:
        os.kill(proc.pid, sig)
    output, _ = proc.communicate(timeout=120)
    none_left(proc.pid)
    records = {p.parent.name: read_result(p) for p in tmp_path.glob("*/result.json")}
    short = [r for name, r in records.items() if "reps=1," in name or name.endswith("reps=1")]
    assert len(short) == 1 and short[0]["status"] == "ok"
    long_ = [r for name, r in records.items() if "reps=2000" in name]
    if sig == signal.SIGKILL:  # killed outright: no file rather than half of one
        assert long_ == []
    else:  # the runner saw KeyboardInterrupt or Terminated and said so, and the sweep stopped
        error = {signal.SIGINT: "KeyboardInterrupt", signal.SIGTERM: "Terminated: SIGTERM",
                 signal.SIGHUP: "Terminated: SIGHUP"}[sig]
        assert len(long_) == 1 and long_[0]["status"] == "failed" and long_[0]["error"] == error
        assert error in (tmp_path / "summary" / "table.md").read_text()  # collected on the way out
        assert proc.returncode == 128 + sig and "Traceback" not in output
        assert not (tmp_path / ".sweep.lock").exists()  # released on the way out
    assert not [p for p in tmp_path.rglob("result.json") if p.stat().st_size == 0]


def test_submitit_local_sweep_is_collected_and_overlap_is_marked(tmp_path):
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    out = sweep(tmp_path, "hydra/launcher=submitit_local", "env.num_envs=1,2", *TINY)
    assert out.returncode == 0, out.stderr[-3000:]
    got = results_in(tmp_path)
    assert set(got) == {(1, "step"), (2, "step")} and all(r["status"] == "ok" for r in got.values())
    table = pd.read_csv(tmp_path / "summary" / "table.csv")
    assert sorted(table["num_envs"]) == [1, 2]
    # The two jobs ran at the same time on this host; the collector must say so where one's measurement
    # overlaps the other's run (its set-up, warm-up or measurement: the collector's rule), whichever way.
    a, b = got[(1, "step")]["timing"], got[(2, "step")]["timing"]

    def disturbed(m: dict, other: dict) -> bool:
        return m["measure_started_at"] < other["finished_at"] and other["started_at"] < m["measure_finished_at"]

    assert table.sort_values("num_envs")["contended"].tolist() == [disturbed(a, b), disturbed(b, a)]


def test_slurm_s_launcher_keeps_a_job_whose_folder_cannot_be_made_apart_and_counts_it(tmp_path):
    """hydra/launcher=slurm's code (each job through ppo_bench.launch.launching, on its node), run by
    submitit's local executor here: the jobs run in processes of their own, whose notes the sweep counts."""
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    local = ["hydra/launcher=submitit_local",
             "hydra.launcher._target_=hydra_plugins.ppo_bench_launcher.submitit_launchers.LocalLauncher"]
    grid = ["env.num_envs=1", "mode=async", "seed=0,1", "collect=false", *TINY]  # two jobs, skipped: nothing built
    first = sweep(tmp_path, *local, *grid)
    assert first.returncode == 0, first.stderr[-3000:]
    blocked = next(p.parent for p in tmp_path.glob("*/result.json") if p.parent.name.endswith("seed=0"))
    shutil.rmtree(blocked)
    blocked.write_text("a file where the job's folder goes")
    again = sweep(tmp_path, *local, *grid, "resume=true")
    assert again.returncode == 1 and "Traceback" not in again.stdout + again.stderr
    assert again.stderr.splitlines()[-1] == "1 of 2 jobs failed (each one's line says why)"
    job_logs = "".join(p.read_text() for p in (tmp_path / ".submitit").rglob("*_log.err"))
    assert f"FAILED: its folder {blocked} cannot be written" in job_logs  # said on its node
    assert read_result(tmp_path / blocked.name.replace("seed=0", "seed=1") / "result.json")["status"] == "skipped"


def test_slurm_s_launcher_sends_a_stop_on_to_the_jobs_in_progress(tmp_path):
    """A SIGTERM to the sweep's process reaches its jobs, in processes of their own (on other nodes
    under SLURM: scancel), which record it; the sweep waits for them and says how many it stopped."""
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={tmp_path}", "hydra/launcher=submitit_local",
           "hydra.launcher._target_=hydra_plugins.ppo_bench_launcher.submitit_launchers.LocalLauncher",
           *TINY, "schedule.reps=2000", "env.num_envs=1,2"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, preexec_fn=as_a_terminal_s)
    deadline = time.time() + 300
    while not looping(tmp_path, 2):
        assert proc.poll() is None and time.time() < deadline, "the two jobs never began their loops"
        time.sleep(0.5)
    os.kill(proc.pid, signal.SIGTERM)
    output, _ = proc.communicate(timeout=120)
    records = [read_result(p) for p in tmp_path.glob("*/result.json")]
    assert sorted(r["num_envs"] for r in records) == [1, 2], output[-3000:]
    assert all(r["status"] == "failed" and r["error"] == "Terminated: SIGTERM" for r in records)
    assert proc.returncode == 143 and "Traceback" not in output, output[-3000:]
    assert "stopped by SIGTERM: the 2 jobs in progress are recorded as failed; run again" in output
    none_left(proc.pid)


def test_a_single_run_whose_folder_cannot_be_made_is_one_line(tmp_path):
    (tmp_path / "file").write_text("")
    out = subprocess.run([sys.executable, "run.py", f"hydra.run.dir={tmp_path / 'file' / 'run'}", "env.num_envs=1",
                          "mode=async", "device=cpu"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1
    assert [line for line in (out.stdout + out.stderr).splitlines() if line.strip()] == [
        f"job: FAILED: its folder cannot be written (NotADirectoryError: Not a directory: {tmp_path / 'file' / 'run'}); "
        "no record"]


def test_long_override_lists_and_slashes_stay_one_folder_inside_the_sweep_and_resume(tmp_path):
    sweep_dir = tmp_path / "sweep"
    # Joined, these overrides pass 255 bytes, the most a file name may have; ../../../ would climb out.
    grid = ["env.game=pong,../../../escape", "env.upload=pageable", "env.backend=ale", "env.frameskip=4",
            "agent.learning_rate=0.000250000001", "agent.update_epochs=1", "seed=1234567", "round=0",
            "schedule.profile=false", *TINY]
    first = sweep(sweep_dir, *grid)
    assert first.returncode != 0  # the escape job is not a ROM
    inside = sorted(sweep_dir.glob("*/result.json"))
    assert sorted(tmp_path.rglob("result.json")) == inside and len(inside) == 2
    names = {json.loads(p.read_text())["game"]: p.parent.name for p in inside}
    assert len(names["pong"].encode()) <= 255 and names["pong"].startswith("agent.learning_rate=")
    assert names["../../../escape"].count("/") == 0
    assert "escape" in (sweep_dir / "summary" / "table.md").read_text()  # its failure is in the summary
    pong = sweep_dir / names["pong"] / "result.json"
    stamp = pong.read_bytes()
    again = sweep(sweep_dir, *grid, "resume=true")
    assert "already ok, skipped" in again.stdout + again.stderr and pong.read_bytes() == stamp


def test_a_second_sweep_into_a_folder_in_use_is_refused_and_a_stale_lock_taken_over(tmp_path):
    grid = ["env.num_envs=1", "mode=async", *TINY]  # one skipped job: nothing to build
    lock = tmp_path / ".sweep.lock"
    tmp_path.mkdir(exist_ok=True)
    lock.write_text(f"{os.getpid()} {socket.gethostname()}\n")  # this live process holds it
    refused = sweep(tmp_path, *grid)
    assert refused.returncode != 0 and not list(tmp_path.glob("*/result.json"))
    lines = [line for line in (refused.stdout + refused.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and f"in use by the sweep of process {os.getpid()}" in lines[0], lines
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    lock.write_text(f"{gone.stdout.strip()} {socket.gethostname()}\n")  # a sweep that died
    taken = sweep(tmp_path, *grid)
    assert taken.returncode == 0, taken.stderr[-3000:]
    assert len(list(tmp_path.glob("*/result.json"))) == 1 and not lock.exists()  # released at the end


REFUSALS = [
    (["env.num_envs=0"], "env.num_envs=0: must be >= 1"),
    (["env.num_env=64"], "env.num_env: not a config key; did you mean env.num_envs?"),
    (["+env.num_env=64"], "env.num_env: not a config key; did you mean env.num_envs?"),
    (["env.num_envs=eight"], "env.num_envs=eight: Value 'eight' of type 'str' could not be converted to Integer"),
    (["mode=foo"], "mode=foo: no such option; allowed: agent_only, async, env_only, sendrecv, step"),
]


@pytest.mark.parametrize("overrides,message", REFUSALS, ids=[r[0][0] for r in REFUSALS])
def test_every_refusal_is_one_line(tmp_path, overrides, message):
    out = subprocess.run([sys.executable, "run.py", f"hydra.run.dir={tmp_path}", *overrides], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode != 0
    lines = [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], lines


def test_the_slurm_preset_asks_for_whole_nodes():
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    launcher = compose_config("hydra/launcher=slurm", tiny=False).hydra.launcher
    assert launcher.additional_parameters == {"exclusive": True}  # sbatch --exclusive


def test_job_folder_names_are_one_component_distinct_and_stable():
    from ppo_bench.launch.sweep import MAX_NAME_BYTES, job_dir_name

    assert job_dir_name("env.num_envs=8,mode=step") == "env.num_envs=8,mode=step"  # short names stay readable
    assert job_dir_name("env.game=../../x") == "env.game=..%2F..%2Fx"
    assert job_dir_name("env.game=a/b") != job_dir_name("env.game=a%2Fb")  # escaping keeps names apart
    long_ = ",".join(f"key{i}=value{i}" for i in range(40))
    name = job_dir_name(long_)
    assert len(name.encode()) <= MAX_NAME_BYTES and name.startswith("key0=value0,key1=value1")
    assert job_dir_name(long_) == name and job_dir_name(long_ + "x") != name  # resume finds it; others differ
