"""Every group option composes to exact values; every bad value is refused by name."""

from __future__ import annotations

import re

import pytest
from hydra.errors import ConfigCompositionException
from omegaconf import OmegaConf

from conftest import CONF, compose_config
from ppo_bench.job import parent
from ppo_bench.config.agent import narrowed_agent
from ppo_bench.config.schema import NotApplicable, algo_config, validate, warnings_for
from ppo_bench.record.results import read_result


def test_defaults_follow_the_reference():
    cfg = compose_config(tiny=False)
    assert (cfg.env.game, cfg.env.num_envs, cfg.env.frameskip, cfg.env.num_threads) == ("pong", 8, 5, None)
    assert (cfg.schedule.reps, cfg.schedule.bench_steps, cfg.schedule.warmup) == (5, 1000, 64)
    a = cfg.agent
    assert (a.name, a.runtime, a.algo, a.num_steps, a.update_epochs) == ("nature_cnn", "compiled", "reference", None, None)
    a = narrowed_agent(OmegaConf.to_container(a))  # an algorithm's keys left unset: its defaults, the reference's
    assert (a["num_steps"], a["update_epochs"], a["num_minibatches"], a["learning_rate"]) == (128, 4, 4, 2.5e-4)
    assert "clip_coef" not in a  # PPO's key: not the reference's
    assert (cfg.mode.name, cfg.mode.groups, cfg.device, cfg.seed, cfg.round) == ("step", 1, "auto", 0, 0)
    assert (cfg.resume, cfg.collect) == (False, True)
    assert OmegaConf.to_container(cfg.hydra.sweep)["subdir"] == "${ppo_bench.job_dir:${hydra.job.override_dirname}}"
    validate(cfg)


@pytest.mark.parametrize("path", sorted(p for g in ("env", "agent", "schedule", "mode") for p in (CONF / g).glob("*.yaml")),
                         ids=lambda p: f"{p.parent.name}={p.stem}")
def test_every_group_option_composes(path):
    group, option = path.parent.name, path.stem
    learning = (group, option) == ("schedule", "learn")  # a learning run needs agent.algo=ppo
    cfg = compose_config(f"{group}={option}", *(["agent.algo=ppo"] if learning else []), tiny=False)
    expected = {"env": ("game", option), "agent": ("name", option), "mode": ("name", option),
                "schedule": ("reps", 1 if learning else 5)}[group]
    assert cfg[group][expected[0]] == expected[1]
    if option == "async":
        assert cfg.mode.groups == 2
    validate(cfg)


@pytest.mark.parametrize("path", sorted(p for p in (CONF / "preset").glob("*.yaml") if not p.stem.startswith("learn")),
                         ids=lambda p: p.stem)
def test_every_preset_composes(path):
    cfg = compose_config(f"+preset={path.stem}", tiny=False)
    expected = {
        "quick": ((5, 64, 16, 64), {"env.num_envs": "1,8", "mode": "step,sendrecv"}),
        "quick_reference": ((2, 200, 16, 64), {"env.num_envs": "1,8", "mode": "step,sendrecv"}),
        "paired": ((1, 1000, 64, 128), {"round": "0,1,2,3,4"}),
        "full": ((5, 1000, 64, 128), {"env.num_envs": "1,2,4,8,16,32,64,128,256", "mode": "step,sendrecv"}),
        "grid": ((10, 128, 64, 128), {"env.num_envs": "1,2,4,8,16,32,64,128,256", "mode": "step,sendrecv"}),
        "limits": ((1, 1000, 64, 128), {"round": "0,1,2", "env.num_envs": "1,8,64,256", "mode.groups": "1,2",
                                         "mode": "step,async,env_only,agent_only"}),
    }[path.stem]
    s = cfg.schedule
    assert (s.reps, s.bench_steps, s.warmup, algo_config(cfg.agent).num_steps) == expected[0]
    # the main job answers to a precision target; the reference's own schedule is one preset away
    targets = {"quick": (0.1, 20, 30), "grid": (0.03, 30, 12)}
    assert (s.precision, s.max_reps, s.max_measure_s) == targets.get(path.stem, (None, 20, None))
    assert dict(cfg.hydra.sweeper.params) == expected[1]
    validate(cfg)


def test_the_learn_preset_is_a_ppo_learning_run():
    cfg = compose_config("+preset=learn", tiny=False)
    a, s = cfg.agent, cfg.schedule
    assert (a.algo, a.runtime, a.num_steps, a.update_epochs, a.num_minibatches, a.clip_coef) == (
        "ppo", "graphed", 128, 3, 16, 0.2)
    assert (cfg.mode.name, cfg.mode.groups, cfg.env.num_envs) == ("async", 2, 32)
    assert (s.reps, s.total_env_steps, s.target_return, s.return_window, s.max_seconds) == (1, 4_000_000, 18, 20, 240)
    validate(compose_config("+preset=learn", "agent.runtime=eager", "device=cpu", tiny=False))
    step = compose_config("+preset=learn", "mode=step", "agent.runtime=eager", "device=cpu", tiny=False)
    assert (step.mode.name, step.mode.groups) == ("step", 1)
    validate(step)


@pytest.mark.parametrize("overrides, message", [
    (["agent.algo=a2c"], "agent.algo=a2c: must be one of reference, ppo"),
    (["schedule=learn"], "schedule.total_env_steps=10000000: a learning run needs agent.algo=ppo "
                            "(agent.algo=reference does not learn)"),
    (["agent.algo=ppo", "schedule.total_env_steps=0"], "schedule.total_env_steps=0: must be >= 1"),
    (["agent.algo=ppo", "agent.gamma=1.5"], "agent.gamma=1.5: must be in (0, 1]"),
    (["agent.algo=ppo", "agent.gae_lambda=-0.1"], "agent.gae_lambda=-0.1: must be in [0, 1]"),
    (["agent.algo=ppo", "agent.clip_coef=0"], "agent.clip_coef=0.0: must be > 0"),
    (["agent.algo=ppo", "agent.ent_coef=-1"], "agent.ent_coef=-1.0: must be >= 0"),
    (["schedule.return_window=0"], "schedule.return_window=0: must be >= 1"),
    (["schedule.max_seconds=60"], "schedule.max_seconds=60.0: only a learning run (schedule.total_env_steps) "
                                  "stops on time; timed repetitions stop by count (schedule.reps, or "
                                  "schedule.precision with schedule.max_measure_s)"),
    (["agent.algo=ppo", "schedule=learn", "schedule.max_seconds=0"], "schedule.max_seconds=0.0: must be > 0"),
])
def test_ppo_and_learning_values_are_refused_naming_the_key(overrides, message):
    with pytest.raises(ValueError) as e:
        validate(compose_config(*overrides))
    assert str(e.value) == message and not isinstance(e.value, NotApplicable)


@pytest.mark.parametrize("override", ["agent.gamma=0.9", "agent.clip_coef=0.2", "agent.anneal_lr=false"])
def test_ppo_s_keys_are_ppo_s_alone_to_check_and_left_at_their_defaults_elsewhere(override):
    """PPO's rules run for PPO only: with the reference, a PPO key away from its default does not
    apply (the reference reads none of them), in one line that names the algorithm that does; at
    its default, nothing is said."""
    key, value = override.split("=")
    with pytest.raises(NotApplicable) as e:
        validate(compose_config(override))
    assert str(e.value) == f"{key}={value}: agent.algo=reference does not read it; allowed with agent.algo=ppo"
    validate(compose_config("agent.algo=ppo", override))
    validate(compose_config())


def test_the_agent_schema_is_the_common_keys_and_each_algorithm_s_own_flat_under_agent():
    """The keys users type stay flat (agent.num_steps, agent.clip_coef), each algorithm's unset (null)
    until the algorithm that runs gives its defaults; the parts come from the registry's entries."""
    import dataclasses

    from ppo_bench.agent.algos.ppo.config import PPOConfig
    from ppo_bench.agent.algos.reference.config import ReferenceConfig
    from ppo_bench.config.agent import AgentConfig, CommonAgentConfig
    from ppo_bench.registry import ALGOS

    names = [f.name for f in dataclasses.fields(AgentConfig)]
    common = [f.name for f in dataclasses.fields(CommonAgentConfig)]
    assert names[:len(common)] == common and set(common) == {"name", "runtime", "algo", "compile_on_cpu",
                                                               "cudnn_benchmark", "overlap"}
    assert set(names) == set(common) | {f.name for c in (ReferenceConfig, PPOConfig) for f in dataclasses.fields(c)}
    assert [ALGOS[a].config_class() for a in ("reference", "ppo")] == [ReferenceConfig, PPOConfig]
    cfg = compose_config("agent.algo=ppo", "agent.clip_coef=0.2", tiny=False)
    assert PPOConfig.of(cfg.agent) == PPOConfig(clip_coef=0.2)
    assert set(OmegaConf.to_container(cfg.agent)) == set(names)


@pytest.fixture
def shorter():
    """An algorithm registered beside the package's, with its own default for a key it shares with them
    (an A2C's 5-step rollouts against 128), for the test's duration."""
    from dataclasses import dataclass

    from ppo_bench.agent.algos.config import RolloutConfig
    from ppo_bench.config.schema import register_configs
    from ppo_bench.registry import ALGOS, Algo

    @dataclass
    class Shorter(RolloutConfig):
        num_steps: int = 5
        bootstrap: bool = True
        """A key of its own."""

    globals()["SHORTER"] = Shorter
    ALGOS.add(Algo("shorter", "nowhere:Nothing", config=f"{__name__}:SHORTER"))
    register_configs()
    yield Shorter
    ALGOS.remove("shorter")
    del globals()["SHORTER"]
    register_configs()


def test_each_algorithm_gives_its_own_keys_their_defaults(shorter):
    """A key two algorithms share takes the default of the one that runs; another's key is not in a
    job's config, and set, it does not apply."""
    for algo, steps in (("reference", 128), ("ppo", 128), ("shorter", 5)):
        cfg = compose_config(f"agent.algo={algo}", "agent.num_steps=null", tiny=False)
        assert algo_config(cfg.agent).num_steps == steps
        agent = parent.identity_of(cfg).config["agent"]  # what its record keeps
        assert agent["num_steps"] == steps and ("bootstrap" in agent) == (algo == "shorter")
        assert ("clip_coef" in agent) == (algo == "ppo")
    validate(compose_config("agent.algo=shorter", "agent.bootstrap=false"))
    with pytest.raises(NotApplicable, match=r"^agent.bootstrap=false: agent.algo=ppo does not read it; "
                                            r"allowed with agent.algo=shorter$"):
        validate(compose_config("agent.algo=ppo", "agent.bootstrap=false"))


def test_two_algorithms_that_give_a_shared_key_two_types_are_refused_by_name():
    from dataclasses import dataclass

    from ppo_bench.agent.algos.config import RolloutConfig
    from ppo_bench.config.agent import agent_config
    from ppo_bench.registry import ALGOS, Algo

    @dataclass
    class Other(RolloutConfig):
        num_steps: float = 64.0

    ALGOS.add(Algo("other", "nowhere:Nothing", config=f"{__name__}:OTHER"))
    globals()["OTHER"] = Other
    try:
        with pytest.raises(ValueError, match=r"^agent.num_steps: agent.algo=other's Other gives it the type "
                                             r"<class 'float'>, agent.algo=reference's <class 'int'>; a shared key "
                                             r"has one type$"):
            agent_config()
    finally:
        ALGOS.remove("other")
        del globals()["OTHER"]


@pytest.mark.parametrize("mode", ["env_only", "agent_only"])
def test_a_learning_run_without_emulators_or_agent_does_not_apply(mode):
    with pytest.raises(NotApplicable, match=f"mode.name={mode}: a learning run needs emulators and an agent"):
        validate(compose_config("schedule=learn", "agent.algo=ppo", f"mode={mode}"))


def test_command_line_beats_the_preset():
    cfg = compose_config("+preset=quick", "schedule.reps=7", tiny=False)
    assert cfg.schedule.reps == 7 and cfg.schedule.bench_steps == 64


def test_slurm_launcher_config_composes():
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    cfg = compose_config("hydra/launcher=slurm", tiny=False)
    launcher = cfg.hydra.launcher
    assert launcher._target_.endswith("SlurmLauncher")
    assert (launcher.gpus_per_node, launcher.cpus_per_task, launcher.tasks_per_node) == (1, 16, 1)
    assert launcher.timeout_min == 60 and launcher.partition is None


@pytest.mark.parametrize("override", ["env.num_envs=eight", "schedule.reps=1.5", "agent.compile_on_cpu=maybe"])
def test_wrong_types_are_refused_by_the_schema(override):
    key = override.split("=")[0].split(".")[-1]
    with pytest.raises(ConfigCompositionException) as info:
        compose_config(override)
    assert key in str(info.value) + str(info.value.__cause__)


BAD_VALUES = [
    (["env.num_envs=0"], "env.num_envs=0: must be >= 1"),
    (["env.frameskip=0"], "env.frameskip=0: must be >= 1"),
    (["env.num_threads=0"], "env.num_threads=0: must be >= 1"),
    (["env.game=pongg"], "env.game=pongg: not a ROM that ale-py has; did you mean pong"),
    (["env.game=zzzz"], "env.game=zzzz: not a ROM that ale-py has"),
    (["agent.num_steps=0"], "agent.num_steps=0: must be >= 1"),
    (["agent.update_epochs=0"], "agent.update_epochs=0: must be >= 1"),
    (["agent.num_minibatches=0"], "agent.num_minibatches=0: must be >= 1"),
    (["agent.num_minibatches=3"], "agent.num_minibatches=3: must divide agent.num_steps=4"),
    (["agent.learning_rate=0"], "agent.learning_rate=0.0: must be > 0"),
    (["agent.name=resnet"], "agent.name=resnet: must be one of nature_cnn, impala_cnn"),
    (["schedule.reps=0"], "schedule.reps=0: must be >= 1"),
    (["schedule.bench_steps=0"], "schedule.bench_steps=0: must be >= 1"),
    (["schedule.warmup=0"], "schedule.warmup=0: must be >= 1"),
    (["mode=async", "env.num_envs=3"], "mode.groups=2: must divide env.num_envs=3"),
    (["mode.groups=0"], "mode.groups=0: must be >= 1"),
    (["mode.groups=2"], "mode.groups=2: only async, env_only, agent_only take groups > 1"),
    (["mode=async", "mode.groups=1"], "mode.groups=1: async in one batch is sendrecv"),
    (["env.backend=brax"], "env.backend=brax: must be one of ale, envpool, gymnasium"),
    (["agent.runtime=jit"], "agent.runtime=jit: must be one of compiled, graphed, eager"),
    (["mode.name=pipelined"], "mode.name=pipelined: must be one of step, sendrecv, async, env_only, agent_only"),
    (["device=tpu"], "device=tpu: must be one of auto, cuda, cpu"),
    (["env.upload=zero_copy"], "env.upload=zero_copy: must be one of pinned, pageable"),
    (["seed=-1"], "seed=-1: must be >= 0"),
    (["round=-1"], "round=-1: must be >= 0"),
    (["setup_batch=-1"], "setup_batch=-1: must be >= 0"),
]


@pytest.mark.parametrize("overrides,message", BAD_VALUES, ids=[b[0][-1] for b in BAD_VALUES])
def test_bad_values_are_refused_with_the_key_named(overrides, message):
    cfg = compose_config(*overrides)
    with pytest.raises(ValueError, match=re.escape(message)):
        validate(cfg)


def test_cuda_is_refused_where_there_is_none():
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(ValueError, match=re.escape("device=cuda: no CUDA device is visible here")):
        validate(compose_config("device=cuda"))


def test_graphed_is_refused_without_cuda():
    import torch

    with pytest.raises(ValueError, match=re.escape("agent.runtime=graphed: needs device=cuda or auto, not cpu")):
        validate(compose_config("agent.runtime=graphed"))  # the tiny config says device=cpu
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(ValueError, match=re.escape("agent.runtime=graphed: needs CUDA graphs and no CUDA device")):
        validate(compose_config("agent.runtime=graphed", "device=auto"))


def test_graphed_with_a_pageable_upload_does_not_apply(monkeypatch):
    """A relation, checked after every value (so a sweep can skip it): needs a CUDA machine, or one that says so."""
    import torch

    from ppo_bench.config.schema import NotApplicable

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    with pytest.raises(NotApplicable, match=re.escape("env.upload=pageable: agent.runtime=graphed uploads")):
        validate(compose_config("agent.runtime=graphed", "env.upload=pageable", "device=auto"))
    with pytest.raises(ValueError, match=re.escape("seed=-1")):  # a bad value still wins over the relation
        validate(compose_config("agent.runtime=graphed", "env.upload=pageable", "device=auto", "seed=-1"))


def test_a_refused_job_builds_nothing_and_writes_a_failed_result(tmp_path, monkeypatch):
    def must_not_build(*args, **kwargs):
        raise AssertionError("an environment or model was built for a refused job")

    monkeypatch.setattr(parent, "ChildJob", must_not_build)
    with pytest.raises(ValueError, match="env.num_envs=0"):
        parent.run(compose_config("env.num_envs=0"), output_dir=tmp_path)
    record = read_result(tmp_path / "result.json")
    assert record["status"] == "failed"
    assert record["error"] == "ValueError: env.num_envs=0: must be >= 1"
    assert "throughput" not in record


def test_meaningless_but_legal_settings_warn():
    assert warnings_for(compose_config()) == []
    notes = warnings_for(compose_config("schedule.bench_steps=3", "schedule.reps=1"))
    assert len(notes) == 2
    assert "no update falls inside the timed steps" in notes[0]
    assert "schedule.reps=1" in notes[1]


@pytest.mark.parametrize("preset", ["quick", "grid", "full", "quick_reference", "paired"])
def test_presets_time_a_training_loops_share_of_updates(preset):
    """Every preset's repetition holds at least 0.8 of the updates a training loop makes in as many
    steps (the reference's 1000 steps of 128-step rollouts hold 7 of 7.81): none warns."""
    assert not [n for n in warnings_for(compose_config(f"+preset={preset}", tiny=False)) if "reads faster" in n]


@pytest.mark.parametrize("bench_steps, num_steps, algo, warned", [
    (100, 64, "reference", True),     # 1 update where the loop makes 1.56
    (200, 128, "reference", True),
    (128, 128, "reference", False),   # one whole rollout
    (256, 128, "reference", False),
    (1000, 128, "reference", False),  # 7 of 7.81
    (200, 64, "reference", False),    # 3 of 3.12
    (200, 128, "ppo", False),         # ppo updates when its rollouts fill, whatever the repetition
])
def test_a_repetition_short_of_the_loops_updates_warns(bench_steps, num_steps, algo, warned):
    notes = warnings_for(compose_config(f"schedule.bench_steps={bench_steps}", f"agent.num_steps={num_steps}",
                                        f"agent.algo={algo}", "agent.num_minibatches=4"))
    said = [n for n in notes if "reads faster than the loop trains" in n]
    assert bool(said) == warned
    if warned:
        assert said == [f"schedule.bench_steps={bench_steps} with agent.num_steps={num_steps}: a timed repetition "
                        f"holds 1 update(s), counted from its start as the reference does, where a training loop "
                        f"makes {bench_steps / num_steps:.2f} in {bench_steps} loop steps, so it reads faster than "
                        f"the loop trains; a multiple of {num_steps} times whole rollouts"]


FINITE = [  # (key, what is allowed): every float key; inf, -inf and nan are refused by name
    ("agent.learning_rate", "> 0"), ("agent.gamma", "in (0, 1]"), ("agent.gae_lambda", "in [0, 1]"),
    ("agent.clip_coef", "> 0"), ("agent.vf_coef", ">= 0"), ("agent.ent_coef", ">= 0"),
    ("agent.max_grad_norm", "> 0"), ("schedule.target_return", "or null"), ("schedule.max_seconds", "> 0"),
    ("schedule.precision", "in (0, 1)"), ("schedule.max_measure_s", "> 0"), ("stall_timeout_s", "> 0"),
]


@pytest.mark.parametrize("value", ["inf", "-inf", "nan"])
@pytest.mark.parametrize("key,allowed", FINITE, ids=[f[0] for f in FINITE])
def test_non_finite_values_are_refused_naming_the_key(key, allowed, value):
    # a learning run, so that schedule.max_seconds is otherwise legal
    cfg = compose_config("agent.algo=ppo", "schedule=learn", "schedule.total_env_steps=64", f"{key}={value}")
    with pytest.raises(ValueError) as e:
        validate(cfg)
    assert str(e.value) == f"{key}={value}: must be a finite number {allowed}"
    assert not isinstance(e.value, NotApplicable)


def test_overlap_without_an_agent_is_skipped_not_run_twice():
    """env_only's figure does not depend on agent.overlap: a sweep crossing the two runs it once
    (skipped at true), and the collector lends it to the overlap group (test_collect_bounds)."""
    cfg = compose_config("mode=env_only", "agent.algo=ppo", "agent.runtime=eager", "agent.overlap=true")
    with pytest.raises(NotApplicable, match=r"agent.overlap=true: mode=env_only runs no agent.*use agent.overlap=false"):
        validate(cfg)
    validate(compose_config("mode=agent_only", "agent.algo=ppo", "agent.runtime=eager", "agent.overlap=true"))


def test_the_learn_fast_preset_overlaps_and_stops_at_its_target():
    cfg = compose_config("+preset=learn_fast", tiny=False)
    a, s = cfg.agent, cfg.schedule
    assert (a.algo, a.runtime, a.overlap, a.cudnn_benchmark) == ("ppo", "graphed", True, False)
    assert (a.normalize_obs, a.clip_around) == (True, "update_start")
    assert (a.num_steps, a.update_epochs, a.num_minibatches, a.clip_coef, a.ent_coef) == (32, 4, 8, 0.2, 0.001)
    assert (cfg.mode.name, cfg.mode.groups, cfg.env.num_envs) == ("async", 2, 64)
    assert (s.target_return, s.stop_at_target, s.return_window, s.max_seconds) == (18, True, 20, 240)
    validate(compose_config("+preset=learn_fast", "agent.runtime=eager", "device=cpu", tiny=False))


def test_stop_at_target_needs_a_learning_run_with_a_target():
    with pytest.raises(ValueError, match=r"^schedule.stop_at_target=true: needs a learning run"):
        validate(compose_config("schedule.stop_at_target=true"))
    with pytest.raises(ValueError, match=r"^schedule.stop_at_target=true: needs a learning run"):
        validate(compose_config("+preset=learn_fast", "schedule.target_return=null", "agent.runtime=eager",
                                "device=cpu", tiny=False))


def test_the_runners_process_imports_no_torch_to_check_a_cpu_config_or_describe_a_refused_job():
    """The runner's process checks every job's config while the fork server imports torch for the
    job (about 3 s on the H200, 1-2 s here): the check must not import it again (torch is only asked
    about CUDA: device=cuda, a runtime that needs it). Nor the provenance of a record the runner
    writes itself (a refused or stopped job): an import there delayed the record past a sweep's stop."""
    import subprocess
    import sys

    code = ("import sys\nfrom conftest import compose_config\nfrom ppo_bench.record import provenance\nfrom ppo_bench.job import parent\n"
            "parent.check(compose_config('agent.name=impala_cnn', 'device=cpu'), False)\n"
            "p = provenance.describe(gpu=False)\n"
            "print('torch' in sys.modules, 'ale_py' in sys.modules, bool(p['torch'] and p['ale_py']))")
    out = subprocess.run([sys.executable, "-c", code], cwd=CONF.parent / "tests", capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True", "True"]  # ale_py: the check reads its ROM list
