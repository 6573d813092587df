"""schedule.interleave: the emulators alone (or the other of step and sendrecv) timed in turn with a loop's repetitions, in the same
process over the same emulators, so the loop's ratio to them is read rep by rep (between jobs the
emulators' speed drifts far more than within one)."""

from __future__ import annotations

import re

import pytest

from conftest import compose_config
from test_ppo import ppo_cfg, scripted_driver
from test_runner import run_job
from ppo_bench.config.schema import validate
from ppo_bench.loop.drivers import EnvOnlyDriver, SendRecvDriver, StepDriver, drain
from ppo_bench.job import parent
from ppo_bench.record.results import read_result
from ppo_bench.record.line import summarise_record


@pytest.mark.parametrize("groups, seed", [(1, 0), (1, 1), (2, 1), (4, 1)])
def test_a_loop_driver_hands_its_emulators_to_the_probe_and_starts_over_on_them(groups, seed):
    """What each driver owes (`pending`, in batches) is what the emulators have in flight; drained,
    the probe runs on the same emulators, is drained in turn, and the loop starts over on them with
    no episode or rollout of before (the scripted env errs on a batch that never was)."""
    driver = scripted_driver(8, groups, ppo_cfg(), seed=seed)
    env, batch = driver.vector_env, 8 // groups
    assert isinstance(driver, StepDriver if (groups, seed) == (1, 0) else SendRecvDriver)
    assert driver.pending() * batch == len(env.waiting)  # before the first step: reset()'s other batches
    for s in range(3):
        driver.step(s)
        assert driver.pending() * batch == len(env.waiting)
    drain(env, driver.pending())
    assert not env.waiting
    probe = EnvOnlyDriver(env, None, 0, groups)
    for s in range(3):
        assert probe.pending() * batch == len(env.waiting)
        probe.step(s)
    drain(env, probe.pending())
    assert not env.waiting
    acted = driver.agent.algo.index.acted.copy()
    driver.reset(0)
    assert (driver.agent.algo.index.base == acted).all()  # the rollout in progress was dropped
    assert not driver.agent.tracker.running()[1].any()  # and every episode in progress
    s = 0
    while not driver.agent.update_after(s):  # a whole rollout on the same emulators, then its update
        driver.step(s)
        s += 1
        assert driver.pending() * batch == len(env.waiting)
    assert s <= 2 * driver.agent.algo.cfg.num_steps
    driver.agent.update()


def test_a_job_with_interleave_times_the_emulators_after_each_of_its_reps(tmp_path):
    """Over ale-py in send/recv, whose one batch is owed between loop steps and drained at each switch. Not
    in async batches: ale-py 0.12's can starve or repeat an env on a busy machine (ALE issue #641), which
    would decide this test; the drivers' test above hands over async batches of the scripted env."""
    record = run_job(tmp_path, "mode=sendrecv", "env.num_envs=4", "agent.algo=ppo",
                     "agent.runtime=eager", "device=cpu",
                     "agent.num_steps=8", "agent.num_minibatches=2", "schedule.reps=3", "schedule.bench_steps=12",
                     "schedule.warmup=4", "schedule.interleave=env_only")
    assert record["status"] == "ok", record["error"]
    probe, thr = record["interleaved"], record["throughput"]
    assert probe["mode"] == "env_only" and probe["env_steps_per_rep"] == 4 * 12 == thr["env_steps_per_rep"]
    assert len(probe["reps"]) == len(probe["seconds"]) == len(thr["reps"]) == 3
    assert probe["reps"] == pytest.approx([48 / s for s in probe["seconds"]])
    # the loop's own env steps are the timed ones only: no probe's, no warm-up after a probe
    assert record["env_steps"] == {"total": 3 * 48, "per_env_min": 36, "per_env_max": 36}
    ratios = [a / b for a, b in zip(thr["reps"], probe["reps"])]
    assert f"loop/env_only by rep {', '.join(f'{r:.2f}' for r in ratios)}" in summarise_record(record)


def test_a_job_that_fails_part_way_keeps_the_reps_and_pairs_it_finished(tmp_path, inject):
    """The third timed rep fails (as a `timeout` would kill it): the record says failed and keeps the two
    reps that finished, each with its partner from the probe, for the collector to pair."""
    inject("ppo_bench.loop.run:repetition:5:raise")  # rep 1, probe 1, rep 2, probe 2, then rep 3
    with pytest.raises(parent.JobFailed, match="injected fault in repetition"):
        run_job(tmp_path, "mode=sendrecv", "env.num_envs=4", "agent.algo=ppo", "agent.runtime=eager", "device=cpu",
                "agent.num_steps=8", "agent.num_minibatches=2", "schedule.reps=3", "schedule.bench_steps=12",
                "schedule.warmup=4", "schedule.interleave=env_only")
    record = read_result(tmp_path / "result.json")
    so_far = record["measured_so_far"]
    assert record["status"] == "failed" and "throughput" not in record
    assert len(so_far["reps"]) == 2 and all(r > 0 for r in so_far["reps"])
    assert so_far["interleaved"]["mode"] == "env_only" and len(so_far["interleaved"]["reps"]) == 2


@pytest.mark.parametrize("overrides, message", [
    (["schedule.interleave=agent_only"], "schedule.interleave=agent_only: must be one of env_only, step, sendrecv"),
    (["mode=async", "mode.groups=2", "schedule.interleave=step"],
     "schedule.interleave=step: one build serves step and sendrecv only, in one batch (mode.name=async, "
     "mode.groups=2)"),
    (["schedule.interleave=env_only", "schedule=learn", "agent.algo=ppo", "schedule.total_env_steps=64"],
     "schedule.interleave=env_only: a learning run is one repetition with nothing to interleave; "
     "use it with timed repetitions"),
])
def test_an_interleave_that_cannot_be_is_refused_in_one_line(overrides, message):
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        validate(compose_config("agent.runtime=eager", "device=cpu", *overrides))
    assert str(info.value) == message


def test_the_probes_ignore_it_and_it_is_not_part_of_what_was_measured(tmp_path):
    """One sweep can run the probes beside interleaved loops, and the collector groups them together."""
    from ppo_bench.record.identity import flatten, group_identity

    record = run_job(tmp_path, "mode=env_only", "env.num_envs=2", "device=cpu", "schedule.reps=2",
                     "schedule.bench_steps=4", "schedule.warmup=2", "schedule.interleave=env_only")
    assert record["status"] == "ok" and "interleaved" not in record
    flat = flatten(record["config"])
    assert flat["schedule.interleave"] == "env_only"
    assert group_identity(flat) == group_identity({**flat, "schedule.interleave": None})


def test_step_and_sendrecv_take_turns_over_one_build_and_each_writes_its_record(tmp_path):
    """schedule.interleave naming the other loop mode: one set of emulators and one policy serve both,
    their reps A B B A; the job's record holds the pairs, the other mode's its own reps, in a folder
    of its own inside the job's, grouped apart from jobs of their own but with each other."""
    from ppo_bench.record.identity import flatten, group_identity

    record = run_job(tmp_path, "mode=step", "env.num_envs=4", "agent.algo=ppo", "agent.runtime=eager",
                     "device=cpu", "agent.num_steps=8", "agent.num_minibatches=2", "schedule.reps=3",
                     "schedule.bench_steps=12", "schedule.warmup=4", "schedule.interleave=sendrecv")
    assert record["status"] == "ok", record["error"]
    pairs, thr = record["interleaved"], record["throughput"]
    assert pairs["mode"] == "sendrecv" and len(pairs["reps"]) == len(thr["reps"]) == 3
    other = read_result(tmp_path / "sendrecv" / "result.json")
    assert other["status"] == "ok" and other["mode"] == "sendrecv" and "interleaved" not in other
    assert other["throughput"]["reps"] == pairs["reps"] and other["throughput"]["seconds"] == pairs["seconds"]
    assert other["config"]["mode"]["name"] == "sendrecv" and other["config"]["schedule"]["interleave"] == "step"
    assert other["job"]["output_dir"] == str(tmp_path / "sendrecv")
    assert record["env_steps"]["total"] == 3 * 48  # the loop's own timed steps: none of the other's
    assert other["timing"] == record["timing"] and other["provenance"] == record["provenance"]
    ident = group_identity(flatten(record["config"]))
    assert ident == group_identity(flatten(other["config"]))
    assert ident["schedule.interleave"] == "sendrecv+step"
    alone = group_identity({**flatten(record["config"]), "schedule.interleave": None})
    assert alone == {**ident, "schedule.interleave": None}


def test_turns_go_a_b_b_a(monkeypatch):
    """The loop's reps and the other side's alternate A B B A A B ..., the side that takes over warmed up
    at each switch (a steady drift weighs on both sides alike, and two reps share a switch)."""
    from omegaconf import OmegaConf

    from ppo_bench.loop import run as loop_run

    order = []

    class Side:
        agent = vector_env = env_steps = observers = None

        def __init__(self, name):
            self.name, self.warm = name, 0

        def step(self, s):
            self.warm += 1

        def pending(self):
            return 0

        def reset(self, seed):
            order.append(f"{self.name} reset")
            self.warm = 0

    def repetition(driver, steps, sync):
        order.append(f"{driver.name} after {driver.warm} steps")
        return 1.0, 0.0

    monkeypatch.setattr(loop_run, "repetition", repetition)
    loop = Side("A")
    schedule = OmegaConf.create({"warmup": 2, "bench_steps": 1, "reps": 5, "precision": None, "profile": False})
    inter = loop_run.Interleaver(loop, lambda d: Side("B"), schedule, 0, lambda: None)
    out = loop_run.measure(loop, schedule, lambda: None, lambda r, s: None, interleave=inter)
    assert order == ["A after 2 steps", "B after 2 steps", "B after 2 steps", "A reset", "A after 2 steps",
                     "A after 2 steps", "B after 2 steps", "B after 2 steps", "A reset", "A after 2 steps",
                     "A after 2 steps", "B after 2 steps"]
    assert len(out.rep_seconds) == len(out.probe_seconds) == 5
