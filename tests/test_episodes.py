"""Episode bookkeeping and masked GAE (ppo_bench.agent.algos.onpolicy: episodes, advantages) against hand-computed answers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ppo_bench.agent.algos.onpolicy.advantages import gae
from ppo_bench.agent.algos.onpolicy.episodes import Episode, EpisodeTracker, clip_rewards

# A scripted 2-env run under next-step autoreset, one (reward, terminated, truncated) per env and
# time step. Rewards > 1 so that a clipped sum would differ from the true return.
#   env 0: 3, -2, 4 (terminated) -> return 5, length 3; reset step; 7, 1 (still running: 8, 2)
#   env 1: 1, 10 (truncated) -> return 11, length 2; reset step; 2, 0 (terminated) -> 2, 2; reset step
SCRIPT = {
    0: [(3, 0, 0), (-2, 0, 0), (4, 1, 0), (0, 0, 0), (7, 0, 0), (1, 0, 0)],
    1: [(1, 0, 0), (10, 0, 1), (0, 0, 0), (2, 0, 0), (0, 1, 0), (0, 0, 0)],
}
VALID = {0: [True, True, True, False, True, True], 1: [True, True, False, True, True, False]}
EPISODES = {0: [Episode(0, 5.0, 3, False)], 1: [Episode(1, 11.0, 2, True), Episode(1, 2.0, 2, False)]}


def run_batches(tracker: EpisodeTracker, batches, script=SCRIPT):
    """Feed batches (lists of env ids; each env's rows in its own order); per-env valid lists."""
    pos = {i: 0 for i in script}
    valid = {i: [] for i in script}
    for ids in batches:
        rows = [script[i][pos[i]] for i in ids]
        r, te, tr = (np.array(c) for c in zip(*rows))
        out = tracker.observe(np.array(ids, dtype=np.int32), r, te.astype(bool), tr.astype(bool))
        assert out.dtype == bool and out.shape == (len(ids),)
        for i, v in zip(ids, out):
            valid[i].append(bool(v))
            pos[i] += 1
    assert all(pos[i] == len(script[i]) for i in script), "batches must deliver every row"
    return valid


def per_env(tracker: EpisodeTracker):
    return {i: [e for e in tracker.finished if e.env_id == i] for i in range(tracker.num_envs)}


def test_tracker_scripted_sync():
    t = EpisodeTracker(2)
    t.start([0, 1])
    valid = run_batches(t, [[0, 1]] * 6)
    assert valid == VALID
    # In sync order: env 1's truncation at step 1, env 0's termination at 2, env 1's at 4.
    assert t.finished == [Episode(1, 11.0, 2, True), Episode(0, 5.0, 3, False), Episode(1, 2.0, 2, False)]
    ret, length = t.running()
    assert ret.tolist() == [8.0, 0.0] and length.tolist() == [2, 0]
    assert t.num_episodes == 3 and t.num_truncated == 1
    assert t.num_steps == 9 and t.num_invalid == 3
    assert t.returns().tolist() == [11.0, 5.0, 2.0] and t.lengths().tolist() == [2, 3, 2]
    # Unclipped: the clipped sums would be 1 - 1 + 1 = 1 and 1 + 1 = 2.
    assert t.recent(2) == (3.5, 1.5)
    assert t.recent(100) == pytest.approx((6.0, np.std([11, 5, 2])))


@pytest.mark.parametrize("seed", range(20))
def test_tracker_async_batches_give_same_episodes(seed):
    """Any interleaving of env subsets (each env in its own time order) gives the same per-env result."""
    rng = np.random.default_rng(seed)
    left = {i: len(SCRIPT[i]) for i in SCRIPT}
    batches = []
    while any(left.values()):
        ready = [i for i in SCRIPT if left[i]]
        ids = list(rng.permutation(ready)[: rng.integers(1, len(ready) + 1)])
        for i in ids:
            left[i] -= 1
        batches.append([int(i) for i in ids])
    t = EpisodeTracker(2)
    t.start([0, 1])
    assert run_batches(t, batches) == VALID
    assert per_env(t) == EPISODES
    assert t.running()[0].tolist() == [8.0, 0.0]


def test_tracker_first_frame_without_start_is_invalid():
    """An async recv can bring an env's initial reset frame (no action sent): not a transition."""
    t = EpisodeTracker(3)
    t.start([0, 1])  # reset() returned envs 0 and 1; env 2's first frame comes with a later batch
    assert t.observe([2, 0], [0, 5], [False, False], [False, False]).tolist() == [False, True]
    assert t.observe([2, 1], [4, 1], [False, True], [False, False]).tolist() == [True, True]
    assert t.finished == [Episode(1, 1.0, 1, False)]
    assert t.running()[0].tolist() == [5.0, 0.0, 4.0]


def test_tracker_start_drops_episode_in_progress():
    t = EpisodeTracker(1)
    t.start([0])
    t.observe([0], [3], [False], [False])
    t.start([0])  # a reset() mid-episode: no end flag, nothing recorded
    assert t.observe([0], [2], [True], [False]).tolist() == [True]
    assert t.finished == [Episode(0, 2.0, 1, False)]


def test_tracker_both_flags_count_as_terminated():
    t = EpisodeTracker(1)
    t.start([0])
    t.observe([0], [1], [True], [True])
    assert t.finished == [Episode(0, 1.0, 1, False)]


@pytest.mark.parametrize("row", [(1, False, False), (0, True, False), (0, False, True)])
def test_tracker_rejects_reset_step_with_reward_or_flag(row):
    """Same-step autoreset (or a wrong env) shows up as a 'reset step' that is a real step."""
    t = EpisodeTracker(1)
    t.start([0])
    t.observe([0], [1], [True], [False])
    r, te, tr = row
    with pytest.raises(ValueError, match="NEXT_STEP"):
        t.observe([0], [r], [te], [tr])


def test_tracker_rejects_bad_batches():
    t = EpisodeTracker(2)
    with pytest.raises(ValueError, match="twice"):
        t.observe([1, 1], [0, 0], [False, False], [False, False])
    with pytest.raises(ValueError, match="range"):
        t.observe([2], [0], [False], [False])
    with pytest.raises(ValueError, match="lengths"):
        t.observe([0, 1], [0], [False, False], [False, False])
    assert np.isnan(EpisodeTracker(2).recent(5)).all()  # no episode yet
    with pytest.raises(ValueError):
        EpisodeTracker(2).recent(0)


def test_clip_rewards():
    r = np.array([-7.0, -1.0, 0.0, 0.5, 3.0])
    assert clip_rewards(r).tolist() == [-1, -1, 0, 1, 1]
    assert clip_rewards(torch.tensor(r)).tolist() == [-1, -1, 0, 1, 1]
    assert isinstance(clip_rewards(torch.tensor(r)), torch.Tensor)


# --- GAE -------------------------------------------------------------------------------------


def test_gae_hand_example_termination():
    """gamma 0.5, lam 1: A[t] = bootstrapped discounted return - V[t], cut at the end, reset step 0.

    step: 0 r=1 | 1 r=2 terminated | 2 reset step | 3 r=4 | 4 r=8 ; V = 10..50, V(next) = 16.
    t4: 8 + .5*16 = 16 -> -34;  t3: 4 + .5*16 = 12 -> -28;  t2: 0 (returns = V = 30)
    t1: 2 (ended, bootstraps 0) -> -18;  t0: 1 + .5*2 = 2 -> -8.
    """
    r = torch.tensor([[1.0], [2.0], [0.0], [4.0], [8.0]])
    v = torch.tensor([[10.0], [20.0], [30.0], [40.0], [50.0]])
    d = torch.tensor([[0], [1], [0], [0], [0]], dtype=torch.bool)
    m = torch.tensor([[1], [1], [0], [1], [1]], dtype=torch.bool)
    adv, ret = gae(r, v, d, m, torch.tensor([16.0]), gamma=0.5, lam=1.0)
    assert adv[:, 0].tolist() == [-8.0, -18.0, 0.0, -28.0, -34.0]
    assert ret[:, 0].tolist() == [2.0, 2.0, 30.0, 12.0, 16.0]

    # The reset step's own reward, done flag and value change nothing.
    for r2, d2, v2 in [(5.0, 0, 30.0), (0.0, 1, 30.0), (-3.0, 1, -100.0)]:
        r_, d_, v_ = r.clone(), d.clone(), v.clone()
        r_[2, 0], d_[2, 0], v_[2, 0] = r2, bool(d2), v2
        adv2, ret2 = gae(r_, v_, d_, m, torch.tensor([16.0]), gamma=0.5, lam=1.0)
        assert torch.equal(adv2, adv)
        assert torch.equal(ret2[[0, 1, 3, 4]], ret[[0, 1, 3, 4]])

    # Without the mask the reset step would leak (the test can fail): A[2] != 0.
    adv_unmasked, _ = gae(r, v, d, torch.ones_like(m), torch.tensor([16.0]), gamma=0.5, lam=1.0)
    assert adv_unmasked[2, 0] != 0


def test_gae_hand_example_truncation():
    """gamma 1, lam 0.5; step 1 truncates, step 2 is the reset step (V there = V(final frame) = 6).

    dones = terminated only (truncation bootstraps from V(final frame)):
      t3: 2 + 10 - 8 = 4;  t2: 0;  t1: 1 + 6 - 2 = 5 (+ .5 * 0);  t0: (1 + 2 - 4) + .5*5 = 1.5
    dones = terminated | truncated (CleanRL: a truncation ends the chain with 0):
      t1: 1 - 2 = -1;  t0: -1 + .5*-1 = -1.5
    """
    r = torch.tensor([[1.0], [1.0], [0.0], [2.0]])
    v = torch.tensor([[4.0], [2.0], [6.0], [8.0]])
    m = torch.tensor([[True], [True], [False], [True]])
    term = torch.zeros(4, 1, dtype=torch.bool)
    trunc = torch.tensor([[False], [True], [False], [False]])
    adv, _ = gae(r, v, term, m, torch.tensor([10.0]), gamma=1.0, lam=0.5)
    assert adv[:, 0].tolist() == [1.5, 5.0, 0.0, 4.0]
    adv, _ = gae(r, v, term | trunc, m, torch.tensor([10.0]), gamma=1.0, lam=0.5)
    assert adv[:, 0].tolist() == [-1.5, -1.0, 0.0, 4.0]


def textbook(r, v, nv, gamma, lam, d=None):
    """A[t] = sum_l (gamma lam)^l delta[t+l] within the episode (the sum, not the recursion)."""
    T, N = r.shape
    vv = np.concatenate([v, nv[None]], 0)
    d = np.zeros((T, N)) if d is None else d
    delta = r + gamma * vv[1:] * (1 - d) - v
    adv = np.zeros((T, N))
    for n in range(N):
        for t in range(T):
            for l in range(T - t):
                adv[t, n] += (gamma * lam) ** l * delta[t + l, n]
                if d[t + l, n]:
                    break
    return adv


def test_gae_without_episode_ends_is_textbook():
    rng = np.random.default_rng(0)
    r, v, nv = rng.normal(size=(7, 3)), rng.normal(size=(7, 3)), rng.normal(size=3)
    adv, ret = gae(r, v, np.zeros((7, 3), bool), np.ones((7, 3), bool), nv, gamma=0.99, lam=0.95)
    want = textbook(r, v, nv, 0.99, 0.95)
    np.testing.assert_allclose(adv.numpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ret.numpy(), want + v, rtol=1e-5, atol=1e-5)


def cleanrl_gae(rewards, values, dones_cleanrl, next_value, next_done, gamma, lam):
    """CleanRL ppo_atari_envpool.py, verbatim in substance (dones[t] = flag of the step before step t)."""
    T = rewards.shape[0]
    adv = np.zeros_like(rewards)
    lastgaelam = 0
    for t in reversed(range(T)):
        if t == T - 1:
            nextnonterminal, nextvalues = 1.0 - next_done, next_value
        else:
            nextnonterminal, nextvalues = 1.0 - dones_cleanrl[t + 1], values[t + 1]
        delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
        adv[t] = lastgaelam = delta + gamma * lam * nextnonterminal * lastgaelam
    return adv


def test_gae_all_valid_equals_cleanrl_with_dones_shifted():
    rng = np.random.default_rng(1)
    T, N = 9, 4
    r, v, nv = rng.normal(size=(T, N)), rng.normal(size=(T, N)), rng.normal(size=N)
    d = rng.random((T, N)) < 0.3  # step outcomes
    d_cleanrl = np.concatenate([rng.random((1, N)) < 0.5, d[:-1]], 0).astype(float)
    want = cleanrl_gae(r, v, d_cleanrl, nv, d[-1].astype(float), 0.99, 0.95)
    adv, _ = gae(r, v, d, np.ones((T, N), bool), nv, gamma=0.99, lam=0.95)
    np.testing.assert_allclose(adv.numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("seed", range(10))
def test_gae_masked_equals_per_episode_textbook(seed):
    """Random next-step-autoreset rollouts: masked GAE = textbook GAE on each episode's real steps."""
    rng = np.random.default_rng(seed)
    T, N, gamma, lam = 12, 3, 0.9, 0.8
    valid = np.ones((T, N), bool)
    done = np.zeros((T, N), bool)
    r = rng.normal(size=(T, N)) * 5
    valid[0] = rng.random(N) < 0.7  # the rollout may start on a reset step
    for t in range(T):
        done[t] = valid[t] & (rng.random(N) < 0.25)
        if t + 1 < T:
            valid[t + 1] = ~done[t]
    r_env = np.where(valid, r, 0.0)  # what the env gives: 0 on reset steps
    v, nv = rng.normal(size=(T, N)), rng.normal(size=N)
    adv, _ = gae(r_env, v, done, valid, nv, gamma=gamma, lam=lam)

    want = np.zeros((T, N))
    for n in range(N):
        t = 0
        while t < T:
            if not valid[t, n]:
                t += 1
                continue
            s = t  # a run of real steps: ends on a done or at the rollout's end
            while t < T and valid[t, n] and not done[t, n]:
                t += 1
            e = min(t, T - 1)  # last step of the run
            boot = 0.0 if done[e, n] else nv[n]
            seg_v = v[s:e + 1, n]
            seg = textbook(r_env[s:e + 1, n][:, None], seg_v[:, None], np.array([boot]), gamma, lam)
            want[s:e + 1, n] = seg[:, 0]
            t = e + 1
    np.testing.assert_allclose(adv.numpy(), want, rtol=1e-5, atol=1e-5)
    assert (adv.numpy()[~valid] == 0).all()


def test_gae_rejects_shape_mismatch():
    z = np.zeros((3, 2))
    with pytest.raises(ValueError, match="dones"):
        gae(z, z, np.zeros((3, 1)), z, np.zeros(2))
    with pytest.raises(ValueError, match="next_values"):
        gae(z, z, z, z, np.zeros(3))


# --- ale-py, for real ----------------------------------------------------------------------


def _vector_env(**kw):
    ale_py = pytest.importorskip("ale_py.vector_env")
    return ale_py.AtariVectorEnv(game="breakout", num_threads=1, reward_clipping=False, **kw)


def test_ale_next_step_autoreset_truncation():
    """max_num_frames_per_episode=40, frameskip 4: truncated on the 10th step; the 11th is a reset step."""
    envs = _vector_env(num_envs=2, max_num_frames_per_episode=40)
    try:
        _, info = envs.reset(seed=0)
        t = EpisodeTracker(2)
        t.start(info["env_id"])
        rows = []
        for _ in range(12):
            _, r, te, tr, info = envs.step(np.array([1, 0], dtype=np.int64))
            rows.append((r.copy(), te.copy(), tr.copy(), info["episode_frame_number"].copy()))
            rows[-1] += (t.observe(info["env_id"], r, te, tr),)
    finally:
        envs.close()
    r, te, tr, frame, valid = rows[9]
    assert tr.all() and not te.any() and valid.all()
    r, te, tr, frame, valid = rows[10]  # the reset step
    assert (r == 0).all() and not te.any() and not tr.any() and not valid.any()
    assert (frame <= 31).all()  # a new episode's frame count (fire + up to 30 no-ops), not 45
    assert rows[11][4].all()
    assert t.finished == [Episode(0, 0.0, 10, True), Episode(1, 0.0, 10, True)]


def test_ale_next_step_autoreset_termination():
    """Random play ends a breakout game (seeded); the env's next step returns reward 0, not done."""
    envs = _vector_env(num_envs=1)
    rng = np.random.default_rng(0)
    try:
        _, info = envs.reset(seed=0)
        t = EpisodeTracker(1)
        t.start(info["env_id"])
        total = 0.0
        for _ in range(5000):
            _, r, te, tr, info = envs.step(rng.integers(0, 4, 1))
            assert t.observe(info["env_id"], r, te, tr).all()
            total += float(r[0])
            if te[0] or tr[0]:
                break
        assert te[0] and not tr[0], "no termination within 5000 steps"
        _, r, te, tr, info = envs.step(rng.integers(0, 4, 1))
        assert r[0] == 0 and not te[0] and not tr[0]
        assert info["lives"][0] == 5
        assert t.observe(info["env_id"], r, te, tr).tolist() == [False]
    finally:
        envs.close()
    assert len(t.finished) == 1 and t.finished[0].ret == total and not t.finished[0].truncated
