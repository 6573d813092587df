"""The typed record: every committed result reads into it and back, a part keeps the keys it was read
or built with, a file without its schema's version reads as version 1, and the names a job's record,
folder and stages are given are said once."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, compose_config
from ppo_bench.job import parent
from ppo_bench.job.isolation import Stage
from ppo_bench.record.identity import RUN_CONTROL_KEYS
from ppo_bench.record.parts import CURVE_KEYS, Curve, Imports, JobFolder, Provenance, Timing
from ppo_bench.record.results import SCHEMA, BadResult, Record

DOCS_RESULTS = ROOT / "docs" / "results"


def test_every_committed_record_reads_checks_and_writes_back_the_same():
    """Every result file under docs/results, in its folders and inside the sweeps packed as archives
    there, found as the collector finds them: read into a Record (which checks itself), written back
    to JSON, which holds the same keys in the same order, and reads again to an equal Record."""
    from ppo_bench.collect.sources import walk

    found = walk([DOCS_RESULTS])
    assert found.unreadable == [] and len(found.results) > 1000
    archived = sum(p in found.held for p in found.results)
    assert 0 < archived < len(found.results)  # both kinds are read
    changed, statuses = [], set()
    for path in found.results:
        text = found.read_bytes(path)
        record = Record.read(path, found.read(path))
        statuses.add(record.status)
        written = record.to_json()
        if json.dumps(written) != json.dumps(json.loads(text)):  # order too
            changed.append(str(path.relative_to(ROOT)))
        assert Record.from_json(json.loads(json.dumps(written))) == record, path
    assert changed == []
    assert statuses == {"ok", "failed", "skipped"}


def a_record() -> Record:
    record = Record.new(parent.identity_of(compose_config()), ["env.num_envs=2"],
                        JobFolder(num=3, output_dir="/tmp/x"), 0.0, None)
    record.provenance = Provenance(host="h", gpu=None, cpu_count=2)
    return record


def test_a_built_record_writes_what_it_was_given_and_reads_back_equal():
    record = a_record()
    written = record.to_json()
    assert list(written)[:4] == ["schema", "status", "error", "warnings"] and written["schema"] == SCHEMA
    assert (written["status"], written["error"], written["placement"]) == ("failed", None, None)  # given: null
    assert written["timing"] == {"started_at": "1970-01-01T00:00:00+00:00", "finished_at": None}
    assert written["provenance"] == {"host": "h", "gpu": None, "cpu_count": 2}  # the rest never given: left out
    assert "traceback" not in written and "throughput" not in written and "learning_so_far" not in written
    assert Record.from_json(json.loads(json.dumps(written))) == record


def test_none_given_is_null_and_a_field_not_given_is_left_out():
    """A job whose fork server had the imports already says so (null); one that never got that far
    says nothing; both read back as they were written."""
    waited, not_started = Timing(forked_s=1.0, imports=None), Timing(started_at=None)
    assert waited.to_json() == {"forked_s": 1.0, "imports": None}
    assert not_started.to_json() == {"started_at": None}
    assert Timing.from_json(waited.to_json()).to_json() == waited.to_json()
    later = Timing(started_at="2026-01-01T00:00:00+00:00").updated(
        Timing(imports=Imports(began_s=0.5, took_s=2.0), setup_s=3.0))
    assert later.to_json() == {"started_at": "2026-01-01T00:00:00+00:00", "imports": {"began_s": 0.5, "took_s": 2.0},
                               "setup_s": 3.0}


def test_keys_a_part_does_not_name_are_kept_as_read():
    """A backend's package version in the provenance (its key comes from the registry), or a key a
    later version of the tool adds: read, kept, written back where it was."""
    text = {"host": "h", "envpool_like": "1.0", "gpu": None}
    part = Provenance.from_json(text, "provenance")
    assert part.other == {"envpool_like": "1.0"} and part.to_json() == text and list(part.to_json()) == list(text)


def test_a_file_without_the_version_reads_as_version_1_and_a_later_version_is_refused():
    written = a_record().to_json()
    unversioned = {k: v for k, v in written.items() if k != "schema"}
    record = Record.from_json(unversioned)
    assert record.schema == 1 and record.to_json() == written  # written back with it
    with pytest.raises(BadResult, match=r"^schema=2, expected 1$"):
        Record.from_json({**written, "schema": 2})


@pytest.mark.parametrize("edit,reason", [
    (lambda r: r["provenance"].update(cpu_count="2"), "provenance.cpu_count: string, expected integer or null"),
    (lambda r: r.update(overrides=[1]), "overrides[0]: integer, expected string"),
    (lambda r: r["timing"].update(setup={"agent": "slow"}), "timing.setup.agent: string, expected number"),
    (lambda r: r.update(placement={"slot": 0, "slots": 1, "gpu": None, "cores": [0.5], "shared_node": False}),
     "placement.cores[0]: number, expected integer"),
    (lambda r: r.pop("timing"), "missing fields: timing"),
    (lambda r: r.update(learning_so_far={"curve": {"env_steps": [1]}}),
     "learning_so_far.curve: missing fields: wall_s, episodes, return_mean, return_std"),
    (lambda r: r.update(learning_so_far={"curve": {k: [2, 1] for k in CURVE_KEYS}}),
     "learning_so_far.curve.env_steps: not in increasing order"),
    (lambda r: r.update(measured_so_far={"reps": [1.0, 0.0]}),
     "measured_so_far.reps: [1.0, 0.0], expected a list of positive numbers"),
    (lambda r: r.update(num_threads=0), "num_threads: 0, expected a positive integer or null"),
])
def test_a_field_of_the_wrong_type_or_value_is_refused_naming_its_place(edit, reason):
    written = a_record().to_json()
    edit(written)
    with pytest.raises(BadResult) as info:
        Record.from_json(written)
    assert str(info.value) == reason


def test_a_job_that_did_not_finish_keeps_what_its_child_sent():
    record = a_record()
    points = [{"env_steps": 8 * i, "wall_s": 1.0 * i, "episodes": i, "return_mean": None if i < 2 else -20.0,
               "return_std": None if i < 2 else 0.5} for i in (1, 2, 3)]
    start = Timing(startup_s=2.0, imports=None)
    record.keep({"device": ["cpu"], "timing": [start], "curve": points, "rep": [10.0, 12.0], "probe": [20.0]},
                "env_only")
    written = record.to_json()
    assert written["device"] == "cpu"
    assert written["timing"] == {"started_at": "1970-01-01T00:00:00+00:00", "finished_at": None, "startup_s": 2.0,
                                 "imports": None}
    assert written["learning_so_far"]["curve"]["env_steps"] == [8, 16, 24]
    assert written["measured_so_far"] == {"reps": [10.0, 12.0], "interleaved": {"mode": "env_only", "reps": [20.0]}}
    learning = record.learning_so_far.as_learning(2, -20.0, 2.0)
    assert (learning.time_to_target_s, learning.env_steps_to_target, learning.final_return_mean) == (2.0, 16, -20.0)
    assert Record.from_json(json.loads(json.dumps(written))) == record


def test_a_copy_has_the_fingerprint_of_its_original_and_a_record_without_times_none():
    record = a_record()
    copy = Record.from_json(json.loads(json.dumps(record.to_json())))
    assert copy.fingerprint() == record.fingerprint() is not None
    copy.error = "another run"
    assert copy.fingerprint() != record.fingerprint()
    record.timing = Timing()
    assert record.fingerprint() is None


def test_a_curve_is_the_loop_s_curve_keys():
    assert CURVE_KEYS == ("env_steps", "wall_s", "episodes", "return_mean", "return_std")
    assert Curve(**{k: [] for k in CURVE_KEYS}).to_json() == {k: [] for k in CURVE_KEYS}


def test_the_run_control_keys_are_those_the_job_folders_names_leave_out():
    """How a job runs (resume, set_aside, ...) is neither part of what it measures nor of its folder's
    name: conf/config.yaml's exclude_keys lists exactly ppo_bench.record.identity.RUN_CONTROL_KEYS,
    each a key of the config."""
    cfg = compose_config()
    assert list(cfg.hydra.job.config.override_dirname.exclude_keys) == list(RUN_CONTROL_KEYS)
    assert all(key in cfg for key in RUN_CONTROL_KEYS)
    assert not set(RUN_CONTROL_KEYS) & set(parent.identity_of(cfg).config)


def test_every_stage_of_the_child_has_words_for_a_stall_there():
    schedule = compose_config().schedule
    where = parent._stall_place(schedule)
    words = {stage: where(stage, 0) for stage in Stage}
    assert words[Stage.SETUP] == "setup (building the emulators and the agent)"
    assert words[Stage.LOOP] == "the first loop step (the compile, on a compiled agent)"
    assert where(Stage.LOOP, schedule.warmup + 1) == f"repetition 1 of {schedule.reps} after 1 of " \
                                                     f"{schedule.bench_steps} loop steps"
    assert len(set(words.values())) == len(Stage)
