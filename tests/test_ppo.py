"""agent.algo=ppo: each env's rows in time order whatever batch it came back in, the step results
in the rows they belong to (reset steps masked), a policy that learns, and graphed = eager on CUDA.

A scripted vector env stands in for ale-py where the right answer must be known: its frames
say which env and which step of which episode they are, its rewards depend on the action,
and it resets one step after an episode ends (next-step autoreset), in async batches of
envs drawn at random, as ale-py's can come back in any order.
"""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest
import torch
from gymnasium.spaces import Box, Discrete

from conftest import compose_config
from test_agent import CPU, move_gaps, needs_cuda, plain_steps
from test_runner import run_job
from ppo_bench.job import parent
from ppo_bench.agent.make import make_agent
from ppo_bench.env.backends import FRAME_SHAPE
from ppo_bench.loop.drivers import EnvOnlyDriver, SendRecvDriver, StepDriver, drain
from ppo_bench.env.torch_envs import DuplicateEnvError, TorchEnvs
from ppo_bench.loop.run import run_loop
from ppo_bench.record.results import read_result
from ppo_bench.agent.algos.onpolicy.rollout import RolloutIndex


class ScriptedVectorEnv:
    """ale-py's vector-env interface over scripted episodes of `length` steps.

    Frame pixels [0, 0, 0..2] hold env id, step within the episode and episode
    number. Action a earns reward `rewards[a]` (unclipped); the step that ends an
    episode reports terminated, and the next step is a reset step (reward 0,
    flags False, the new episode's first frame). With batch_size < num_envs,
    reset returns the first batch and recv returns the `batch_size` envs that
    have waited longest (an action sent, or a reset frame not yet delivered),
    in random order, except that half the time the last of them swaps with the
    next in line: as with ale-py's threads, batches mix and envs lag a step,
    but every env comes back once a cycle.
    """

    def __init__(self, num_envs: int, batch_size: int, length: int = 5, rewards=(-3, 2), seed: int = 0):
        self.num_envs, self.batch_size, self.length = num_envs, batch_size, length
        self.rewards = np.asarray(rewards)
        self.single_observation_space = Box(0, 255, FRAME_SHAPE, np.uint8)
        self.single_action_space = Discrete(len(rewards))
        self.rng = np.random.default_rng(seed)
        self.t = np.zeros(num_envs, dtype=np.int64)
        self.episode = np.zeros(num_envs, dtype=np.int64)
        self.ended = np.zeros(num_envs, dtype=bool)
        self.waiting: dict[int, int | None] = {}  # env -> action sent (None: reset frame not delivered)
        self.last_ids = None

    def _obs(self, ids):
        obs = np.zeros((len(ids), *FRAME_SHAPE), dtype=np.uint8)
        obs[:, 0, 0, 0], obs[:, 0, 0, 1], obs[:, 0, 0, 2] = ids, self.t[ids], self.episode[ids]
        return obs

    def reset(self, seed=None):
        ids = np.arange(self.batch_size)
        self.waiting = {e: None for e in range(self.batch_size, self.num_envs)}
        self.last_ids = ids
        return self._obs(ids), {"env_id": ids.astype(np.int32)}

    def send(self, actions):
        for e, a in zip(self.last_ids, actions):
            self.waiting[int(e)] = int(a)

    def recv(self):
        queue, b = list(self.waiting), self.batch_size  # dicts keep the order actions were sent in
        if len(queue) > b and self.rng.random() < 0.5:
            queue[b - 1], queue[b] = queue[b], queue[b - 1]
        ids = self.rng.permutation(queue[:b])
        rew = np.zeros(len(ids), dtype=np.int32)
        term = np.zeros(len(ids), dtype=bool)
        for j, e in enumerate(ids):
            action = self.waiting.pop(int(e))
            if action is None:  # a reset frame that reset() did not return
                continue
            if self.ended[e]:  # reset step
                self.ended[e], self.t[e] = False, 0
                self.episode[e] += 1
                continue
            rew[j] = self.rewards[action]
            self.t[e] += 1
            if self.t[e] == self.length:
                term[j] = self.ended[e] = True
        self.last_ids = ids
        return self._obs(ids), rew, term, np.zeros(len(ids), dtype=bool), {"env_id": ids.astype(np.int32)}

    def step(self, actions):
        self.send(actions)
        return self.recv()

    def close(self):
        pass


def ppo_cfg(**kw):
    kw = {"runtime": "eager", "algo": "ppo", "num_steps": 8, "num_minibatches": 2, **kw}
    return compose_config(*[f"agent.{k}={v}" for k, v in kw.items()]).agent


def scripted_driver(num_envs: int, groups: int, cfg, seed: int = 0, device=CPU, **env_kw):
    envs = ScriptedVectorEnv(num_envs, num_envs // groups, seed=seed, **env_kw)
    agent = make_agent(cfg, FRAME_SHAPE, len(envs.rewards), num_envs, device, num_envs // groups)
    adapter = TorchEnvs(envs, device, uploader=agent.uploader)
    if groups == 1 and seed % 2 == 0:
        return StepDriver(adapter, agent, seed)
    return SendRecvDriver(adapter, agent, seed, groups)


def rollout_rows(index: RolloutIndex) -> np.ndarray:
    """The flat rows of the transitions in the rollouts now."""
    return np.concatenate([((index.base[e] + np.arange(index.lengths[e])) % index.ring) * index.num_envs + e
                           for e in range(index.num_envs)])


def fill_rollout(driver) -> int:
    """Step until the first update is due; return the loop steps taken."""
    s = 0
    while not driver.agent.update_after(s):
        driver.step(s)
        s += 1
    return s


# --- the host index ---------------------------------------------------------------------------

def test_rollout_index_rows_lengths_and_due():
    index = RolloutIndex(num_steps=3, num_envs=2)
    index.start(np.array([1]))  # env 1's reset frame came from reset(), env 0's comes with a recv
    assert index.act_rows(np.array([1])).tolist() == [1]  # row 0 of env 1
    # a frame brings the results of the row acted on the env's frame before it, nothing for a reset frame
    assert index.result_rows(np.array([0, 1])).tolist() == [index.trash, 1]
    assert index.arrive(np.array([0, 1])).tolist() == [index.trash, 1]
    assert index.act_rows(np.array([1, 0])).tolist() == [1 * 2 + 1, 0]
    assert index.arrive(np.array([0])).tolist() == [0]  # observed after acting on env 1 again: the same rows
    assert index.arrive(np.array([1])).tolist() == [3]
    assert index.lengths.tolist() == [0, 1]  # an env's last acted step has no results yet
    for _ in range(2):
        index.act_rows(np.array([0, 1]))
    assert index.lengths.tolist() == [2, 3] and not index.due()  # 5 of 3 x 2 transitions
    index.act_rows(np.array([0]))
    assert index.due()
    index.advance()  # each env's next rollout starts at its last acted row (its bootstrap)
    assert index.base.tolist() == [3, 3] and index.lengths.tolist() == [0, 0]
    assert index.act_rows(np.array([0])).tolist() == [4 * 2 + 0]


def test_a_starved_env_never_blocks_updates_nor_is_overwritten():
    """Env 2 comes back once in a long while: updates still fall due (the others' transitions make up
    the samples, or an env nears the ring's size), and no acted row is reached twice by the ring."""
    index = RolloutIndex(num_steps=4, num_envs=3, batches=1)
    rng, updates, live = np.random.default_rng(0), 0, {}
    for step in range(400):
        ids = np.array([0, 1, 2]) if step % 37 == 0 else rng.permutation([0, 1])
        for e, row in zip(ids, index.act_rows(ids)):
            live[int(row)] = (int(e), int(index.acted[e]) - 1)  # which env's which step lies in that row
        if index.due():
            # every row of every rollout still holds that env's step: nothing was overwritten
            for e in range(3):
                for k in range(int(index.base[e]), int(index.acted[e])):
                    assert live[(k % index.ring) * 3 + e] == (e, k)
            index.advance()
            updates += 1
    assert updates > 50


# --- the rows a rollout holds -----------------------------------------------------------------

@pytest.mark.parametrize("groups, seed", [(1, 0), (1, 1), (2, 2), (4, 3)],
                         ids=["step", "sendrecv", "async-2", "async-4"])
def test_each_env_s_rows_are_its_steps_in_time_order_with_their_results(groups, seed):
    torch.manual_seed(seed)
    driver = scripted_driver(8, groups, ppo_cfg(), seed=seed)
    agent, n = driver.agent, 8
    steps = agent.algo.cfg.num_steps
    fill_rollout(driver)
    lengths = agent.algo.index.lengths
    assert lengths.sum() == steps * n and lengths.min() >= steps // 2
    agent.algo.prepare_update()  # the buffers as the update reads them (the last results written)
    obs = agent.algo.buffers.obs[:-1].view(2 * steps, n, *FRAME_SHAPE)[:, :, 0, 0, :3].numpy().astype(int)
    act = agent.algo.buffers.actions[:-1].view(2 * steps, n).numpy()
    buffers = agent.algo.buffers
    rew, done, valid = (b[:-1].view(2 * steps, n).numpy() for b in (buffers.rewards, buffers.dones, buffers.valid))
    for e in range(n):
        length = lengths[e]
        ids, t, episode = obs[:length + 1, e, 0], obs[:length + 1, e, 1], obs[:length + 1, e, 2]
        assert (ids == e).all(), f"env {e}'s column holds frames of envs {set(ids.tolist())}"
        for k in range(length):  # row k+1 follows row k in env e's own time
            ended = t[k] == 5
            if ended:  # the episode's final frame: the step from it was a reset step
                assert (t[k + 1], episode[k + 1]) == (0, episode[k] + 1)
                assert (rew[k, e], done[k, e], valid[k, e]) == (0, 0, 0)
            else:
                assert (t[k + 1], episode[k + 1]) == (t[k] + 1, episode[k])
                assert rew[k, e] == np.sign([-3, 2][act[k, e]])  # clipped for training
                assert done[k, e] == (t[k + 1] == 5) and valid[k, e] == 1
    assert all(e.ret in (-15, -10, -5, 0, 5, 10) and e.length == 5 for e in agent.tracker.finished)


def test_the_update_trains_on_the_rollout_and_the_next_rollout_starts_where_envs_are():
    torch.manual_seed(0)
    driver = scripted_driver(4, 2, ppo_cfg(), seed=5)
    agent = driver.agent
    s = fill_rollout(driver)
    before = [p.detach().clone() for p in agent.algo.net.parameters()]
    agent.update()
    assert all(not torch.equal(a, b) for a, b in zip(agent.algo.net.parameters(), before))
    assert agent.updates == 1 and agent.algo.index.lengths.max() <= 1
    for _ in range(3):  # the rollouts wrap around the ring
        while not agent.update_after(s):
            driver.step(s)
            s += 1
        agent.update()
    assert agent.updates == 4 and agent.algo.index.base.min() > agent.algo.index.ring and agent.tracker.num_episodes > 0


def test_an_update_before_the_rollouts_are_complete_is_refused():
    driver = scripted_driver(4, 1, ppo_cfg())
    driver.step(0)
    with pytest.raises(RuntimeError, match="before the rollouts are complete"):
        driver.agent.update()


@pytest.mark.parametrize("overlap, normalize_obs, clip_around",
                         [(False, False, "acting"), (True, False, "acting"), (True, True, "acting"),
                          (True, True, "update_start")],
                         ids=["in-line", "overlap", "overlap-normalize_obs", "overlap-normalize_obs-update_start"])
def test_ppo_learns_the_action_that_pays(overlap, normalize_obs, clip_around):
    """Action 1 pays +2, action 0 costs 3: after some updates the policy takes action 1 nearly always.

    In async batches, which drift out of phase over the run; with agent.overlap, acting one update
    behind; with agent.normalize_obs, on standardised frames; with agent.clip_around=update_start,
    by the decoupled objective.
    """
    torch.manual_seed(0)
    cfg = ppo_cfg(learning_rate=1e-3, num_steps=16, overlap=overlap, normalize_obs=normalize_obs,
                  clip_around=clip_around)
    driver = scripted_driver(8, 2, cfg, seed=1, length=8)
    agent, s = driver.agent, 0
    first = None
    while agent.updates < 15:
        driver.step(s)
        s += 1
        if agent.update_after(s):
            taken = agent.algo.buffers.actions[torch.from_numpy(rollout_rows(agent.algo.index))].float().mean().item()
            first = taken if first is None else first
            agent.update()
    late = agent.tracker.returns()[-8:]
    assert 0.3 < first < 0.7, f"the first rollout should act at random: {first}"
    assert taken > 0.9 and late.mean() > 10, f"action 1 taken {taken:.2f} of steps; last returns {late}"


def test_a_learning_run_stops_at_its_target_when_asked():
    """schedule.stop_at_target: the run ends at the update whose running mean first reaches the target
    (over a full window), by the same rule as the result's time to target; without it, it runs on."""
    import time

    from ppo_bench.loop.run import learn
    from ppo_bench.record.parts import to_target

    def run(stop_at, total_env_steps):
        torch.manual_seed(0)
        driver = scripted_driver(8, 2, ppo_cfg(learning_rate=1e-3, num_steps=16), seed=1, length=8)
        return learn(driver, total_env_steps, 8, time.monotonic(), lambda: None, lambda point: None, stop_at=stop_at)

    stopped = run(5.0, 40_000)
    # the same run without stop_at, given twice the steps the first took: it runs on past the target to its end
    full = run(None, 2 * stopped.env_steps)
    assert stopped.stopped_by == "target_return" and full.stopped_by == "total_env_steps"
    wall, steps = to_target(stopped.curve, 8, 5.0)
    assert steps == stopped.curve["env_steps"][-1] < stopped.env_steps + 1 < full.env_steps
    assert to_target({k: v[:-1] for k, v in stopped.curve.items()}, 8, 5.0) == (None, None)  # not before
    assert to_target(full.curve, 8, 5.0)[1] == steps  # the same run: it met the target at the same update


# --- a learning run ---------------------------------------------------------------------------

def test_a_learning_run_writes_its_curve(tmp_path):
    record = run_job(tmp_path, *LEARN, "schedule.total_env_steps=100", "schedule.target_return=-21")
    assert record["status"] == "ok" and record["algo"] == "ppo", record["error"]
    learning = record["learning"]
    curve = learning["curve"]
    assert learning["total_env_steps"] >= 100 and learning["total_env_steps"] == record["env_steps"]["total"]
    assert learning["stopped_by"] == "total_env_steps"
    assert len(curve["env_steps"]) == learning["updates"] >= 2
    assert curve["env_steps"] == sorted(curve["env_steps"]) and curve["env_steps"][-1] <= learning["total_env_steps"]
    assert all(e == 0 and m is None for e, m in zip(curve["episodes"], curve["return_mean"]))  # pong: ~800 steps
    assert learning["time_to_target_s"] is None and learning["final_return_mean"] is None
    assert 0 < learning["setup_s"] < learning["wall_s"]
    assert 0 < record["timing"]["startup_s"] < learning["setup_s"]  # the learning run's set-up includes start-up
    assert record["throughput"]["reps"] == [pytest.approx(learning["env_steps_per_s"])]
    assert json.loads((tmp_path / "result.json").read_text())["learning"] == learning


LEARN = ["schedule=learn", "agent.algo=ppo", "mode=async", "env.num_envs=4", "mode.groups=2", "agent.num_steps=8",
         "agent.num_minibatches=2", "agent.update_epochs=1"]


def test_a_learning_run_stops_at_max_seconds_with_its_curve(tmp_path):
    """25 s from the job's start: on a 2-core machine with two busy processes beside it, the start-up
    (imports, emulators, agent) took over 12 s, and a limit of 12 s left no update."""
    record = run_job(tmp_path, *LEARN, "schedule.total_env_steps=100000000", "schedule.max_seconds=25")
    learning = record["learning"]
    assert record["status"] == "ok" and learning["stopped_by"] == "max_seconds"
    assert 0 < learning["total_env_steps"] < 100_000_000 and learning["updates"] >= 1
    assert 25 <= learning["wall_s"] < 60  # it stops at the first loop step past the limit (one update at most)


def test_a_learning_run_that_fails_keeps_its_curve_so_far(tmp_path, inject):
    inject("ppo_bench.agent.runtimes:Eager.update:4:raise")
    with pytest.raises(parent.JobFailed, match="injected fault in Eager.update"):
        run_job(tmp_path, *LEARN, "schedule.total_env_steps=100000")
    record = read_result(tmp_path / "result.json")
    curve = record["learning_so_far"]["curve"]
    assert record["status"] == "failed" and "learning" not in record
    assert len(curve["env_steps"]) == 3 and curve["env_steps"] == sorted(curve["env_steps"])  # updates 1..3
    assert set(curve) == {"env_steps", "wall_s", "episodes", "return_mean", "return_std"}
    # where it ran (the device resolved, not the config's auto) and what its start cost
    assert record["device"] == "cpu" and record["timing"]["setup_s"] > 0 and record["timing"]["startup_s"] >= 0


def test_two_ppo_updates_from_one_state_and_order_are_the_same():
    """The update is a function of the rollout, the state and the minibatch order (what the graphed
    runtime is checked against on CUDA): nothing else is drawn at random in it."""
    drivers = []
    for _ in range(2):
        torch.manual_seed(3)
        drivers.append(scripted_driver(4, 2, ppo_cfg(), seed=2))
        fill_rollout(drivers[-1])
    order = drivers[0].agent.algo.new_order()
    for d in drivers:
        d.agent.update(order.clone())
    for a, b in zip(drivers[0].agent.algo.net.parameters(), drivers[1].agent.algo.net.parameters()):
        assert torch.equal(a, b)


# --- graphed against eager, on CUDA -----------------------------------------------------------

def ppo_twins(name: str, n: int = 4, **kw):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cuda = torch.device("cuda")
    cfg = ppo_cfg(name=name, **kw)
    agents = [make_agent(cfg, FRAME_SHAPE, 6, n, cuda, n) for _ in range(2)]
    graphed = make_agent(ppo_cfg(name=name, runtime="graphed", **kw), FRAME_SHAPE, 6, n, cuda, n)
    for agent in agents[1:] + [graphed]:
        agent.algo.net.load_state_dict(agents[0].algo.net.state_dict())
    plain_steps(*agents, graphed)
    return agents[0], agents[1], graphed


@needs_cuda
@pytest.mark.parametrize("name, extra", [("nature_cnn", {}), ("impala_cnn", {}), ("nature_cnn", {"normalize_obs": True}),
                                         ("nature_cnn", {"normalize_obs": True, "clip_around": "update_start"})],
                         ids=["nature_cnn", "impala_cnn", "normalize_obs", "normalize_obs-update_start"])
def test_graphed_ppo_acts_stores_and_updates_as_eager_does(name, extra):
    """Same frames and results: same values and log-probs of the sampled actions in the same rows, the
    same step results stored; then from the same rollout and order, the same parameter moves (and,
    with agent.normalize_obs, the same frame statistics: the capture's own run is undone; with
    agent.clip_around=update_start, the rollout evaluated inside the captured update)."""
    eager, again, graphed = ppo_twins(name, **extra)
    n, steps = 4, eager.algo.cfg.num_steps
    gen = np.random.default_rng(0)
    for agent in (eager, again, graphed):
        agent.start(np.arange(n))
    for s in range(steps + 1):
        obs = gen.integers(0, 256, (n, *FRAME_SHAPE), dtype=np.uint8)
        ids = gen.permutation(n)
        if s:
            results = (gen.integers(-2, 3, n), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool))
            for agent in (eager, again, graphed):
                agent.observe(ids, *results)
        for agent in (eager, again):
            a, _ = agent.act(torch.from_numpy(obs).cuda(), s, ids)
            agent.actions_to_host(a)
        a, _ = graphed.act(graphed.uploader(obs), s, ids)
        graphed.actions_to_host(a)
    e, g = eager.algo.buffers, graphed.algo.buffers
    assert torch.equal(g.obs, e.obs)
    for name_ in ("rewards", "dones", "valid"):
        assert torch.equal(getattr(g, name_), getattr(e, name_)), name_
    torch.testing.assert_close(g.values, e.values, rtol=1e-4, atol=1e-5)
    with torch.no_grad():  # the graphed log-probs are those of the actions it sampled
        logits, _ = eager.algo.net(g.obs[:-1])
        logp = torch.log_softmax(logits, -1).gather(-1, g.actions[:-1, None]).squeeze(-1)
    written = g.obs[:-1].flatten(1).any(-1)  # random frames are never all zero
    torch.testing.assert_close(g.logprobs[:-1][written], logp[written], rtol=1e-4, atol=1e-5)
    for agent in (again, graphed):  # one rollout for all three: the update is what is compared
        for buf in ("actions", "logprobs", "values"):
            getattr(agent.algo.buffers, buf).copy_(getattr(e, buf))
    assert eager.update_after(0) and graphed.update_after(0)
    for _ in range(2):  # the first update captures, the second replays (on the ring's other half)
        before = [p.detach().clone() for p in eager.algo.net.parameters()]
        order = eager.algo.new_order()
        for agent in (eager, again, graphed):
            agent.algo.index.acted[:] = agent.algo.index.base + steps + 1
            agent.update(order)  # the second: on rows of unwritten results, which weigh 0 (Adam moves on)
        noise, gaps = move_gaps(before, eager, again), move_gaps(before, eager, graphed)
        for i, (gap, own) in enumerate(zip(gaps, noise)):
            assert gap <= 2 * own + 0.01, f"tensor {i}: graphed off by {gap:.3g} of the move, eager by {own:.3g}"
        for buf, buf_e in zip(graphed.algo.net.buffers(), eager.algo.net.buffers()):
            torch.testing.assert_close(buf, buf_e, rtol=1e-5, atol=1e-6)
        with torch.no_grad():
            for agent in (graphed, again):
                for p, p_e in zip(agent.algo.net.parameters(), eager.algo.net.parameters()):
                    p.copy_(p_e)


class FreshResetEnv(ScriptedVectorEnv):
    """reset() starts every env's episode afresh, as ale-py's does; a recv can fail on demand."""

    def __init__(self, *args, fail_at: int | None = None, **kw):
        super().__init__(*args, **kw)
        self.recvs, self.fail_at = 0, fail_at

    def reset(self, seed=None):
        self.episode += 1
        self.t[:], self.ended[:] = 0, False
        return super().reset(seed)

    def recv(self):
        self.recvs += 1
        if self.recvs == self.fail_at:
            raise DuplicateEnvError("a lost env (scripted)")
        return super().recv()


@pytest.mark.parametrize("overlap", [False, True], ids=["in-line", "overlap"])
@pytest.mark.parametrize("groups, seed", [(1, 0), (1, 1), (2, 2), (4, 3)],
                         ids=["step", "sendrecv", "async-2", "async-4"])
def test_every_update_reads_each_row_s_own_results_across_interleaves_and_restarts(groups, seed, overlap):
    """Results are observed before the act (step) or after the send (sendrecv, async) and written
    by the next act or the update: every row an update reads holds its env's step and that step's
    own reward, end and valid flag, also after schedule.interleave's reset on the same env and a
    restart over a new one. Acted rows are first marked with a value no result has, so a result
    that never lands (or lands one row off) shows."""
    torch.manual_seed(seed)
    n, length, unset = 8, 5, 99.0
    agent = make_agent(ppo_cfg(overlap=overlap, update_epochs=1), FRAME_SHAPE, 2, n, CPU, n // groups)
    envs = TorchEnvs(FreshResetEnv(n, n // groups, seed=seed), CPU)
    driver = StepDriver(envs, agent, seed) if seed == 0 else SendRecvDriver(envs, agent, seed, groups)
    algo = agent.algo
    index, b = algo.index, algo.buffers
    act_rows, prepare_update, wrong = index.act_rows, algo.prepare_update, []

    def marked_act_rows(ids):
        rows = act_rows(ids)
        for buf in (b.rewards, b.dones, b.valid):
            buf[torch.from_numpy(rows)] = unset
        return rows

    def checked_prepare_update():
        prepare_update()
        frames = b.obs[:, 0, 0, :3].numpy().astype(int)  # env id, step in episode, episode
        for e in range(n):
            for k in range(int(index.base[e]), int(index.base[e] + index.lengths[e])):
                row, after = (k % index.ring) * n + e, ((k + 1) % index.ring) * n + e
                (env_id, t, episode), following = frames[row], tuple(frames[after])
                got = (float(b.rewards[row]), float(b.dones[row]), float(b.valid[row]))
                if t == length:  # its episode's final frame: the step from it was a reset step
                    want = ((0.0, 0.0, 0.0), (e, 0, episode + 1))
                else:
                    reward = float(np.sign([-3, 2][int(b.actions[row])]))
                    want = ((reward, float(t + 1 == length), 1.0), (e, t + 1, episode))
                if env_id != e or (got, following) != want:
                    wrong.append((algo.updates, e, k, got, following, want))

    index.act_rows, algo.prepare_update = marked_act_rows, checked_prepare_update
    s = run_loop(driver, until=lambda x: x >= 40)
    for _ in range(2):  # an interleaved probe on the same emulators, then the loop goes on
        drain(driver.vector_env, driver.pending())
        probe = EnvOnlyDriver(driver.vector_env, None, seed, groups)
        run_loop(probe, until=lambda x: x >= 5)
        drain(probe.vector_env, probe.pending())
        driver.reset(seed)
        s = run_loop(driver, until=lambda x: x >= s + 40, first=s)
    for k in range(2):  # the vector env loses an env mid loop step: a new one, and the loop goes on
        driver.vector_env.fail_at = driver.vector_env.recvs + groups + 1
        with pytest.raises(DuplicateEnvError):
            run_loop(driver, until=lambda x: False, first=s)
        driver.restart(TorchEnvs(FreshResetEnv(n, n // groups, seed=seed + 10 + k), CPU), seed + 1 + k)
        s = run_loop(driver, until=lambda x: x >= s + 40, first=s)
    assert driver.agent.updates >= 8
    assert not wrong, f"{len(wrong)} rows read with the wrong results, e.g. (update, env, step, got, next frame, want) {wrong[:3]}"
    assert all(episode.length == length for episode in driver.agent.tracker.finished)


def test_a_restart_drops_the_episodes_and_the_rollout_in_progress():
    """Over a new vector env mid-run (the old one lost its envs), every env's next rollout begins with
    the new env's first frame and no episode of the old env is finished with the new one's rewards."""
    torch.manual_seed(0)
    driver = scripted_driver(4, 2, ppo_cfg(), seed=3)
    agent = driver.agent
    for s in range(5):
        driver.step(s)
    finished = agent.tracker.num_episodes
    driver.restart(TorchEnvs(ScriptedVectorEnv(4, 2, seed=9), CPU), seed=7)
    assert agent.algo.index.lengths.sum() == 0 and not agent.tracker.running()[1].any()
    base = agent.algo.index.base.copy()
    fill_rollout(driver)
    steps = agent.algo.cfg.num_steps
    obs = agent.algo.buffers.obs[:-1].view(2 * steps, 4, *FRAME_SHAPE)[:, :, 0, 0, :3].numpy().astype(int)
    for e in range(4):  # the first row of each env's new rollout: the new env's reset frame
        assert obs[base[e] % (2 * steps), e].tolist() == [e, 0, 0]
    assert all(ep.length == 5 for ep in agent.tracker.finished[finished:])  # no episode spans the two envs
    agent.update()
    assert agent.updates == 1


def test_a_learning_run_whose_time_runs_out_during_set_up_fails_saying_so(tmp_path):
    with pytest.raises(parent.JobFailed, match=r"schedule.max_seconds=0.01 ran out during start-up and set-up"):
        run_job(tmp_path, *LEARN, "schedule.total_env_steps=1000", "schedule.max_seconds=0.01")
    record = read_result(tmp_path / "result.json")
    assert record["status"] == "failed" and "nothing was measured" in record["error"]


def test_a_learning_run_over_ale_py_survives_a_repeated_env(tmp_path, inject):
    """ale-py's own vector env, its 20th recv made to return an env twice: the run goes on over a new one."""
    inject("ale_py.vector_env:AtariVectorEnv.recv:20:repeat-env")
    record = run_job(tmp_path, *LEARN, "schedule.total_env_steps=200")
    assert record["status"] == "ok", record["error"]
    (fault,) = record["faults"]
    assert "DuplicateEnvError" in fault["error"] and fault["seed"] == 4
    assert record["learning"]["total_env_steps"] >= 200


# --- agent.overlap: one update behind -----------------------------------------------------------

def params(net) -> list[torch.Tensor]:
    return [p.detach().clone() for p in net.parameters()]


def same(a, b) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("normalize_obs", [False, True], ids=["scaled", "normalize_obs"])
@pytest.mark.parametrize("runtime", ["eager", pytest.param("graphed", marks=needs_cuda)])
def test_with_overlap_the_loop_acts_one_update_behind_and_stores_what_acted(runtime, normalize_obs):
    """Rollout k+1 is collected with the parameters from before the update on rollout k; at the next
    boundary they catch up with that update (never with the one just launched), and the log-probs
    stored for the ratio are those of the parameters that acted. Graphed: the update on its stream.
    With agent.normalize_obs the frame statistics travel with the parameters, and rollout 3 (the
    first to act on statistics an update merged) stores what the caught-up network computes, but
    for each env's first row: that row (rollout 2's bootstrap) acted before the boundary, with the
    snapshot from before it. In one batch, so that only those rows did (async batches act a few
    more before the boundary)."""
    torch.manual_seed(0)
    device = torch.device("cuda") if runtime == "graphed" else CPU
    cfg = ppo_cfg(overlap=True, runtime=runtime, normalize_obs=normalize_obs)
    driver = scripted_driver(4, 1 if normalize_obs else 2, cfg, seed=2, device=device)
    agent, algo = driver.agent, driver.agent.algo
    assert algo.acting is not algo.net and same(params(algo.acting), params(algo.net))
    s = fill_rollout(driver)
    initial = params(algo.net)
    agent.update()  # update 1, on rollout 1
    agent.wait_for_update()
    after_1 = params(algo.net)
    assert not same(after_1, initial) and same(params(algo.acting), initial)  # rollout 2 acts as rollout 1 did
    while not agent.update_after(s):
        driver.step(s)
        s += 1
    rows = torch.from_numpy(rollout_rows(algo.index)).to(device)
    b = algo.buffers
    with torch.no_grad():  # rollout 2's stored log-probs: the acting (initial) parameters', not update 1's
        logits, _ = algo.acting(b.obs[rows])
    logp = torch.log_softmax(logits.float(), -1).gather(-1, b.actions[rows, None]).squeeze(-1)
    torch.testing.assert_close(b.logprobs[rows], logp, rtol=1e-4, atol=1e-5)
    agent.update()  # update 2: the acting parameters first catch up with update 1
    if device.type == "cuda":
        torch.cuda.synchronize()
    assert same(params(algo.acting), after_1) and not same(params(algo.net), after_1)
    if not normalize_obs:
        return
    acting_stats = [t.clone() for t in algo.acting.frame_norm.buffers()]
    assert (acting_stats[1] != 1).any()  # update 1's statistics act in rollout 3
    while not agent.update_after(s):
        driver.step(s)
        s += 1
    rows = torch.from_numpy(rollout_rows(algo.index)).to(device)
    first = torch.zeros(len(rows), dtype=torch.bool, device=device)
    first[torch.from_numpy(np.cumsum(algo.index.lengths) - algo.index.lengths).to(device)] = True
    before = copy.deepcopy(algo.acting)  # rollout 2's snapshot: the initial parameters and statistics
    with torch.no_grad():
        for p, p0 in zip(before.parameters(), initial):
            p.copy_(p0)
        before.frame_norm.mean.zero_(), before.frame_norm.var.fill_(1.0)
    for net, which in ((algo.acting, ~first), (before, first)):
        with torch.no_grad():
            logits, _ = net(b.obs[rows[which]])
        logp = torch.log_softmax(logits.float(), -1).gather(-1, b.actions[rows[which], None]).squeeze(-1)
        torch.testing.assert_close(b.logprobs[rows[which]], logp, rtol=1e-4, atol=1e-5)
    assert all(torch.equal(a, t) for a, t in zip(algo.acting.frame_norm.buffers(), acting_stats))


def test_with_overlap_the_rollout_being_trained_on_is_never_overwritten():
    """The ring holds two rollouts: while an update trains on one, the next is written beside it."""
    driver = scripted_driver(4, 2, ppo_cfg(overlap=True), seed=4)
    index, s = driver.agent.algo.index, 0
    assert index.ring == 4 * driver.agent.algo.cfg.num_steps
    for _ in range(6):
        s0 = s
        while not driver.agent.update_after(s):
            driver.step(s)
            s += 1
        trained = set(rollout_rows(index).tolist())
        driver.agent.update()
        written = set()
        while not driver.agent.update_after(s):
            driver.step(s)
            written |= set(index.result_rows(np.arange(4)).tolist())
            s += 1
        assert not trained & written, f"rows of the rollout being trained on were written after loop step {s0}"


@pytest.mark.parametrize("overrides, message", [
    (["agent.algo=reference", "agent.runtime=eager"], "agent.overlap=true: agent.algo=reference's update reads"),
    (["agent.algo=ppo", "agent.runtime=compiled"], "agent.overlap=true: agent.runtime=compiled does not run"),
])
def test_overlap_where_it_cannot_be_is_refused_in_one_line(overrides, message):
    from ppo_bench.config.schema import NotApplicable, validate

    with pytest.raises(NotApplicable, match=re.escape(message)) as info:
        validate(compose_config("agent.overlap=true", *overrides))
    assert "\n" not in str(info.value)


def test_a_learning_job_with_overlap_runs_and_records_it(tmp_path):
    record = run_job(tmp_path, *LEARN, "agent.runtime=eager", "agent.overlap=true", "schedule.total_env_steps=200")
    assert record["status"] == "ok", record["error"]
    assert record["config"]["agent"]["overlap"] is True and record["learning"]["updates"] >= 2


# --- agent.normalize_obs: frames standardised by the statistics of the frames trained on --------

def test_frame_statistics_merged_batch_by_batch_are_those_of_all_the_weighted_frames():
    from ppo_bench.agent.networks import FrameNorm

    gen = np.random.default_rng(0)
    norm = FrameNorm((2, 3, 3))
    batches = [torch.from_numpy(gen.integers(0, 256, (n, 2, 3, 3), dtype=np.uint8)) for n in (5, 12, 7)]
    weights = [torch.from_numpy((gen.random(len(b)) < 0.7).astype(np.float32)) for b in batches]
    weights[0][:] = 1.0
    for frames, weight in zip(batches, weights):
        norm.update(frames, weight, chunk=5)  # the 12- and 7-row batches in chunks, one short
    kept = torch.cat([f[w > 0] for f, w in zip(batches, weights)]).double().numpy() / 255.0
    assert norm.count.item() == pytest.approx(len(kept), abs=1e-3)
    np.testing.assert_allclose(norm.mean.numpy(), kept.mean(0), atol=1e-4)
    np.testing.assert_allclose(norm.var.numpy(), kept.var(0), atol=1e-4)


@pytest.mark.parametrize("overlap", [False, True], ids=["in-line", "overlap"])
def test_with_normalize_obs_the_network_reads_frames_standardised_by_those_it_trained_on(overlap):
    """An update merges the valid frames of its rollout into the statistics, and the encoder then
    reads (frame - mean) / std, clipped to +-5: a pixel that never changed reads 0. With overlap the
    acting copy takes the statistics with the parameters, at the next boundary."""
    torch.manual_seed(0)
    driver = scripted_driver(4, 2, ppo_cfg(normalize_obs=True, overlap=overlap), seed=2)
    agent, algo = driver.agent, driver.agent.algo
    s = fill_rollout(driver)
    rows = torch.from_numpy(rollout_rows(algo.index))
    agent.update()
    agent.wait_for_update()
    b = algo.buffers
    frames = b.obs[rows][b.valid[rows] > 0].double().numpy() / 255.0
    mean, var = frames.mean(0), frames.var(0)
    norm = algo.net.frame_norm
    np.testing.assert_allclose(norm.mean.numpy(), mean, atol=1e-4)
    np.testing.assert_allclose(norm.var.numpy(), var, atol=1e-4)
    assert var[0, 0, 1] > 0 and var[1, 5, 5] == 0  # the step pixel varies; the rest never does
    seen = {}
    hook = algo.net.encoder.register_forward_pre_hook(lambda module, args: seen.setdefault("x", args[0]))
    with torch.no_grad():
        algo.net(b.obs[rows[:3]])
    hook.remove()
    x = b.obs[rows[:3]].double().numpy() / 255.0
    expected = np.clip((x - norm.mean.double().numpy()) / np.sqrt(norm.var.double().numpy() + 1e-5), -5, 5)
    np.testing.assert_allclose(seen["x"].numpy(), expected, atol=1e-3)
    assert (seen["x"][:, 1] == 0).all()
    if overlap:
        acting = algo.acting.frame_norm
        assert (acting.mean == 0).all() and (acting.var == 1).all()  # one update behind
        while not agent.update_after(s):
            driver.step(s)
            s += 1
        trained = [t.clone() for t in norm.buffers()]
        agent.update()
        agent.wait_for_update()
        for a, t in zip(acting.buffers(), trained):
            assert torch.equal(a, t)


def test_normalize_obs_where_nothing_trains_on_the_frames_is_refused_in_one_line():
    from ppo_bench.config.schema import NotApplicable, validate

    message = "agent.normalize_obs=true: agent.algo=reference does not read it; allowed with agent.algo=ppo"
    with pytest.raises(NotApplicable, match=re.escape(message)) as info:
        validate(compose_config("agent.normalize_obs=true", "agent.algo=reference", "agent.runtime=eager"))
    assert "\n" not in str(info.value)


# --- agent.clip_around: clipped around the acting parameters or the update's starting ones ------

def first_step_gradient(clip_around: str, lag: float) -> torch.Tensor:
    """The policy loss's gradient at an update's first step, over one minibatch, when the stored
    log-probs say each action was e**lag times less likely under the parameters that acted than
    under those the update starts from (a lag, made by hand)."""
    torch.manual_seed(0)
    cfg = ppo_cfg(clip_around=clip_around, ent_coef=0, vf_coef=0, max_grad_norm=1e9, update_epochs=1,
                  num_minibatches=1)
    driver = scripted_driver(4, 2, cfg, seed=2)
    algo = driver.agent.algo
    fill_rollout(driver)
    algo.buffers.logprobs -= lag
    grads, step = [], algo.opt.step

    def record(*args, **kw):
        grads.append(torch.cat([p.grad.flatten() for p in algo.net.parameters()]))
        return step(*args, **kw)

    algo.opt.step = record
    driver.agent.update()
    return grads[0]


def test_clipped_around_the_update_s_start_a_lag_weighs_each_sample_instead_of_clipping_it_away():
    """Decoupled PPO: the ratio is taken to the parameters the update starts from (1 at its first
    step, nothing clipped) and each sample weighs their ratio to the acting ones, so a lag of e
    scales the first step's gradient by e. Clipped around the acting parameters, the same lag puts
    every ratio at e, past 1 + clip_coef: the samples whose advantage is positive no longer count,
    and the gradient is no longer e times the one without a lag."""
    without_lag = first_step_gradient("update_start", 0.0)
    torch.testing.assert_close(first_step_gradient("update_start", 1.0), np.e * without_lag, rtol=1e-4, atol=1e-7)
    acting = first_step_gradient("acting", 0.0)
    torch.testing.assert_close(acting, without_lag, rtol=1e-4, atol=1e-7)  # without a lag, the same loss
    lagged = first_step_gradient("acting", 1.0)
    gap = ((lagged - np.e * acting).norm() / (np.e * acting).norm()).item()
    assert gap > 0.2, f"clipped around the acting parameters a lag of e should drop samples: {gap:.3f}"


def test_with_overlap_the_update_clips_around_the_parameters_it_starts_from_not_those_that_acted():
    """agent.overlap with clip_around=update_start: rollout 2 acted with the initial parameters, and
    update 2 evaluates it (log-probs of the stored actions, values) with update 1's, and with
    agent.normalize_obs after its own frames joined the statistics (which the acting copy lacks)."""
    torch.manual_seed(0)
    driver = scripted_driver(4, 2, ppo_cfg(overlap=True, clip_around="update_start", normalize_obs=True), seed=2)
    agent, algo = driver.agent, driver.agent.algo
    s = fill_rollout(driver)
    agent.update()
    agent.wait_for_update()
    while not agent.update_after(s):
        driver.step(s)
        s += 1
    trained = copy.deepcopy(algo.net)
    seen, evaluate = [], algo._evaluate

    def spy(rows, size):
        """Records the update's rows, its network as it evaluates them, and what it returns."""
        seen.append((rows, copy.deepcopy(algo.net), *evaluate(rows, size)))
        return seen[-1][2:]

    algo._evaluate = spy
    agent.update()
    agent.wait_for_update()
    assert len(seen) == 1
    rows, start, logp, values = seen[0]  # the update's samples in its order, and its network then
    assert len(set(rows.tolist())) == len(rows) == algo.index.samples
    for p, p_trained in zip(start.parameters(), trained.parameters()):
        assert torch.equal(p, p_trained)  # update 1's parameters, before update 2's first step
    assert start.frame_norm.count > trained.frame_norm.count  # with rollout 2's frames merged
    with torch.no_grad():
        logits, expected_values = start(algo.buffers.obs[rows])
    expected = torch.log_softmax(logits, -1).gather(-1, algo.buffers.actions[rows, None]).squeeze(-1)
    assert (algo.buffers.logprobs[rows] - expected).abs().max() > 1e-3, "the acting copy should be one update behind"
    torch.testing.assert_close(logp, expected, rtol=0, atol=1e-5)
    torch.testing.assert_close(values, expected_values, rtol=0, atol=1e-5)


@pytest.mark.parametrize("overrides, message", [
    (["agent.clip_around=learner", "agent.algo=ppo"], "agent.clip_around=learner: must be one of acting, update_start"),
    (["agent.clip_around=update_start", "agent.algo=reference", "agent.runtime=eager"],
     "agent.clip_around=update_start: agent.algo=reference does not read it; allowed with agent.algo=ppo"),
])
def test_clip_around_out_of_its_values_or_where_nothing_clips_is_refused_in_one_line(overrides, message):
    from ppo_bench.config.schema import validate

    with pytest.raises(ValueError, match=re.escape(message)) as info:
        validate(compose_config(*overrides))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("runtime", ["eager", pytest.param("graphed", marks=needs_cuda)])
def test_a_stalled_job_hears_from_another_thread_whether_the_agent_s_streams_still_hold_work(runtime):
    """`device_state` (a stalled job's report, asked from the child's other thread while the main one
    waits): the acting stream, which is the main thread's and not the asking thread's current one,
    and with overlap the update's."""
    import threading

    device = torch.device("cuda") if runtime == "graphed" else CPU
    driver = scripted_driver(4, 2, ppo_cfg(overlap=True, runtime=runtime), seed=2, device=device)
    agent = driver.agent
    fill_rollout(driver)
    seen = []

    def ask():
        seen.append(agent.device_state())

    if device.type == "cpu":
        ask()
        assert seen == [""]  # nothing beside the host to report: the stalled job's error adds nothing
        return
    agent.update()
    agent.wait_for_update()
    torch.cuda.synchronize()
    torch.cuda._sleep(2_000_000_000)  # about a second of work queued on the acting stream
    thread = threading.Thread(target=ask)
    thread.start()
    thread.join()
    torch.cuda.synchronize()
    ask()
    assert seen == ["the device: acting stream busy, update stream idle (no update in flight)",
                    "the device: acting stream idle, update stream idle (no update in flight)"]
