"""ale-py, envpool and gymnasium behind one interface: same frames, same ids, same refusals."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from ale_py.vector_env import AtariVectorEnv

from conftest import ROOT, compose_config
from ppo_bench.env import backends
from ppo_bench import registry
from ppo_bench.env.backends import make_vector_env
from ppo_bench.config.schema import validate
from ppo_bench.env.torch_envs import DuplicateEnvError, TorchEnvs

BACKENDS = ("ale", "envpool", "gymnasium")
ALE_RESET_DROP_ATTEMPTS = 3  # as in test_runner: ale-py's async batches now and then lose an env (ALE #641)


def env_cfg(backend: str, num_envs: int = 2, num_threads: int | None = None) -> SimpleNamespace:
    return SimpleNamespace(game="pong", num_envs=num_envs, frameskip=5, num_threads=num_threads, backend=backend)


@pytest.fixture
def opened():
    """Vector envs made through this list are closed after the test, also when it fails."""
    envs = []
    yield envs
    for e in envs:
        e.close()


def make(opened, backend: str, groups: int = 1, **kw):
    e = make_vector_env(env_cfg(backend, **kw), groups)
    opened.append(e)
    return e


@pytest.mark.parametrize("backend", BACKENDS)
def test_frames_spaces_and_step_results_look_alike(backend, opened):
    n_actions = make(opened, "ale", num_envs=1).single_action_space.n  # ale-py's minimal set
    e = make(opened, backend)
    assert (e.num_envs, e.batch_size) == (2, 2)
    space = e.single_observation_space
    assert (space.shape, space.dtype, space.low.min(), space.high.max()) == ((4, 84, 84), np.uint8, 0, 255)
    assert e.single_action_space.n == n_actions == 6
    obs, info = e.reset(seed=0)
    assert obs.shape == (2, 4, 84, 84) and obs.dtype == np.uint8
    assert info["env_id"].tolist() == [0, 1]
    for t in range(12):
        obs, rewards, terminations, truncations, info = e.step(np.full(2, t % 6, dtype=np.int64))
        assert obs.shape == (2, 4, 84, 84) and obs.dtype == np.uint8
        assert rewards.dtype == np.int32 and set(rewards.tolist()) <= {-1, 0, 1}
        assert terminations.dtype == truncations.dtype == np.bool_ and terminations.shape == (2,)
        assert info["env_id"].dtype == np.int32
    # The same grey levels in every backend: Pong's darkest 52, brightest 236, background 87.
    newest = obs[:, -1]
    assert (int(newest.min()), int(newest.max()), int(np.bincount(newest.ravel()).argmax())) == (52, 236, 87)
    assert 95 < float(newest.mean()) < 118


@pytest.mark.parametrize("backend", BACKENDS)
def test_step_and_send_recv_return_every_env_each_time(backend, opened):
    e = make(opened, backend, num_envs=3)
    _, info = e.reset(seed=1)
    assert info["env_id"].tolist() == [0, 1, 2]
    steps = np.zeros(3, dtype=np.int64)
    actions = np.zeros(3, dtype=np.int64)
    for _ in range(4):
        info = e.step(actions)[-1]
        assert info["env_id"].tolist() == [0, 1, 2]
        steps[info["env_id"]] += 1
    for _ in range(4):
        e.send(actions)
        info = e.recv()[-1]
        assert info["env_id"].tolist() == [0, 1, 2]
        steps[info["env_id"]] += 1
    assert steps.tolist() == [8, 8, 8]
    e.send(actions)  # closing with a send outstanding must not hang (the sendrecv driver does it)


def async_run(opened, backend: str, num_envs: int, groups: int, loop_steps: int) -> np.ndarray:
    """Per-env batch counts over reset + loop_steps recv/send rounds; checks every batch on the way."""
    # the default threads for async batches (a core left to this loop): with more threads than cores
    # ale-py 0.12.1 returns an env twice now and then, which this test would take for the adapter's fault
    e = make(opened, backend, groups, num_envs=num_envs)
    batch = num_envs // groups
    assert (e.num_envs, e.batch_size) == (num_envs, batch)
    counts = np.zeros(num_envs, dtype=np.int64)
    obs, info = e.reset(seed=0)  # the first batch to finish resetting, as ale-py does
    for _ in range(loop_steps + 1):
        ids = info["env_id"]
        assert obs.shape == (batch, 4, 84, 84) and ids.shape == (batch,)
        assert len(set(ids.tolist())) == batch, f"{backend}: an env twice in one batch: {ids}"
        assert 0 <= ids.min() and ids.max() < num_envs
        counts[ids] += 1
        e.send(np.zeros(batch, dtype=np.int64))
        obs, _, _, _, info = e.recv()
    return counts


@pytest.mark.parametrize("backend", ["ale", "envpool"])
def test_async_batches_step_every_env(backend, opened):
    n, groups, loop_steps = 6, 2, 60
    for attempt in range(ALE_RESET_DROP_ATTEMPTS if backend == "ale" else 1):
        counts = async_run(opened, backend, n, groups, loop_steps)
        assert counts.sum() == (loop_steps + 1) * n // groups
        if counts.min() > 0:
            break
    else:
        pytest.fail(f"{backend}: an env never came back in a batch: {counts}")


def test_reset_frames_of_the_same_seed_and_their_stacking(opened):
    """The newest frame after reset is the same in ale-py and envpool (Pong's reset screen);
    ale-py pads the stack with zeros, envpool repeats the reset frame, gymnasium pads with zeros."""
    frames = {backend: make(opened, backend).reset(seed=7)[0] for backend in BACKENDS}
    for name, obs in frames.items():
        assert obs[:, -1].any(), f"{name}: an all-zero reset frame proves nothing"
    assert not frames["ale"][:, :3].any() and not frames["gymnasium"][:, :3].any()
    assert all(np.array_equal(frames["envpool"][:, k], frames["envpool"][:, -1]) for k in range(3))
    assert np.array_equal(frames["ale"][:, -1], frames["envpool"][:, -1])


@pytest.mark.parametrize("backend", ["envpool", "gymnasium"])
def test_without_reset_noops_the_frames_equal_ale_py_frame_for_frame(backend, opened, monkeypatch):
    """Same emulator, grey palette, resize, max-pool and frame skip: with the random reset no-ops
    off, every frame matches ale-py's (gymnasium has no FIRE at reset, so ale-py's is off there too)."""
    monkeypatch.setattr(backends, "NOOP_MAX", 1 if backend == "envpool" else 0)  # 1: envpool's "no no-ops"
    other = make(opened, backend)
    ale = AtariVectorEnv(game="pong", num_envs=2, frameskip=5, num_threads=2, noop_max=1,
                         use_fire_reset=backend == "envpool")
    opened.append(ale)
    a, b = ale.reset(seed=3)[0], other.reset(seed=3)[0]
    assert np.array_equal(a[:, -1], b[:, -1])
    changed = False
    for t in range(30):
        actions = np.full(2, t % 6, dtype=np.int64)
        a, b = ale.step(actions)[0], other.step(actions)[0]
        assert np.array_equal(a[:, -1], b[:, -1]), f"{backend} differs from ale-py at step {t}"
        changed |= not np.array_equal(a[:, -1], a[:, -2])
    assert np.array_equal(a, b), "after 4 steps the whole stack must match"
    assert changed, "frames that never change prove nothing"


@pytest.mark.parametrize("backend", ["envpool", "gymnasium"])
def test_the_torch_adapter_runs_on_every_backend(backend, opened):
    envs = TorchEnvs(make(opened, backend), torch.device("cpu"))
    frames, ids = envs.reset(0)
    assert frames.shape == (2, 4, 84, 84) and frames.dtype == torch.uint8 and ids.tolist() == [0, 1]
    frames, ids = envs.step(np.zeros(2, dtype=np.int64))[:2]  # the agent hands numpy int64 actions
    envs.send(np.ones(2, dtype=np.int64))
    frames, ids = envs.recv()[:2]
    assert frames.shape == (2, 4, 84, 84) and ids.tolist() == [0, 1]


class RepeatingVectorEnv:
    """Two async batches of 2 from 4 envs; the second recv repeats env 3, as ale-py 0.12.1 does
    when its emulator threads are starved (docs/results/2026-11-30-h200/ale_duplicate_env)."""

    num_envs, batch_size = 4, 2
    single_observation_space = SimpleNamespace(shape=(4, 84, 84))
    batches = iter([[0, 1], [3, 3]])

    def send(self, actions):
        pass

    def recv(self):
        ids = np.array(next(self.batches), dtype=np.int32)
        zeros = np.zeros(2, dtype=bool)
        return np.zeros((2, 4, 84, 84), np.uint8), np.zeros(2, np.int32), zeros, zeros, {"env_id": ids}


def test_a_batch_that_repeats_an_env_stops_the_run_naming_the_env():
    envs = TorchEnvs(RepeatingVectorEnv(), torch.device("cpu"))
    assert envs.recv()[1].tolist() == [0, 1]
    with pytest.raises(DuplicateEnvError, match=r"returned env 3 more than once in one batch of 2 of 4 envs"):
        envs.recv()


def test_a_full_batch_is_not_checked_and_async_batches_are(opened):
    """The check costs a set per async batch; a full batch (a slot per env) cannot repeat one."""
    assert not TorchEnvs(make(opened, "ale", num_envs=2), torch.device("cpu"))._check_ids
    assert TorchEnvs(make(opened, "ale", groups=2, num_envs=2), torch.device("cpu"))._check_ids


@pytest.mark.parametrize("backend,module,line", [
    ("envpool", "envpool", 'env.backend=envpool: the envpool package is not installed; pip install -e ".[envpool]"'),
    ("gymnasium", "cv2", "env.backend=gymnasium: the opencv package (cv2, which gymnasium's AtariPreprocessing "
                         'needs) is not installed; pip install -e ".[gymnasium]"'),
])
def test_a_missing_package_is_refused_in_one_line_naming_the_extra(backend, module, line, monkeypatch):
    real = registry.importlib.util.find_spec
    monkeypatch.setattr(registry.importlib.util, "find_spec", lambda name, *a: None if name == module else real(name, *a))
    cfg = compose_config(f"env.backend={backend}")
    with pytest.raises(ValueError) as info:
        validate(cfg)
    assert str(info.value) == line
    with pytest.raises(ValueError) as info:
        make_vector_env(env_cfg(backend))
    assert str(info.value) == line


def test_gymnasium_refuses_groups_in_one_line():
    with pytest.raises(ValueError) as info:
        validate(compose_config("env.backend=gymnasium", "mode=async", "env.num_envs=4"))
    message = str(info.value)
    assert "\n" not in message and message.startswith("mode.groups=2: env.backend=gymnasium")
    assert "no async batches" in message and "batch_size" in message and "env_id" in message
    with pytest.raises(ValueError, match="mode.groups=2: env.backend=gymnasium"):
        make_vector_env(env_cfg("gymnasium", num_envs=4), groups=2)
    # Modes without batches, and agent_only (no emulators), are fine.
    for overrides in (["mode=sendrecv"], ["mode=agent_only", "mode.groups=2"]):
        validate(compose_config("env.backend=gymnasium", "env.num_envs=4", *overrides))
    for backend in ("ale", "envpool"):
        validate(compose_config(f"env.backend={backend}", "mode=async", "env.num_envs=4"))


def test_checking_the_ale_backend_imports_no_other_backend():
    code = ("import sys; from ppo_bench.config.schema import validate; from ppo_bench.registry import BACKENDS; "
            "from conftest import compose_config; "
            "validate(compose_config('env.backend=ale', 'mode=async', 'env.num_envs=4')); "
            "assert BACKENDS['envpool'].missing() is None and BACKENDS['gymnasium'].missing() is None; "
            "print(sorted(m for m in ('envpool', 'cv2') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "tests", capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
    assert registry.BACKENDS["ale"].batches and registry.BACKENDS["ale"].missing() is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_phase_clock_sees_every_backends_emulators(backend):
    """env_only's bare vector env and step's adapter both charge their waits to `emulators`."""
    from ppo_bench.loop.drivers import EnvOnlyDriver
    from ppo_bench.loop.phases import PhaseClock

    driver = EnvOnlyDriver(make_vector_env(env_cfg(backend)), None, seed=0)
    try:
        clock = PhaseClock(driver)
        for rollout_step in range(3):
            driver.step(rollout_step)
        clock.restore()
        assert clock.seconds["emulators"] > 0
    finally:
        driver.close()


def test_async_batches_leave_a_core_to_the_loop_by_default(monkeypatch):
    """ale-py 0.12.1's async batches lose envs when its threads are short of CPU: by default they get
    the cores this process may use less one; one batch of all envs keeps the reference's count."""
    from ppo_bench.env.backends import num_threads

    cfg = SimpleNamespace(num_threads=None, num_envs=32)
    for cores, batched in ((16, 15), (2, 1), (1, 1), (64, 16)):
        monkeypatch.setattr(backends.os, "sched_getaffinity", lambda pid, n=cores: set(range(n)))
        assert num_threads(cfg, groups=2) == batched
        assert num_threads(cfg, groups=1) == 16
    assert num_threads(SimpleNamespace(num_threads=24, num_envs=32), groups=2) == 24  # asked for: as asked
    assert num_threads(SimpleNamespace(num_threads=None, num_envs=4), groups=1) == 4
