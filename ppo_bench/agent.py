"""The actor-critic whose compute every loop step pays for: networks, inference, rollout, update.

The workload is the reference's: argmax actions from a forward pass on every
step, the frames, actions and values stored in device-resident rollout
buffers, and every `num_steps` steps a PPO-style update (policy cross-entropy
+ 0.5 value MSE - 0.01 entropy over `update_epochs` x `num_minibatches`). The
stored values serve as value targets: the point is the compute, not learning.
Two defects of the reference are not copied: frames are normalised once,
inside the network, and the update never reads a device value on the host (the
reference's `obs.max() > 1` synchronised every minibatch).

The math lives once, in `Agent`; how its work reaches the device is the
runtime's (`agent.runtime`), a subclass that overrides only the launching:

- eager:    every op launched from Python, as written.
- compiled: the reference's: the forward pass through `torch.compile(mode=
            "reduce-overhead")` (CUDA-graph trees on CUDA), the update eager.
- graphed:  the whole act step (frames host-to-device, forward, argmax,
            rollout stores at the device-side slot and env ids, actions
            device-to-host) replayed as one CUDA graph, and the whole update
            (epochs x minibatches, Adam with `capturable=True`) as another:
            two graph launches where the others launch hundreds of kernels
            from one Python thread, which at 1 to 64 envs is what bounds the
            loop.

Every runtime takes the same calls, in the drivers' order: `start` (the envs
whose reset frames came back), `observe` (a batch's step results: rewards,
ends), `act` (inference; the graphed one also stores and starts the action
download), `actions_to_host` (the actions as a numpy array for the emulators,
after waiting for the device), `store` (the rollout rows; a no-op where `act`
stored), `update_due` and `update(order)` (minibatch order, drawn on the
device when not given).

What the update computes is `agent.algo`:

- reference: the workload above; `start` and `observe` do nothing, the update
  is due every `num_steps` loop steps and its order permutes rollout steps.
- ppo:       CleanRL's ppo_atari_envpool: actions sampled from the policy
             (Gumbel-max, so the graphed act samples inside its graph), their
             log-probs and values stored, the envs' unclipped rewards summed
             into episode returns (`episodes.EpisodeTracker`) and sign-clipped
             for training, GAE over each env's own time-ordered rows
             (`rollout.RolloutIndex`: async batches come back in any order),
             normalised advantages, clipped surrogate and value loss, entropy
             bonus, gradient-norm clipping, optional linear step-size decay.
             Reset steps are masked out of every loss. `act` stores (also for
             eager and compiled), together with the results `observe` staged
             for the rows acted before; the order permutes samples.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import torch
import torch.nn as nn
from torch._dynamo.utils import counters

from .backends import FRAME_SHAPE  # what every backend hands the network: 4 stacked 84x84 grey frames
from .episodes import EpisodeTracker, gae
from .rollout import RolloutIndex


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

    def __init__(self, encoder: str, num_actions: int, ppo_init: bool = False):
        super().__init__()
        self.encoder = ENCODERS[encoder]()
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


def compiled_graphs() -> int:
    """Graphs dynamo has compiled since the counters were last cleared."""
    return int(counters["stats"]["unique_graphs"])


def cudagraph_skips() -> int:
    """Times inductor declined CUDA graphs (CPU tensors, mutated inputs, ...)."""
    return int(counters["inductor"]["cudagraph_skips"])


class Agent:
    """The network, the rollout buffers and the update; launches every op eagerly (runtime=eager)."""

    runtime = "eager"
    compiled = False

    def __init__(self, agent_cfg: Any, num_actions: int, num_envs: int, device: torch.device,
                 batch_size: Optional[int] = None, total_updates: Optional[int] = None):
        self.cfg = agent_cfg
        self.device = device
        self.num_envs = num_envs
        self.batch_size = batch_size or num_envs
        self.ppo = agent_cfg.algo == "ppo"
        self.net = ActorCritic(agent_cfg.name, num_actions, ppo_init=self.ppo).to(device)
        graphed = self.runtime == "graphed"
        # A tensor step size lets the graphed ppo update read an annealed value on every replay.
        lr = agent_cfg.learning_rate
        self.opt = torch.optim.Adam(self.net.parameters(), lr=torch.tensor(lr, device=device) if graphed and self.ppo
                                    else lr, eps=1e-5 if self.ppo else 1e-8, capturable=graphed)
        self._forward = self.net
        self.updates = 0
        self.total_updates = total_updates  # ppo with anneal_lr: the step size reaches 0 after these
        cuda = device.type == "cuda"
        self._cuda = cuda
        b = self.batch_size
        self._actions_host = torch.zeros(b, dtype=torch.int64, pin_memory=cuda)
        steps = agent_cfg.num_steps
        if self.ppo:
            self._init_ppo(steps, num_envs, device)
            return
        self.tracker = None
        self.obs_buf = torch.zeros((steps, num_envs, *FRAME_SHAPE), dtype=torch.uint8, device=device)
        self.act_buf = torch.zeros((steps, num_envs), dtype=torch.int64, device=device)
        self.ret_buf = torch.zeros((steps, num_envs), dtype=torch.float32, device=device)
        # Staging for env ids (async rows): allocated once, never per step.
        self._ids_host = torch.zeros(b, dtype=torch.int64, pin_memory=cuda)
        self._ids = torch.zeros(b, dtype=torch.int64, device=device)

    def _init_ppo(self, steps: int, n: int, device: torch.device) -> None:
        """PPO's rollout (flat rows of a 2 x num_steps ring per env, plus a trash row), its host
        bookkeeping, and the staging through which rows and step results reach the device."""
        self.index = RolloutIndex(steps, n, batches=n // self.batch_size)
        self.tracker = EpisodeTracker(n)
        rows = self.index.trash + 1
        self.obs_buf = torch.zeros((rows, *FRAME_SHAPE), dtype=torch.uint8, device=device)
        self.act_buf = torch.zeros(rows, dtype=torch.int64, device=device)
        self.logp_buf, self.val_buf, self.rew_buf, self.done_buf, self.valid_buf = (
            torch.zeros(rows, dtype=torch.float32, device=device) for _ in range(5))
        b = self.batch_size
        # [rows to act into, rows whose results arrived]; [clipped reward, terminated, valid]
        self._rows_host = torch.full((2, b), self.index.trash, dtype=torch.int64, pin_memory=self._cuda)
        self._results_host = torch.zeros((3, b), dtype=torch.float32, pin_memory=self._cuda)
        self._rows_np, self._results_np = self._rows_host.numpy(), self._results_host.numpy()
        self._rows = torch.zeros((2, b), dtype=torch.int64, device=device)
        self._results = torch.zeros((3, b), dtype=torch.float32, device=device)
        # [start row in the ring, length] of each env's rollout, set before each update
        self._span_host = torch.zeros((2, n), dtype=torch.int64, pin_memory=self._cuda)
        self._span = torch.zeros((2, n), dtype=torch.int64, device=device)
        self._window = torch.arange(self.index.ring - 1, device=device)
        self._envs = torch.arange(n, device=device)
        self._all = np.arange(b)

    # What the env adapter uploads frames with; None: the adapter's own (env.upload).
    uploader = None

    def start(self, ids: np.ndarray) -> None:
        """ppo: the envs `ids` begin episodes from the frames reset() returned."""
        if self.ppo:
            self.tracker.start(ids)

    def observe(self, ids: np.ndarray, rewards: np.ndarray, terminations: np.ndarray,
                truncations: np.ndarray) -> None:
        """ppo: one batch's step results (unclipped rewards); staged for the rows acted before them.

        The next `act` is on the same batch of envs (the frames that came with
        these results) and writes them. Reset steps come back invalid.
        """
        if not self.ppo:
            return
        valid = self.tracker.observe(ids, rewards, terminations, truncations)
        self._rows_np[1] = self.index.result_rows(ids)
        np.sign(rewards, out=self._results_np[0], casting="unsafe")
        self._results_np[1] = terminations
        self._results_np[2] = valid

    @torch.no_grad()
    def act(self, frames: torch.Tensor, slot: int, ids: Optional[np.ndarray] = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Actions and values for a batch of uint8 frames on the device (reference: greedy;
        ppo: sampled, and stored with the staged results)."""
        if self.ppo:
            self._stage_rows(ids)
            self._rows.copy_(self._rows_host, non_blocking=True)
            self._results.copy_(self._results_host, non_blocking=True)
            return self._ppo_act(frames)
        logits, value = self._forward(frames)
        return logits.argmax(-1), value

    def _stage_rows(self, ids: Optional[np.ndarray]) -> None:
        """The flat rows this batch acts into (counts the step per env)."""
        self._rows_np[0] = self.index.act_rows(self._all if ids is None else np.asarray(ids, dtype=np.int64))

    def _ppo_act(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Write the arrived results, then sample and store: all on the device, no host sync
        (the graphed runtime captures exactly this)."""
        acted, arrived = self._rows[0], self._rows[1]
        self.rew_buf.index_copy_(0, arrived, self._results[0])
        self.done_buf.index_copy_(0, arrived, self._results[1])
        self.valid_buf.index_copy_(0, arrived, self._results[2])
        logits, values = self._forward(frames)
        logits = logits.float()
        # Gumbel-max: argmax(logits - log E), E ~ Exp(1), samples softmax(logits).
        actions = (logits - torch.empty_like(logits).exponential_().log()).argmax(-1)
        logp = torch.log_softmax(logits, -1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        self.obs_buf.index_copy_(0, acted, frames)
        self.act_buf.index_copy_(0, acted, actions)
        self.logp_buf.index_copy_(0, acted, logp)
        self.val_buf.index_copy_(0, acted, values.float())
        return actions, values

    def actions_to_host(self, actions: torch.Tensor) -> np.ndarray:
        """The actions as a numpy array for the emulators (waits for the device)."""
        if not self._cuda:
            return actions.numpy()
        self._actions_host.copy_(actions, non_blocking=True)
        torch.cuda.current_stream().synchronize()
        return self._actions_host.numpy()

    def store(self, slot: int, frames: torch.Tensor, actions: torch.Tensor, values: torch.Tensor,
              ids: Optional[np.ndarray] = None) -> None:
        """Write one step into the rollout: all envs, or the env ids `ids` (async batches).
        ppo: nothing, its `act` stored."""
        if self.ppo:
            return
        if ids is None:
            self.obs_buf[slot].copy_(frames)
            self.act_buf[slot].copy_(actions)
            self.ret_buf[slot].copy_(values)
            return
        rows = self._rows_of(ids)
        self.obs_buf[slot].index_copy_(0, rows, frames)
        self.act_buf[slot].index_copy_(0, rows, actions)
        self.ret_buf[slot].index_copy_(0, rows, values)

    def _rows_of(self, ids: np.ndarray) -> torch.Tensor:
        """Env ids on the device through the pinned staging buffer.

        Safe to refill: the previous batch's copy finished before its
        `actions_to_host` returned, which precedes this call.
        """
        if not self._cuda:
            return torch.from_numpy(np.ascontiguousarray(ids, dtype=np.int64))
        np.copyto(self._ids_host.numpy(), ids, casting="unsafe")
        return self._ids.copy_(self._ids_host, non_blocking=True)

    def update_due(self, loop_step: int) -> bool:
        """After loop step `loop_step` (counted from 0 in each repetition): is an update due?

        reference: every num_steps loop steps, as the reference does. ppo: when
        the envs' rollouts hold num_steps x num_envs transitions (see rollout).
        """
        if self.ppo:
            return self.index.due()
        return (loop_step + 1) % self.cfg.num_steps == 0

    def new_order(self) -> torch.Tensor:
        """Minibatch order for one update, on the device: per epoch a permutation of the
        rollout's steps (reference) or of its num_steps x num_envs samples (ppo)."""
        epochs, size = self._order_shape()
        return torch.stack([torch.randperm(size, device=self.device) for _ in range(epochs)])

    def _order_shape(self) -> tuple[int, int]:
        return self.cfg.update_epochs, self.cfg.num_steps * (self.num_envs if self.ppo else 1)

    def update(self, order: Optional[torch.Tensor] = None) -> None:
        """The update over the whole rollout in `order`, without host syncs."""
        self._prepare_update()
        self._update(self.new_order() if order is None else order)
        self._finish_update()

    def _prepare_update(self) -> None:
        """ppo: each env's rollout rows, and the annealed step size (set before the launch)."""
        if not self.ppo:
            return
        if not self.index.due():
            raise RuntimeError("ppo update before the rollouts are complete (see update_due)")
        span = self._span_host.numpy()
        span[0], span[1] = self.index.base % self.index.ring, self.index.lengths
        self._span.copy_(self._span_host, non_blocking=True)
        if self.cfg.anneal_lr and self.total_updates:
            lr = self.cfg.learning_rate * max(0.0, 1.0 - self.updates / self.total_updates)
            group = self.opt.param_groups[0]
            if torch.is_tensor(group["lr"]):
                group["lr"].fill_(lr)
            else:
                group["lr"] = lr

    def _finish_update(self) -> None:
        self.updates += 1
        if self.ppo:
            self.index.advance()

    def _update(self, order: torch.Tensor) -> None:
        if self.ppo:
            return self._ppo_update(order)
        size = self.cfg.num_steps // self.cfg.num_minibatches
        for epoch in range(self.cfg.update_epochs):
            for idx in order[epoch].split(size):
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

    def _ppo_update(self, order: torch.Tensor) -> None:
        """GAE along each env's own rows, then epochs x minibatches of the clipped PPO loss.

        Every env's rollout is read through a window of ring - 1 rows from its
        start (`_span`, on the device, so the graphed runtime replays this
        whatever the rows): positions past its length are masked, and the row
        after its last transition holds its bootstrap value. num_steps x
        num_envs samples are taken, valid ones first (in step and sendrecv that
        is all of them; the minibatch order then shuffles them); invalid rows
        (reset steps, or too few transitions) weigh 0 in every mean.
        """
        cfg, n, ring = self.cfg, self.num_envs, self.index.ring
        start, length = self._span[0], self._span[1]
        window = self._window.unsqueeze(1)
        rows = ((start + window) % ring) * n + self._envs  # [ring - 1, N], each env's own time order
        valid = self.valid_buf[rows] * (window < length).float()
        bootstrap = ((start + length) % ring) * n + self._envs  # used only where a rollout fills the window
        advantages, returns = gae(self.rew_buf[rows], self.val_buf[rows], self.done_buf[rows], valid,
                                  self.val_buf[bootstrap], cfg.gamma, cfg.gae_lambda)
        valid = valid.reshape(-1)
        # valid samples first, in time order: an excess (async batches overshoot by less than a
        # batch) is dropped from the rollouts' ends; a shortfall is made up of rows that weigh 0
        chosen = (1 - valid).argsort(stable=True)[:self.index.samples]
        rows, valid = rows.reshape(-1)[chosen], valid[chosen]
        advantages, returns = advantages.reshape(-1)[chosen], returns.reshape(-1)[chosen]
        old_logp, old_values = self.logp_buf[rows], self.val_buf[rows]
        size = self.index.samples // cfg.num_minibatches
        for epoch in range(cfg.update_epochs):
            for idx in order[epoch].split(size):
                sample = rows[idx]
                weight = valid[idx]
                count = weight.sum().clamp(min=1.0)

                def mean(x: torch.Tensor) -> torch.Tensor:
                    return (x * weight).sum() / count

                logits, value = self.net(self.obs_buf[sample])
                logp_all = torch.log_softmax(logits.float(), -1)
                logp = logp_all.gather(-1, self.act_buf[sample].unsqueeze(-1)).squeeze(-1)
                entropy = -(logp_all.exp() * logp_all).sum(-1)
                adv = advantages[idx]
                adv_mean = mean(adv)
                adv = (adv - adv_mean) / (mean((adv - adv_mean) ** 2).sqrt() + 1e-8)
                ratio = (logp - old_logp[idx]).exp()
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef))
                value = value.float()
                old, target = old_values[idx], returns[idx]
                clipped = old + (value - old).clamp(-cfg.clip_coef, cfg.clip_coef)
                value_loss = 0.5 * torch.max((value - target) ** 2, (clipped - target) ** 2)
                loss = mean(policy_loss) - cfg.ent_coef * mean(entropy) + cfg.vf_coef * mean(value_loss)
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
                self.opt.step()


class CompiledAgent(Agent):
    """The reference's runtime: torch.compile(mode="reduce-overhead") inference, eager update.

    On CPU it compiles only with `agent.compile_on_cpu` (slow to build, no CUDA
    graphs); otherwise it runs eager there, and the result says so.
    """

    runtime = "compiled"

    def __init__(self, agent_cfg: Any, num_actions: int, num_envs: int, device: torch.device,
                 batch_size: Optional[int] = None, total_updates: Optional[int] = None):
        super().__init__(agent_cfg, num_actions, num_envs, device, batch_size, total_updates)
        self.compiled = device.type == "cuda" or bool(agent_cfg.compile_on_cpu)
        self.cudagraphs = self.compiled and device.type == "cuda"
        if self.compiled:
            mode = "reduce-overhead" if self.cudagraphs else "default"
            # dynamic=False: one static shape per job, never dynamo's automatic dynamic shapes.
            self._forward = torch.compile(self.net, mode=mode, fullgraph=True, dynamic=False)

    @torch.no_grad()
    def act(self, frames: torch.Tensor, slot: int, ids: Optional[np.ndarray] = None) -> tuple[torch.Tensor, torch.Tensor]:
        if self.cudagraphs:
            torch.compiler.cudagraph_mark_step_begin()
        # argmax makes a fresh tensor; the value is copied into the rollout before the next replay.
        return super().act(frames, slot, ids)


class GraphedAgent(Agent):
    """The act step and the update, each captured once and replayed as one CUDA graph.

    Frames reach the graph through its own pinned host buffer (`upload`, which
    the env adapter calls): the host copies ale-py's array there, and the graph
    copies it to the device. The slot and env ids go up the same way, so the
    stores land at device-side indices; the actions come down into a pinned
    buffer inside the graph, and `actions_to_host` only waits for an event.
    Capture happens at the first act and the first update (inside the warm-up);
    the update's capture runs it for real on a side stream, so the parameters
    and Adam's state are put back afterwards and the first replay starts from
    the state a fresh eager agent would have. With algo=ppo the act graph is
    eager's `_ppo_act` behind the copies of its staged rows and results, and
    the update graph is `_ppo_update` (the rollouts' rows and the step size are
    device tensors set before each replay).
    """

    runtime = "graphed"

    def __init__(self, agent_cfg: Any, num_actions: int, num_envs: int, device: torch.device,
                 batch_size: Optional[int] = None, total_updates: Optional[int] = None):
        if device.type != "cuda":
            raise ValueError("agent.runtime=graphed: needs CUDA graphs and the device is " + str(device))
        super().__init__(agent_cfg, num_actions, num_envs, device, batch_size, total_updates)
        # Each shape is captured once, so let cuDNN time its algorithms during the
        # capture's warm-up: the fastest one for these small batches is then replayed.
        torch.backends.cudnn.benchmark = True
        b = self.batch_size
        self._frames_host = torch.zeros((b, *FRAME_SHAPE), dtype=torch.uint8, pin_memory=True)
        self._frames_host_np = self._frames_host.numpy()
        self._frames = torch.zeros((b, *FRAME_SHAPE), dtype=torch.uint8, device=device)
        # [slot, env ids...]: the rollout rows this batch goes to.
        self._index_host = torch.zeros(b + 1, dtype=torch.int64, pin_memory=True)
        self._index_host_np = self._index_host.numpy()
        self._index_host_np[1:] = np.arange(b)
        self._index = torch.zeros(b + 1, dtype=torch.int64, device=device)
        self._order = torch.zeros(self._order_shape(), dtype=torch.int64, device=device)
        self._acted = torch.cuda.Event()
        self._act_graph: Optional[torch.cuda.CUDAGraph] = None
        self._act_out: tuple[torch.Tensor, torch.Tensor] = (None, None)  # type: ignore[assignment]
        self._update_graph: Optional[torch.cuda.CUDAGraph] = None

    def uploader(self, obs: np.ndarray) -> torch.Tensor:
        """Stage a batch of frames for the next act; returns the device buffer the act graph fills.

        Safe to overwrite: the previous act's graph read this buffer before its
        action download, which `actions_to_host` waited for.
        """
        np.copyto(self._frames_host_np, obs)
        return self._frames

    def act(self, frames: torch.Tensor, slot: int, ids: Optional[np.ndarray] = None) -> tuple[torch.Tensor, torch.Tensor]:
        if frames is not self._frames:
            raise ValueError("graphed act takes the frames its own uploader staged")
        if self.ppo:
            self._stage_rows(ids)
        else:
            self._index_host_np[0] = slot
            if ids is not None:
                self._index_host_np[1:] = ids
        if self._act_graph is None:
            self._act_graph, self._act_out = _capture(self._act_step, warmup=2)
        self._act_graph.replay()
        self._acted.record()
        return self._act_out

    @torch.no_grad()
    def _act_step(self) -> tuple[torch.Tensor, torch.Tensor]:
        self._frames.copy_(self._frames_host, non_blocking=True)
        if self.ppo:
            self._rows.copy_(self._rows_host, non_blocking=True)
            self._results.copy_(self._results_host, non_blocking=True)
            actions, values = self._ppo_act(self._frames)
            self._actions_host.copy_(actions, non_blocking=True)
            return actions, values
        self._index.copy_(self._index_host, non_blocking=True)
        logits, values = self.net(self._frames)
        actions = logits.argmax(-1)
        rows = self._index[0] * self.num_envs + self._index[1:]
        self.obs_buf.view(-1, *FRAME_SHAPE).index_copy_(0, rows, self._frames)
        self.act_buf.view(-1).index_copy_(0, rows, actions)
        self.ret_buf.view(-1).index_copy_(0, rows, values)
        self._actions_host.copy_(actions, non_blocking=True)
        return actions, values

    def actions_to_host(self, actions: torch.Tensor) -> np.ndarray:
        self._acted.synchronize()
        return self._actions_host.numpy()

    def store(self, slot: int, frames: torch.Tensor, actions: torch.Tensor, values: torch.Tensor,
              ids: Optional[np.ndarray] = None) -> None:
        """Nothing: the act graph stored this step."""

    def update(self, order: Optional[torch.Tensor] = None) -> None:
        self._prepare_update()
        self._order.copy_(self.new_order() if order is None else order)
        if self._update_graph is None:
            params = [p.detach().clone() for p in self.net.parameters()]
            self._update_graph, _ = _capture(lambda: self._update(self._order), warmup=1)
            with torch.no_grad():  # undo the capture's real updates: start where eager would
                for p, saved in zip(self.net.parameters(), params):
                    p.copy_(saved)
                for state in self.opt.state.values():
                    for value in state.values():
                        value.zero_()
        self._update_graph.replay()
        self._finish_update()


def _capture(body, warmup: int):
    """Run `body` `warmup` times on a side stream (lazy inits, cuBLAS/cuDNN choices), then capture it."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            body()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = body()
    return graph, out


RUNTIMES = {"eager": Agent, "compiled": CompiledAgent, "graphed": GraphedAgent}


def make_agent(agent_cfg: Any, num_actions: int, num_envs: int, device: torch.device,
               batch_size: Optional[int] = None, total_updates: Optional[int] = None) -> Agent:
    """The agent for `agent.runtime`."""
    return RUNTIMES[agent_cfg.runtime](agent_cfg, num_actions, num_envs, device, batch_size, total_updates)
