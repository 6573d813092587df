"""Nothing hangs, nothing is lost: faults injected into the job's child process, bad keys, skipped jobs.

Faults come from tests/fault_injection/sitecustomize.py, which the job's child
process loads through PYTHONPATH; this process is never patched.
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import compose_config
from ppo_bench.job import parent
from ppo_bench.record.results import read_result

# (mode, fault): a raise at several points of a loop step, in every mode, warm-up and timed reps
# alike (warm-up is 3 loop steps; the update first runs at the end of the warm-up).
RAISES = [
    ("step", "ppo_bench.env.torch_envs:TorchEnvs.step:2"),
    ("step", "ppo_bench.agent.runtimes:Eager.store:5"),
    ("step", "ale_py.vector_env:AtariVectorEnv.__init__:1"),  # while building
    ("sendrecv", "ppo_bench.env.torch_envs:TorchEnvs.recv:4"),
    ("sendrecv", "ppo_bench.env.torch_envs:TorchEnvs.send:1"),
    ("async", "ppo_bench.env.torch_envs:TorchEnvs.recv:6"),
    ("async", "ppo_bench.agent.runtimes:Eager.update:1"),
    ("env_only", "ale_py.vector_env:AtariVectorEnv.step:3"),
    ("agent_only", "ppo_bench.agent.runtimes:Eager.act:4"),
    ("agent_only", "ppo_bench.agent.runtimes:Eager.update:2"),
]


@pytest.mark.parametrize("mode,fault", RAISES, ids=[f"{m}-{f.split(':')[1]}" for m, f in RAISES])
def test_an_exception_anywhere_ends_the_job_with_a_failed_record(tmp_path, inject, mode, fault):
    inject(f"{fault}:raise")
    where = fault.split(":")[1]
    with pytest.raises(parent.JobFailed, match=f"injected fault in {where}"):
        parent.run(compose_config(f"mode={mode}", "env.num_envs=4"), output_dir=tmp_path)
    record = read_result(tmp_path / "result.json")
    assert record["status"] == "failed"
    assert record["error"] == f"RuntimeError: injected fault in {where}"
    assert "sitecustomize.py" in record["traceback"]  # the detail is kept, off the terminal
    assert record["provenance"]["host"] and record["provenance"]["torch"]


def test_a_job_process_that_dies_is_recorded(tmp_path, inject):
    inject("ppo_bench.agent.runtimes:Eager.act:3:kill")
    with pytest.raises(parent.JobFailed):
        parent.run(compose_config(), output_dir=tmp_path)
    record = read_result(tmp_path / "result.json")
    assert record["error"] == "the job's process ended without a result (killed by SIGKILL)"


def test_a_busy_machine_is_warned_about(tmp_path, inject):
    inject("os:getloadavg:1:return=[1000.0, 1000.0, 1000.0]")
    record = parent.run(compose_config(), output_dir=tmp_path)
    assert record["status"] == "ok" and record["machine"]["after"]["load_1m"] == 1000.0
    busy = [w for w in record["warnings"] if "busy machine" in w]
    assert busy == [f"busy machine: 1-minute load 1000.0 > {record['provenance']['cpu_count']} CPUs around "
                    "the measurement; other work took CPU time from the emulators"]


def test_a_job_whose_process_compiled_torch_from_source_says_so(tmp_path, inject):
    """A sweep's first job whose fork server found torch's bytecode uncached (and could not write it)
    records that and warns that every fresh process compiles torch again."""
    from ppo_bench.job import forkserver

    forkserver.stop_server()  # this job's own server does the imports, as a sweep's first job's does
    inject("ppo_bench.record.provenance:bytecode_cached:1:return=false")
    record = parent.run(compose_config("mode=env_only", "env.num_envs=1", "schedule.reps=1"), output_dir=tmp_path)
    imports = record["timing"]["imports"]
    assert record["status"] == "ok" and imports["bytecode_cached"] is False
    assert [w for w in record["warnings"] if w.startswith("imports:")] == [
        f"imports: {imports['took_s']:.1f} s, torch compiled from source: its bytecode is not cached and this "
        "Python writes none (PYTHONDONTWRITEBYTECODE, python -B or a read-only install), so every fresh process "
        "compiles it again; cache it once: python -m compileall -q <torch's folder>"]


@pytest.fixture
def nothing_built(monkeypatch):
    def must_not_build(*args, **kwargs):
        raise AssertionError("a job process was started for a refused or skipped job")

    monkeypatch.setattr(parent, "ChildJob", must_not_build, raising=False)


UNKNOWN = [
    ("+env.num_env=64", "env.num_env: not a config key; did you mean env.num_envs?"),
    ("+schedule.rep=3", "schedule.rep: not a config key; did you mean schedule.reps?"),
    ("+agent.optim.lr=1", "agent.optim: not a config key; did you mean agent.runtime?"),
    ("+stall_timeout=5", "stall_timeout: not a config key; did you mean stall_timeout_s?"),
    ("+zzz=1", "zzz: not a config key; the keys are listed in docs/config.md"),
]


@pytest.mark.parametrize("override,message", UNKNOWN, ids=[u[0] for u in UNKNOWN])
def test_keys_the_schema_lacks_are_refused_even_with_plus(tmp_path, nothing_built, override, message):
    with pytest.raises(ValueError, match="not a config key") as info:
        parent.run(compose_config(override), output_dir=tmp_path)
    assert str(info.value) == f"ValueError: {message}"
    assert read_result(tmp_path / "result.json")["error"] == f"ValueError: {message}"


@pytest.mark.parametrize("preset", ["quick", "paired"])
def test_presets_leave_no_unknown_key(preset):
    cfg = compose_config(f"+preset={preset}", tiny=False)
    assert parent.check(cfg, multirun=False) is None


def test_a_bad_stall_timeout_is_refused(tmp_path, nothing_built):
    with pytest.raises(ValueError, match="stall_timeout_s=0.0: must be > 0"):
        parent.run(compose_config("stall_timeout_s=0"), output_dir=tmp_path)


SWEEP = "hydra.mode=MULTIRUN"


@pytest.mark.parametrize("overrides,reason", [
    (["mode=async", "env.num_envs=1"], "mode.groups=2: must divide env.num_envs=1"),
    (["mode=step", "mode.groups=2"], "mode.groups=2: only async, env_only, agent_only take groups > 1"),
    (["mode=async", "mode.groups=1"], "mode.groups=1: async in one batch is sendrecv; use mode=sendrecv or groups >= 2"),
], ids=["groups-do-not-divide", "groups-for-step", "async-in-one-group"])
def test_a_combination_a_sweep_crosses_into_is_skipped(tmp_path, nothing_built, overrides, reason):
    record = parent.run(compose_config(SWEEP, *overrides), output_dir=tmp_path)
    assert (record["status"], record["error"]) == ("skipped", reason)
    on_disk = json.loads((tmp_path / "result.json").read_text())  # read_result may not know "skipped" yet
    assert on_disk == record
    # The same job asked for alone is an error: the user named that very combination.
    with pytest.raises(ValueError, match=re.escape(reason)):
        parent.run(compose_config(*overrides), output_dir=tmp_path / "single")


def test_a_typo_in_a_skipped_combination_stays_an_error(tmp_path, nothing_built):
    with pytest.raises(ValueError, match="env.game=pongg: not a ROM"):
        parent.run(compose_config(SWEEP, "mode=async", "env.num_envs=1", "env.game=pongg"), output_dir=tmp_path)
    assert read_result(tmp_path / "result.json")["status"] == "failed"


def test_resume_decides_a_skipped_job_again_without_complaint(tmp_path, nothing_built, caplog):
    parent.run(compose_config(SWEEP, "mode=async", "env.num_envs=1"), output_dir=tmp_path)
    again = parent.run(compose_config(SWEEP, "mode=async", "env.num_envs=1", "resume=true"), output_dir=tmp_path)
    assert again["status"] == "skipped"
    assert "not usable" not in caplog.text
