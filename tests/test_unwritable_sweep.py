"""A sweep whose folder fills up or turns read-only while it runs: each job that cannot be written fails
alone in one line, before it builds anything; the records written before stay whole; the lock is
released, or one line says it is left and how to remove it; a job's log that cannot be written says so
once; the exit status is 1 and the last line counts the failed jobs. Real filesystems: a small tmpfs
filled at a moment of the sweep, a folder made immutable (chattr +i), /dev/full for a log file.

The moment is an event, not a delay: the sweep holds at a call (tests/fault_injection's `hold`) until
the test has filled or frozen the folder."""

from __future__ import annotations

import errno
import logging
import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest
from hydra.core.utils import configure_log
from omegaconf import open_dict

from conftest import ROOT, compose_config, fault_env
from ppo_bench.job import parent
from ppo_bench.launch import sweep
from ppo_bench.record.folder import LOCK
from ppo_bench.record.results import Record
from test_sweep import TINY

GRID = ["env.num_envs=1", "mode=step", "seed=0,1,2", *TINY]  # three jobs, seconds each
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0 or not (shutil.which("mount") and shutil.which("chattr")),
                               reason="mounts a tmpfs or sets chattr +i: root only")


@pytest.fixture
def tmpfs(tmp_path):
    """tmpfs(size): a tmpfs of `size` mounted at tmp_path/sweep; unmounted after the test, whatever happened."""
    mounted = []

    def mount(size: str) -> Path:
        where = tmp_path / "sweep"
        where.mkdir()
        out = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                             capture_output=True, text=True)
        if out.returncode:
            pytest.skip(f"cannot mount a tmpfs here: {out.stderr.strip()}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], check=True)


@pytest.fixture
def freeze(tmp_path):
    """freeze(folder): chattr -R +i (root writes anywhere else); undone after the test, whatever happened."""
    probe = tmp_path / "probe"
    probe.mkdir()
    if subprocess.run(["chattr", "+i", str(probe)], capture_output=True).returncode:
        pytest.skip(f"chattr +i is not supported on {tmp_path}'s filesystem")
    frozen = [probe]

    def make(folder: Path) -> None:
        frozen.append(folder)
        subprocess.run(["chattr", "-R", "+i", str(folder)], check=True)

    yield make
    for folder in frozen:
        subprocess.run(["chattr", "-R", "-i", str(folder)], check=True)


def sweep_acting_at(where: str, act: Callable[[], None], sweep_dir: Path, *overrides: str) -> tuple[int, str, str]:
    """Run a sweep that holds at `where` (module:function:nth call) until `act()` has run; its exit
    status, stdout and stderr."""
    go_r, go_w = os.pipe()
    reached_r, reached_w = os.pipe()
    out, err = sweep_dir.parent / "stdout", sweep_dir.parent / "stderr"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        proc = subprocess.Popen([sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", *overrides],
                                cwd=ROOT, env={**os.environ, **fault_env(f"{where}:hold={go_r},{reached_w}")},
                                pass_fds=(go_r, reached_w), stdout=stdout, stderr=stderr, text=True)
    os.close(go_r)
    os.close(reached_w)
    try:
        ready, _, _ = select.select([reached_r], [], [], 600)
        reached = bool(ready) and os.read(reached_r, 1) == b"."
        if reached:
            act()
    finally:
        os.close(go_w)  # the sweep goes on (or a hold not reached returns at once)
        try:
            proc.wait(timeout=600)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            os.close(reached_r)
    assert reached, f"the sweep ended before {where}: {err.read_text()[-3000:]}"
    return proc.returncode, out.read_text(), err.read_text()


def lines_of(*texts: str) -> list[str]:
    return [line for text in texts for line in text.splitlines() if line.strip()]


def failed_jobs(lines: list[str]) -> list[str]:
    """The seed of each job's FAILED line, in order."""
    return [re.search(r"seed=(\d)", line).group(0) for line in lines if ": FAILED: " in line]


def no_traceback(*texts: str) -> None:
    for text in texts:
        for sign in ("Traceback", "--- Logging error ---", "Exception ignored", "warnings.warn"):
            assert sign not in text, text[-3000:]


@ROOT_ONLY
@pytest.mark.slow
def test_a_disk_that_fills_mid_sweep_fails_each_later_job_alone_before_it_builds_anything(tmpfs):
    sweep_dir = tmpfs("1m")
    kept = {}

    def fill() -> None:  # the first job's record is on disk, the second's folder made; then the disk is full
        kept.update({p: p.read_bytes() for p in sweep_dir.glob("*/result.json")})
        fd = os.open(sweep_dir / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError as e:
            assert e.errno == errno.ENOSPC
        finally:
            os.close(fd)

    code, out, err = sweep_acting_at("ppo_bench.job.parent:run:2", fill, sweep_dir, *GRID)
    no_traceback(out, err)
    lines = lines_of(out, err)
    assert code == 1 and failed_jobs(lines) == ["seed=1", "seed=2"], lines
    assert sum("warm-up steps, then" in line for line in lines) == 1, lines  # no emulators built for the second
    [first] = kept
    assert "seed=0" in first.parent.name and first.read_bytes() == kept[first]
    assert Record.read(first).status == "ok"
    assert not (sweep_dir / LOCK).exists()
    assert err.splitlines()[-1] == "2 of 3 jobs failed (each one's line says why)"


@ROOT_ONLY
@pytest.mark.slow
def test_a_sweep_folder_turned_read_only_mid_sweep_stops_it_in_one_line_and_leaves_the_lock_said(freeze, tmp_path):
    sweep_dir = tmp_path / "sweep"
    kept = {}

    def read_only() -> None:  # the first job has ended; the second's folder is not made yet
        kept.update({p: p.read_bytes() for p in sweep_dir.glob("*/result.json")})
        freeze(sweep_dir)

    code, out, err = sweep_acting_at("ppo_bench.launch.launching:run_job:2", read_only, sweep_dir, *GRID)
    no_traceback(out, err)
    lines = lines_of(out, err)
    assert code == 1 and failed_jobs(lines) == ["seed=1"], lines
    stops = [line for line in lines if line.startswith("the sweep stops: ")]
    assert len(stops) == 1 and str(sweep_dir / ".jobs.jsonl") in stops[0], lines
    assert not any("seed=2" in line for line in lines), lines  # the third job never started
    [first] = kept
    assert first.read_bytes() == kept[first] and Record.read(first).status == "ok"
    lock = sweep_dir / LOCK
    said = [line for line in lines if str(lock) in line]
    assert lock.exists() and len(said) == 1 and "is left" in said[0] and "delete it" in said[0], lines
    assert err.splitlines()[-1] == "1 of 2 jobs failed (each one's line says why)"


@ROOT_ONLY
@pytest.mark.slow
def test_a_sweep_folder_too_full_for_hydra_s_own_record_is_refused_in_one_line(tmpfs):
    sweep_dir = tmpfs("8k")  # the lock fits, multirun.yaml (9 kB) does not
    out = subprocess.run([sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", *GRID], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    lines = lines_of(out.stdout, out.stderr)
    assert out.returncode == 1 and len(lines) == 1, lines
    assert lines[0] == f"hydra.sweep.dir={sweep_dir}: cannot write there: OSError: No space left on device", lines
    assert not (sweep_dir / LOCK).exists()
    assert not (sweep_dir / ".commands.jsonl").exists()  # it ran nothing: no command of it kept in the history


@ROOT_ONLY
@pytest.mark.slow
def test_a_node_sweeps_folder_turned_read_only_mid_sweep_fails_its_jobs_in_one_line_each(freeze, tmp_path):
    """Two jobs at a time: once the first record is on disk, the whole folder turns read-only (the slots'
    files too): the job in progress cannot write its record, a job about to start cannot claim a slot;
    each fails in its line, the sweep stops where its notes cannot be written, and no traceback."""
    sweep_dir = tmp_path / "sweep"
    grid = ["hydra/launcher=node", "hydra.launcher.cpu_jobs=2", "env.num_envs=1", "mode=step", "seed=0,1,2,3",
            *TINY, "schedule.reps=4"]
    with open(tmp_path / "out", "w") as out:
        proc = subprocess.Popen([sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", *grid], cwd=ROOT,
                                stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    try:
        while not list(sweep_dir.glob("*/result.json")):  # the event: the first record on disk
            assert proc.poll() is None, (tmp_path / "out").read_text()[-3000:]
            time.sleep(0.05)
        kept = {p: p.read_bytes() for p in sweep_dir.glob("*/result.json")}
        freeze(sweep_dir)
        proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = (tmp_path / "out").read_text()
    no_traceback(text)
    assert proc.returncode == 1, text[-3000:]
    for path, data in kept.items():
        assert path.read_bytes() == data and Record.read(path).status == "ok"
    assert re.search(r"^(\d) of (\d) jobs failed \(each one's line says why\)$", text.splitlines()[-1]), text[-3000:]


# ------------------------------------------------------------------ the parts, in this process

def test_a_job_whose_folder_cannot_be_written_fails_in_one_line_before_it_builds_anything(tmp_path, capsys,
                                                                                          monkeypatch):
    def must_not_build(*args, **kwargs):
        raise AssertionError("a job process was started")

    monkeypatch.setattr(parent, "ChildJob", must_not_build)
    (tmp_path / "file").write_text("")  # root writes anywhere: a file in the folder's way stops it
    folder = tmp_path / "file" / "job"
    with pytest.raises(parent.JobFailed) as info:
        parent.run(compose_config(), output_dir=folder)
    line = f"its folder {folder} cannot be written (NotADirectoryError: [Errno 20] Not a directory: "
    assert str(info.value).startswith(line) and str(info.value).endswith("; no record")
    said = lines_of(*capsys.readouterr())
    assert len(said) == 1 and said[0] == f"step pong nature_cnn n=2: FAILED: {info.value}", said


def test_a_job_log_that_cannot_be_written_says_so_once_and_the_job_goes_on(capsys):
    """The log file as Hydra's job_logging makes it (conf/config.yaml), on a device that is always full."""
    cfg = compose_config()
    with open_dict(cfg):
        cfg.hydra.job_logging.handlers.file.filename = "/dev/full"
    root = logging.getLogger()
    before = root.handlers[:], root.level
    try:
        configure_log(cfg.hydra.job_logging)
        for n in range(3):
            logging.getLogger("ppo_bench.job.parent").info("line %d", n)
        configure_log(cfg.hydra.hydra_logging)  # the job's end, as in a sweep: its handlers flushed and closed
    finally:
        root.handlers[:], root.level = before[0], before[1]
    out, err = capsys.readouterr()
    assert [line[-6:] for line in out.splitlines()] == ["line 0", "line 1", "line 2"], out  # all on the terminal
    assert lines_of(err) == ["/dev/full: the job's log cannot be written (OSError: No space left on device); "
                             "its lines from here on are on the terminal only"], err


@ROOT_ONLY
def test_a_lock_that_cannot_be_removed_is_said_in_one_line(tmp_path, freeze, capsys):
    lock = sweep.take_lock(tmp_path / "sweep")
    freeze(tmp_path / "sweep")
    sweep.release_lock(lock)
    assert lock.exists()
    said = lines_of(capsys.readouterr().err)
    assert len(said) == 1 and said[0].startswith(f"{lock} is left (PermissionError: Operation not permitted)"), said
    assert "delete it" in said[0]
