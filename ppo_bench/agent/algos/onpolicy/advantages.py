"""Advantages and returns over on-policy rollouts whose rows may be reset steps (see `episodes`).

`gae` takes `dones[t]` = the *step outcome*: terminated (or terminated or
truncated, see `gae`) returned by the step taken at step t, i.e. "the
transition at step t ended its episode". This is the row's own flag, so
reward, done and valid of a step all come from the same batch row. It is
CleanRL's `dones` shifted by one: CleanRL stores at step t the flag of the
step before (whether obs t starts a new episode, which under next-step
autoreset it does not: obs t is then the old episode's final frame), and
passes the last step's flag as `next_done`. Here `dones[t]` is CleanRL's
`dones[t+1]` and `dones[T-1]` is CleanRL's `next_done`, so no separate
`next_dones` argument is needed. `valid[t]` is `episodes.EpisodeTracker`'s
mask for the row: a reset step's reward and flags never reach its neighbours.

With `lam` = 1 the returns are n-step returns bootstrapped from each rollout's
last value (A2C's), so one function serves both estimators.
"""

from __future__ import annotations

import torch

from ppo_bench.agent.algos.onpolicy.episodes import ArrayLike


def gae(rewards: ArrayLike, values: ArrayLike, dones: ArrayLike, valid: ArrayLike,
        next_values: ArrayLike, gamma: float = 0.99, lam: float = 0.95
        ) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimates over a [T, N] rollout whose steps may be reset steps.

    Slot t of env n holds the transition taken from obs t: `values[t]` =
    V(obs t), `rewards[t]` and `dones[t]` the reward and end flag that step
    returned, `valid[t]` the tracker's mask for that row. `next_values` [N]
    is V(obs T), the obs after the last step. Per env and step:

        delta[t] = r[t] + gamma * V[t+1] * (1 - dones[t]) - V[t]
        A[t]     = valid[t] * (delta[t] + gamma * lam * (1 - dones[t]) * A[t+1])

    with V[T] = next_values and A[T] = 0. With `valid` all True this is
    CleanRL's ppo_atari_envpool recursion (see the module docstring for the
    one-step shift of `dones`). An invalid step (reset step) gets A = 0 and,
    because its A is 0, nothing flows through it to the step before: that
    step is its episode's last step, and its own `dones` (or the zero A of
    the reset step) ends its chain. The reset step's reward and done only
    appear in its own delta, which is masked, so they never leak. (With
    tracker-made masks a done step is always followed by an invalid one, so
    the mask alone cuts the chain; the (1 - dones) factor on A[t+1] matters
    only when `valid` is all True, as in CleanRL.)

    Which flag to pass as `dones`:
    - terminated | truncated: a truncated episode is treated as ended and
      its last step bootstraps with 0 (CleanRL's behaviour).
    - terminated only: a truncated episode's last step bootstraps from
      V[t+1], which under next-step autoreset is the value of the reset
      step's obs, i.e. V(final frame of the truncated episode); the chain
      still stops there because the reset step's A is 0. This is the
      correct treatment of time limits, at no extra cost.

    Returns (advantages, returns), float32 on `values`' device; returns =
    advantages + values on valid steps and = values on invalid ones (so an
    unmasked invalid row gives zero policy and value loss; callers should
    still drop invalid rows, e.g. before normalising advantages).
    """
    v = torch.as_tensor(values, dtype=torch.float32)
    device = v.device
    r = torch.as_tensor(rewards, dtype=torch.float32, device=device)
    d = torch.as_tensor(dones, device=device).to(torch.float32)
    m = torch.as_tensor(valid, device=device).to(torch.float32)
    nv = torch.as_tensor(next_values, dtype=torch.float32, device=device).reshape(-1)
    if v.dim() != 2:
        raise ValueError(f"values must be [num_steps, num_envs], got {tuple(v.shape)}")
    for name, x in (("rewards", r), ("dones", d), ("valid", m)):
        if x.shape != v.shape:
            raise ValueError(f"{name} has shape {tuple(x.shape)}, values {tuple(v.shape)}")
    if nv.shape != v.shape[1:]:
        raise ValueError(f"next_values has shape {tuple(nv.shape)}, expected ({v.shape[1]},)")

    num_steps = v.shape[0]
    advantages = torch.zeros_like(v)
    last = torch.zeros_like(nv)
    for t in reversed(range(num_steps)):
        v_next = nv if t == num_steps - 1 else v[t + 1]
        notdone = 1.0 - d[t]
        delta = r[t] + gamma * v_next * notdone - v[t]
        last = m[t] * (delta + gamma * lam * notdone * last)
        advantages[t] = last
    return advantages, advantages + v
