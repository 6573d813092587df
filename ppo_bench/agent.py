"""The actor-critic whose compute every loop step pays for: networks, inference, rollout, update.

The workload is the reference's: argmax actions from a compiled forward pass
on every step, the frames, actions and values stored in device-resident
rollout buffers, and every `num_steps` steps a PPO-style update in eager mode
(policy cross-entropy + 0.5 value MSE - 0.01 entropy over `update_epochs` x
`num_minibatches`). The stored values serve as value targets: the point is the
compute, not learning. Two defects of the reference are not copied: frames are
normalised once, inside the network, and the update never reads a device value
on the host (the reference's `obs.max() > 1` synchronised every minibatch).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn as nn
from torch._dynamo.utils import counters

FRAME_SHAPE = (4, 84, 84)  # ALE's vector env default: 4 stacked 84x84 grey frames


class NatureCNN(nn.Module):
    """Mnih et al. (2015) encoder, as in the reference: 3 convs, then 512 units."""

    out_features = 512

    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Conv2d(4, 32, 8, stride=4), nn.ReLU(),
            nn.Conv2d(32, 64, 4, stride=2), nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=1), nn.ReLU(),
            nn.Flatten(),
            nn.Linear(64 * 7 * 7, 512), nn.ReLU(),
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

    def __init__(self, channels: tuple[int, ...] = (16, 32, 32)):
        super().__init__()
        layers: list[nn.Module] = []
        in_ch, size = FRAME_SHAPE[0], FRAME_SHAPE[1]
        for ch in channels:
            layers += [
                nn.Conv2d(in_ch, ch, 3, padding=1),
                nn.MaxPool2d(3, stride=2, padding=1),
                ResidualBlock(ch),
                ResidualBlock(ch),
            ]
            in_ch, size = ch, (size + 1) // 2
        layers += [nn.ReLU(), nn.Flatten(), nn.Linear(in_ch * size * size, 256), nn.ReLU()]
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


ENCODERS = {"nature_cnn": NatureCNN, "impala_cnn": ImpalaCNN}


class ActorCritic(nn.Module):
    """Encoder plus actor and critic heads; takes uint8 frames and scales them once."""

    def __init__(self, encoder: str, num_actions: int):
        super().__init__()
        self.encoder = ENCODERS[encoder]()
        self.actor = nn.Linear(self.encoder.out_features, num_actions)
        self.critic = nn.Linear(self.encoder.out_features, 1)

    def forward(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.encoder(frames.float() / 255.0)
        return self.actor(h), self.critic(h).squeeze(-1)


def compiled_graphs() -> int:
    """Graphs dynamo has compiled since the counters were last cleared."""
    return int(counters["stats"]["unique_graphs"])


def cudagraph_skips() -> int:
    """Times inductor declined CUDA graphs (CPU tensors, mutated inputs, ...)."""
    return int(counters["inductor"]["cudagraph_skips"])


class Agent:
    """The network, its (compiled) inference, the rollout buffers and the update."""

    def __init__(self, agent_cfg: Any, num_actions: int, num_envs: int, device: torch.device, compile: bool):
        self.cfg = agent_cfg
        self.device = device
        self.net = ActorCritic(agent_cfg.name, num_actions).to(device)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=agent_cfg.learning_rate)
        self.compiled = compile
        self.cudagraphs = compile and device.type == "cuda"
        if compile:
            mode = "reduce-overhead" if self.cudagraphs else "default"
            # dynamic=False: one static shape per job, never dynamo's automatic dynamic shapes.
            self._forward = torch.compile(self.net, mode=mode, fullgraph=True, dynamic=False)
        else:
            self._forward = self.net
        steps = agent_cfg.num_steps
        self.obs_buf = torch.zeros((steps, num_envs, *FRAME_SHAPE), dtype=torch.uint8, device=device)
        self.act_buf = torch.zeros((steps, num_envs), dtype=torch.int64, device=device)
        self.ret_buf = torch.zeros((steps, num_envs), dtype=torch.float32, device=device)

    @torch.no_grad()
    def act(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Greedy actions and values for a batch of uint8 frames on the device."""
        if self.cudagraphs:
            torch.compiler.cudagraph_mark_step_begin()
        logits, value = self._forward(frames)
        # argmax makes a fresh tensor; the value is copied into the rollout before the next replay.
        return logits.argmax(-1), value

    def store(self, slot: int, frames: torch.Tensor, actions: torch.Tensor, values: torch.Tensor,
              rows: torch.Tensor | None = None) -> None:
        """Write one step into the rollout: all envs, or the env ids in `rows` (async batches)."""
        if rows is None:
            self.obs_buf[slot].copy_(frames)
            self.act_buf[slot].copy_(actions)
            self.ret_buf[slot].copy_(values)
        else:
            self.obs_buf[slot].index_copy_(0, rows, frames)
            self.act_buf[slot].index_copy_(0, rows, actions)
            self.ret_buf[slot].index_copy_(0, rows, values)

    def update(self) -> None:
        """PPO-style update over the whole rollout, in eager mode, without host syncs."""
        steps = self.cfg.num_steps
        size = steps // self.cfg.num_minibatches
        for _ in range(self.cfg.update_epochs):
            for idx in torch.randperm(steps, device=self.device).split(size):
                frames = self.obs_buf[idx].flatten(0, 1)
                actions = self.act_buf[idx].flatten(0, 1)
                targets = self.ret_buf[idx].flatten(0, 1)
                logits, value = self.net(frames)
                logp = torch.log_softmax(logits, dim=-1)
                policy_loss = -logp.gather(-1, actions.unsqueeze(-1)).mean()
                value_loss = (value - targets).pow(2).mean()
                entropy = -(logp.exp() * logp).sum(-1).mean()
                loss = policy_loss + 0.5 * value_loss - 0.01 * entropy
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                self.opt.step()
