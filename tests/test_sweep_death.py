"""A sweep killed outright (SIGKILL) takes every process of it along, under both launchers, and its
folder's lock is not taken over while one of its jobs still runs."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT
from ppo_bench.launch import placement
from ppo_bench.launch.sweep import LOCK, SweepLocked, take_lock
from test_sweep import session_processes

TINY = ["device=cpu", "+preset=quick_reference", "schedule.reps=2000", "schedule.bench_steps=8", "schedule.warmup=2",
        "agent.num_steps=4", "agent.num_minibatches=2"]
NODE = ["hydra/launcher=node", "hydra.launcher.cpu_jobs=2"]
END_S = 10.0


def below(root: int) -> dict[int, int]:
    """The processes of `root`'s session, each with how many generations below `root` it is."""
    parent = {}
    for pid in session_processes(root):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        parent[pid] = int(stat.rsplit(")", 1)[1].split()[1])
    depth = {}
    for pid in parent:
        n, p = 0, pid
        while p != root and p in parent:
            n, p = n + 1, parent[p]
        if p == root:
            depth[pid] = n
    return depth


def command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
    except OSError:
        return ""  # gone meanwhile


def fork_servers(root: int) -> list[int]:
    return [pid for pid in session_processes(root) if "multiprocessing.forkserver" in command(pid)]


# when: "starting", as a fork server has started (it imports the job's code, torch, for seconds);
# "measuring", once every job's child runs (under the node launcher, one job per slot)
KILLS = [("basic", "starting"), ("node", "starting"), ("node", "measuring")]


@pytest.mark.slow
@pytest.mark.parametrize("launcher,when", KILLS, ids=["-".join(k) for k in KILLS])
def test_a_sweep_killed_outright_leaves_no_process_of_it(tmp_path, launcher, when):
    node = launcher == "node"
    if node:  # the node extra; without it the sweep is refused in one line (test_launcher)
        pytest.importorskip("joblib")
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={tmp_path}", *TINY, *(NODE if node else [])]
    # no GPU visible: cpu_jobs sets the slots also on a machine with one GPU (which would make one slot)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    server, child = (2, 3) if node else (1, 2)  # generations below the sweep's process: [worker ->] server -> child
    jobs = 2 if node else 1

    def ready() -> bool:
        if node and len(placement.holders(tmp_path / ".slots")) < jobs:
            return False
        depth = below(proc.pid)
        if when == "starting":
            return any(depth.get(pid) == server for pid in fork_servers(proc.pid))
        return list(depth.values()).count(child) >= jobs

    try:
        deadline = time.time() + 120
        while not ready():
            assert proc.poll() is None and time.time() < deadline, "the jobs never started"
            time.sleep(0.2)
        assert min(below(proc.pid).get(pid, 9) for pid in fork_servers(proc.pid)) == server
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.time() + END_S
        while session_processes(proc.pid) and time.time() < deadline:
            time.sleep(0.2)
        left = [command(pid) for pid in session_processes(proc.pid)]
        assert left == [], f"{len(left)} processes of the sweep outlived it by {END_S:g} s"
    finally:
        for pid in session_processes(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_a_lock_whose_sweep_is_gone_is_not_taken_while_one_of_its_jobs_holds_a_slot(tmp_path, monkeypatch):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / LOCK).write_text(f"{gone.stdout.strip()} {socket.gethostname()}\n")
    monkeypatch.setattr(placement, "_last_slot", [])
    slots = tmp_path / ".slots"
    slots.mkdir()
    with placement.claim(slots, placement.plan([], cpu_jobs=1, cores=[0])):  # a job of the dead sweep
        with pytest.raises(SweepLocked, match=f"job processes {os.getpid()} still hold their slots"):
            take_lock(tmp_path)
    assert take_lock(tmp_path).read_text() == f"{os.getpid()} {socket.gethostname()}\n"  # gone: taken over


def test_a_fork_server_still_importing_its_preload_ends_with_its_last_client(tmp_path):
    """signals.end_with_clients: the fork server of a killed process ends at once, even while its
    preload still imports (here a module that takes a minute), rather than when the import is done."""
    began = tmp_path / "began"
    (tmp_path / "slow_import.py").write_text(f"import pathlib, time\npathlib.Path({str(began)!r}).touch()\ntime.sleep(60)\n")
    client = ("import multiprocessing, multiprocessing.forkserver, time\n"
              "multiprocessing.set_forkserver_preload(['ppo_bench.signals', 'slow_import'])\n"
              "multiprocessing.forkserver.ensure_running()\n"
              "print('ready', flush=True)\n"
              "time.sleep(600)\n")
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)  # the server's too
    proc = subprocess.Popen([sys.executable, "-c", client], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "PYTHONPATH": path})
    try:
        assert proc.stdout.readline() == "ready\n"
        deadline = time.time() + 30
        while not began.exists():
            assert time.time() < deadline, "the fork server never began its preload"
            time.sleep(0.1)
        [server] = [pid for pid in fork_servers(proc.pid) if pid != proc.pid]  # the client names the module too
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.time() + END_S
        while _running(server) and time.time() < deadline:
            time.sleep(0.1)
        assert not _running(server), "the fork server outlived its last client"
    finally:
        for pid in session_processes(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


def test_only_a_fork_server_s_command_names_an_alive_pipe():
    from ppo_bench.signals import forkserver_alive_fd

    read, write = os.pipe()
    try:
        server = ["python", "-c", f"from multiprocessing.forkserver import main; main(7, {read}, ['x'], **{{}})"]
        assert forkserver_alive_fd(server) == read
        assert forkserver_alive_fd(["python", "run.py", "-m"]) is None
        assert forkserver_alive_fd(["python", "-c", "print(1)"]) is None
        assert forkserver_alive_fd(server[:2]) is None
        os.close(read)
        assert forkserver_alive_fd(server) is None  # not a pipe this process holds
    finally:
        os.close(write)
        with contextlib.suppress(OSError):
            os.close(read)
