"""What the collector is given by mistake, and a collection stopped or killed: it never loses or misstates a result.

A file that is neither a result file nor an archive is refused in one line and nothing is touched;
Ctrl-C or SIGTERM wherever it lands is one line and 130 or 143, the previous summary kept; a
collection killed outright leaves its staging folder, which the next collection into that out dir
removes, saying so.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT
from ppo_bench.collect import collect, main, report
from test_collect import record, write
from test_collect_archive import sweep
from test_summary_atomic import snapshot

from ppo_bench.collect.sources import ACCEPTS


# ---------------------------------------------------------------- a path given by mistake

@pytest.mark.parametrize("name,text", [("notes.json", '{"a": 1}'), ("notes.txt", "to do: rerun async\n"),
                                       (".jobs.jsonl", '{"job": "x"}\n')])
def test_a_file_that_is_neither_a_result_nor_an_archive_is_refused_and_nothing_touched(tmp_path, capsys, name, text):
    folder = sweep(tmp_path)
    collect([folder], plot=False)
    before, stray = snapshot(folder / "summary"), folder / name
    stray.write_text(text)
    capsys.readouterr()
    for given in ([stray], [folder, stray]):  # alone, or beside the sweep it lies in: nothing is collected
        assert main([str(p) for p in given]) == 1
        captured = capsys.readouterr()
        assert captured.out == "" and snapshot(folder / "summary") == before
        [line] = captured.err.splitlines()
        assert re.fullmatch(rf"ppo_bench\.collect: {re.escape(str(stray))}: not a result file \(.+\) nor an archive; "
                            rf"{ACCEPTS}; nothing was written", line), line


def test_a_result_file_named_by_its_path_is_collected_as_before(tmp_path, capsys):
    """A record under another name is a result; a result.json that cannot be read is listed as unusable
    (its name says it is a job's record), with the summary beside it, as when its folder is collected."""
    path = write(tmp_path, "job", mode="step", reps=[100.0, 101.0])
    copy = tmp_path / "kept.json"
    copy.write_bytes(path.read_bytes())
    assert main([str(copy), "--no-plot"]) == 0
    assert (tmp_path / "summary" / "table.csv").is_file()
    path.write_text(path.read_text()[:50])
    assert main([str(path), "--no-plot"]) == 1
    assert f"ppo_bench.collect: {path}: not valid JSON: truncated" in capsys.readouterr().err.splitlines()
    assert "1 unusable" in (path.parent / "summary" / "table.md").read_text()


# ---------------------------------------------------------------- a collection stopped or killed

@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """A folder of 3000 result files: seconds of reading, building and writing on an idle machine."""
    root = tmp_path_factory.mktemp("many")
    for i in range(3000):
        job = root / f"job{i}"
        job.mkdir()
        rec = record(mode=("step", "sendrecv")[i % 2], n=8 * (1 + i % 4), frameskip=4 + i % 3, round=i // 24,
                     reps=[100.0 + i % 7, 101.0])
        (job / "result.json").write_text(json.dumps({**rec, "job": {"num": i, "output_dir": str(job)}}))
    return root


def _maps(pid: int, name: str) -> bool:
    """Whether a shared library of package `name` is mapped into the process: its import has begun."""
    try:
        return f"/{name}/" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def _reading(pid: int, folder: Path) -> bool:
    """Whether the process has read the first result file under `folder` (its access time moved on from
    the epoch, where `started` put it), or holds one open (on a file system that keeps no access times)."""
    if (folder / "job0" / "result.json").stat().st_atime_ns > 0:
        return True
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith(str(folder)) and target.endswith("result.json"):
            return True
    return False


WHEN = {  # what shows that the collection is at that point: what the process has mapped, open, or made
    "importing pandas": lambda pid, folder, out: _maps(pid, "pandas"),
    "reading the result files": lambda pid, folder, out: _reading(pid, folder),
    "writing the summary": lambda pid, folder, out: any(out.glob(f"{report.ASIDE}*")),
    "importing matplotlib": lambda pid, folder, out: _maps(pid, "matplotlib"),
}


def started(folder: Path, out: Path, when: str, tmp_path: Path) -> subprocess.Popen:
    """`python -m ppo_bench.collect folder --out out`, returned once it is demonstrably `when`."""
    first = folder / "job0" / "result.json"  # the first it reads, sorted by path
    os.utime(first, ns=(0, first.stat().st_mtime_ns))  # read from now on, its access time moves (relatime)
    with (tmp_path / "stdout").open("w") as stdout, (tmp_path / "stderr").open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "ppo_bench.collect", str(folder), "--out", str(out)], cwd=ROOT,
                                stdout=stdout, stderr=stderr, start_new_session=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as a terminal's
    deadline = time.monotonic() + 300
    while not WHEN[when](proc.pid, folder, out):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the collection ended (rc {proc.returncode}) before it was seen {when}: "
                        f"{(tmp_path / 'stderr').read_text()[-2000:]}")
        time.sleep(0.002)  # polling /proc and the out dir: no event to block on
    return proc


@pytest.mark.parametrize("sig,when", [pytest.param(s, w, id=f"{s.name}-{w}") for s, w in [
    *((signal.SIGINT, w) for w in WHEN), *((signal.SIGTERM, w) for w in ("importing pandas", "writing the summary"))]])
def test_a_stop_wherever_it_lands_is_one_line_and_its_status_the_previous_summary_kept(tmp_path, many, sig, when):
    out = tmp_path / "out"
    write(tmp_path / "small", "s", mode="step", reps=[100.0, 101.0])
    collect([tmp_path / "small"], out_dir=out, plot=False)  # the previous summary
    before = snapshot(out)
    proc = started(many, out, when, tmp_path)
    os.kill(proc.pid, sig)
    assert proc.wait(timeout=300) == 128 + sig
    err = (tmp_path / "stderr").read_text()
    assert "Traceback" not in err and "Exception ignored" not in err, err
    by = "Ctrl-C" if sig == signal.SIGINT else "SIGTERM"
    whole = f"ppo_bench.collect: stopped by {by} as the summary was written: {out} is whole"
    if when == "writing the summary" and err.splitlines() == [whole]:
        # a busy machine let the collection reach its swap, where a stop waits for the swap's end: the
        # line must then say so, and the new summary be whole (every file its manifest lists, as written)
        manifest = json.loads((out / report.MANIFEST).read_text())
        assert snapshot(out) != before and all((out / f).is_file() for f in manifest["files"]), manifest
        return
    assert err.splitlines() == [
        f"ppo_bench.collect: stopped by {by}: nothing was written; the previous summary in {out} is kept"], err
    assert snapshot(out) == before


def test_a_first_collection_stopped_says_none_was_written_and_leaves_no_folder(tmp_path, many):
    out = tmp_path / "out"
    proc = started(many, out, "reading the result files", tmp_path)
    os.kill(proc.pid, signal.SIGINT)
    assert proc.wait(timeout=300) == 130
    assert (tmp_path / "stderr").read_text() == "ppo_bench.collect: stopped by Ctrl-C: no summary was written\n"
    assert not out.exists()


def test_a_collection_killed_outright_leaves_its_staging_folder_which_the_next_one_removes(tmp_path, many, capsys):
    out = tmp_path / "out"
    write(tmp_path / "small", "s", mode="step", reps=[100.0, 101.0])
    collect([tmp_path / "small"], out_dir=out, plot=False)
    proc = started(many, out, "writing the summary", tmp_path)
    proc.kill()  # SIGKILL: no handler, no cleanup
    assert proc.wait(timeout=60) == -signal.SIGKILL
    [left] = out.glob(f"{report.ASIDE}*")
    capsys.readouterr()
    assert main([str(tmp_path / "small"), "--out", str(out), "--no-plot"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"ppo_bench.collect: removed {left.name} from {out}: the staging folder of a collection killed while it wrote",
        f"wrote {out}"]
    assert not list(out.glob(f"{report.ASIDE}*")) and (out / "table.csv").is_file()
