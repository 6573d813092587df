"""Nothing lost, nothing counted twice: copies, skipped jobs, folders without a result, missing paths."""

from __future__ import annotations

import errno
import itertools
import json
import os
import shutil
import time
from datetime import timedelta
from pathlib import Path

import pytest

from ppo_bench.collect import collect, main
from test_collect import T0, record, row, write


def _sweep(root):
    write(root, "s", mode="step", reps=[100.0, 104.0, 96.0])
    write(root, "r", mode="sendrecv", reps=[150.0, 160.0, 140.0])
    write(root, "f", mode="async", groups=2, status="failed", error="RuntimeError: boom")


def test_a_copied_sweep_is_counted_once_and_the_copies_listed(tmp_path, capsys):
    _sweep(tmp_path / "sweep")
    shutil.copytree(tmp_path / "sweep", tmp_path / "a_copy")  # sorts first: the original is kept anyway
    c = collect([tmp_path / "sweep", tmp_path / "a_copy"], plot=False)
    assert (row(c, "step", 8)["n"], row(c, "step", 8)["jobs"], row(c, "sendrecv", 8)["n"]) == (3, 1, 3)
    assert sorted(c.jobs["path"]) == [str(tmp_path / "sweep" / m / "result.json") for m in "rs"]
    assert c.duplicates == [{"path": str(tmp_path / "a_copy" / m / "result.json"),
                             "kept": str(tmp_path / "sweep" / m / "result.json")} for m in "frs"]
    assert [f["path"] for f in c.failed] == [str(tmp_path / "sweep" / "f" / "result.json")]
    assert c.contended == [] and not c.table["contended"].any(), "a copy is not a second job"
    out = capsys.readouterr().out
    assert (f"- {tmp_path / 'a_copy' / 's' / 'result.json'}: same measurement as "
            f"{tmp_path / 'sweep' / 's' / 'result.json'}") in out


def test_equal_figures_of_two_real_jobs_are_both_kept(tmp_path):
    write(tmp_path, "a", mode="step", round=0, reps=[100.0, 100.0])
    write(tmp_path, "b", mode="step", round=1, reps=[100.0, 100.0])  # other window: another measurement
    c = collect([tmp_path], plot=False)
    assert (row(c, "step", 8)["n"], c.duplicates) == (4, [])


def test_skipped_jobs_are_listed_apart_and_are_not_failures(tmp_path, capsys):
    write(tmp_path, "s1", mode="step", n=1, reps=[100.0, 101.0])
    skipped = write(tmp_path, "a1", mode="async", n=1, groups=2, status="skipped",
                    error="mode.groups=2 does not divide env.num_envs=1")
    assert main([str(tmp_path), "--no-plot"]) == 0
    c = collect([tmp_path], plot=False)
    assert c.failed == [] and c.bad == []
    assert c.skipped == [{"path": str(skipped), "mode": "async", "num_envs": 1,
                          "error": "mode.groups=2 does not divide env.num_envs=1"}]
    md = c.markdown
    assert "Failed jobs" not in md and "**Skipped jobs" in md
    assert f"- {skipped} (async, num_envs=1): mode.groups=2 does not divide env.num_envs=1" in md


def test_job_folders_without_a_result_are_listed(tmp_path):
    write(tmp_path, "done", mode="step", reps=[100.0, 101.0])
    (tmp_path / "done" / ".hydra").mkdir()
    (tmp_path / "killed" / ".hydra").mkdir(parents=True)
    (tmp_path / "killed" / ".hydra" / "config.yaml").write_text("mode: step\n")
    (tmp_path / "running").mkdir()
    (tmp_path / "running" / "run.log").write_text("[INFO] step pong nature_cnn n=64\n")
    (tmp_path / "notes").mkdir()  # no marker: not a job folder
    (tmp_path / "notes" / "todo.txt").write_text("x")
    c = collect([tmp_path], plot=False)
    assert c.no_result == [{"path": str(tmp_path / m), "reason": "killed, or still running"}
                           for m in ("killed", "running")]
    assert "**No record" in c.markdown and f"- {tmp_path / 'killed'}: killed, or still running\n" in c.markdown
    assert "**Jobs: 3**: 1 ok, 2 with no record\n" in c.markdown


def test_a_missing_path_is_reported_and_the_good_ones_still_collected(tmp_path, capsys):
    write(tmp_path / "good", "s", mode="step", reps=[100.0, 101.0])
    gone = tmp_path / "gone"
    assert main([str(gone), str(tmp_path / "good"), "--no-plot"]) == 1
    err = capsys.readouterr().err
    assert f"ppo_bench.collect: {gone}: no such file or directory\n" in err and "Traceback" not in err
    md = (tmp_path / "good" / "summary" / "table.md").read_text()
    assert "| 8 | 100 [" in md and f"**Paths not found**\n\n- {gone}\n" in md
    assert main([str(gone)]) == 1
    assert capsys.readouterr().err == f"ppo_bench.collect: {gone}: no such file or directory\n"


def test_another_sweep_in_the_same_folder_marks_the_jobs_it_disturbed(tmp_path, capsys):
    t = T0 + timedelta(days=2)
    at = lambda s: t + timedelta(seconds=s)  # noqa: E731
    a0 = write(tmp_path, "step_n8", job_num=0, mode="step", reps=[100.0, 100.0], start=at(0))
    a1 = write(tmp_path, "sendrecv_n8", job_num=1, mode="sendrecv", reps=[150.0, 150.0], start=at(10))
    a2 = write(tmp_path, "sendrecv_n16", job_num=2, mode="sendrecv", n=16, reps=[150.0, 150.0], start=at(40))
    # a second sweep into the same folder: its first job builds 19 s (over a0's and a1's measurements)
    # and measures after a1 ended; its second fails during a2's measurement
    b0 = write(tmp_path, "step_n16", job_num=0, mode="step", n=16, reps=[100.0, 100.0], start=at(20), setup_s=19)
    b1 = write(tmp_path, "async_n16", job_num=1, mode="async", n=16, groups=2, start=at(40), status="failed",
               error="RuntimeError: CUDA out of memory")
    c = collect([tmp_path], plot=False)
    assert c.contended == [{"path": str(p), "host": "h1", "overlaps": 1} for p in (a2, a1, a0)]
    assert dict(zip(zip(c.table["mode"], c.table["num_envs"]), c.table["contended"])) == {
        ("step", 8): True, ("sendrecv", 8): True, ("step", 16): False, ("sendrecv", 16): True}
    out = capsys.readouterr().out
    assert "**Contended: 3 of 4 jobs were measured while another job ran on the same host (another sweep" in out
    assert (f"- h1, {at(-2).isoformat()} to {at(25).isoformat()}: 2 jobs, e.g. {a0} measured during {b0}\n"
            f"- h1, {at(38).isoformat()} to {at(45).isoformat()}: 1 job, e.g. {a2} measured during {b1}\n") in out


def test_two_thousand_overlapping_results_give_a_short_summary_in_bounded_time(tmp_path, capsys):
    start = T0 + timedelta(days=3)  # all measured at once on one host: every pair overlaps
    for i, (mode, n, rnd) in enumerate(itertools.product(("step", "sendrecv"), (1, 2, 4, 8, 16), range(200))):
        path = tmp_path / f"job{i}" / "result.json"
        path.parent.mkdir()
        at = start + timedelta(milliseconds=i)  # within 2 s: each still overlaps all the others
        path.write_text(json.dumps(record(mode=mode, n=n, round=rnd, reps=[100.0 + i % 7], start=at)))
    began = time.perf_counter()
    c = collect([tmp_path], plot=False)
    took = time.perf_counter() - began
    assert len(c.jobs) == 2000 and len(c.table) == 10 and c.table["contended"].all()
    assert {x["overlaps"] for x in c.contended} == {1999} and len(c.contended) == 2000
    md = (tmp_path / "summary" / "table.md").read_bytes()
    assert len(md) < 1_000_000, f"table.md is {len(md)} bytes"
    assert capsys.readouterr().out == md.decode()
    assert b"Contended: 2000 of 2000 jobs" in md and b": 2000 jobs, e.g. " in md
    assert took < 120, f"collecting 2000 results took {took:.0f} s"


def _denied(monkeypatch, path):
    """`path` refused as the kernel refuses a mode-000 file to anyone but root (who runs this in CI)."""
    real = Path.read_bytes

    def read_bytes(self):
        if self == path:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)


def _edited(good: str) -> str:
    """A record whose reps were edited by hand: its own seconds say 16 env steps took 1.5 s."""
    rec = json.loads(good)
    rec["throughput"].update(reps=[1e6, 1e6], seconds=[1.5, 1.5], env_steps_per_rep=16, mean=1e6, ci95=0.0)
    return json.dumps(rec)


NO_NAN = "JSON has no NaN or Infinity"
UNUSABLE = {  # what the file holds (from a good one's text) -> the reason it is listed with
    "nan": (lambda good: good.replace("101.0", "NaN"), f"throughput.reps[1]: non-finite number (NaN); {NO_NAN}"),
    "infinity": (lambda good: good.replace("101.0", "Infinity"),
                 f"throughput.reps[1]: non-finite number (Infinity); {NO_NAN}"),
    "truncated": (lambda good: good[:len(good) // 2], "not valid JSON: truncated"),
    "garbled": (lambda good: good.replace(",", ";", 1), "not valid JSON: Expecting ',' delimiter (line 2 column 14)"),
    "empty": (lambda good: "", "empty file"),
    "binary": (lambda good: "\udcff", "not UTF-8 text (byte 0)"),
    "edited": (_edited, "throughput.reps[0]: 1e+06 env-steps/s, but 16 env steps in 1.5 s make 10.6667"),
    "unreadable": (None, "permission denied"),
    "folder": (None, "a folder, not a file"),
}


@pytest.mark.parametrize("kind", list(UNUSABLE))
def test_every_unusable_file_is_named_with_its_reason_and_fails_the_collection(tmp_path, capsys, monkeypatch, kind):
    good = write(tmp_path, "good", mode="step", reps=[100.0, 101.0])
    make, reason = UNUSABLE[kind]
    bad = tmp_path / "bad" / "result.json"
    (bad.parent / ".hydra").mkdir(parents=True)  # a job's folder, as Hydra leaves it
    if kind == "folder":
        bad.mkdir()
    else:
        bad.write_bytes((make(good.read_text()) if make else good.read_text()).encode(errors="surrogateescape"))
    if kind == "unreadable":
        bad.chmod(0)
        _denied(monkeypatch, bad)
    assert main([str(tmp_path), "--no-plot"]) == 1
    err = capsys.readouterr().err
    assert f"ppo_bench.collect: {bad}: {reason}" in err.splitlines() and "Traceback" not in err
    md = (tmp_path / "summary" / "table.md").read_text()
    assert md.split("**Unusable files**\n\n")[1].startswith(f"- {bad}: {reason}\n")
    assert "**No result" not in md  # the job wrote something: what is wrong is said above
    assert "| 8 | 100 [" in md and "1000000" not in md  # the usable one is still tabled, alone


def _note(sweep, *entries):
    """The sweep's notes of the jobs it launched, as ppo_bench.launch.cli.note_job writes them."""
    with open(sweep / ".jobs.jsonl", "a") as f:
        for e in entries:
            f.write((e if isinstance(e, str) else json.dumps(e)) + "\n")


def test_every_job_the_sweep_launched_is_counted_and_those_without_a_record_named(tmp_path, capsys):
    ok = write(tmp_path, "mode=step", mode="step", reps=[100.0, 101.0]).parent
    again = write(tmp_path, "mode=sendrecv", mode="sendrecv", reps=[150.0, 151.0]).parent
    (tmp_path / "mode=async" / ".hydra").mkdir(parents=True)  # Hydra made its folder, then it was killed
    started = lambda name: {"job": name, "overrides": [name]}  # noqa: E731
    ended = lambda name: {"job": name, "ended": True}  # noqa: E731
    _note(tmp_path, started(ok.name), ended(ok.name),
          started("mode=env_only"), ended("mode=env_only"),  # its folder or the disk refused it: nothing on disk
          started(again.name),  # killed, then resumed: it ended the second time, with its record
          started("mode=async"), started(again.name), ended(again.name))
    assert main([str(tmp_path), "--no-plot"]) == 3  # jobs lost: said by the status, unlike a failed job's record
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"wrote {tmp_path / 'summary'}; 2 of 4 jobs with no record (killed, still running, or their record could "
        "not be written; listed in table.md)"]
    md = captured.out
    assert "**Jobs: 4**: 2 ok, 2 with no record\n" in md
    assert (f"**No record (jobs without result.json)**\n\n"
            f"- {tmp_path / 'mode=async'}: killed, or still running\n"
            f"- {tmp_path / 'mode=env_only'}: no record written: the job ended without one (its folder or "
            "the disk refused it)\n") in md


def test_a_note_that_is_not_a_job_s_is_unusable_and_its_other_lines_still_count(tmp_path, capsys):
    write(tmp_path, "mode=step", mode="step", reps=[100.0, 101.0])
    _note(tmp_path, {"job": "mode=env_only", "overrides": []}, {"job": "../../x"}, '{"job": "mode=as')
    assert main([str(tmp_path), "--no-plot"]) == 1
    note = tmp_path / ".jobs.jsonl"
    assert f"ppo_bench.collect: {note}: line 2: not a job's line: job '../../x' is not a folder's name" in (
        capsys.readouterr().err.splitlines())
    c = collect([tmp_path], plot=False)
    assert [n["path"] for n in c.no_result] == [str(tmp_path / "mode=env_only")]
    assert "**Jobs: 2**: 1 ok, 1 with no record" in c.markdown  # the note is not a job


@pytest.mark.slow
def test_a_job_whose_folder_cannot_be_made_is_counted_and_named_in_the_sweep_s_summary(tmp_path):
    from test_trust import SKIPPED, command

    grid = ["-m", f"hydra.sweep.dir={tmp_path}", *[o for o in SKIPPED if o != "collect=false"], "seed=0,1"]
    assert command(*grid)[0] == 0
    blocked = next(p for p in tmp_path.iterdir() if p.name.endswith("seed=0"))
    shutil.rmtree(blocked)
    blocked.write_text("")  # root writes anywhere: a file in the folder's place stops it
    code, lines = command(*grid, "resume=true")
    assert code != 0
    md = (tmp_path / "summary" / "table.md").read_text()
    assert "**Jobs: 2**: 1 skipped, 1 with no record" in md
    assert f"- {blocked}: no record written: the job ended without one (its folder or the disk refused it)" in md
