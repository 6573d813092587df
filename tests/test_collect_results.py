"""results.read_result refuses mistyped files with one reason; write_atomic gives open()'s mode."""

from __future__ import annotations

import json
import os
import stat

import pytest

from ppo_bench.record import results
from ppo_bench.collect import collect
from test_collect import record, row, write

MALFORMED = {  # what is changed in a good record -> the reason's start
    "provenance_null": (lambda r: r.update(provenance=None), "provenance: null, expected object"),
    "timing_list": (lambda r: r.update(timing=[]), "timing: array, expected object"),
    "config_string": (lambda r: r.update(config="x"), "config: string, expected object"),
    "reps_booleans": (lambda r: r["throughput"].update(reps=[True, True]),
                      "throughput.reps[0]: boolean, expected number"),
    "num_envs_float": (lambda r: r.update(num_envs=8.0), "num_envs: number, expected integer"),
    "load_string": (lambda r: r["machine"]["after"].update(load_1m="high"),
                    "machine.after.load_1m: string, expected number or null"),
    "frameskip_string": (lambda r: r["config"]["env"].update(frameskip="5"),
                         "config.env.frameskip: string, expected integer"),
    "time_garbage": (lambda r: r["timing"].update(measure_started_at="yesterday"),
                     "timing.measure_started_at: 'yesterday' is not an ISO 8601 time"),
    # a measurement moved by hand out of its own run (into another job's): it ended after its job did
    "measured_after_the_run": (lambda r: r["timing"].update(measure_finished_at="2100-01-01T00:00:00+00:00"),
                               "timing.finished_at: '"),
}


def _malformed(tmp_path, name):
    rec = record(mode="step", reps=[100.0, 100.0])
    MALFORMED[name][0](rec)
    path = tmp_path / name / "result.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(rec))
    return path


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_read_result_checks_types(tmp_path, name):
    path = _malformed(tmp_path, name)
    with pytest.raises(results.BadResult) as e:
        results.read_result(path)
    assert str(e.value).startswith(MALFORMED[name][1])


def test_integers_are_numbers_and_skipped_is_a_status(tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps(record(mode="step", reps=[100, 101.5])))
    assert results.read_result(path)["throughput"]["reps"] == [100, 101.5]
    path.write_text(json.dumps(record(mode="async", n=1, status="skipped", error="groups=2 does not divide 1")))
    assert results.read_result(path)["status"] == "skipped"
    path.write_text(json.dumps(record(mode="step", status="done")))
    with pytest.raises(results.BadResult, match="status='done', expected ok, failed, skipped"):
        results.read_result(path)


def test_malformed_files_are_listed_and_the_good_ones_collected(tmp_path, capsys):
    good = write(tmp_path, "good", mode="step", reps=[100.0, 110.0])
    bad = {name: _malformed(tmp_path, name) for name in MALFORMED}
    c = collect([tmp_path], plot=False)
    reasons = {b["path"]: b["reason"] for b in c.bad}
    assert set(reasons) == {str(p) for p in bad.values()}
    assert all(reasons[str(p)].startswith(MALFORMED[n][1]) for n, p in bad.items()), reasons
    assert list(c.table["mode"]) == ["step"] and row(c, "step", 8)["mean"] == 105.0
    assert list(c.jobs["path"]) == [str(good)]
    out = capsys.readouterr().out
    assert all(f"- {p}: {MALFORMED[n][1]}" in out for n, p in bad.items())
    assert "comes before its measure_finished_at '2100-01-01T00:00:00+00:00'" in reasons[str(bad["measured_after_the_run"])]


def test_a_measurement_moved_into_another_job_s_run_is_unusable_not_a_contention(tmp_path):
    """Two jobs one after the other; the first's measurement, moved by hand into the second's run, is
    refused by its own record (it no longer lies in its job's run), in one line: before, the collector
    read it as contended and raised looking for the run it was measured during."""
    from datetime import datetime, timedelta

    first = write(tmp_path, "first", mode="step", reps=[100.0, 110.0])
    second = write(tmp_path, "second", mode="sendrecv", reps=[100.0, 110.0])
    rec = json.loads(first.read_text())
    later = json.loads(second.read_text())["timing"]
    ends = datetime.fromisoformat(later["finished_at"])
    rec["timing"].update(measure_started_at=(ends - timedelta(seconds=2)).isoformat(),
                         measure_finished_at=(ends - timedelta(seconds=1)).isoformat())
    first.write_text(json.dumps(rec))
    c = collect([tmp_path], plot=False)
    assert [b["path"] for b in c.bad] == [str(first)] and "comes before its measure_finished_at" in c.bad[0]["reason"]
    assert list(c.table["mode"]) == ["sendrecv"]


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_write_atomic_mode_follows_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        results.write_atomic(tmp_path / "result.json", record())
        (tmp_path / "plain").write_text("x")  # what open() gives under this umask
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "result.json").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "plain").stat().st_mode) == 0o666 & ~umask
    assert os.umask(old) == old  # the umask is left as it was
