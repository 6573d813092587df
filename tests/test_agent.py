"""The agent's runtimes, the env adapter and the drivers: the same math and the same rows in every runtime.

The CUDA tests (graphed against eager) run on a GPU machine; on the CPU they
skip with the reason. The CPU tests cover the eager path, which every runtime's
math is, the adapter, and the rows each mode fills.
"""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf
from torch._dynamo.utils import counters

from conftest import compose_config
from toy_backend import SHAPE as TOY_SHAPE, ToyVectorEnv
from test_runner import ALE_RESET_DROP_ATTEMPTS
from ppo_bench.agent.make import make_agent
from ppo_bench.config.agent import narrowed_agent
from ppo_bench.env.backends import FRAME_SHAPE, make_vector_env as make_envs
from ppo_bench.loop.drivers import AgentOnlyDriver, EnvOnlyDriver, SendRecvDriver, StepDriver
from ppo_bench.env.torch_envs import TorchEnvs, Upload
from ppo_bench.agent.runtimes import Compiled
from ppo_bench.loop.observers import EachStep, Observer

CPU = torch.device("cpu")
CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="CUDA graphs need a CUDA device; run on the GPU machine")


def tiny_agent_cfg(**kw):
    """The tiny config's agent node as a job's process gets it: narrowed to its algorithm's keys, each
    at its value or that algorithm's default."""
    agent = compose_config(*[f"agent.{k}={v}" for k, v in kw.items()]).agent
    return OmegaConf.create(narrowed_agent(OmegaConf.to_container(agent)))


def Agent(cfg, num_actions: int, num_envs: int, device: torch.device, batch_size=None):
    """An agent built for the frames every backend gives (4 stacked 84x84)."""
    return make_agent(cfg, FRAME_SHAPE, num_actions, num_envs, device, batch_size)


def filled_rollout(agent, seed: int = 0) -> None:
    gen = torch.Generator().manual_seed(seed)
    b = agent.algo.buffers
    b.obs.copy_(torch.randint(0, 256, b.obs.shape, dtype=torch.uint8, generator=gen))
    b.actions.copy_(torch.randint(0, 6, b.actions.shape, generator=gen))
    b.values.copy_(torch.randn(b.values.shape, generator=gen))


def test_the_update_changes_the_parameters_and_leaves_no_nan():
    torch.manual_seed(0)
    for name in ("nature_cnn", "impala_cnn"):
        agent = Agent(tiny_agent_cfg(name=name, runtime="eager"), num_actions=6, num_envs=3, device=CPU)
        filled_rollout(agent)
        before = [p.detach().clone() for p in agent.algo.net.parameters()]
        agent.update()
        after = list(agent.algo.net.parameters())
        assert all(torch.isfinite(p).all() for p in after)
        changed = [not torch.equal(a, b) for a, b in zip(after, before)]
        assert all(changed), f"{name}: {changed.count(False)} parameter tensors did not move"


def test_the_update_follows_the_order_it_is_given():
    """Same state, same order: same parameters; another order: other parameters (the order is used)."""
    cfg = tiny_agent_cfg(runtime="eager")
    agents = []
    for _ in range(3):
        torch.manual_seed(1)
        agent = Agent(cfg, num_actions=6, num_envs=2, device=CPU)
        filled_rollout(agent)
        agents.append(agent)
    order = agents[0].algo.new_order()
    assert order.shape == (cfg.update_epochs, cfg.num_steps)
    assert all(sorted(row.tolist()) == list(range(cfg.num_steps)) for row in order)
    agents[0].update(order)
    agents[1].update(order.clone())
    agents[2].update(order.flip(1))
    nets = [a.algo.net for a in agents]
    same = [torch.equal(a, b) for a, b in zip(nets[0].parameters(), nets[1].parameters())]
    other = [torch.equal(a, b) for a, b in zip(nets[0].parameters(), nets[2].parameters())]
    assert all(same) and not all(other)


def test_networks_give_actions_and_values_per_frame():
    frames = torch.randint(0, 256, (5, *FRAME_SHAPE), dtype=torch.uint8)
    for name in ("nature_cnn", "impala_cnn"):
        agent = Agent(tiny_agent_cfg(name=name), num_actions=6, num_envs=5, device=CPU)
        assert isinstance(agent, Compiled) and not agent.compiled  # CPU: eager unless compile_on_cpu
        actions, values = agent.act(frames, 0, np.arange(5))
        assert actions.shape == (5,) and actions.dtype == torch.int64
        assert values.shape == (5,) and torch.isfinite(values).all()
        assert int(actions.min()) >= 0 and int(actions.max()) < 6
        assert np.array_equal(agent.actions_to_host(actions), actions.numpy())


def test_the_compiled_runtime_compiles_in_the_job_s_own_process(monkeypatch):
    """Inductor is asked for its compile threads as it compiles (whether to start its pool of
    compile workers, processes that would run beside the job's measurement): it gets 1 every time,
    where its own default on a machine of two cores or more is more than 1."""
    from torch._inductor import async_compile

    asked = []

    def spy():
        asked.append(real())
        return asked[-1]

    real = async_compile.get_compile_threads
    monkeypatch.setattr(async_compile, "get_compile_threads", spy)
    # this compiles in the test's own process: dynamo's counters are put back as they were, as
    # test_runner reads them to see that a sweep's jobs compiled apart from it
    saved = {k: Counter(v) for k, v in counters.items()}
    torch.compiler.reset()
    try:
        agent = Agent(tiny_agent_cfg(compile_on_cpu=True), num_actions=6, num_envs=2, device=CPU)
        frames = torch.randint(0, 256, (2, *FRAME_SHAPE), dtype=torch.uint8)
        actions, _ = agent.act(frames, 0, np.arange(2))
    finally:
        torch.compiler.reset()
        counters.clear()
        counters.update(saved)
    assert agent.compiled and actions.shape == (2,)
    assert asked and set(asked) == {1}, asked


def test_stores_land_in_the_rows_of_the_env_ids():
    agent = Agent(tiny_agent_cfg(runtime="eager"), num_actions=6, num_envs=4, device=CPU, batch_size=2)
    frames = torch.randint(0, 256, (2, *FRAME_SHAPE), dtype=torch.uint8)
    agent.act(frames, 3, np.array([3, 1]))  # stages the rows: rollout_step 3, envs 3 and 1
    agent.store(frames, torch.tensor([4, 5]), torch.tensor([0.5, -0.5]))
    b = agent.algo.buffers
    assert torch.equal(b.obs[3, 3], frames[0]) and torch.equal(b.obs[3, 1], frames[1])
    assert b.actions[3].tolist() == [0, 5, 0, 4]
    assert b.values[3].tolist() == [0.0, -0.5, 0.0, 0.5]
    assert not b.obs[:3].any() and not b.obs[3, [0, 2]].any()


@pytest.mark.parametrize("upload", ["pinned", "pageable"])
def test_the_adapter_returns_the_frames_plain_ale_py_returns(upload):
    """On a CUDA machine this checks both uploads' double buffering; on the CPU, the copy."""
    device = torch.device("cuda" if CUDA else "cpu")
    env_cfg = compose_config("env.num_envs=3").env
    plain, adapted = make_envs(env_cfg), TorchEnvs(make_envs(env_cfg), device, upload)
    try:
        obs, _ = plain.reset(seed=5)
        frames, ids = adapted.reset(5)
        assert torch.equal(frames.cpu(), torch.from_numpy(obs)) and ids.tolist() == [0, 1, 2]
        for t in range(6):
            actions = np.array([t % 6, (t + 1) % 6, (t + 2) % 6])
            if t % 2:  # both paths of the adapter: blocking step and send + recv
                obs = plain.step(actions)[0]
                frames = adapted.step(actions)[0]
            else:
                plain.send(actions)
                obs = plain.recv()[0]
                adapted.send(actions)
                frames = adapted.recv()[0]
            assert frames.device.type == device.type and frames.dtype == torch.uint8
            assert torch.equal(frames.cpu(), torch.from_numpy(obs))
        assert obs.any(), "all-zero frames would prove nothing"
    finally:
        plain.close()
        adapted.close()


class RecordingAgent:
    """Plays a fixed action schedule and keeps every frame each env id delivered (the drivers' calls)."""

    uploader = None

    def __init__(self, num_envs: int):
        self.seen: dict[int, list[np.ndarray]] = {i: [] for i in range(num_envs)}
        self.ids = None

    def start(self, ids): pass

    def observe(self, ids, rewards, terminations, truncations): pass

    def act(self, frames, rollout_step, ids):
        self.ids = ids
        return torch.full((frames.shape[0],), 3, dtype=torch.int64), torch.zeros(frames.shape[0])

    def actions_to_host(self, actions):
        return actions.numpy()

    def store(self, frames, actions, values):
        for row, env_id in enumerate(self.ids.tolist()):
            self.seen[env_id].append(frames[row].numpy().copy())


def trajectories(mode: str, num_envs: int, loop_steps: int) -> dict[int, list[np.ndarray]]:
    cfg = compose_config(f"mode={mode}", f"env.num_envs={num_envs}")
    groups = cfg.mode.groups if mode == "async" else 1
    agent = RecordingAgent(num_envs)
    envs = TorchEnvs(make_envs(cfg.env, groups), CPU)
    driver = StepDriver(envs, agent, 0) if mode == "step" else SendRecvDriver(envs, agent, 0, groups)
    for s in range(loop_steps):
        driver.step(s)
    driver.close()
    return agent.seen


def test_async_steps_the_right_envs():
    """Frames from async batches, matched by env id, equal each env's frames in a synchronous run."""
    n, steps = 8, 30  # not 4: ale-py 0.12's async batches starve env 3 of 4 (ALE issue #641)
    sync = trajectories("step", n, steps)
    assert any(not np.array_equal(sync[0][0], f) for f in sync[0][1:]), "the frames never changed"
    for mode in ("sendrecv", "async"):
        for attempt in range(ALE_RESET_DROP_ATTEMPTS):
            other = trajectories(mode, n, steps)
            for env_id in range(n):  # every frame that came back belongs to the env it is filed under
                for t in range(min(len(sync[env_id]), len(other[env_id]))):
                    assert np.array_equal(sync[env_id][t], other[env_id][t]), f"{mode}: env {env_id} differs at step {t}"
            if mode == "async" and min(map(len, other.values())) == 0:
                continue  # ale-py lost an env's reset result (see ALE_RESET_DROP_ATTEMPTS)
            advanced = {env_id: len(frames) for env_id, frames in other.items()}
            assert min(advanced.values()) >= steps // 3, f"{mode}: some env hardly advanced: {advanced}"
            break
        else:
            pytest.fail(f"ale-py dropped an env in {ALE_RESET_DROP_ATTEMPTS} fresh async runs")


def test_env_only_in_batches_steps_every_env():
    """env_only with groups drives send/recv batches as async does: n env steps per loop step, and
    each env its share. On the toy env, whose batches come back in a fixed rotation, so that this
    is decided by the driver alone (ale-py's own threads starve an env now and then on a loaded
    machine: ALE #641)."""
    envs = ToyVectorEnv(SimpleNamespace(num_envs=8), groups=2)
    driver = EnvOnlyDriver(envs, None, 0, 2)
    for s in range(20):
        driver.step(s)
    driver.close()
    assert envs.closed and envs.batch_size == 4
    assert driver.env_steps.tolist() == [20] * 8


def test_env_only_in_batches_counts_every_batch_ale_py_returns():
    """The same driver over ale-py: every batch it returns is counted (a sum ale-py's races cannot change)."""
    cfg = compose_config("mode=env_only", "mode.groups=2", "env.num_envs=8")
    driver = EnvOnlyDriver(make_envs(cfg.env, cfg.mode.groups), None, 0, cfg.mode.groups)
    try:
        assert driver.envs.batch_size == 4
        for s in range(20):
            driver.step(s)
    finally:
        driver.close()
    assert driver.env_steps.sum() == 8 * 20


def test_agent_only_fills_every_row_of_the_rollout():
    agent = Agent(tiny_agent_cfg(runtime="eager"), num_actions=6, num_envs=4, device=CPU, batch_size=2)
    driver = AgentOnlyDriver(Upload((2, *FRAME_SHAPE), CPU), agent, seed=0, groups=2)
    for rollout_step in range(agent.algo.cfg.num_steps):
        driver.step(rollout_step)
    assert agent.algo.buffers.obs.flatten(2).any(-1).all(), "a rollout row was never written"


def test_agent_only_uploads_its_frames_every_step_as_the_loop_does():
    """The chain bound's t_agent holds the frames' upload (the loop pays it between a batch's frames
    and its actions): the job's agent_only sends its host frames up once per batch, and the phase
    clock charges that to `upload`."""
    from ppo_bench.job.child import build
    from ppo_bench.loop.phases import PhaseClock

    cfg = compose_config("mode=agent_only", "mode.groups=2", "env.num_envs=4", "agent.algo=ppo",
                         "agent.runtime=eager", "device=cpu")
    driver = build(cfg, CPU)
    uploaded = []
    frames = driver.upload.frames
    driver.upload.frames = lambda obs: uploaded.append(obs.copy()) or frames(obs)
    clock = PhaseClock(driver)
    for rollout_step in range(3):
        driver.step(rollout_step)
    clock.restore()
    assert len(uploaded) == 3 * 2 and uploaded[0].shape == (2, *FRAME_SHAPE)
    assert clock.seconds["upload"] > 0 and clock.seconds["inference"] > 0
    assert all(np.array_equal(u, driver.frames) for u in uploaded)
    stored = driver.agent.algo.buffers.obs
    stored = stored[(stored.flatten(1) != 0).any(1)]  # the rows the three steps wrote: the uploaded frames
    host = torch.from_numpy(driver.frames)
    assert len(stored) == 3 * 4 and all((row == host).flatten(1).all(1).any() for row in stored)


# --- what the drivers tell -----------------------------------------------------------------

class Listener(Observer):
    """Keeps what it is told, in order."""

    hears_phases = True

    def __init__(self):
        self.heard = []

    def on_step(self, rollout_step):
        self.heard.append(("step", rollout_step))

    def begin(self, phase):
        self.heard.append(("begin", phase))

    def end(self, phase):
        self.heard.append(("end", phase))


def calls(phases: list[str]) -> list[tuple[str, str]]:
    return [event for phase in phases for event in (("begin", phase), ("end", phase))]


@pytest.mark.parametrize("groups", [1, 2])
def test_a_driver_tells_its_observers_each_call_and_each_loop_step_and_is_not_patched(groups):
    """Every call into the emulators and the agent is told as its phase, each loop step's end after
    them; the progress counter (`EachStep`) counts loop steps. Nothing of the driver is replaced:
    its `step` is its class's."""
    agent = make_agent(tiny_agent_cfg(runtime="eager", algo="ppo"), TOY_SHAPE, 3, 4, CPU, 4 // groups)
    envs = TorchEnvs(ToyVectorEnv(SimpleNamespace(num_envs=4), groups=groups), CPU)
    driver = StepDriver(envs, agent, 0) if groups == 1 else SendRecvDriver(envs, agent, 0, groups)
    listener, counted = Listener(), []
    driver.observers.add(listener)
    driver.observers.add(EachStep(lambda: counted.append(1)))
    for rollout_step in range(2):
        driver.step(rollout_step)
    driver.close()
    if groups == 1:
        one = calls(["inference", "stores", "action_download", "emulators", "observe"])
        assert listener.heard == [*one, ("step", 0), *one, ("step", 1)]
    else:  # the reset batch stands in for the first recv; every other batch is received and observed
        batch = calls(["emulators", "inference", "action_download", "emulators", "stores", "observe"])
        first = calls(["inference", "action_download", "emulators", "stores"])
        assert listener.heard == [*first, *batch, ("step", 0), *batch, *batch, ("step", 1)]
    assert counted == [1, 1] and "step" not in vars(driver)


def test_a_phase_clock_hears_the_update_from_the_loop_and_leaves_nothing_behind():
    from ppo_bench.loop.phases import PHASES, PhaseClock
    from ppo_bench.loop.run import run_loop

    agent = make_agent(tiny_agent_cfg(runtime="eager"), TOY_SHAPE, 3, 2, CPU)
    driver = StepDriver(TorchEnvs(ToyVectorEnv(SimpleNamespace(num_envs=2)), CPU), agent, 0)
    clock = PhaseClock(driver)
    run_loop(driver, until=lambda s: s >= agent.rollout_steps)  # one update, after the last rollout_step
    clock.restore()
    assert agent.updates == 1 and list(clock.seconds) == list(PHASES)
    assert all(clock.seconds[p] > 0 for p in ("emulators", "inference", "update"))
    seconds = dict(clock.seconds)
    run_loop(driver, until=lambda s: s >= 2)
    driver.close()
    assert clock.seconds == seconds and "step" not in vars(driver)


# --- graphed against eager, on CUDA -------------------------------------------------------

def twin_agents(num_envs: int, batch_size: int, name: str = "nature_cnn"):
    """An eager and a graphed agent with the same parameters."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cuda = torch.device("cuda")
    eager = Agent(tiny_agent_cfg(name=name, runtime="eager"), 6, num_envs, cuda, batch_size)
    graphed = Agent(tiny_agent_cfg(name=name, runtime="graphed"), 6, num_envs, cuda, batch_size)
    graphed.algo.net.load_state_dict(eager.algo.net.state_dict())
    return eager, graphed


def plain_steps(*agents) -> None:
    """Adam with eps 1 for update comparisons: with eps 1e-8 its first steps move an element
    by about lr whatever the sign noise of a near-zero gradient, so cuDNN's choice of algorithm
    (graphed buffers may get another) moved IMPALA's parameters apart by up to 30% of the move
    on the H200; with eps 1 each move is about lr x gradient and the runtimes agree to 1e-3."""
    for agent in agents:
        for group in agent.algo.opt.param_groups:
            group["eps"] = 1.0


@needs_cuda
@pytest.mark.parametrize("name", ["nature_cnn", "impala_cnn"])
@pytest.mark.parametrize("groups", [1, 2])
def test_graphed_acts_and_stores_as_eager_does(name, groups):
    """Same frames: same actions and values, and the same rollout rows (async batches too)."""
    n, batch = 4, 4 // groups
    eager, graphed = twin_agents(n, batch, name)
    gen = np.random.default_rng(0)
    for rollout_step in range(eager.algo.cfg.num_steps):
        for g in range(groups):
            obs = gen.integers(0, 256, (batch, *FRAME_SHAPE), dtype=np.uint8)
            ids = gen.permutation(n)[:batch] if rollout_step % 2 else np.arange(g * batch, (g + 1) * batch)
            frames = torch.from_numpy(obs).cuda()
            a_e, v_e = eager.act(frames, rollout_step, ids)
            host_e = eager.actions_to_host(a_e).copy()
            eager.store(frames, a_e, v_e)
            a_g, v_g = graphed.act(graphed.uploader(obs), rollout_step, ids)
            host_g = graphed.actions_to_host(a_g).copy()
            graphed.store(None, a_g, v_g)
            assert np.array_equal(host_e, host_g)
            torch.testing.assert_close(v_g, v_e, rtol=1e-4, atol=1e-5)
    e, g = eager.algo.buffers, graphed.algo.buffers
    assert torch.equal(g.obs, e.obs)
    assert torch.equal(g.actions, e.actions)
    torch.testing.assert_close(g.values, e.values, rtol=1e-4, atol=1e-5)


def move_gaps(before, reference, other) -> list[float]:
    """Per parameter tensor: |move_other - move_reference| / |move_reference|."""
    gaps = []
    for b, p_r, p_o in zip(before, reference.algo.net.parameters(), other.algo.net.parameters()):
        move_r, move_o = p_r.detach() - b, p_o.detach() - b
        assert move_r.norm() > 0, "the update did not move a parameter tensor"
        gaps.append(float((move_o - move_r).norm() / move_r.norm()))
    return gaps


@needs_cuda
@pytest.mark.parametrize("name", ["nature_cnn", "impala_cnn"])
def test_graphed_update_gives_the_parameters_eager_gives(name):
    """From the same state and minibatch order, a graphed update moves the parameters as an eager one.

    "As" up to the noise eager has against itself: some CUDA backward kernels
    (IMPALA's overlapping max-pool) add with atomics in no fixed order, and
    Adam's first steps move each element by about lr whatever its gradient's
    size, so two eager updates of near-zero gradients can differ by a visible
    fraction of the move. Graphed may differ from eager by no more than twice
    that, plus 1%: an update that did nothing, or something else, is off by
    the whole move (gap 1). The first update captures, the second replays.
    """
    eager, graphed = twin_agents(4, 4, name)
    again = Agent(tiny_agent_cfg(name=name, runtime="eager"), 6, 4, eager.device, 4)
    again.algo.net.load_state_dict(eager.algo.net.state_dict())
    plain_steps(eager, graphed, again)
    for agent in (eager, graphed, again):
        filled_rollout(agent)
    for _ in range(2):
        before = [p.detach().clone() for p in eager.algo.net.parameters()]
        order = eager.algo.new_order()
        for agent in (eager, graphed, again):
            agent.update(order)
        noise, gaps = move_gaps(before, eager, again), move_gaps(before, eager, graphed)
        for i, (gap, own) in enumerate(zip(gaps, noise)):
            assert gap <= 2 * own + 0.01, f"tensor {i}: graphed off by {gap:.3g} of the move, eager by {own:.3g}"
        with torch.no_grad():  # the next update starts from one state again
            for agent in (graphed, again):
                for p, p_e in zip(agent.algo.net.parameters(), eager.algo.net.parameters()):
                    p.copy_(p_e)
