"""A summary is written all or nothing: whatever stops a collection (Ctrl-C, a full disk) leaves the
previous summary as it was, with no half-written file and no temporary folder behind."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys

import pytest

from ppo_bench.collect import CollectError, collect, html, report
from test_collect import write


def snapshot(folder):
    """Every file (bytes) and folder under `folder`, by relative path."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in folder.rglob("*")}


@pytest.fixture
def earlier(tmp_path):
    """A sweep collected once, with a user's note in its summary, then a job more: a collection now
    would change the summary."""
    write(tmp_path, "s", mode="step", reps=[100.0, 101.0])
    collect([tmp_path], plot=False)
    out = tmp_path / "summary"
    (out / "notes.txt").write_text("mine")
    write(tmp_path, "r", mode="sendrecv", reps=[150.0, 151.0])
    return out, snapshot(out)


def _fails(monkeypatch, error):
    """html.write, which runs after table.csv and the charts are written, raises `error`."""
    def fail(*args, **kwargs):
        raise error
    monkeypatch.setattr(html, "write", fail)


def test_ctrl_c_while_writing_leaves_the_previous_summary_as_it_was(tmp_path, monkeypatch, earlier):
    out, before = earlier
    _fails(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        collect([tmp_path], plot=False)
    assert snapshot(out) == before  # no temporary folder either
    monkeypatch.undo()
    collect([tmp_path], plot=False)  # the next collection replaces it whole, the note kept
    md = (out / "table.md").read_text()
    assert "| 8 | 100 [" in md and "] | 150 [" in md and (out / "notes.txt").read_text() == "mine"
    assert not [p for p in out.iterdir() if p.name.startswith(report.ASIDE)]


def test_a_full_disk_leaves_the_previous_summary_and_names_the_file(tmp_path, monkeypatch, earlier):
    out, before = earlier
    _fails(monkeypatch, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(out / "x" / "report.html")))
    with pytest.raises(CollectError, match="No space left on device"):
        collect([tmp_path], plot=False)
    assert snapshot(out) == before  # no 0-byte table.csv, no .collect.json.tmp


def test_a_file_written_aside_is_named_where_it_was_to_go(tmp_path, monkeypatch):
    write(tmp_path, "s", mode="step", reps=[100.0, 101.0])

    def full(self, path, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr("pandas.DataFrame.to_csv", full)
    with pytest.raises(CollectError, match=f"^{tmp_path / 'summary' / 'table.csv'}: No space left on device$"):
        collect([tmp_path], plot=False)
    assert not (tmp_path / "summary").exists()  # made for this collection, left empty: gone


def test_a_first_collection_stopped_leaves_no_summary_folder(tmp_path, monkeypatch):
    write(tmp_path, "s", mode="step", reps=[100.0, 101.0])
    _fails(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        collect([tmp_path], plot=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s"]


def test_a_folder_in_the_way_stops_it_before_anything_changes(tmp_path, earlier):
    out, _ = earlier
    (out / "chart.js").unlink()
    (out / "chart.js").mkdir()  # where the summary writes a file
    (out / "chart.js" / "mine.txt").write_text("x")
    before = snapshot(out)
    with pytest.raises(CollectError, match="chart.js: in the way of the summary's own file"):
        collect([tmp_path], plot=False)
    assert snapshot(out) == before


def test_a_staging_folder_whose_process_is_gone_is_removed_by_the_next_collection(tmp_path, capsys, earlier):
    """Only a folder of a process that is gone: one whose writer lives (two collections at once) is kept."""
    out, _ = earlier
    ended = subprocess.Popen([sys.executable, "-c", ""])
    ended.wait()  # reaped: its pid names no process now
    left = out / f"{report.ASIDE}{ended.pid}-k1ll3d"
    live = out / f"{report.ASIDE}{os.getpid()}-w0rk1ng"
    for folder in (left, live):
        (folder / "env.frameskip=4").mkdir(parents=True)
        (folder / "table.csv").write_text("half written")
    capsys.readouterr()
    collect([tmp_path], plot=False)
    assert not left.exists() and (live / "table.csv").read_text() == "half written"
    assert capsys.readouterr().err.splitlines()[0] == (
        f"ppo_bench.collect: removed {left.name} from {out}: the staging folder of a collection killed while it wrote")
    collect([tmp_path], plot=False)
    assert "removed" not in capsys.readouterr().err and live.exists()


# ---------------------------------------------------------------- the sweep's own summary

from conftest import ROOT, fault_env  # noqa: E402
from ppo_bench.launch import sweep  # noqa: E402


def test_ctrl_c_while_a_sweep_collects_itself_keeps_the_summary_and_says_so(tmp_path, monkeypatch, capsys, earlier):
    out, before = earlier
    monkeypatch.setattr(sweep, "OUTCOME", sweep.SweepOutcome())
    s = sweep._Sweep.__new__(sweep._Sweep)  # as on_multirun_start leaves it (its check of the folder aside)
    s.dir, s.collect, s.lock, s.done = tmp_path, True, sweep.take_lock(tmp_path), False
    _fails(monkeypatch, KeyboardInterrupt())
    s.finish()  # raised out of an atexit callback, it printed "Exception ignored" and a traceback
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"stopped by Ctrl-C while writing the summary: the previous summary is kept; "
        f"run python -m ppo_bench.collect {tmp_path}")
    assert snapshot(out) == before and sweep.OUTCOME.collection_failed
    assert not (tmp_path / sweep.LOCK).exists()


def sweep_stopped(sweep_dir, *faults):
    """A sweep of one job that builds nothing (skipped), with `faults` injected (see conftest)."""
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", "env.num_envs=1", "mode=async",
           "device=cpu"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, **fault_env(*faults)}, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as a terminal's
    text = out.stdout + out.stderr
    assert "Exception ignored" not in text and "Traceback" not in text, text[-3000:]
    assert not (sweep_dir / "summary").exists() and not (sweep_dir / sweep.LOCK).exists()
    return out.returncode, text


@pytest.mark.slow
def test_ctrl_c_after_the_last_job_stops_the_summary_alone_in_one_line(tmp_path):
    code, text = sweep_stopped(tmp_path, "ppo_bench.collect.html:write:1:sigint")
    assert code == 130
    assert (f"stopped by Ctrl-C while writing the summary: none was written; "
            f"run python -m ppo_bench.collect {tmp_path}") in text.splitlines()
    assert "job in progress" not in text  # there was none


@pytest.mark.slow
def test_a_second_ctrl_c_during_the_summary_of_a_stopped_sweep_is_one_line_more(tmp_path):
    code, text = sweep_stopped(tmp_path, "ppo_bench.job.parent:_checked:1:sigint",  # in the job
                               "ppo_bench.collect.html:write:1:sigint")          # then, at exit, the summary's
    assert code == 130
    lines = text.splitlines()
    assert lines[-2:] == [
        "stopped by Ctrl-C: the job in progress is recorded as failed; run again with resume=true to finish",
        f"stopped by Ctrl-C while writing the summary: none was written; run python -m ppo_bench.collect {tmp_path}"]
