"""PPO as CleanRL's ppo_atari_envpool computes it, over async batches.

Actions sampled from the policy (Gumbel-max, so a graphed act samples inside
its graph), their log-probs and values stored, the envs' unclipped rewards
summed into episode returns (`onpolicy.episodes.EpisodeTracker`) and sign-clipped for
training, GAE over each env's own time-ordered rows (`onpolicy.rollout.RolloutIndex`:
async batches come back in any order), normalised advantages, clipped
surrogate and value loss (around the acting parameters, or with
agent.clip_around=update_start around those the update starts from: Hilton et
al.'s decoupled objective), entropy bonus, gradient-norm clipping, optional
linear step-size decay. Reset steps are masked out of every loss. `act`
stores, together with the step results `observe` staged for the rows acted
before; the minibatch order permutes samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn

from ppo_bench.agent.algos.base import ActorCriticAlgorithm, Spec
from ppo_bench.agent.algos.onpolicy.advantages import gae
from ppo_bench.agent.algos.onpolicy.episodes import EpisodeTracker
from ppo_bench.agent.algos.onpolicy.rollout import RolloutIndex
from ppo_bench.agent.algos.ppo.config import PPOConfig
from ppo_bench.agent.networks import ActorCritic, orthogonal_init


@dataclass
class Buffers:
    """Flat rows (row * num_envs + env) of a 2 x num_steps ring per env, plus a trash row (see rollout)."""

    obs: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    values: torch.Tensor
    rewards: torch.Tensor
    dones: torch.Tensor
    valid: torch.Tensor

    @classmethod
    def zeros(cls, rows: int, obs_shape: tuple[int, ...], device: torch.device) -> "Buffers":
        return cls(torch.zeros((rows, *obs_shape), dtype=torch.uint8, device=device),
                   torch.zeros(rows, dtype=torch.int64, device=device),
                   *(torch.zeros(rows, dtype=torch.float32, device=device) for _ in range(5)))


class PPO(ActorCriticAlgorithm):
    def __init__(self, cfg: PPOConfig, spec: Spec):
        super().__init__(spec, normalize_obs=cfg.normalize_obs)
        self.cfg = cfg
        n, b = spec.num_envs, spec.batch_size
        # A tensor step size lets a replayed update read an annealed value.
        lr = torch.tensor(cfg.learning_rate, device=spec.device) if spec.capturable else cfg.learning_rate
        self.opt = torch.optim.Adam(self.net.parameters(), lr=lr, eps=1e-5, capturable=spec.capturable)
        # with overlap the rollout an update trains on stays put while the next one is collected
        self.index = RolloutIndex(cfg.num_steps, n, batches=n // b, live=2 if spec.overlap else 1)
        self.tracker = EpisodeTracker(n)
        self.buffers = Buffers.zeros(self.index.trash + 1, spec.obs_shape, spec.device)
        # [rows to act into, rows whose results arrived]; [clipped reward, terminated, valid]
        self._rows_host, self._rows_np, self._rows = self.staging((2, b), torch.int64, fill=self.index.trash)
        self._results_host, self._results_np, self._results = self.staging((3, b), torch.float32)
        # [start row in the ring, length] of each env's rollout, set before each update
        self._span_host, self._span_np, self._span = self.staging((2, n), torch.int64)
        self._window = torch.arange(2 * cfg.num_steps - 1, device=spec.device)  # a rollout and its bootstrap
        self._envs = torch.arange(n, device=spec.device)

    def init_network(self, net: ActorCritic) -> None:
        """CleanRL's orthogonal weights: a near-uniform first policy, so sampling tries every action."""
        orthogonal_init(net)

    @property
    def slots(self) -> int:
        """Unused: each env's rows come from the rollout index, whatever the loop step."""
        return self.cfg.num_steps

    @property
    def order_shape(self) -> tuple[int, int]:
        return self.cfg.update_epochs, self.index.samples

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

    def stage(self, slot: int, ids: np.ndarray) -> None:
        """The flat rows this batch acts into (counts the step per env)."""
        self._rows_np[0] = self.index.act_rows(np.asarray(ids, dtype=np.int64))

    def act(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Write the arrived results, then sample and store: all on the device, no host sync."""
        b = self.buffers
        self._rows.copy_(self._rows_host, non_blocking=True)
        self._results.copy_(self._results_host, non_blocking=True)
        acted = self._rows[0]
        self._write_results(self._rows[1], self._results)
        logits, values = self._policy(frames)
        logits = logits.float()
        # Gumbel-max: argmax(logits - log E), E ~ Exp(1), samples softmax(logits).
        actions = (logits - torch.empty_like(logits).exponential_().log()).argmax(-1)
        logp = torch.log_softmax(logits, -1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        b.obs.index_copy_(0, acted, frames)
        b.actions.index_copy_(0, acted, actions)
        b.logprobs.index_copy_(0, acted, logp)
        b.values.index_copy_(0, acted, values.float())
        return actions, values

    def _write_results(self, rows: torch.Tensor, results: torch.Tensor) -> None:
        b = self.buffers
        b.rewards.index_copy_(0, rows, results[0])
        b.dones.index_copy_(0, rows, results[1])
        b.valid.index_copy_(0, rows, results[2])

    def update_after(self, loop_step: int) -> bool:
        """When the envs' rollouts hold num_steps x num_envs transitions (see rollout), whatever
        the loop step."""
        return self.index.due()

    def can_update(self) -> bool:
        """Only with complete rollouts: the warm-up steps on until they are."""
        return self.index.due()

    def prepare_update(self) -> None:
        """Each env's rollout rows, and the annealed step size (set before the launch)."""
        if not self.index.due():
            raise RuntimeError("ppo update before the rollouts are complete (see update_after)")
        self._span_np[0], self._span_np[1] = self.index.base % self.index.ring, self.index.lengths
        self._span.copy_(self._span_host, non_blocking=True)
        # The results observed since the last act belong to the rollout and the next act would
        # write them: written now, from device copies of their own (blocking copies, so the host
        # staging is free once they return and the next act's writes to its device twin cannot race
        # an update running beside it), and the next act writes nothing.
        self._write_results(self._rows_host[1].to(self.device), self._results_host.to(self.device))
        self._rows_np[1] = self.index.trash
        if self.cfg.anneal_lr and self.spec.total_updates:
            lr = self.cfg.learning_rate * max(0.0, 1.0 - self.updates / self.spec.total_updates)
            group = self.opt.param_groups[0]
            if torch.is_tensor(group["lr"]):
                group["lr"].fill_(lr)
            else:
                group["lr"] = lr

    def finish_update(self) -> None:
        super().finish_update()
        self.index.advance()

    def update_step(self, order: torch.Tensor) -> None:
        """GAE along each env's own rows, then epochs x minibatches of the clipped PPO loss.

        Every env's rollout is read through a window of 2 x num_steps - 1 rows from its
        start (`_span`, on the device, so a replayed graph reads it whatever the
        rows): positions past its length are masked, and the row after its last
        transition holds its bootstrap value. num_steps x num_envs samples are
        taken, valid ones first (in step and sendrecv that is all of them; the
        minibatch order then shuffles them); invalid rows (reset steps, or too
        few transitions) weigh 0 in every mean.
        """
        cfg, n, ring, b = self.cfg, self.spec.num_envs, self.index.ring, self.buffers
        start, length = self._span[0], self._span[1]
        window = self._window.unsqueeze(1)
        rows = ((start + window) % ring) * n + self._envs  # [ring - 1, N], each env's own time order
        valid = b.valid[rows] * (window < length).float()
        bootstrap = ((start + length) % ring) * n + self._envs  # used only where a rollout fills the window
        advantages, returns = gae(b.rewards[rows], b.values[rows], b.dones[rows], valid,
                                  b.values[bootstrap], cfg.gamma, cfg.gae_lambda)
        valid = valid.reshape(-1)
        # valid samples first, in time order: an excess (async batches overshoot by less than a
        # batch) is dropped from the rollouts' ends; a shortfall is made up of rows that weigh 0
        chosen = (1 - valid).argsort(stable=True)[:self.index.samples]
        rows, valid = rows.reshape(-1)[chosen], valid[chosen]
        advantages, returns = advantages.reshape(-1)[chosen], returns.reshape(-1)[chosen]
        if self.net.frame_norm is not None:  # agent.normalize_obs: this rollout's frames join the statistics
            self.net.frame_norm.update(b.obs[rows], valid)
        old_logp, old_values = b.logprobs[rows], b.values[rows]
        size = self.index.samples // cfg.num_minibatches
        # agent.clip_around: the log-probs and values the ratio and the value are clipped around
        decoupled = cfg.clip_around == "update_start"
        anchor_logp, anchor_values = self._evaluate(rows, size) if decoupled else (old_logp, old_values)
        for epoch in range(cfg.update_epochs):
            for idx in order[epoch].split(size):
                sample = rows[idx]
                weight = valid[idx]
                count = weight.sum().clamp(min=1.0)

                def mean(x: torch.Tensor) -> torch.Tensor:
                    return (x * weight).sum() / count

                logp_all, logp, value = self._evaluate_sample(sample)
                entropy = -(logp_all.exp() * logp_all).sum(-1)
                adv = advantages[idx]
                adv_mean = mean(adv)
                adv = (adv - adv_mean) / (mean((adv - adv_mean) ** 2).sqrt() + 1e-8)
                ratio = (logp - anchor_logp[idx]).exp()
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef))
                if decoupled:  # weighted by the anchor's ratio to what acted
                    policy_loss = policy_loss * (anchor_logp[idx] - old_logp[idx]).exp()
                old, target = anchor_values[idx], returns[idx]
                clipped = old + (value - old).clamp(-cfg.clip_coef, cfg.clip_coef)
                value_loss = 0.5 * torch.max((value - target) ** 2, (clipped - target) ** 2)
                loss = mean(policy_loss) - cfg.ent_coef * mean(entropy) + cfg.vf_coef * mean(value_loss)
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
                self.opt.step()

    @torch.no_grad()
    def _evaluate(self, rows: torch.Tensor, size: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The log-probs of the stored actions and the values under the parameters the update starts
        from (with agent.overlap one update ahead of those that acted; with agent.normalize_obs
        after this rollout's frames joined the statistics), a minibatch at a time."""
        logp, values = zip(*(self._evaluate_sample(sample)[1:] for sample in rows.split(size)))
        return torch.cat(logp), torch.cat(values)

    def _evaluate_sample(self, sample: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The trained network on the stored rows `sample`: log-probs of every action, of the stored
        action, and the values (in float32)."""
        logits, value = self.net(self.buffers.obs[sample])
        logp_all = torch.log_softmax(logits.float(), -1)
        return logp_all, logp_all.gather(-1, self.buffers.actions[sample].unsqueeze(-1)).squeeze(-1), value.float()
