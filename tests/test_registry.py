"""The registries: a name is written once, and an entry added from outside runs a whole job."""

from __future__ import annotations

import re

import pytest

from conftest import compose_config
from toy_backend import LENGTH, SHAPE
from ppo_bench.job import parent
from ppo_bench.config.schema import validate
from ppo_bench.registry import BACKENDS, MODES, RUNTIMES, Backend, Mode
from ppo_bench.record.results import read_result


@pytest.fixture
def toy_backend():
    """The toy vector env as a backend named toy, for the test's duration (this module adds it;
    no module of ppo_bench names it)."""
    entry = BACKENDS.add(Backend("toy", "toy_backend:ToyVectorEnv"))
    yield entry
    BACKENDS.remove("toy")


@pytest.mark.parametrize("mode", ["step", "async", "env_only", "agent_only"])
def test_a_backend_added_to_the_registry_runs_a_job(tmp_path, toy_backend, mode):
    """The job runs in its own process: the entry travels with it, and the agent is built for the toy
    env's frames (2 x 40 x 40), which are not ale-py's."""
    record = parent.run(compose_config("env.backend=toy", f"mode={mode}", "env.num_envs=4"), output_dir=tmp_path)
    assert record == read_result(tmp_path / "result.json")
    assert record["status"] == "ok" and record["backend"] == "toy", record["error"]
    if MODES[mode].emulators:  # the toy's batches come back in a fixed rotation: every env steps alike
        assert record["env_steps"] == {"total": 4 * 8 * 2, "per_env_min": 16, "per_env_max": 16}
    else:
        assert record["env_steps"] is None


def test_a_learning_run_on_an_added_backend_learns_from_its_rewards(tmp_path, toy_backend):
    record = parent.run(compose_config("env.backend=toy", "schedule=learn", "agent.algo=ppo", "mode=async",
                                       "env.num_envs=4", "mode.groups=2", "agent.num_steps=8",
                                       "agent.num_minibatches=2", "schedule.total_env_steps=200"),
                        output_dir=tmp_path)
    assert record["status"] == "ok", record["error"]
    learning = record["learning"]
    # toy episodes last LENGTH steps and pay 0 or 1 a step: the returns are its own, unclipped sums
    assert learning["episodes"] >= 4 * (200 // 4 // (LENGTH + 1)) - 4
    assert all(0 <= r <= LENGTH for r in learning["returns"]) and learning["returns"]


def test_a_name_not_in_the_registry_is_refused_naming_what_is_there(toy_backend):
    with pytest.raises(ValueError, match="env.backend=nope: must be one of ale, envpool, gymnasium, toy"):
        validate(compose_config("env.backend=nope"))


def test_an_added_mode_or_runtime_is_read_by_validation():
    """What an entry says is what validation allows: a grouped toy mode takes groups, a CUDA runtime
    is refused on a machine without one (here, or named device=cpu)."""
    MODES.add(Mode("toy_loop", "ppo_bench.loop.drivers:SendRecvDriver", groups=True, chart="toyRaw"))
    try:
        cfg = compose_config("mode.name=toy_loop", "mode.groups=2", "env.num_envs=4")
        validate(cfg)
        assert MODES.names(kind="loop")[-1] == "toy_loop"
    finally:
        MODES.remove("toy_loop")
    with pytest.raises(ValueError, match="mode.name=toy_loop: must be one of step, sendrecv, async"):
        validate(compose_config("mode.name=toy_loop"))
    assert RUNTIMES["graphed"].needs_cuda
    with pytest.raises(ValueError, match="agent.runtime=graphed: needs device=cuda or auto, not cpu"):
        validate(compose_config("agent.runtime=graphed"))


def test_the_frame_shape_of_the_toy_is_not_ale_pys():
    assert SHAPE != (4, 84, 84)  # else the jobs above would not show that the agent reads it off the env


# --- the emulator fault, on cue ----------------------------------------------------------------

LEARN_ON_TOY = ["env.backend=toy", "schedule=learn", "agent.algo=ppo", "mode=async", "env.num_envs=4",
                "mode.groups=2", "agent.num_steps=8", "agent.num_minibatches=2", "schedule.total_env_steps=400"]


def test_a_learning_run_survives_a_repeated_env_and_says_so(tmp_path, toy_backend, monkeypatch):
    """The vector env returns one env twice in a batch (ale-py 0.12.1 on a starved machine): the run
    builds a new one, drops the episodes in progress, goes on to its env steps and records the event."""
    monkeypatch.setenv("TOY_REPEAT_AT", "30")
    record = parent.run(compose_config(*LEARN_ON_TOY), output_dir=tmp_path)
    assert record["status"] == "ok", record["error"]
    (fault,) = record["faults"]
    assert re.search(r"returned env \d more than once in one batch of 2 of 4 envs", fault["error"])
    assert fault["seed"] == 0 + 1 * 4 and 0 < fault["env_steps"] < 400 and fault["wall_s"] > 0
    assert record["learning"]["total_env_steps"] >= 400
    assert any(w.startswith("survived 1 emulator fault(s)") for w in record["warnings"])
    curve = record["learning"]["curve"]["env_steps"]
    assert curve == sorted(curve) and curve[-1] > fault["env_steps"]  # the curve went on past it


def test_a_timed_repetition_that_meets_it_is_dropped_and_run_again_once(tmp_path, toy_backend, monkeypatch):
    # recv calls: 5 in the 3 warm-up loop steps, then 16 a repetition of 8: the 30th is in the second
    monkeypatch.setenv("TOY_REPEAT_AT", "30")
    record = parent.run(compose_config("env.backend=toy", "mode=async", "env.num_envs=4", "schedule.reps=3"),
                        output_dir=tmp_path)
    assert record["status"] == "ok", record["error"]
    assert [f["rep"] for f in record["faults"]] == [1]
    assert len(record["throughput"]["reps"]) == 3
    # the dropped repetition's steps are not counted: three reps of 8 loop steps, 4 envs each
    assert record["env_steps"]["total"] == 3 * 8 * 4


def test_the_same_repetition_failing_twice_ends_the_job(tmp_path, toy_backend, monkeypatch):
    monkeypatch.setenv("TOY_REPEAT_AT", "30,33")  # the rerun of the second repetition meets it too
    with pytest.raises(parent.JobFailed, match="more than once in one batch"):
        parent.run(compose_config("env.backend=toy", "mode=async", "env.num_envs=4", "schedule.reps=3"),
                   output_dir=tmp_path)
    assert read_result(tmp_path / "result.json")["status"] == "failed"
