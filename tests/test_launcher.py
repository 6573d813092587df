"""hydra/launcher=node: slots (a GPU and cores of a job's own), real sweeps two at a time on the CPU, and
what the collector makes of jobs that shared the node."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from conftest import ROOT, as_a_terminal_s
from ppo_bench.launch import placement
from ppo_bench.record import results
from ppo_bench.collect import collect
from ppo_bench.record.results import read_result
from test_collect import T0, row, write
from test_collect_learning import learn
from test_sweep import looping, none_left

pytest.importorskip("joblib")

TINY = ["device=cpu", "schedule.reps=2", "schedule.bench_steps=8", "schedule.warmup=2",
        "agent.num_steps=4", "agent.num_minibatches=2"]
NODE = ["hydra/launcher=node", "hydra.launcher.cpu_jobs=2"]
NO_GPU = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}  # cpu_jobs makes the slots also where a GPU is (one slot)


# --- slots ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("apart", [True, False])
def test_the_pools_tracker_cleans_up_after_a_stop_without_a_warning_under_the_sweeps_line(apart):
    """After a stop, joblib ends the workers outright and loky's resource tracker unlinks the semaphore
    they held, warning in two lines after the sweep's last line; started by the node launcher
    (`trackers_apart`), it does so quietly. The control, started as loky starts it, shows the warning
    is there to see. communicate() returns once the tracker, which shares the stderr, has ended."""
    script = ("from joblib.externals.loky.backend import resource_tracker\n"
              "from ppo_bench.launch import node\n"
              f"node.trackers_apart() if {apart} else resource_tracker.ensure_running()\n"
              "resource_tracker.register('/loky-probe-left', 'semlock')\n")  # as a killed worker leaves it
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert ("resource_tracker" in out.stderr) != apart, out.stderr


def test_a_slurm_job_reads_its_grant_and_says_it_as_a_slot_is_said(monkeypatch):
    """SLURM pins the job (its cgroup, CUDA_VISIBLE_DEVICES); the job reads the grant, and the record and
    the emulators' thread count follow it as they follow a node launcher's slot."""
    from ppo_bench.config import placed
    from ppo_bench.env.backends import num_threads
    from ppo_bench.record.parts import Placement

    assert placement.slurm_grant({"PATH": "/bin"}) is None  # not in a SLURM job
    env = {"SLURM_JOB_ID": "42", "SLURMD_NODENAME": "n1", "SLURM_JOB_PARTITION": "debug", "SLURM_CPUS_ON_NODE": "1",
           "CUDA_VISIBLE_DEVICES": "2"}
    where = placement.slurm_grant(env)
    assert where["grant"] == {"scheduler": "slurm", "job_id": "42", "node": "n1", "partition": "debug", "cpus": 1,
                              "gpus": 1}
    assert (where["granted_by"], where["gpu"], where["cores"]) == ("slurm", "2", sorted(os.sched_getaffinity(0)))
    monkeypatch.setenv(placed.ENV, "")  # restored (unset) after: `granted` writes the environment itself
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})  # a grant of one core
    placement.granted({**where, "cores": [0]})
    assert placed.current()["grant"]["job_id"] == "42"
    assert Placement.from_json(placed.current(), "placement").grant.partition == "debug"  # as the record reads it
    assert num_threads(OmegaConf.create({"num_threads": None, "num_envs": 8})) == 1


def test_slots_split_the_cores_evenly_and_disjointly_one_per_gpu():
    two = placement.plan(["0", "1"], cpu_jobs=5, cores=list(range(7)))  # the GPUs decide; core 6 is left over
    assert [(s["slot"], s["gpu"], s["cores"]) for s in two] == [(0, "0", [0, 1, 2]), (1, "1", [3, 4, 5])]
    assert all(s["slots"] == 2 and s["shared_node"] for s in two)
    (alone,) = placement.plan([], cpu_jobs=1, cores=[0, 1])
    assert alone == {"slot": 0, "slots": 1, "gpu": None, "cores": [0, 1], "shared_node": False, "granted_by": "node"}
    with pytest.raises(ValueError, match="3 slots .* but 2 cores"):
        placement.plan([], cpu_jobs=3, cores=[0, 1])
    assert placement.describe(two[1]) == "slot 1 of 2: GPU 1, cores 3-5 (3)"


def test_visible_gpus_are_cuda_visible_devices_else_nvidia_smi_s(monkeypatch, tmp_path):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4, 6")
    assert placement.visible_gpus() == ["4", "6"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert placement.visible_gpus() == []
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H200 (UUID: GPU-a)'\necho 'GPU 1: NVIDIA H200 (UUID: GPU-b)'\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert placement.visible_gpus() == ["0", "1"]


def test_the_gpus_to_use_are_visible_ones(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    assert placement.chosen_gpus(None) == ["0", "1"]
    assert placement.chosen_gpus(OmegaConf.create([1])) == ["1"]  # as Hydra hands the key over
    assert placement.chosen_gpus([]) == []  # no GPU: cpu_jobs slots


ALLOWED = "allowed: null (every visible GPU) or a list of distinct visible GPU ids, as CUDA_VISIBLE_DEVICES names them"
BAD_GPUS = [
    (0, "hydra.launcher.gpus=0: not a list"), (-1, "hydra.launcher.gpus=-1: not a list"),
    (99, "hydra.launcher.gpus=99: not a list"), ("ab", "hydra.launcher.gpus=ab: not a list"),
    (["abc"], "hydra.launcher.gpus=[abc]: no visible GPU abc"), ([1, 2], "hydra.launcher.gpus=[1,2]: no visible GPU 2"),
    ([0, 0], "hydra.launcher.gpus=[0,0]: GPU 0 is listed twice"), ([-1], "hydra.launcher.gpus=[-1]: no visible GPU -1"),
]


@pytest.mark.parametrize("gpus,error", BAD_GPUS, ids=[str(g) for g, _ in BAD_GPUS])
def test_gpus_that_are_not_a_list_of_visible_ones_are_refused_in_one_line(monkeypatch, gpus, error):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    with pytest.raises(ValueError) as refused:
        placement.launcher_slots(gpus, 1, cores=[0, 1])
    assert str(refused.value) == f"{error}; {ALLOWED} (visible: 0, 1)"
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # a node without GPU: [0] is not there either
    with pytest.raises(ValueError, match=r"^hydra.launcher.gpus=\[0\]: no visible GPU 0; .* \(visible: none\)$"):
        placement.launcher_slots([0], 1, cores=[0, 1])


@pytest.mark.parametrize("cpu_jobs", ["abc", 1.5, None, 0, -1, True])
def test_cpu_jobs_other_than_a_whole_number_of_at_least_one_are_refused_in_one_line(monkeypatch, cpu_jobs):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")  # refused where GPUs decide the slots too
    shown = {None: "null"}.get(cpu_jobs, str(cpu_jobs))
    with pytest.raises(ValueError) as refused:
        placement.launcher_slots(None, cpu_jobs, cores=[0, 1])
    assert str(refused.value) == (f"hydra.launcher.cpu_jobs={shown}: allowed: a whole number >= 1 (how many jobs "
                                  "at once where no GPU is used)")


def test_a_slot_is_held_by_one_job_at_a_time_and_its_holder_is_known(tmp_path, monkeypatch):
    slots = placement.plan([], cpu_jobs=2, cores=[0, 1])
    monkeypatch.setattr(placement, "_last_slot", [])
    with placement.claim(tmp_path, slots) as a, placement.claim(tmp_path, slots) as b:
        assert {a["slot"], b["slot"]} == {0, 1}
        assert placement.holders(tmp_path) == [os.getpid(), os.getpid()]
        third, release = [], threading.Event()

        def wait_for_a_slot() -> None:
            with placement.claim(tmp_path, slots) as c:
                third.append(c["slot"])
                release.wait(10)

        waiter = threading.Thread(target=wait_for_a_slot)
        waiter.start()
        time.sleep(3 * placement.POLL_S)
        assert third == []  # both held: it waits
    deadline = time.monotonic() + 30
    while not third and time.monotonic() < deadline:  # it takes a slot once one is free
        time.sleep(0.05)
    assert third == [b["slot"]]  # the slot this process held last, first
    assert placement.holders(tmp_path) == [os.getpid()]
    release.set()
    waiter.join(5)
    assert placement.holders(tmp_path) == []


# --- the collector -------------------------------------------------------------------------------------

def placed(path: Path, slot: int, cores: list[int], gpu=None) -> Path:
    rec = json.loads(path.read_text())
    rec["placement"] = {"slot": slot, "slots": 2, "gpu": gpu, "cores": cores, "shared_node": True}
    results.write_atomic(path, rec)
    assert read_result(path)["placement"]["cores"] == cores
    return path


def test_jobs_side_by_side_on_slots_of_their_own_shared_the_node_and_are_not_contended(tmp_path):
    at = T0 + timedelta(days=5)
    placed(write(tmp_path, "a", mode="step", reps=[100.0, 100.0], start=at), 0, [0], "0")
    placed(write(tmp_path, "b", mode="sendrecv", reps=[150.0, 150.0], start=at + timedelta(seconds=1)), 1, [1], "1")
    c = collect([tmp_path], plot=False)
    assert c.contended == [] and not c.table["contended"].any()
    assert c.table["shared_node"].all()
    assert c.shared_node == [] and "Shared node" not in c.markdown  # nothing ran alone: nothing mixed


@pytest.mark.parametrize("other", ["not placed", "same cores", "same GPU"])
def test_a_placed_job_beside_one_on_its_cores_or_gpu_is_contended(tmp_path, other):
    at = T0 + timedelta(days=6)
    a = placed(write(tmp_path, "a", mode="step", reps=[100.0, 100.0], start=at), 0, [0, 1], "0")
    b = write(tmp_path, "b", mode="sendrecv", reps=[150.0, 150.0], start=at + timedelta(seconds=1))
    if other != "not placed":
        placed(b, 1, [1, 2] if other == "same cores" else [2, 3], "0" if other == "same GPU" else "1")
    c = collect([tmp_path], plot=False)
    assert [x["path"] for x in c.contended] == [str(a), str(b)]
    assert c.table["contended"].all() and not c.table["shared_node"].any()


def test_throughput_across_shared_and_alone_is_flagged_and_learning_seeds_are_not(tmp_path, capsys):
    at = T0 + timedelta(days=7)
    placed(write(tmp_path, "s8", mode="step", reps=[100.0, 100.0], start=at), 0, [0])
    placed(write(tmp_path, "r8", mode="sendrecv", reps=[150.0, 150.0], start=at), 1, [1])
    write(tmp_path, "s16", mode="step", n=16, reps=[100.0, 100.0], start=at + timedelta(seconds=60))
    write(tmp_path, "r16", mode="sendrecv", n=16, reps=[150.0, 150.0], start=at + timedelta(seconds=80))
    # two learning seeds side by side, a third alone: they pool as ever, unflagged
    for seed, (slot, start) in enumerate([(0, 120), (1, 121), (None, 200)]):
        path = learn(tmp_path, f"seed{seed}", [1.0, 5.0], seed=seed, start=at + timedelta(seconds=start))
        if slot is not None:
            placed(path, slot, [slot])
    c = collect([tmp_path], plot=False)
    group = row(c, "step", 16)["group"]
    timed = c.table[c.table["group"] == group]
    assert dict(zip(zip(timed["mode"], timed["num_envs"]), timed["shared_node"])) == {
        ("step", 8): True, ("sendrecv", 8): True, ("step", 16): False, ("sendrecv", 16): False}
    assert not c.table[c.table["group"] != group]["shared_node"].any()
    assert c.contended == [] and c.duplicates == []
    assert c.shared_node == [f"{group}: 2 of 4 jobs shared the node: step n=8, sendrecv n=8"]
    assert len(c.seeds) == 3  # the learning seeds pooled
    out = capsys.readouterr().out
    assert "**Shared node and alone, compared:" in out and f"- {group}: 2 of 4 jobs shared the node" in out


# --- real sweeps, two jobs at a time on the CPU ------------------------------------------------------

def sweep(sweep_dir: Path, *overrides: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", *NODE, *TINY, *overrides]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, env=NO_GPU)


def by_game_and_n(sweep_dir: Path) -> dict[tuple, dict]:
    return {(r["game"], r["num_envs"]): r for r in map(read_result, sweep_dir.glob("*/result.json"))}


@pytest.mark.slow
def test_two_jobs_at_a_time_on_their_own_cores_a_failure_apart_then_resume(tmp_path):
    # pongg is a typo: its jobs fail (refused in the job), the pong jobs run side by side
    grid = ["env.game=pong,pongg", "env.num_envs=1,2"]
    first = sweep(tmp_path, *grid)
    assert first.returncode == 1, first.stderr[-3000:]
    assert "Traceback" not in first.stdout + first.stderr
    assert first.stderr.splitlines()[-1] == "2 of 4 jobs failed (each one's line says why)"  # counted in the sweep
    got = by_game_and_n(tmp_path)
    assert {k: r["status"] for k, r in got.items()} == {
        ("pong", 1): "ok", ("pong", 2): "ok", ("pongg", 1): "failed", ("pongg", 2): "failed"}
    a, b = got[("pong", 1)], got[("pong", 2)]
    # each on a slot and a core of its own, recorded, and its emulator threads within it
    assert {a["placement"]["slot"], b["placement"]["slot"]} == {0, 1}
    assert set(a["placement"]["cores"]).isdisjoint(b["placement"]["cores"])
    assert all(r["placement"]["slots"] == 2 and r["placement"]["shared_node"] and r["placement"]["gpu"] is None
               for r in got.values())
    assert a["num_threads"] == b["num_threads"] == 1  # one core each on this 2-core machine
    # side by side: each ran while the other did
    ta, tb = a["timing"], b["timing"]
    assert ta["started_at"] < tb["finished_at"] and tb["started_at"] < ta["finished_at"]
    summary = tmp_path / "summary"
    assert "ValueError: env.game=pongg" in (summary / "table.md").read_text()
    assert "Contended" not in (summary / "table.md").read_text()

    # resume: the ok jobs are skipped; a job whose folder cannot be made fails alone, in one line
    files = {p: p.read_bytes() for p in tmp_path.glob("*/result.json")}
    blocked = Path(got[("pongg", 2)]["job"]["output_dir"])
    shutil.rmtree(blocked)
    blocked.write_text("a file where the job's folder goes")
    again = sweep(tmp_path, *grid, "resume=true")
    assert again.returncode == 1
    out = again.stdout + again.stderr
    assert out.count("already ok, skipped") == 2 and "Traceback" not in out
    assert f"FAILED: its folder {blocked} cannot be written" in out
    assert again.stderr.splitlines()[-1] == "2 of 4 jobs failed (each one's line says why)"
    assert [p for p, data in files.items() if p.exists() and p.read_bytes() == data] == [
        p for p in files if json.loads(files[p])["status"] == "ok"]
    assert by_game_and_n(tmp_path)[("pongg", 1)]["status"] == "failed"
    assert (summary / "table.md").exists() and not (tmp_path / ".sweep.lock").exists()


def slots_held(sweep_dir: Path, sweep_pid: int) -> bool:
    """Both slots are held by the sweep's jobs."""
    return len(placement.holders(sweep_dir / ".slots")) == 2


def begun(sweep_dir: Path, sweep_pid: int) -> bool:
    """Both jobs hold their slots and are past their check that the sweep is not stopping (a job that
    finds it stopping does not start): each has pinned its process to its slot's cores, fewer than
    the sweep's (placement.place), and Hydra composes its config next."""
    holders = placement.holders(sweep_dir / ".slots")
    try:
        return len(holders) == 2 and all(os.sched_getaffinity(p) < os.sched_getaffinity(sweep_pid) for p in holders)
    except OSError:  # one ended meanwhile
        return False


def measuring(sweep_dir: Path, sweep_pid: int) -> bool:
    """Both jobs' children have begun their loops."""
    return looping(sweep_dir, 2)


def two_jobs_started(tmp_path: Path, overrides: list[str], preexec_fn, ready=slots_held) -> subprocess.Popen:
    """A node-launcher sweep of `overrides` on two CPU slots, started with `preexec_fn` in its own
    session, once its two jobs are `ready`."""
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={tmp_path}", *NODE, *TINY, *overrides]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=NO_GPU,
                            start_new_session=True, preexec_fn=preexec_fn)
    deadline = time.time() + 300
    while not ready(tmp_path, proc.pid):
        assert proc.poll() is None and time.time() < deadline, "the two jobs never started"
        time.sleep(0.2)
    return proc


@pytest.mark.slow
@pytest.mark.parametrize("sig,group,ready", [(signal.SIGINT, True, measuring), (signal.SIGTERM, False, begun)],
                         ids=["ctrl-c-measuring", "sigterm-beginning"])
def test_a_stopped_sweep_records_both_jobs_in_progress_starts_no_other_and_collects(tmp_path, sig, group, ready):
    # two long jobs side by side, a third waiting for a slot; stopped in their measurement, or as they
    # begin: past their check that the sweep is not stopping, Hydra composing their configs and making
    # their folders
    proc = two_jobs_started(tmp_path, ["schedule.reps=2000", "env.num_envs=1,2,4"], as_a_terminal_s, ready)
    (os.killpg if group else os.kill)(proc.pid, sig)
    output, _ = proc.communicate(timeout=120)
    none_left(proc.pid)
    # the workers left the process group of the sweep, not its (OS) session: all were found above
    error = "KeyboardInterrupt" if sig == signal.SIGINT else "Terminated: SIGTERM"
    records = [read_result(p) for p in tmp_path.glob("*/result.json")]
    assert sorted(r["num_envs"] for r in records) == [1, 2], output[-3000:]  # the third did not start
    assert all(r["status"] == "failed" and r["error"] == error for r in records)
    assert proc.returncode == 128 + sig and "Traceback" not in output
    by = "Ctrl-C" if sig == signal.SIGINT else "SIGTERM"
    assert f"stopped by {by}: the 2 jobs in progress are recorded as failed; run again with resume=true" in output
    assert error in (tmp_path / "summary" / "table.md").read_text()
    assert not (tmp_path / ".sweep.lock").exists()


def as_nohup_starts_it() -> None:
    as_a_terminal_s()
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


@pytest.mark.slow
def test_a_sweep_started_under_nohup_runs_on_when_its_terminal_closes(tmp_path):
    proc = two_jobs_started(tmp_path, ["schedule.reps=10", "env.num_envs=1,2"], as_nohup_starts_it)
    os.kill(proc.pid, signal.SIGHUP)  # the terminal closed
    hung_up = time.time()
    output, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0 and "SIGHUP" not in output, output[-3000:]
    records = [read_result(p) for p in tmp_path.glob("*/result.json")]
    assert sorted((r["num_envs"], r["status"]) for r in records) == [(1, "ok"), (2, "ok")]
    finished = [datetime.fromisoformat(r["timing"]["finished_at"]).timestamp() for r in records]
    assert min(finished) > hung_up  # both were running when it came


def test_a_bad_launcher_key_is_refused_in_one_line_before_any_job(tmp_path):
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={tmp_path}", "hydra/launcher=node",
           "hydra.launcher.gpus=ab", "device=cpu"]
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "0"}
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 1 and "Traceback" not in out.stdout + out.stderr
    # one line: the sweep's summary, registered before the launcher refused, is not attempted
    assert out.stderr.splitlines() == [f"hydra/launcher=node: hydra.launcher.gpus=ab: not a list; {ALLOWED} (visible: 0)"]
    assert not [p for p in tmp_path.iterdir() if p.is_dir()]  # no job started


def test_without_the_extra_the_launcher_is_refused_in_one_line(tmp_path):
    script = ("import sys, runpy; sys.modules['joblib'] = None; "
              f"sys.argv = ['run.py', '-m', 'hydra.sweep.dir={tmp_path}', 'hydra/launcher=node', 'device=cpu']; "
              "runpy.run_path('run.py', run_name='__main__')")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1
    assert 'hydra/launcher=node needs joblib: pip install -e ".[node]"\n' in out.stderr.splitlines(keepends=True)
    assert "Traceback" not in out.stderr and "Error" not in out.stderr
