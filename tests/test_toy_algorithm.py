"""An algorithm added from outside the package (tests/toy_algorithm.py) runs every mode and a learning run.

The toy keeps to the algorithm contract (agent.algos.base.Algorithm) and nothing else: the
runtimes, the drivers and the loop run it as they run the package's own, its config's keys join
the agent's schema (`agent.toy_every`) and its config checks them.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from conftest import compose_config, registered
from toy_algorithm import Toy, ToyConfig
from toy_backend import LENGTH
from ppo_bench.agent.algos.base import Algorithm
from ppo_bench.agent.make import make_agent
from ppo_bench.config.schema import NotApplicable, validate
from ppo_bench.job import parent
from ppo_bench.record.results import read_result
from ppo_bench.registry import Algo, Backend


@pytest.fixture
def toy():
    """The toy backend and the toy algorithm in the registries, and the toy's keys in the schema,
    for the test's duration (no module of ppo_bench names either)."""
    with registered(Algo("toy", "toy_algorithm:Toy", config="toy_algorithm:ToyConfig", learns=True,
                         clips_rewards_itself=True, overlaps=True), Backend("toy", "toy_backend:ToyVectorEnv")):
        yield


TOY = ["agent.algo=toy", "agent.num_steps=null", "agent.num_minibatches=null"]
"""The toy, with the keys the tiny test config shrinks for the package's algorithms unset: the toy does
not read them, so anything set would not apply."""


def toy_job(tmp_path, *overrides: str) -> dict:
    record = parent.run(compose_config("env.backend=toy", *TOY, "env.num_envs=4", *overrides), output_dir=tmp_path)
    assert record == read_result(tmp_path / "result.json")
    assert record["status"] == "ok" and record["algo"] == "toy", record["error"]
    return record


@pytest.mark.parametrize("mode", ["step", "sendrecv", "async", "agent_only"])
def test_an_algorithm_added_to_the_registry_runs_a_timed_job_in_each_mode(tmp_path, toy, mode):
    record = toy_job(tmp_path, f"mode={mode}", "agent.toy_every=2")
    assert record["config"]["agent"]["toy_every"] == 2 and record["config"]["agent"]["algo"] == "toy"
    assert len(record["throughput"]["reps"]) == 2
    if mode == "agent_only":
        assert record["env_steps"] is None
    else:  # the toy backend's batches come back in a fixed rotation: every env steps alike
        assert record["env_steps"] == {"total": 4 * 8 * 2, "per_env_min": 16, "per_env_max": 16}


def test_an_added_algorithm_learns_in_a_learning_run_with_overlap(tmp_path, toy):
    """Action 1 pays 1 a step on the toy backend, the others 0: the bandit comes to take it, acting
    one update behind, and its episodes' returns (its own tracker's, unclipped) rise to the most an
    episode pays."""
    record = toy_job(tmp_path, "schedule=learn", "mode=async", "mode.groups=2", "agent.overlap=true",
                     "agent.runtime=eager", "schedule.total_env_steps=400")
    learning = record["learning"]
    returns = learning["returns"]
    assert record["config"]["agent"]["overlap"] is True and learning["total_env_steps"] >= 400
    assert learning["updates"] == len(learning["curve"]["env_steps"]) >= 20
    assert all(0 <= r <= LENGTH for r in returns) and len(returns) >= 4 * 8
    assert np.mean(returns[-8:]) > 8 > np.mean(returns[:4]), returns


def test_the_added_algorithm_s_keys_join_the_schema_and_its_own_check_reads_them(toy):
    with pytest.raises(ValueError, match=r"^agent.toy_every=0: must be >= 1$"):
        validate(compose_config(*TOY, "agent.toy_every=0"))
    with pytest.raises(NotApplicable, match=r"^agent.toy_every=2: agent.algo=ppo does not read it; "
                                            r"allowed with agent.algo=toy$"):
        validate(compose_config("agent.algo=ppo", "agent.toy_every=2"))
    with pytest.raises(NotApplicable, match=r"^agent.num_steps=4: agent.algo=toy does not read it; "
                                            r"allowed with agent.algo=reference or ppo$"):
        validate(compose_config("agent.algo=toy"))  # the tiny config's num_steps
    validate(compose_config(*TOY, "agent.toy_every=2", "agent.overlap=true", "agent.runtime=eager"))


def test_without_the_entry_its_keys_are_not_config_keys():
    from ppo_bench.config.keys import unknown_keys

    assert unknown_keys(compose_config("+agent.toy_every=2")) == ["agent.toy_every"]


def test_the_runtime_calls_the_toy_through_the_contract_alone():
    """The toy defines the contract's members and no network: a runtime acts, stores, observes and
    updates with it, and wraps its forward pass through `wrap_policy` (the compiled runtime's hook)."""
    assert not Algorithm.__abstractmethods__ - set(vars(Toy))
    with registered(Algo("toy", "toy_algorithm:Toy", config="toy_algorithm:ToyConfig")):
        agent_cfg = compose_config("agent.runtime=eager", *TOY, "agent.toy_step_size=2").agent
        agent = make_agent(agent_cfg, (2, 4, 4), 3, 4, torch.device("cpu"), 2)
    assert isinstance(agent.algo, Toy) and agent.algo.cfg == ToyConfig(toy_step_size=2.0)
    wrapped = []
    agent.algo.wrap_policy(lambda policy: lambda frames: wrapped.append(len(frames)) or policy(frames))
    agent.start(np.arange(2))  # envs 0 and 1 run; 2 and 3 await their first frames
    frames = torch.zeros((2, 2, 4, 4), dtype=torch.uint8)
    no = np.zeros(2, dtype=bool)
    agent.act(frames, 0, np.array([0, 1]))
    taken = agent.algo.actions[:2, 0].clone()
    agent.observe(np.array([0, 1]), np.array([1.0, 0.0]), no, no)  # env 0's action paid
    agent.act(frames, 0, np.array([2, 3]))  # credits envs 0 and 1's results
    agent.observe(np.array([2, 3]), np.array([0.0, 0.0]), no, no)  # first frames: credited to nothing
    assert wrapped == [2, 2]
    assert agent.update_after(3) and not agent.update_after(2) and agent.can_update()
    agent.update()
    sums = torch.zeros(3).index_add_(0, taken, torch.tensor([1.0, 0.0]))
    counts = torch.zeros(3).index_add_(0, taken, torch.ones(2))
    expected = 2.0 * (sums / counts.clamp(min=1) - sums.sum() / 2) * (counts > 0)
    assert agent.updates == 1 and torch.equal(agent.algo.prefs, expected)
