"""The shared on-policy base is reusable: A2C in a package of its own (tests/plugins/a2c), loaded as a
plugin by its folder's path, its update alone on `RolloutLearner`, runs a timed job in every loop mode
and learns in a learning run.

The rows, results, bootstrap, staging and due logic it runs on are PPO's own (tests/test_ppo.py
checks them row by row through PPO); here they carry another loss, on the toy backend whose batches
come back in a fixed rotation. tests/test_plugin_a2c.py runs the same package from the command line.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from conftest import ROOT, compose_config
from toy_backend import LENGTH
from ppo_bench.agent.algos.base import Agent
from ppo_bench.agent.algos.onpolicy.learner import RolloutLearner
from ppo_bench.agent.make import make_agent
from ppo_bench.config import plugins
from ppo_bench.config.schema import register_configs
from ppo_bench.job import parent
from ppo_bench.record.results import read_result
from ppo_bench.registry import ALGOS, BACKENDS, Backend

A2C_PLUGIN = str(ROOT / "tests" / "plugins" / "a2c" / "ppo_bench_a2c")


@pytest.fixture
def a2c(monkeypatch):
    """A2C loaded as a plugin (by its package's folder: the plugins key's route), with the toy backend,
    for the test's duration; its classes."""
    monkeypatch.setattr(plugins, "_loaded", {})
    BACKENDS.add(Backend("toy", "toy_backend:ToyVectorEnv"))
    try:
        plugins.load([A2C_PLUGIN])
        from ppo_bench_a2c.algorithm import A2C
        from ppo_bench_a2c.config import A2CConfig

        yield A2C, A2CConfig
    finally:
        ALGOS.remove("a2c")
        BACKENDS.remove("toy")
        register_configs()


A2C_JOB = ["env.backend=toy", "agent.algo=a2c", "env.num_envs=4", "agent.num_minibatches=null"]
"""A2C on the toy backend; num_minibatches unset, which the tiny test config sets for the package's
algorithms: A2C does not read it."""


def a2c_job(tmp_path, *overrides: str) -> dict:
    record = parent.run(compose_config(*A2C_JOB, *overrides), output_dir=tmp_path)
    assert record == read_result(tmp_path / "result.json")
    assert record["status"] == "ok" and record["algo"] == "a2c", record["error"]
    return record


def test_a_learner_on_the_base_writes_its_init_and_its_update_only(a2c):
    """Every member of the contract but the update comes from the base: A2C's class defines `__init__`
    (its config to the base's arguments) and `update_step`; its constants are its config's keys."""
    A2C, _ = a2c
    assert {name for name in vars(A2C) if not name.startswith("_") or name == "__init__"} == {"__init__",
                                                                                           "update_step"}
    assert RolloutLearner.__abstractmethods__ == {"update_step"} and not A2C.__abstractmethods__


def test_a2c_s_own_defaults_are_its_jobs_and_leave_the_package_s_as_they_were(tmp_path, a2c):
    """A2C's 5-step rollouts and its step size are its jobs' defaults; the reference and PPO keep 128."""
    record = a2c_job(tmp_path / "a2c", "agent.num_steps=null", "schedule.bench_steps=10")
    agent = record["config"]["agent"]
    assert (agent["num_steps"], agent["learning_rate"]) == (5, 7e-4) and "num_minibatches" not in agent
    assert "clip_coef" not in agent and agent["ent_coef"] == 0.01
    for algo in ("reference", "ppo"):
        assert parent.identity_of(compose_config(f"agent.algo={algo}", tiny=False)).config["agent"]["num_steps"] == 128


@pytest.mark.parametrize("mode", ["step", "sendrecv", "async"])
def test_a2c_on_the_base_runs_a_timed_job_in_each_loop_mode(tmp_path, a2c, mode):
    record = a2c_job(tmp_path, f"mode={mode}", "agent.ent_coef=0.02")
    assert record["config"]["agent"]["ent_coef"] == 0.02 and len(record["throughput"]["reps"]) == 2
    # the toy backend's batches come back in a fixed rotation: every env steps alike
    assert record["env_steps"] == {"total": 4 * 8 * 2, "per_env_min": 16, "per_env_max": 16}


def test_a2c_on_the_base_learns_in_a_learning_run_with_overlap(tmp_path, a2c):
    """Action 1 pays 1 a step on the toy backend, the others 0: A2C comes to take it, acting one
    update behind, and its episodes' returns (the base's tracker's, unclipped) rise toward the most
    an episode pays."""
    record = a2c_job(tmp_path, "schedule=learn", "mode=async", "mode.groups=2", "agent.overlap=true",
                     "agent.runtime=eager", "agent.num_steps=8", "agent.learning_rate=0.01",
                     "schedule.total_env_steps=400")
    learning = record["learning"]
    returns = learning["returns"]
    assert learning["total_env_steps"] >= 400 and learning["updates"] == len(learning["curve"]["env_steps"]) >= 10
    assert all(0 <= r <= LENGTH for r in returns) and len(returns) >= 4 * 8
    assert np.mean(returns[-12:]) > 8 > np.mean(returns[:8]) + 3, returns


def test_a2c_s_update_is_its_loss_over_the_base_s_samples(a2c):
    """What the base hands A2C's update after one rollout of scripted results: each env's rows in
    time order, their sign-clipped rewards discounted into n-step returns from its bootstrap row's
    value; then the update runs on them."""
    A2C, A2CConfig = a2c
    agent_cfg = compose_config("agent.algo=a2c", "agent.runtime=eager", "agent.num_steps=2",
                               "agent.num_minibatches=null").agent
    torch.manual_seed(0)
    agent = make_agent(agent_cfg, (2, 40, 40), 3, 2, torch.device("cpu"))
    assert isinstance(agent, Agent) and isinstance(agent.algo, A2C) and agent.algo.cfg == A2CConfig(num_steps=2)
    algo, ids, no = agent.algo, np.arange(2), np.zeros(2, dtype=bool)
    agent.start(ids)
    for step in range(3):  # 2 transitions per env and the bootstrap's act
        agent.act(torch.full((2, 2, 40, 40), step, dtype=torch.uint8), step, ids)
        agent.observe(ids, np.array([1.0, -2.0]), no, no)
    assert agent.update_after(2) and agent.can_update()
    algo.prepare_update()
    rows, valid, advantages, returns = algo.rollout_samples(algo.cfg.gamma, lam=1.0)
    b = algo.buffers
    # n-step returns: each env's two clipped rewards and its bootstrap value, discounted
    bootstrap = b.values[torch.tensor([4, 5])]
    want = torch.stack([torch.tensor([1.0, -1.0]) * (1 + algo.cfg.gamma) + algo.cfg.gamma ** 2 * bootstrap,
                        torch.tensor([1.0, -1.0]) + algo.cfg.gamma * bootstrap])
    assert rows.tolist() == [0, 1, 2, 3] and valid.tolist() == [1.0] * 4  # (step, env) flat, step-major
    torch.testing.assert_close(returns, want.reshape(-1))
    torch.testing.assert_close(advantages, returns - b.values[rows])
    before = [p.detach().clone() for p in algo.net.parameters()]
    agent.update()
    assert agent.updates == 1 and not any(torch.equal(p, q) for p, q in zip(algo.net.parameters(), before))
