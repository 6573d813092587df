"""A run's folder is its own: two runs never write one folder (ppo_bench.launch.claim).

A folder named by the clock (`${now:...}`, the default) is made new, with `-2`, `-3` where its name
is taken; one the user named is locked while its run lasts. `${now:same}` below is a name made by
the clock's resolver that does not change with the time, so a collision is certain, not a matter of
starting within one second."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT, TINY
from ppo_bench.launch.claim import fresh
from ppo_bench.record import locks
from ppo_bench.record.folder import LOCK, RESULT, RUN_LOCK
from ppo_bench.record.results import Record


def run(*args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "run.py", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **popen)


def finished(proc: subprocess.Popen) -> tuple[int, str]:
    out, _ = proc.communicate(timeout=600)
    return proc.returncode, out


def test_fresh_takes_the_next_free_name(tmp_path):
    assert fresh(tmp_path / "a") == tmp_path / "a"
    assert fresh(tmp_path / "a") == tmp_path / "a-2"
    (tmp_path / "a-3").write_text("a file takes the name too")
    assert fresh(tmp_path / "a") == tmp_path / "a-4"


def test_a_lock_is_held_by_a_live_process_and_taken_over_from_a_gone_one(tmp_path):
    path = tmp_path / RUN_LOCK
    assert locks.take(path) is None and locks.holder(path) == locks.Holder.me()
    assert locks.take(path) is None  # its own: taken again
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    path.write_text(f"{gone.stdout.strip()} {locks.Holder.me().host}\n")
    assert locks.take(path) is None and locks.holder(path) == locks.Holder.me()
    other = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        path.write_text(f"{other.pid} {locks.Holder.me().host}\n")
        assert locks.take(path) == locks.Holder(other.pid, locks.Holder.me().host)
        assert locks.holder(path).pid == other.pid  # left as it was
    finally:
        other.communicate(b"")
    locks.release(path)
    assert path.exists()  # not this process's lock: kept
    assert not list(tmp_path.glob(f"{RUN_LOCK}.*"))  # no temporary name left behind


def test_a_lock_of_another_host_is_never_taken_over_and_a_sweep_into_its_folder_is_refused(tmp_path):
    """On a shared file system a process of another host cannot be asked after: its lock counts as held,
    even where a process of this host bears its pid (a dead one too), and two hosts never take one sweep."""
    from ppo_bench.launch import sweep

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    for pid in (gone.stdout.strip(), str(os.getpid())):
        (tmp_path / RUN_LOCK).write_text(f"{pid} node-b\n")
        assert locks.take(tmp_path / RUN_LOCK) == locks.Holder(int(pid), "node-b")
        (tmp_path / sweep.LOCK).write_text(f"{pid} node-b\n")
        with pytest.raises(sweep.SweepLocked, match=f"is in use by the sweep of process {pid} on node-b"):
            sweep.take_lock(tmp_path)
        assert locks.holder(tmp_path / sweep.LOCK) == locks.Holder(int(pid), "node-b")  # left as it was


@pytest.mark.slow
def test_runs_started_together_into_one_clock_name_each_get_a_folder(tmp_path):
    """`for s in 1 2 3; do python run.py seed=$s & done`, with the folder's name certain to collide."""
    procs = [run(f"hydra.run.dir={tmp_path}/${{now:same}}", *TINY, f"seed={s}") for s in (1, 2, 3)]
    outs = [finished(p) for p in procs]
    assert [rc for rc, _ in outs] == [0, 0, 0], outs
    folders = sorted(p.parent for p in tmp_path.glob(f"*/{RESULT}"))
    assert [f.name for f in folders] == ["same", "same-2", "same-3"]
    seeds = sorted(Record.read(f / RESULT).config["seed"] for f in folders)
    assert seeds == [1, 2, 3]  # every run's record kept
    taken = [line for _, out in outs for line in out.splitlines() if "is taken by another run" in line]
    assert len(taken) == 2 and all(f"{tmp_path}/same " in line for line in taken), taken
    assert not list(tmp_path.glob(f"*/{RUN_LOCK}"))  # released as each run ended


@pytest.mark.slow
def test_a_second_run_into_a_named_folder_in_use_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "X"
    folder.mkdir()
    assert locks.take(folder / RUN_LOCK) is None  # this process: a run in progress there
    rc, out = finished(run(f"hydra.run.dir={folder}", *TINY))
    assert rc == 1
    assert out.strip().splitlines() == [
        f"hydra.run.dir={folder} is in use by the run of process {os.getpid()} on {locks.Holder.me().host}; "
        f"use another hydra.run.dir, or delete {folder / RUN_LOCK} if that run is gone"]
    assert sorted(p.name for p in folder.iterdir()) == [RUN_LOCK]  # Hydra wrote nothing into it
    locks.release(folder / RUN_LOCK)

    rc, out = finished(run(f"hydra.run.dir={folder}", *TINY))  # the first run has ended: this one runs
    assert rc == 0, out
    assert Record.read(folder / RESULT).status == "ok"
    assert not (folder / RUN_LOCK).exists()


@pytest.mark.slow
def test_a_sweep_into_a_clock_name_taken_writes_into_a_new_folder(tmp_path):
    (tmp_path / "sw").mkdir()  # another sweep of the same second
    grid = ["env.num_envs=1", "mode=async", "seed=0,1", "collect=false", "device=cpu"]  # skipped: nothing built
    rc, out = finished(run("-m", f"hydra.sweep.dir={tmp_path}/${{now:sw}}", *grid))
    assert rc == 0, out
    assert not list((tmp_path / "sw").iterdir())
    records = sorted(p.parent.name for p in (tmp_path / "sw-2").glob(f"*/{RESULT}"))
    assert len(records) == 2 and all("seed=" in r for r in records)
    assert f"{tmp_path}/sw is taken by another sweep: this one writes into {tmp_path}/sw-2" in out
    assert not (tmp_path / "sw-2" / LOCK).exists()
