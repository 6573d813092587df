"""A finished record is never lost when a sweep or a job runs again into its folder: it is kept
(the run refused, in one line naming the ways on) unless resume finds it the same job, or
set_aside=true moves it to <folder>/set_aside/<UTC time>/."""

from __future__ import annotations

import errno
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
