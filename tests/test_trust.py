"""Issue 23: a record can always be written, a file with non-finite numbers is refused on reading,
a refusal (also of a non-finite value) is one record and no traceback."""

from __future__ import annotations

import json
import math

import pytest

from conftest import compose_config
from ppo_bench import results, runner
from ppo_bench.results import BadResult, read_result


@pytest.fixture
def nothing_built(monkeypatch):
    def must_not_build(*args, **kwargs):
        raise AssertionError("a job process was started for a refused job")

    monkeypatch.setattr(runner, "ChildJob", must_not_build, raising=False)


def a_record() -> dict:
    identity = runner.identity_of(compose_config())
    record = results.new_record(identity, [], None, "/tmp/x", 0.0)
    record["provenance"] = {"host": "h", "gpu": None, "cpu_count": 2}
    return record


def test_a_non_finite_figure_is_written_as_null_with_the_reason(tmp_path):
    record = a_record()
    record["throughput"] = {"unit": results.UNIT, "reps": [10.0, 12.0], "seconds": [1.0, 1.0], "mean": math.inf,
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
    record["throughput"] = {"unit": results.UNIT, "reps": [10.0, 12.0], "seconds": [1.0, 1.0], "mean": 11.0}
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
    with pytest.raises(runner.Refused) as info:
        runner.run(cfg, output_dir=tmp_path)
    assert str(info.value) == message
    record = read_result(tmp_path / "result.json")
    assert (record["status"], record["error"]) == ("failed", message)
    if key in results.RUN_CONTROL_KEYS:  # how a job runs, not stored
        assert key not in record["config"]
        return
    group, name = key.split(".")
    assert record["config"][group][name] is None
    assert f"config.{key}={value}: not a finite number; written as null" in record["warnings"]


def test_a_record_that_cannot_be_written_fails_the_job_in_one_line(tmp_path, nothing_built, caplog):
    (tmp_path / "result.json").mkdir()  # root writes anywhere: a folder in the file's place stops it
    cfg = compose_config("hydra.mode=MULTIRUN", "mode=async", "env.num_envs=1")  # skipped: nothing built
    with pytest.raises(runner.JobFailed) as info:
        runner.run(cfg, output_dir=tmp_path)
    assert str(info.value).startswith(f"its record could not be written to {tmp_path / 'result.json'}: ")
    assert "IsADirectoryError" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(runner.Refused, match="env.num_envs=0"):  # a refusal stays the refusal, and is logged
        runner.run(compose_config("env.num_envs=0"), output_dir=tmp_path)
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
