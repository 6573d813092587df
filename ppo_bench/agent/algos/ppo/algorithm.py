"""PPO as CleanRL's ppo_atari_envpool computes it, over async batches: its loss and update.

What it acts and trains on is the on-policy rollout's (onpolicy.learner.RolloutLearner): actions
sampled from the policy, values stored, the envs' unclipped rewards summed into episode returns
and sign-clipped for training, GAE over each env's own time-ordered rows (async batches come back
in any order). PPO adds the acting policy's log-probs to each row (its `PPOBuffers`) and its update:
normalised advantages, clipped surrogate and value loss (around the acting parameters, or with
agent.clip_around=update_start around those the update starts from: Hilton et al.'s decoupled
objective), entropy bonus, gradient-norm clipping, the base's optional step-size decay, over epochs of
minibatches in the order `new_order` permutes. Reset steps are masked out of every loss.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn

from ppo_bench.agent.algos.base import Spec
from ppo_bench.agent.algos.onpolicy.learner import RolloutBuffers, RolloutLearner
from ppo_bench.agent.algos.ppo.config import PPOConfig


@dataclass
class PPOBuffers(RolloutBuffers):
    """The rollout's rows, and the log-prob each action had under the policy that acted: the
    ratio's denominator."""

    logprobs: torch.Tensor


class PPO(RolloutLearner):
    buffers_type = PPOBuffers
    buffers: PPOBuffers

    def __init__(self, cfg: PPOConfig, spec: Spec):
        super().__init__(spec, cfg.num_steps, cfg.learning_rate, epochs=cfg.update_epochs, anneal=cfg.anneal_lr,
                         normalize_obs=cfg.normalize_obs)
        self.cfg = cfg

    def store_acted(self, rows: torch.Tensor, frames: torch.Tensor, logits: torch.Tensor,
                    actions: torch.Tensor, values: torch.Tensor) -> None:
        super().store_acted(rows, frames, logits, actions, values)
        logp = torch.log_softmax(logits, -1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        self.buffers.logprobs.index_copy_(0, rows, logp)

    def update_step(self, order: torch.Tensor) -> None:
        """The rollout's samples (`rollout_samples`: GAE along each env's own rows, invalid rows
        weighing 0), then epochs x minibatches of the clipped PPO loss, each mean weighted."""
        cfg, b = self.cfg, self.buffers
        rows, valid, advantages, returns = self.rollout_samples(cfg.gamma, cfg.gae_lambda)
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

                logp_all, logp, value = self.evaluate_rows(sample)
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
        logp, values = zip(*(self.evaluate_rows(sample)[1:] for sample in rows.split(size)))
        return torch.cat(logp), torch.cat(values)
