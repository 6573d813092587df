"""The actor-critic networks: an encoder (Nature-CNN or IMPALA-CNN) with actor and critic heads.

They know no emulator: the frame shape (stacked grey frames, channels first)
comes in from the env the job built, and uint8 frames are scaled once,
inside the network (the reference scaled them on the host every step).
"""

from __future__ import annotations

import torch
import torch.nn as nn

from ppo_bench.registry import NETWORKS


def _conv_out(size: int, kernel: int, stride: int, padding: int = 0) -> int:
    return (size + 2 * padding - kernel) // stride + 1


class NatureCNN(nn.Module):
    """Mnih et al. (2015) encoder, as in the reference: 3 convs, then 512 units."""

    out_features = 512

    def __init__(self, obs_shape: tuple[int, ...]):
        super().__init__()
        channels, size = obs_shape[0], obs_shape[1]
        for kernel, stride in ((8, 4), (4, 2), (3, 1)):
            size = _conv_out(size, kernel, stride)
        self.layers = nn.Sequential(
            nn.Conv2d(channels, 32, 8, stride=4), nn.ReLU(),
            nn.Conv2d(32, 64, 4, stride=2), nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=1), nn.ReLU(),
            nn.Flatten(),
            nn.Linear(64 * size * size, 512), nn.ReLU(),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


class ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv0 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv1(torch.relu(self.conv0(torch.relu(x))))


class ImpalaCNN(nn.Module):
    """Espeholt et al. (2018) encoder: conv sequences of 16, 32, 32 channels
    (conv, 3x3 max-pool stride 2, two residual blocks each), then 256 units."""

    out_features = 256

    def __init__(self, obs_shape: tuple[int, ...], channels: tuple[int, ...] = (16, 32, 32)):
        super().__init__()
        layers: list[nn.Module] = []
        in_ch, size = obs_shape[0], obs_shape[1]
        for ch in channels:
            layers += [
                nn.Conv2d(in_ch, ch, 3, padding=1),
                nn.MaxPool2d(3, stride=2, padding=1),
                ResidualBlock(ch),
                ResidualBlock(ch),
            ]
            in_ch, size = ch, _conv_out(size, 3, 2, 1)
        layers += [nn.ReLU(), nn.Flatten(), nn.Linear(in_ch * size * size, 256), nn.ReLU()]
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


class FrameNorm(nn.Module):
    """Per-pixel standardisation by the running mean and variance of the frames trained on
    (agent.normalize_obs; rl_games' normalize_input), clipped to +-5.

    On Pong nearly every pixel is the same grey in every frame: scaled to [0, 1] only, the
    ball and the paddles are small changes on a large constant input. Standardised, the
    constant pixels read 0 and the moving ones stand out. The statistics are buffers, so a
    captured graph reads them where they are and the acting copy (agent.overlap) takes them
    with the parameters; they start at mean 0, variance 1 (the first rollout acts on the
    scaled frames) and `update` merges a batch in (Chan et al.'s parallel variance).
    """

    def __init__(self, obs_shape: tuple[int, ...], clip: float = 5.0, eps: float = 1e-5):
        super().__init__()
        self.clip, self.eps = clip, eps
        self.register_buffer("mean", torch.zeros(obs_shape))
        self.register_buffer("var", torch.ones(obs_shape))
        self.register_buffer("count", torch.tensor(1e-4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ((x - self.mean) / (self.var + self.eps).sqrt()).clamp(-self.clip, self.clip)

    @torch.no_grad()
    def update(self, frames: torch.Tensor, weight: torch.Tensor, chunk: int = 1024) -> None:
        """Merge a batch of uint8 frames, each weighted (0 for a row that is not a transition).

        Two passes over chunks of rows (the mean, then the squared deviations from it): a rollout
        of 256 envs x 128 steps as floats would take 3.7 GB a copy."""
        w = weight.float()
        n = w.sum()
        spans = [(i, min(i + chunk, len(frames))) for i in range(0, len(frames), chunk)]

        def weighted_sum(f) -> torch.Tensor:
            out = torch.zeros_like(self.mean)
            for i, j in spans:
                x = frames[i:j].float() / 255.0
                out += (f(x) * w[i:j].reshape(-1, *(1,) * (x.dim() - 1))).sum(0)
            return out / n.clamp(min=1.0)

        mean = weighted_sum(lambda x: x)
        var = weighted_sum(lambda x: (x - mean) ** 2)
        total = self.count + n
        delta = mean - self.mean
        self.var.copy_((self.var * self.count + var * n + delta ** 2 * self.count * n / total) / total)
        self.mean.add_(delta * n / total)
        self.count.copy_(total)


class ActorCritic(nn.Module):
    """Encoder plus actor and critic heads; takes uint8 frames and scales them once
    (and standardises them, with `normalize_obs`)."""

    def __init__(self, encoder: str, obs_shape: tuple[int, ...], num_actions: int, normalize_obs: bool = False):
        """Layers with PyTorch's default initialisation; an algorithm that wants another re-initialises
        them (`orthogonal_init`) before the network moves to the device."""
        super().__init__()
        self.frame_norm = FrameNorm(tuple(obs_shape)) if normalize_obs else None
        self.encoder = NETWORKS[encoder].load()(tuple(obs_shape))
        self.actor = nn.Linear(self.encoder.out_features, num_actions)
        self.critic = nn.Linear(self.encoder.out_features, 1)

    def forward(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = frames.float() / 255.0
        h = self.encoder(x if self.frame_norm is None else self.frame_norm(x))
        return self.actor(h), self.critic(h).squeeze(-1)


def orthogonal_init(net: ActorCritic) -> None:
    """CleanRL's initialisation of an actor-critic: orthogonal weights (gain sqrt 2), zero biases, and
    heads of gain 0.01 (actor) and 1 (critic). The small actor gain makes the first policy near
    uniform, so a sampling learner tries every action from its first rollout on."""
    for layer in net.modules():
        if isinstance(layer, (nn.Conv2d, nn.Linear)):
            nn.init.orthogonal_(layer.weight, 2 ** 0.5)
            nn.init.zeros_(layer.bias)
    nn.init.orthogonal_(net.actor.weight, 0.01)
    nn.init.orthogonal_(net.critic.weight, 1.0)
