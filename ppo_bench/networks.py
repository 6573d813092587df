"""The actor-critic networks: an encoder (Nature-CNN or IMPALA-CNN) with actor and critic heads.

They know no emulator: the frame shape (stacked grey frames, channels first)
comes in from the env the job built, and uint8 frames are scaled once,
inside the network (the reference scaled them on the host every step).
"""

from __future__ import annotations

import torch
import torch.nn as nn

from .registry import NETWORKS


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


class ActorCritic(nn.Module):
    """Encoder plus actor and critic heads; takes uint8 frames and scales them once."""

    def __init__(self, encoder: str, obs_shape: tuple[int, ...], num_actions: int, ppo_init: bool = False):
        super().__init__()
        self.encoder = NETWORKS[encoder].load()(tuple(obs_shape))
        self.actor = nn.Linear(self.encoder.out_features, num_actions)
        self.critic = nn.Linear(self.encoder.out_features, 1)
        if ppo_init:  # CleanRL's: orthogonal, gain sqrt 2; a near-uniform first policy; zero biases
            for layer in self.modules():
                if isinstance(layer, (nn.Conv2d, nn.Linear)):
                    nn.init.orthogonal_(layer.weight, 2 ** 0.5)
                    nn.init.zeros_(layer.bias)
            nn.init.orthogonal_(self.actor.weight, 0.01)
            nn.init.orthogonal_(self.critic.weight, 1.0)

    def forward(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.encoder(frames.float() / 255.0)
        return self.actor(h), self.critic(h).squeeze(-1)
