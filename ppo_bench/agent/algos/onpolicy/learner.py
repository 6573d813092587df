"""`RolloutLearner`: the rollout plumbing of an on-policy actor-critic over per-env, async rollouts.

Why a base of its own: what a learner does around its loss is the same for any that acts, keeps
num_steps transitions per env and trains on them (A2C, PPO): each env's own rows under async
batches (`rollout.RolloutIndex`), a batch's results written into the rows that earned them, the
bootstrap row, the staging of rows and results into pinned buffers so that `act` runs on the
device alone, and when an update is due. That plumbing is where the drivers' orders of calls
(step, sendrecv, async; interleaves and restarts) meet the rollout, which tests/test_ppo.py checks
row by row: a learner on it writes its loss, and inherits rows that are right.

What a subclass writes (the rest it inherits, and should leave as it is):

- `__init__(cfg, spec)`: the registry builds it so; it hands this base its rollout length, step
  size and the rest of `__init__`'s arguments from its config.
- `update_step(order)`: its loss and optimizer steps, all on the device, over `rollout_samples`
  (the rollout's rows, validity weights, advantages and returns) and `evaluate_rows` (the trained
  network on stored rows). `order` is `epochs` permutations of the samples, for minibatches.
- Where its loss needs more of each acted row than frame, action and value (PPO: the acting
  policy's log-prob): a `RolloutBuffers` subclass named in `buffers_type`, and `store_acted`
  extended to fill it.
- `init_network(net)`, for other initial weights than CleanRL's orthogonal ones.

PPO (agent.algos.ppo) is one such learner; the A2C plugin the tests install
(tests/plugins/a2c/ppo_bench_a2c/algorithm.py) is another, in a dozen lines.

Its registry entry says `learns=True` (it keeps a tracker), `clips_rewards_itself=True` (rewards
are sign-clipped here for training, so the envs must hand over unclipped ones for the returns) and
`overlaps=True` (with agent.overlap the index keeps two rollouts apart).

Device functions (`act`, `store_acted`, `update_step`, `rollout_samples`) never read a device value
on the host: the graphed runtime captures them (see base).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch

from ppo_bench.agent.algos.base import ActorCriticAlgorithm, Spec
from ppo_bench.agent.algos.onpolicy.advantages import gae
from ppo_bench.agent.algos.onpolicy.episodes import EpisodeTracker
from ppo_bench.agent.algos.onpolicy.rollout import RolloutIndex
from ppo_bench.agent.networks import ActorCritic, orthogonal_init


@dataclass
class RolloutBuffers:
    """Flat rows (row * num_envs + env) of each env's ring (see rollout), plus the trash row: what
    every on-policy loss reads of an acted row. A learner whose loss needs more adds fields in a
    subclass; `zeros` makes each added field one float32 per row."""

    obs: torch.Tensor
    actions: torch.Tensor
    values: torch.Tensor
    """The acting network's values: the advantages' baseline and the bootstrap."""
    rewards: torch.Tensor
    """Sign-clipped rewards."""
    dones: torch.Tensor
    """Terminated (not truncated: a time limit bootstraps, see advantages.gae)."""
    valid: torch.Tensor
    """1 for a transition, 0 for a reset step or an initial frame (episodes.EpisodeTracker)."""

    @classmethod
    def zeros(cls, rows: int, obs_shape: tuple[int, ...], device: torch.device) -> "RolloutBuffers":
        def column(name: str) -> torch.Tensor:
            if name == "obs":
                return torch.zeros((rows, *obs_shape), dtype=torch.uint8, device=device)
            return torch.zeros(rows, dtype=torch.int64 if name == "actions" else torch.float32, device=device)

        return cls(**{f.name: column(f.name) for f in dataclasses.fields(cls)})


class Samples(NamedTuple):
    """What an update trains on: num_steps x num_envs flat rows of the rollout, valid ones first in
    each env's time order, and per row its weight (1 valid, 0 not), advantage and return. A tuple,
    so an update unpacks it: `rows, valid, advantages, returns = self.rollout_samples(...)`."""

    rows: torch.Tensor
    valid: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor


def sample_actions(logits: torch.Tensor) -> torch.Tensor:
    """Samples of softmax(logits) by Gumbel-max, argmax(logits - log E) with E ~ Exp(1): on the
    device, with no host read, so a graphed act samples inside its graph."""
    return (logits - torch.empty_like(logits).exponential_().log()).argmax(-1)


class RolloutLearner(ActorCriticAlgorithm):
    """An actor-critic that samples its actions, keeps each env's rollout in its own rows and
    updates when the rollouts hold num_steps x num_envs transitions (see the module docstring for
    what a subclass writes)."""

    buffers_type: type[RolloutBuffers] = RolloutBuffers
    """The rollout's buffers: a subclass's own where its loss reads more of an acted row."""

    def __init__(self, spec: Spec, num_steps: int, learning_rate: float, *, epochs: int = 1,
                 anneal: bool = False, normalize_obs: bool = False, adam_eps: float = 1e-5):
        """`num_steps`: transitions per env an update trains on; `epochs`: passes over them (the
        minibatch order's rows); `anneal`: in a learning run the step size falls linearly from
        `learning_rate` to 0 over its updates; `normalize_obs`: agent.normalize_obs."""
        super().__init__(spec, normalize_obs=normalize_obs)
        n, b = spec.num_envs, spec.batch_size
        self.num_steps, self.epochs = num_steps, epochs
        self.learning_rate, self.anneal = learning_rate, anneal
        # A tensor step size lets a replayed update read an annealed value.
        lr = torch.tensor(learning_rate, device=spec.device) if spec.capturable else learning_rate
        self.opt = torch.optim.Adam(self.net.parameters(), lr=lr, eps=adam_eps, capturable=spec.capturable)
        # with overlap the rollout an update trains on stays put while the next one is collected
        self.index = RolloutIndex(num_steps, n, batches=n // b, live=2 if spec.overlap else 1)
        self.tracker: EpisodeTracker = EpisodeTracker(n)
        self.buffers = self.buffers_type.zeros(self.index.trash + 1, spec.obs_shape, spec.device)
        # [rows to act into, rows whose results arrived]; [clipped reward, terminated, valid]
        self._rows_host, self._rows_np, self._rows = self.staging((2, b), torch.int64, fill=self.index.trash)
        self._results_host, self._results_np, self._results = self.staging((3, b), torch.float32)
        # [start row in the ring, length] of each env's rollout, set before each update
        self._span_host, self._span_np, self._span = self.staging((2, n), torch.int64)
        self._window = torch.arange(2 * num_steps - 1, device=spec.device)  # a rollout and its bootstrap
        self._envs = torch.arange(n, device=spec.device)

    def init_network(self, net: ActorCritic) -> None:
        """CleanRL's orthogonal weights: a near-uniform first policy, so sampling tries every action."""
        orthogonal_init(net)

    @property
    def rollout_steps(self) -> int:
        """Unused: each env's rows come from the rollout index, whatever the loop step."""
        return self.num_steps

    @property
    def order_shape(self) -> tuple[int, int]:
        return self.epochs, self.index.samples

    # the loop step
    def start(self, ids: np.ndarray) -> None:
        self.tracker.start(ids)
        self.index.start(ids)

    def restart(self) -> None:
        """Drop the episodes in progress and the rollouts since the last update: each env's next
        rollout starts at its next acted row, so no row acted in the old env (whose results never
        came) is trained on."""
        self.tracker.restart()
        self.index.drop_in_flight()
        self._rows_np[1] = self.index.trash  # results staged from the old env are written nowhere

    def observe(self, ids: np.ndarray, rewards: np.ndarray, terminations: np.ndarray,
                truncations: np.ndarray) -> None:
        """Staged for the rows acted before them (`RolloutIndex.arrive`); the next `act` writes them,
        or the update's `prepare_update` if it comes first. Reset steps come back invalid. The
        drivers call this after the send where they can, beside the emulators' step."""
        valid = self.tracker.observe(ids, rewards, terminations, truncations)
        self._rows_np[1] = self.index.arrive(ids)
        np.sign(rewards, out=self._results_np[0], casting="unsafe")
        self._results_np[1] = terminations
        self._results_np[2] = valid

    def stage(self, rollout_step: int, ids: np.ndarray) -> None:
        """The flat rows this batch acts into (counts the step per env)."""
        self._rows_np[0] = self.index.act_rows(np.asarray(ids, dtype=np.int64))

    def act(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Write the arrived results, then sample and store: all on the device, no host sync."""
        self._rows.copy_(self._rows_host, non_blocking=True)
        self._results.copy_(self._results_host, non_blocking=True)
        self._write_results(self._rows[1], self._results)
        logits, values = self._policy(frames)
        logits = logits.float()
        actions = sample_actions(logits)
        self.store_acted(self._rows[0], frames, logits, actions, values)
        return actions, values

    def store_acted(self, rows: torch.Tensor, frames: torch.Tensor, logits: torch.Tensor,
                    actions: torch.Tensor, values: torch.Tensor) -> None:
        """What the update reads of the acted rows `rows`, stored as `act` has it (on the device;
        `logits` in float32). A subclass with more buffers extends this (super() first)."""
        b = self.buffers
        b.obs.index_copy_(0, rows, frames)
        b.actions.index_copy_(0, rows, actions)
        b.values.index_copy_(0, rows, values.float())

    def _write_results(self, rows: torch.Tensor, results: torch.Tensor) -> None:
        b = self.buffers
        b.rewards.index_copy_(0, rows, results[0])
        b.dones.index_copy_(0, rows, results[1])
        b.valid.index_copy_(0, rows, results[2])

    # the update
    def update_after(self, loop_step: int) -> bool:
        """When the envs' rollouts hold num_steps x num_envs transitions (see rollout), whatever
        the loop step."""
        return self.index.due()

    def can_update(self) -> bool:
        """Only with complete rollouts: the warm-up steps on until they are."""
        return self.index.due()

    def prepare_update(self) -> None:
        """Each env's rollout rows, the results not written yet, and the annealed step size (set
        before the launch). A subclass with host work of its own before the launch calls this first."""
        if not self.index.due():
            raise RuntimeError(f"{type(self).__name__} update before the rollouts are complete (see update_after)")
        self._span_np[0], self._span_np[1] = self.index.base % self.index.ring, self.index.lengths
        self._span.copy_(self._span_host, non_blocking=True)
        # The results observed since the last act belong to the rollout and the next act would
        # write them: written now, from device copies of their own (blocking copies, so the host
        # staging is free once they return and the next act's writes to its device twin cannot race
        # an update running beside it), and the next act writes nothing.
        self._write_results(self._rows_host[1].to(self.device), self._results_host.to(self.device))
        self._rows_np[1] = self.index.trash
        if self.anneal and self.spec.total_updates:
            lr = self.learning_rate * max(0.0, 1.0 - self.updates / self.spec.total_updates)
            group = self.opt.param_groups[0]
            if torch.is_tensor(group["lr"]):
                group["lr"].fill_(lr)
            else:
                group["lr"] = lr

    def finish_update(self) -> None:
        super().finish_update()
        self.index.advance()

    def rollout_samples(self, gamma: float, lam: float) -> Samples:
        """The samples an update trains on, with GAE(`gamma`, `lam`) advantages along each env's own
        rows (`lam` = 1: n-step returns, A2C's). Call it once per update: with agent.normalize_obs
        the rollout's frames join the frame statistics here, before any forward pass of the update.

        Every env's rollout is read through a window of 2 x num_steps - 1 rows from its start
        (`_span`, on the device, so a replayed graph reads it whatever the rows): positions past
        its length are masked, and the row after its last transition holds its bootstrap value.
        num_steps x num_envs samples are taken, valid ones first (in step and sendrecv that is all
        of them; the minibatch order then shuffles them); invalid rows (reset steps, or too few
        transitions) weigh 0: a loss weights each of its means by `valid`.
        """
        n, ring, b = self.spec.num_envs, self.index.ring, self.buffers
        start, length = self._span[0], self._span[1]
        window = self._window.unsqueeze(1)
        rows = ((start + window) % ring) * n + self._envs  # [ring - 1, N], each env's own time order
        valid = b.valid[rows] * (window < length).float()
        bootstrap = ((start + length) % ring) * n + self._envs  # used only where a rollout fills the window
        advantages, returns = gae(b.rewards[rows], b.values[rows], b.dones[rows], valid,
                                  b.values[bootstrap], gamma, lam)
        valid = valid.reshape(-1)
        # valid samples first, in time order: an excess (async batches overshoot by less than a
        # batch) is dropped from the rollouts' ends; a shortfall is made up of rows that weigh 0
        chosen = (1 - valid).argsort(stable=True)[:self.index.samples]
        rows, valid = rows.reshape(-1)[chosen], valid[chosen]
        advantages, returns = advantages.reshape(-1)[chosen], returns.reshape(-1)[chosen]
        if self.net.frame_norm is not None:  # agent.normalize_obs: this rollout's frames join the statistics
            self.net.frame_norm.update(b.obs[rows], valid)
        return Samples(rows, valid, advantages, returns)

    def evaluate_rows(self, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The trained network on the stored rows `rows`: log-probs of every action, of the stored
        action, and the values (in float32)."""
        logits, value = self.net(self.buffers.obs[rows])
        logp_all = torch.log_softmax(logits.float(), -1)
        return logp_all, logp_all.gather(-1, self.buffers.actions[rows].unsqueeze(-1)).squeeze(-1), value.float()
