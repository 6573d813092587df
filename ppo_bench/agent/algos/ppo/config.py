"""PPO's keys (flat under `agent.`, beside the rollout's) and their checks."""

from __future__ import annotations

from dataclasses import dataclass

from ppo_bench.agent.algos.config import RolloutConfig
from ppo_bench.config.checks import finite, non_negative, one_of, positive

CLIP_AROUND = ("acting", "update_start")


@dataclass
class PPOConfig(RolloutConfig):
    gamma: float = 0.99
    """ppo: discount; in (0, 1]."""
    gae_lambda: float = 0.95
    """ppo: GAE's lambda; in [0, 1]."""
    clip_coef: float = 0.1
    """ppo: surrogate and value clipping range; > 0."""
    vf_coef: float = 0.5
    """ppo: weight of the value loss; >= 0."""
    ent_coef: float = 0.01
    """ppo: weight of the entropy bonus; >= 0."""
    max_grad_norm: float = 0.5
    """ppo: gradients are clipped to this global norm; > 0."""
    anneal_lr: bool = True
    """ppo with schedule.total_env_steps: the step size falls linearly to 0 over the run."""
    normalize_obs: bool = False
    """ppo: frames are standardised per pixel by the running mean and variance of the frames
    trained on (merged at each update's start, clipped to +-5; rl_games' normalize_input);
    false: scaled to [0, 1] only, as the reference does."""
    clip_around: str = "acting"
    """ppo: what the policy ratio and the value are clipped around. acting: the parameters that
    acted (CleanRL's PPO; with agent.overlap those of one update before). update_start: the
    parameters the update starts from, their ratio to the acting ones weighting each sample
    (Hilton et al.'s decoupled PPO objective), so a lag does not use up the clip range before the
    update's first step; one forward pass over the rollout more an update."""

    def check(self) -> None:
        super().check()
        one_of("agent.clip_around", self.clip_around, CLIP_AROUND)
        finite("agent.gamma", self.gamma, "in (0, 1]")
        if not 0 < self.gamma <= 1:
            raise ValueError(f"agent.gamma={self.gamma}: must be in (0, 1]")
        finite("agent.gae_lambda", self.gae_lambda, "in [0, 1]")
        if not 0 <= self.gae_lambda <= 1:
            raise ValueError(f"agent.gae_lambda={self.gae_lambda}: must be in [0, 1]")
        positive("agent.clip_coef", self.clip_coef)
        positive("agent.max_grad_norm", self.max_grad_norm)
        non_negative("agent.vf_coef", self.vf_coef)
        non_negative("agent.ent_coef", self.ent_coef)
