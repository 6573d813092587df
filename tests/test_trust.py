"""A record can always be written, a file with non-finite numbers is refused on reading,
a refusal (also of a non-finite value) is one record and no traceback."""

from __future__ import annotations

import errno
import json
import math

import pytest

from conftest import compose_config
from ppo_bench.job import parent
from ppo_bench.record.parts import UNIT
from ppo_bench.record import results
from ppo_bench.record.identity import RUN_CONTROL_KEYS
from ppo_bench.record.parts import JobFolder, Provenance
from ppo_bench.record.results import BadResult, Record, read_result


@pytest.fixture
def nothing_built(monkeypatch):
    def must_not_build(*args, **kwargs):
        raise AssertionError("a job process was started for a refused job")

    monkeypatch.setattr(parent, "ChildJob", must_not_build, raising=False)


def a_record() -> dict:
    identity = parent.identity_of(compose_config())
    record = Record.new(identity, [], JobFolder(num=None, output_dir="/tmp/x"), 0.0, None)
    record.provenance = Provenance(host="h", gpu=None, cpu_count=2)
    return record.to_json()


def test_a_non_finite_figure_is_written_as_null_with_the_reason(tmp_path):
    record = a_record()
    record["throughput"] = {"unit": UNIT, "reps": [10.0, 12.0], "seconds": [1.0, 1.0], "mean": math.inf,
                            "ci95": math.nan}
    results.write_atomic(tmp_path / "result.json", record)
    on_disk = read_result(tmp_path / "result.json")
    assert on_disk["throughput"]["mean"] is None and on_disk["throughput"]["ci95"] is None
    assert on_disk["warnings"] == ["throughput.mean=inf: not a finite number; written as null",
                                   "throughput.ci95=nan: not a finite number; written as null"]
    assert record["throughput"]["mean"] == math.inf and record["warnings"] == []  # the caller's record is untouched


@pytest.mark.parametrize("field,text", [
    ("throughput.reps[1]", '"reps": [10.0, Infinity]'),
    ("throughput.mean", '"mean": NaN'),
    ("config.agent.learning_rate", None),
])
def test_a_file_holding_non_finite_numbers_is_refused_naming_the_field(tmp_path, field, text):
    record = a_record()
    record["status"] = "ok"
    record["throughput"] = {"unit": UNIT, "reps": [10.0, 12.0], "seconds": [1.0, 1.0], "mean": 11.0}
    written = json.dumps(record)
    if text is None:
        record["config"]["agent"]["learning_rate"] = -math.inf
        written = json.dumps(record)  # Python's json writes -Infinity, and reads it back
    else:
        written = written.replace(text.replace("Infinity", "12.0").replace("NaN", "11.0"), text)
        assert text in written
    path = tmp_path / "result.json"
    path.write_text(written)
    with pytest.raises(BadResult, match=f"^{field.replace('[', '.').replace(']', '.')}"):
        read_result(path)


FINITE = [("agent.learning_rate", "inf", "> 0"), ("schedule.target_return", "inf", "or null"),
          ("schedule.max_seconds", "inf", "> 0"), ("agent.gamma", "nan", "in (0, 1]"),
          ("stall_timeout_s", "-inf", "> 0")]


@pytest.mark.parametrize("key,value,allowed", FINITE, ids=[f"{k}={v}" for k, v, _ in FINITE])
def test_a_non_finite_value_is_refused_before_anything_is_built_and_recorded(tmp_path, nothing_built, key,
                                                                            value, allowed):
    cfg = compose_config("agent.algo=ppo", "schedule=learn", "schedule.total_env_steps=64", f"{key}={value}")
    message = f"ValueError: {key}={value}: must be a finite number {allowed}"
    with pytest.raises(parent.Refused) as info:
        parent.run(cfg, output_dir=tmp_path)
    assert str(info.value) == message
    record = read_result(tmp_path / "result.json")
    assert (record["status"], record["error"]) == ("failed", message)
    if key in RUN_CONTROL_KEYS:  # how a job runs, not stored
        assert key not in record["config"]
        return
    group, name = key.split(".")
    assert record["config"][group][name] is None
    assert f"config.{key}={value}: not a finite number; written as null" in record["warnings"]


def test_a_record_that_cannot_be_written_fails_the_job_in_one_line(tmp_path, nothing_built, caplog, monkeypatch):
    """The folder took the job's check of it, then filled up before the record (a folder that takes
    nothing fails the job before it builds anything: tests/test_unwritable_sweep.py)."""
    def disk_full(path, record):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(results, "write_atomic", disk_full)
    cfg = compose_config("hydra.mode=MULTIRUN", "mode=async", "env.num_envs=1")  # skipped: nothing built
    with pytest.raises(parent.JobFailed) as info:
        parent.run(cfg, output_dir=tmp_path)
    assert str(info.value).startswith(f"its record could not be written to {tmp_path / 'result.json'}: ")
    assert "No space left on device" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(parent.Refused, match="env.num_envs=0"):  # a refusal stays the refusal, and is logged
        parent.run(compose_config("env.num_envs=0"), output_dir=tmp_path)
    assert "record could not be written" in caplog.text


# ---------------------------------------------------------------- the command line: one line, no traceback

import subprocess  # noqa: E402
import sys  # noqa: E402

from conftest import ROOT  # noqa: E402

SKIPPED = ["env.num_envs=1", "mode=async", "device=cpu", "collect=false"]  # jobs that build nothing


def command(*args: str, timeout: float = 300) -> tuple[int, list[str]]:
    out = subprocess.run([sys.executable, "run.py", *args], cwd=ROOT, capture_output=True, text=True,
                         timeout=timeout)
    return out.returncode, [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]


def test_multirun_with_cfg_is_one_line():
    code, lines = command("-m", "--cfg", "job")
    assert code != 0 and len(lines) == 1 and "Only one of" in lines[0], lines


def test_a_sweep_folder_that_cannot_be_made_is_one_line(tmp_path):
    (tmp_path / "file").write_text("")
    code, lines = command("-m", f"hydra.sweep.dir={tmp_path / 'file' / 'sweep'}", *SKIPPED)
    assert code != 0 and len(lines) == 1, lines
    assert lines[0].startswith(f"hydra.sweep.dir={tmp_path / 'file' / 'sweep'}: cannot write there: "), lines


def test_a_job_folder_that_cannot_be_made_fails_that_job_not_the_sweep(tmp_path):
    sweep_dir = tmp_path / "sweep"
    code, _ = command("-m", f"hydra.sweep.dir={sweep_dir}", *SKIPPED, "seed=0,1")
    assert code == 0
    blocked = next(p.parent for p in sweep_dir.glob("*/result.json") if "seed=0" in p.parent.name)
    later = next(p for p in sweep_dir.glob("*/result.json") if "seed=1" in p.parent.name)
    for p in blocked.rglob("*"):
        if p.is_file():
            p.unlink()
    for p in sorted(blocked.rglob("*"), reverse=True):
        p.rmdir()
    blocked.rmdir()
    blocked.write_text("")  # root writes anywhere: a file in the folder's place stops it
    later.unlink()
    code, lines = command("-m", f"hydra.sweep.dir={sweep_dir}", *SKIPPED, "seed=0,1")
    assert code != 0
    assert later.exists() and json.loads(later.read_text())["status"] == "skipped"  # the sweep went on
    assert not any("Traceback" in line for line in lines), lines
    assert [line for line in lines if "FAILED" in line and blocked.name in line], lines


# ---------------------------------------------------------------- a record's figures agree with each other

from ppo_bench.record import stats  # noqa: E402

DOCS_RESULTS = ROOT / "docs" / "results"


def measured_record(steps: int = 16, seconds=(1.5, 1.6)) -> dict:
    """An ok record of this config, its figures derived as the job derives them: each rep is its env
    steps over its seconds, mean and ci95 from the reps."""
    record = a_record()
    reps = [steps / s for s in seconds]
    record["status"] = "ok"
    record["throughput"] = {"unit": UNIT, "reps": reps, "seconds": list(seconds),
                            "env_steps_per_rep": steps, **stats.summary(reps)}
    return record


def _reps(t):
    t["reps"] = [1e6, 1e6]
    t.update(stats.summary(t["reps"]))  # mean and ci95 agree with the edited reps; the seconds do not


DISAGREE = {  # what is edited -> what the reason says
    "reps": (_reps, "throughput.reps[0]: 1e+06 env-steps/s, but 16 env steps in 1.5 s make 10.6667"),
    "mean": (lambda t: t.update(mean=11.0), "throughput.mean: 11, but its reps average 10.3333"),
    "ci95": (lambda t: t.update(ci95=0.1), "throughput.ci95: 0.1, but its reps give 4.2354"),
    "one_rep_ci95": (lambda t: t.update(reps=t["reps"][:1], seconds=t["seconds"][:1], mean=t["reps"][0]),
                     "throughput.ci95: 4.2354, but one rep gives none"),
    "seconds": (lambda t: t.update(seconds=[1.5]), "throughput.seconds: 1 items for 2 reps"),
    "steps": (lambda t: t.update(env_steps_per_rep="16"),
              "throughput.env_steps_per_rep: '16', expected a positive integer"),
}


@pytest.mark.parametrize("edit", sorted(DISAGREE))
def test_a_record_whose_figures_disagree_is_refused_saying_why(tmp_path, edit):
    change, reason = DISAGREE[edit]
    record = measured_record()
    results.write_atomic(tmp_path / "result.json", record)
    assert read_result(tmp_path / "result.json")["throughput"] == record["throughput"]
    change(record["throughput"])
    (tmp_path / "result.json").write_text(json.dumps(record))
    with pytest.raises(BadResult) as info:
        read_result(tmp_path / "result.json")
    assert str(info.value).startswith(reason), str(info.value)


def test_resume_runs_again_a_job_whose_record_disagrees_with_itself(tmp_path, nothing_built, caplog):
    record = measured_record()
    results.write_atomic(tmp_path / "result.json", record)
    assert parent.run(compose_config("resume=true"), output_dir=tmp_path) == record  # consistent: skipped
    _reps(record["throughput"])
    results.write_atomic(tmp_path / "result.json", record)
    with pytest.raises(AssertionError, match="a job process was started"):
        parent.run(compose_config("resume=true"), output_dir=tmp_path)
    assert "throughput.reps[0]: 1e+06 env-steps/s, but 16 env steps in 1.5 s make" in caplog.text


def test_every_committed_result_reads_as_usable():
    """Every result file under docs/results, in its folders and inside the sweeps packed as archives
    there, read as the collector finds and reads them (ppo_bench.collect.sources)."""
    from ppo_bench.collect.sources import walk

    found = walk([DOCS_RESULTS])
    assert found.unreadable == []
    assert len(found.results) > 1000
    bad = {}
    for path in found.results:
        try:
            read_result(path, found.read(path))
        except (BadResult, OSError) as e:
            bad[str(path.relative_to(ROOT))] = str(e)
    assert bad == {}
    archives = set(DOCS_RESULTS.rglob("*.tar.gz"))
    assert {a for p in found.results if p in found.held for a in p.parents if a in archives} == archives
