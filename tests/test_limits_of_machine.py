"""What the machine cannot do is said before anything is built, or in the job's warnings: emulators
beyond its memory are refused in one line, a large build logs what it waits for, and agent.overlap
where no CUDA stream can overlap anything is flagged in the log and the record."""

from __future__ import annotations

import json
import logging

import pytest

from conftest import compose_config
from ppo_bench.job import child, parent
from ppo_bench.config import memory
from ppo_bench import registry
from ppo_bench.config.schema import NotApplicable, validate, warnings_for
from ppo_bench.registry import BACKENDS
from ppo_bench.record.results import read_result
from test_runner import run_job

GIB = 2 ** 30


def test_emulators_beyond_the_memory_are_refused_in_one_line_naming_what_fits():
    ale = BACKENDS["ale"]
    fit = int(23 * GIB / (ale.memory_mib * memory.MIB))
    with pytest.raises(ValueError) as e:
        validate(compose_config("env.num_envs=100000"), machine=lambda: (23 * GIB, 1))
    line = str(e.value)
    assert not isinstance(e.value, NotApplicable) and "\n" not in line
    assert line.startswith(f"env.num_envs=100000: its emulators need about {100000 * ale.memory_mib / 1024:.0f} GiB "
                           f"({ale.memory_mib:g} MiB each, measured for env.backend=ale) but this machine has 23 GiB "
                           "available; at most ~")
    assert fit * 0.9 <= int(line.rsplit("~", 1)[1].split()[0]) <= fit
    validate(compose_config(f"env.num_envs={fit}"), machine=lambda: (23 * GIB, 1))  # as many as fit: no refusal


def test_each_backend_is_checked_with_its_own_figure_and_only_where_emulators_are_built():
    small, big = sorted(BACKENDS[b].memory_mib for b in ("ale", "gymnasium"))
    n = int(GIB / (big * memory.MIB)) + 1  # one more gymnasium env than fits in 1 GiB, where ale's fit
    assert n * small * memory.MIB < GIB
    with pytest.raises(ValueError, match=rf"^env.num_envs={n}: .*env.backend=gymnasium"):
        validate(compose_config(f"env.num_envs={n}", "env.backend=gymnasium"), machine=lambda: (GIB, 1))
    validate(compose_config(f"env.num_envs={n}"), machine=lambda: (GIB, 1))
    validate(compose_config("env.num_envs=100000", "mode=agent_only"), machine=lambda: (GIB, 1))  # no emulators


def test_jobs_side_by_side_share_the_memory_and_unknown_memory_refuses_nothing(monkeypatch, tmp_path):
    n = int(8 * GIB / (BACKENDS["ale"].memory_mib * memory.MIB))  # fits 8 GiB, not a quarter of it
    validate(compose_config(f"env.num_envs={n}"), machine=lambda: (8 * GIB, 1))
    with pytest.raises(ValueError, match=r"has 8.0 GiB available, 2.0 GiB for each of the node's 4 slots; at most ~"):
        validate(compose_config(f"env.num_envs={n}"), machine=lambda: (8 * GIB, 4))
    validate(compose_config("env.num_envs=100000000"), machine=lambda: (None, 1))
    # what the check reads: MemAvailable, and the slots of the node launcher's placement
    info = tmp_path / "meminfo"
    info.write_text("MemTotal:       24000000 kB\nMemFree:  1000 kB\nMemAvailable:   23000000 kB\n")
    assert memory.available(str(info)) == 23000000 * 1024
    assert memory.available(str(tmp_path / "none")) is None
    monkeypatch.setenv("PPO_BENCH_PLACEMENT", json.dumps({"slot": 1, "slots": 3, "gpu": None, "cores": [1]}))
    assert memory.machine()[1] == 3
    monkeypatch.delenv("PPO_BENCH_PLACEMENT")
    assert memory.machine()[1] == 1


def test_a_job_beyond_this_machine_s_memory_is_refused_before_anything_is_built(tmp_path, monkeypatch):
    def must_not_build(*args, **kwargs):
        raise AssertionError("an environment or model was built for a refused job")

    monkeypatch.setattr(parent, "ChildJob", must_not_build)
    with pytest.raises(ValueError, match=r"env.num_envs=100000000: its emulators need about"):
        parent.run(compose_config("env.num_envs=100000000"), output_dir=tmp_path)
    record = read_result(tmp_path / "result.json")
    assert record["status"] == "failed" and "at most ~" in record["error"] and "\n" not in record["error"]


def test_every_backend_says_what_an_emulator_costs():
    for backend in registry._BUILTIN[BACKENDS.key].values():
        assert backend.memory_mib > 0 and backend.build_s > 0, backend.name


def test_a_large_build_logs_a_line_before_and_after(monkeypatch, caplog):
    """On the config the job's child gets: its identity's, without the run-control keys (a build of
    256 emulators failed on the GPU machine reading stall_timeout_s there)."""
    from omegaconf import OmegaConf

    monkeypatch.setattr(child, "LARGE_BUILD", 2)
    cfg = OmegaConf.create(parent.identity_of(compose_config("mode=env_only", "env.num_envs=2")).config)
    with caplog.at_level(logging.INFO, logger="ppo_bench.job.child"):
        driver = child.build(cfg, child.resolve_device("cpu"))
    driver.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "ppo_bench.job.child"]
    assert len(lines) == 2, lines
    assert lines[0].startswith("building 2 emulators of pong (env.backend=ale): about ")
    assert lines[1].startswith("2 emulators built in ") and " and reset in " in lines[1]
    caplog.clear()
    monkeypatch.setattr(child, "LARGE_BUILD", 3)
    with caplog.at_level(logging.INFO, logger="ppo_bench.job.child"):
        child.build(cfg, child.resolve_device("cpu")).close()
    assert not [r for r in caplog.records if r.name == "ppo_bench.job.child"]


OVERLAP = ["agent.algo=ppo", "agent.runtime=eager", "agent.overlap=true"]
OVERLAP_LINE = ("agent.overlap=true: on the CPU nothing overlaps (the update overlaps the next rollout on a "
                "second CUDA stream), yet the loop still acts one update behind; use agent.overlap=false")


@pytest.mark.parametrize("device", ["cpu", "auto"])
def test_overlap_on_the_cpu_warns_in_timed_and_learning_runs(device):
    import torch

    if device == "auto" and torch.cuda.is_available():
        pytest.skip("device=auto resolves to CUDA here")
    assert OVERLAP_LINE in warnings_for(compose_config(*OVERLAP, f"device={device}"))
    assert OVERLAP_LINE in warnings_for(compose_config(*OVERLAP, f"device={device}", "schedule=learn",
                                                       "schedule.total_env_steps=64"))
    assert OVERLAP_LINE not in warnings_for(compose_config(*OVERLAP[:2], f"device={device}"))


def test_overlap_on_the_cpu_is_in_the_job_s_record(tmp_path):
    record = run_job(tmp_path, *OVERLAP, "schedule=learn", "mode=step", "agent.num_steps=4",
                     "agent.num_minibatches=2", "agent.update_epochs=1", "schedule.total_env_steps=16")
    assert record["status"] == "ok", record["error"]
    assert OVERLAP_LINE in record["warnings"]


def test_a_build_longer_than_the_stall_timeout_is_warned_of_before_it_starts():
    n = 64
    slow = compose_config("mode=env_only", f"env.num_envs={n}", f"stall_timeout_s={n * BACKENDS['ale'].build_s / 2}")
    assert [w for w in warnings_for(slow) if w.startswith(f"env.num_envs={n}: building its emulators")]
    assert not [w for w in warnings_for(compose_config("mode=env_only", f"env.num_envs={n}"))
                if "building its emulators" in w]
