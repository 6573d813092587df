"""A finished record is never lost when a sweep or a job runs again into its folder: it is kept
(the run refused, in one line naming the ways on) unless resume finds it the same job, or
set_aside=true moves it to <folder>/set_aside/<UTC time>/."""

from __future__ import annotations

import errno
import json
import logging
import shutil
from pathlib import Path

import pytest

from conftest import compose_config
from ppo_bench.record.parts import UNIT
from ppo_bench.record import results
from ppo_bench.job import parent
from ppo_bench.record.results import read_result
from test_sweep import TINY, sweep

GRID = ["env.num_envs=1", "mode=async", "seed=0,1", *TINY]  # two jobs, skipped (groups=2 > 1 env): nothing built


def records(folder: Path) -> dict[str, bytes]:
    """The records of a sweep folder (not those set aside), by path relative to it."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.glob("*/result.json")}


def lines_of(out) -> list[str]:
    return [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]


@pytest.fixture(scope="module")
def first_sweep(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("first") / "sweep"
    out = sweep(folder, *GRID)
    assert out.returncode == 0, out.stderr[-3000:]
    assert len(records(folder)) == 2
    return folder


@pytest.fixture
def earlier(first_sweep, tmp_path) -> Path:
    """A copy of a finished sweep's folder, for this test to run into."""
    folder = tmp_path / "sweep"
    shutil.copytree(first_sweep, folder)
    return folder


@pytest.mark.slow
def test_a_sweep_run_again_into_its_folder_is_refused_before_any_job_runs(earlier):
    before = records(earlier)
    assert len(before) == 2
    again = sweep(earlier, *GRID)
    assert again.returncode == 1
    lines = lines_of(again)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"hydra.sweep.dir={earlier} holds 2 results of an earlier sweep: "), lines
    assert "resume=true" in lines[0] and "set_aside=true" in lines[0] and f"{earlier / 'set_aside'}/" in lines[0]
    assert records(earlier) == before and not (earlier / "set_aside").exists()
    assert not (earlier / ".sweep.lock").exists()  # the refusal left no lock behind


@pytest.mark.slow
def test_set_aside_moves_the_earlier_records_and_summary_and_runs_every_job_again(earlier):
    before = records(earlier)
    summary = (earlier / "summary" / "table.md").read_bytes()
    again = sweep(earlier, *GRID[:2], "seed=0", *TINY, "set_aside=true")  # one of the two jobs, this time
    assert again.returncode == 0, again.stderr[-3000:]
    [aside] = list((earlier / "set_aside").iterdir())
    assert {p: (aside / p).read_bytes() for p in before} == before  # the old bytes, at their relative paths
    assert (aside / "summary" / "table.md").read_bytes() == summary
    said = [line for line in lines_of(again) if str(aside) in line]
    assert len(said) == 1 and "2 results" in said[0], lines_of(again)
    now = records(earlier)
    [job] = [p for p in before if "seed=0" in p]
    assert list(now) == [job] and now[job] != before[job]  # run again
    listed = (earlier / "summary" / "table.md").read_text()  # the new sweep's summary: its own job only
    assert str(earlier / job) in listed and str(aside) not in listed and "seed=1" not in listed, listed


# ------------------------------------------------------------ one job: resume, set_aside, the record's write

@pytest.fixture(scope="module")
def ok_record(tmp_path_factory) -> bytes:
    folder = tmp_path_factory.mktemp("ok")
    record = parent.run(compose_config(), output_dir=folder)
    assert record["status"] == "ok"
    return (folder / "result.json").read_bytes()


@pytest.fixture
def job_with_record(tmp_path, ok_record) -> Path:
    folder = tmp_path / "job"
    folder.mkdir()
    (folder / "result.json").write_bytes(ok_record)
    return folder


@pytest.fixture
def nothing_built(monkeypatch):
    def must_not_build(*args, **kwargs):
        raise AssertionError("a job process was started")

    monkeypatch.setattr(parent, "ChildJob", must_not_build)


KEPT = {  # a run into a folder with an ok record: its overrides, and the way on its line names first
    "resume-other-config": (["resume=true", "schedule.reps=3"], "a different config, kept: set_aside=true"),
    "same-config": ([], "this config, kept: resume=true to skip this job, set_aside=true"),
    "other-config": (["schedule.reps=3"], "a different config, kept: set_aside=true"),
}


@pytest.mark.parametrize("case", list(KEPT))
def test_an_ok_record_of_another_run_is_kept_and_the_job_refused(job_with_record, ok_record, nothing_built, case,
                                                                  caplog):
    overrides, way = KEPT[case]
    path = job_with_record / "result.json"
    with pytest.raises(parent.JobFailed) as info:
        parent.run(compose_config(*overrides), output_dir=job_with_record)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path} holds an ok record of {way}"), message
    assert path.read_bytes() == ok_record  # not replaced, not even by a failed record
    assert list(job_with_record.parent.iterdir()) == [job_with_record]  # nothing set aside
    assert [r for r in caplog.records if r.levelno >= logging.ERROR and message in r.getMessage()]


def test_resume_with_set_aside_moves_only_a_record_of_another_config(job_with_record, ok_record, nothing_built):
    path = job_with_record / "result.json"
    same = parent.run(compose_config("resume=true", "set_aside=true"), output_dir=job_with_record)
    assert path.read_bytes() == ok_record and same == read_result(path)  # the same job: skipped, kept
    assert not (job_with_record.parent / "set_aside").exists()
    with pytest.raises(AssertionError, match="a job process was started"):  # moved aside, then the job runs
        parent.run(compose_config("resume=true", "set_aside=true", "schedule.reps=3"), output_dir=job_with_record)
    [aside] = list((job_with_record.parent / "set_aside").iterdir())
    assert (aside / "job" / "result.json").read_bytes() == ok_record


def test_success_is_logged_only_once_the_record_is_on_disk(tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="ppo_bench")

    def disk_full(path, record):
        assert UNIT not in caplog.text, "success was logged before the record was written"
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(results, "write_atomic", disk_full)
    with pytest.raises(parent.JobFailed, match="its record could not be written"):
        parent.run(compose_config(), output_dir=tmp_path)
    assert UNIT not in caplog.text and " -> " not in caplog.text, caplog.text
    failed = [r.getMessage() for r in caplog.records if "FAILED" in r.getMessage()]
    assert len(failed) == 1 and "its record could not be written" in failed[0] and "No space left" in failed[0]


@pytest.mark.slow
def test_a_job_refused_for_an_earlier_ok_record_is_named_in_the_summary(earlier, ok_record):
    """Its folder still holds a record, the earlier run's, which the table counts as ok: the summary
    also says that this sweep's job was refused, and why, so that a failed sweep does not read as whole."""
    kept = sorted(earlier.glob("*/result.json"))[0]
    kept.write_bytes(ok_record)  # an ok record of another config than this job's
    again = sweep(earlier, *GRID, "resume=true")
    assert again.returncode == 1 and kept.read_bytes() == ok_record
    table = (earlier / "summary" / "table.md").read_text()
    assert f"{kept.parent}: refused by this sweep: {kept} holds an ok record of a different config, kept" in table
    assert "**Jobs: 2**: 1 ok, 1 skipped; 1 of them refused by this sweep" in table  # each job counted once


# ------------------------------------------------------------ resume runs the sweep's jobs only

@pytest.mark.slow
def test_resume_with_overrides_naming_other_jobs_is_refused_before_any_job_runs(earlier):
    before = records(earlier)
    multirun = (earlier / "multirun.yaml").read_bytes()
    again = sweep(earlier, "env.num_envs=1", "mode=async", "seed=0,1,2", *TINY, "resume=true")
    assert again.returncode == 1
    lines = lines_of(again)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"resume=true: hydra.sweep.dir={earlier} holds a sweep whose commands never named "
                               "1 of these jobs ("), lines
    assert "seed=2" in lines[0] and "set_aside=true" in lines[0]
    assert records(earlier) == before and (earlier / "multirun.yaml").read_bytes() == multirun
    assert not (earlier / ".sweep.lock").exists()


@pytest.mark.slow
def test_resume_of_an_interrupted_sweep_runs_the_jobs_its_command_named(tmp_path):
    """The first command named two jobs, but only one started (and left a record): the resume's same
    command names the other, which the folder's history says is the sweep's; each command is kept."""
    folder = tmp_path / "sweep"
    first = sweep(folder, *GRID)
    assert first.returncode == 0, first.stderr[-3000:]
    [gone] = [p for p in folder.glob("*/result.json") if "seed=1" in str(p)]
    shutil.rmtree(gone.parent)  # as if the sweep had stopped before its second job
    again = sweep(folder, *GRID, "resume=true")
    assert again.returncode == 0, again.stderr[-3000:]
    assert len(records(folder)) == 2
    fewer = sweep(folder, "env.num_envs=1", "mode=async", "seed=1", *TINY, "resume=true")  # one of its jobs
    assert fewer.returncode == 0, fewer.stderr[-3000:]
    commands = [json.loads(line) for line in (folder / ".commands.jsonl").read_text().splitlines()]
    assert [c["task"][-1] for c in commands] == [GRID[-1], "resume=true", "resume=true"]
    assert [("seed=0,1" in c["task"], "seed=1" in c["task"]) for c in commands] == [(True, False), (True, False),
                                                                                      (False, True)]


@pytest.mark.slow
def test_a_folder_from_before_the_history_starts_it_with_its_multirun_command(earlier):
    (earlier / ".commands.jsonl").unlink()  # a sweep folder written before the history was kept
    assert sweep(earlier, "env.num_envs=1", "mode=async", "seed=0,1,2", *TINY, "resume=true").returncode == 1
    again = sweep(earlier, *GRID, "resume=true")
    assert again.returncode == 0, again.stderr[-3000:]
    commands = [json.loads(line) for line in (earlier / ".commands.jsonl").read_text().splitlines()]
    assert len(commands) == 2 and commands[0]["at"] is None and "resume=true" not in commands[0]["task"]
    assert commands[1]["task"][-1] == "resume=true"


UNUSABLE = {"damaged": lambda path: path.write_bytes(b'{"schema": 1, "status": "ok", "mode": '),
            "a folder": lambda path: (path.mkdir(), (path / "notes.txt").write_text("kept"))}


@pytest.mark.parametrize("resume", [True, False])
@pytest.mark.parametrize("case", list(UNUSABLE))
def test_what_is_unusable_in_the_records_place_is_set_aside_before_the_job_runs(tmp_path, nothing_built, case,
                                                                              resume, caplog):
    folder = tmp_path / "job"
    folder.mkdir()
    path = folder / "result.json"
    UNUSABLE[case](path)
    with pytest.raises(AssertionError, match="a job process was started"):  # moved aside, then the job runs
        parent.run(compose_config(*["resume=true"] * resume), output_dir=folder)
    assert results.Record.read(path).error == "AssertionError: a job process was started"  # the job's own record
    [aside] = list((tmp_path / "set_aside").iterdir())
    moved = aside / "job" / "result.json"
    assert moved.is_dir() == (case == "a folder") and (moved.exists() or moved.is_symlink())
    if case == "a folder":
        assert (moved / "notes.txt").read_text() == "kept"
    said = [r.getMessage() for r in caplog.records if "is not a usable record" in r.getMessage()]
    assert len(said) == 1 and str(moved) in said[0], said


def test_a_record_place_that_cannot_be_cleared_fails_the_job_before_it_runs(tmp_path, nothing_built, monkeypatch):
    folder = tmp_path / "job"
    (folder / "result.json").mkdir(parents=True)

    def read_only(*args):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(parent, "set_aside", read_only)
    with pytest.raises(parent.Kept) as info:
        parent.run(compose_config("resume=true"), output_dir=folder)
    assert str(info.value) == (f"{folder / 'result.json'} is not a usable record (not a file) and could not be moved "
                               "aside: OSError: [Errno 30] Read-only file system")
    assert (folder / "result.json").is_dir()


def test_resume_skips_a_record_written_before_a_key_existed(job_with_record, ok_record, nothing_built):
    """A key the schema gained since (here: one the record lacks, at its default now) does not make the
    job another: resume skips it, as the collector pools the two."""
    path = job_with_record / "result.json"
    record = json.loads(ok_record)
    schedule = record["config"]["schedule"]
    assert schedule.pop("precision", "absent") is None and schedule.pop("return_window") == 20
    path.write_text(json.dumps(record))
    kept = path.read_bytes()
    assert parent.run(compose_config("resume=true"), output_dir=job_with_record)["status"] == "ok"
    assert path.read_bytes() == kept  # skipped: the record as it was
