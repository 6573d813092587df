"""The algorithm contract (`Algorithm`) and the parts the package's actor-critics share.

`Algorithm` declares every member a runtime (agent.runtimes), a driver (loop.drivers, through
the runtime) or the loop (loop.run) uses; they use no other. The calls, in the order the
drivers make them:

    host:   start(ids), stage(rollout_step, ids)   where this batch's rows go (pinned staging)
    device: act(frames) -> (actions, values)
            store(frames, actions, values)   after the actions were sent
    host:   observe(ids, rewards, terminations, truncations)   a batch's results, in the
            loop step that brought them: before the act on the frames they came with
            (step) or after it and the send (sendrecv, async); the next act, or the
            update if it comes first, writes them
    host:   update_after(loop_step), can_update(), new_order(),
            prepare_update(); device: update_step(order); host: finish_update()

The device functions never read a device value on the host and take their indices from
device tensors that `act` uploads from the pinned staging, so a runtime can run them eagerly,
compile the forward pass (`wrap_policy`), or capture them whole in a CUDA graph (`checkpoint`
and `rewind` undo the capture's own run): no algorithm knows which runtime runs it.

What the drivers and the loop see is not the algorithm but its runtime: `Agent` declares those
calls (the algorithm's, batched by the runtime with the loop step's rollout step and env ids), and
`EpisodeReturns` what a learning run reads of an algorithm's `tracker`. They are Protocols, not
bases: the runtimes and `onpolicy.episodes.EpisodeTracker` meet them by shape, and a driver, a
runtime or a tracker written elsewhere knows from them what it must offer and may call.
"""

from __future__ import annotations

import abc
import copy
from dataclasses import dataclass
from typing import Any, Callable, Optional, Protocol, runtime_checkable

import numpy as np
import torch

from ppo_bench.agent.networks import ActorCritic


@dataclass(frozen=True)
class Spec:
    """What an algorithm is built for: the env's frames and actions, its batches, the device, the
    network, and how the runtime runs its update."""

    obs_shape: tuple[int, ...]
    num_actions: int
    num_envs: int
    batch_size: int
    device: torch.device
    network: str
    """The encoder of its actor-critic (agent.name; registry.NETWORKS)."""
    total_updates: Optional[int] = None
    """Updates in a learning run (what an annealed step size falls over); None for timed repetitions."""
    capturable: bool = False
    """The update is replayed as a CUDA graph: the optimizer must be capturable and read its
    step size from device memory where it changes."""
    overlap: bool = False
    """agent.overlap: the runtime runs each update beside the next rollout, so the algorithm keeps
    the rollout an update trains on apart from the one being collected and acts with a copy of
    its parameters one update behind (`catch_up`)."""


@runtime_checkable
class EpisodeReturns(Protocol):
    """An algorithm's `tracker` as a learning run reads it (loop.run.learn, the job's record): the
    finished episodes' unclipped returns. Only these: how an algorithm tells its episodes apart is
    its own (onpolicy.episodes.EpisodeTracker, on next-step-autoreset envs, is the package's)."""

    @property
    def num_episodes(self) -> int:
        """Episodes finished so far."""

    def returns(self) -> np.ndarray:
        """The finished episodes' returns, in the order they finished."""

    def recent(self, k: int = 100) -> tuple[float, float]:
        """Mean and spread of the last `k` finished returns; (nan, nan) before any."""


class Algorithm(abc.ABC):
    """What an algorithm is to the rest of the tool: the members below, and no others.

    Declared attributes, set by `__init__` (a subclass keeps them current):
    `spec` (what it was built for), `device` (spec.device), `updates` (updates finished) and
    `tracker` (the episodes' returns, `EpisodeReturns`, or None where it keeps none: a learning
    run reads the curve off it).
    """

    def __init__(self, spec: Spec):
        self.spec: Spec = spec
        self.device: torch.device = spec.device
        self.updates: int = 0
        self.tracker: Optional[EpisodeReturns] = None

    @property
    @abc.abstractmethod
    def rollout_steps(self) -> int:
        """Rollout steps the loop cycles through: loop step s acts at rollout step s % rollout_steps (`stage`)."""

    @property
    @abc.abstractmethod
    def order_shape(self) -> tuple[int, int]:
        """(epochs, samples) of an update's minibatch order (`new_order`; graphed keeps one buffer)."""

    # the loop step, host and device
    def start(self, ids: np.ndarray) -> None:
        """The envs `ids` begin episodes from the frames reset() returned."""

    def restart(self) -> None:
        """The vector env was rebuilt mid-run (see job): what was in flight in the old one is dropped;
        `start` follows with the new reset batch."""

    @abc.abstractmethod
    def stage(self, rollout_step: int, ids: np.ndarray) -> None:
        """On the host, before `act`: the rows the batch of envs `ids` acts into at `rollout_step`."""

    @abc.abstractmethod
    def act(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Actions and values for a batch of uint8 frames on the device (no host sync)."""

    def store(self, frames: torch.Tensor, actions: torch.Tensor, values: torch.Tensor) -> None:
        """Rollout stores that may wait until the actions were sent; nothing where `act` stored."""

    def observe(self, ids: np.ndarray, rewards: np.ndarray, terminations: np.ndarray,
                truncations: np.ndarray) -> None:
        """One batch's step results, in the loop step that brought them (before or after the act on
        that batch: drivers observe after the send where they can, beside the emulators' step)."""

    # the update
    @abc.abstractmethod
    def update_after(self, loop_step: int) -> bool:
        """Whether the loop runs an update after loop step `loop_step` (counted from 0 in each
        repetition): the algorithm's schedule of updates."""

    @abc.abstractmethod
    def can_update(self) -> bool:
        """Whether an update may run now, due or not: the warm-up closes with one as soon as this
        holds (the rollout holds what an update trains on)."""

    def new_order(self) -> torch.Tensor:
        """Minibatch order for one update, on the device: one permutation per epoch."""
        epochs, size = self.order_shape
        return torch.stack([torch.randperm(size, device=self.device) for _ in range(epochs)])

    def prepare_update(self) -> None:
        """Host work before an update's launch."""

    @abc.abstractmethod
    def update_step(self, order: torch.Tensor) -> None:
        """The update, all on the device, in minibatch `order`."""

    def finish_update(self) -> None:
        """Host work after an update's launch."""
        self.updates += 1

    # what a runtime may ask of it
    @abc.abstractmethod
    def wrap_policy(self, wrap: Callable[[Callable], Callable]) -> None:
        """`act`'s forward pass becomes `wrap(forward pass)` (the compiled runtime's torch.compile)."""

    @abc.abstractmethod
    def catch_up(self) -> None:
        """agent.overlap: what acts (parameters, frame statistics) becomes what the last update
        trained (that update has ended)."""

    @abc.abstractmethod
    def checkpoint(self) -> Any:
        """Copies of what an update changes (for `rewind`): the graphed runtime's capture runs the
        update for real."""

    @abc.abstractmethod
    def rewind(self, saved: Any) -> None:
        """Back to `checkpoint`'s state, the optimizer's as a fresh one's: the first replay then
        starts where an eager update would."""


class ActorCriticAlgorithm(Algorithm):
    """The parts the package's algorithms share: an actor-critic network (`net`, the one trained),
    the one that acts (`acting`: `net`, or with agent.overlap a copy one update behind), pinned
    staging, an Adam optimizer (`opt`, made by the subclass)."""

    opt: torch.optim.Optimizer

    def __init__(self, spec: Spec, normalize_obs: bool = False):
        super().__init__(spec)
        net = ActorCritic(spec.network, spec.obs_shape, spec.num_actions, normalize_obs=normalize_obs)
        self.init_network(net)
        self.net = net.to(spec.device)
        self.acting = self.net
        if spec.overlap:
            self.acting = copy.deepcopy(self.net).requires_grad_(False)
        self._policy: Callable = self.acting
        """The forward pass `act` calls (`wrap_policy`)."""

    def init_network(self, net: ActorCritic) -> None:
        """The network's initial weights, chosen by the algorithm: its learning depends on them (a
        sampling learner wants a near-uniform first policy, `networks.orthogonal_init`). Called on
        the host before the network moves to the device, so the same seed draws the same weights on
        every device. Here PyTorch's layer defaults, as the reference's workload has them."""

    def wrap_policy(self, wrap: Callable[[Callable], Callable]) -> None:
        self._policy = wrap(self.acting)

    def staging(self, shape: tuple[int, ...], dtype: torch.dtype, fill: int = 0):
        """A pinned host buffer (pinned on CUDA), its numpy view, and its device twin that `act` fills."""
        host = torch.full(shape, fill, dtype=dtype, pin_memory=self.device.type == "cuda")
        return host, host.numpy(), torch.zeros(shape, dtype=dtype, device=self.device)

    def catch_up(self) -> None:
        with torch.no_grad():
            torch._foreach_copy_([*self.acting.parameters(), *self.acting.buffers()],
                                 [*self.net.parameters(), *self.net.buffers()])

    def checkpoint(self) -> list[torch.Tensor]:
        """The trained network's parameters and buffers (agent.normalize_obs's statistics)."""
        return [t.detach().clone() for t in (*self.net.parameters(), *self.net.buffers())]

    def rewind(self, saved: list[torch.Tensor]) -> None:
        with torch.no_grad():
            for t, before in zip((*self.net.parameters(), *self.net.buffers()), saved):
                t.copy_(before)
            for state in self.opt.state.values():
                for value in state.values():
                    value.zero_()


@runtime_checkable
class Agent(Protocol):
    """The agent as the drivers (loop.drivers), the loop (loop.run) and the job (job.child) call it:
    a runtime (agent.runtimes) over an algorithm; they call nothing else of it. The runtime adds to
    the algorithm's calls what only it knows: the loop step's rollout step and env ids go in with `act`,
    the actions come out through `actions_to_host`, and `update` is the whole of one update."""

    compiled: bool
    """The inference runs compiled (the record says so)."""
    cudagraphs: bool
    """The inference runs as CUDA graphs."""
    uploader: Optional[Callable[[np.ndarray], torch.Tensor]]
    """What the env adapter uploads frames with; None: the adapter's own."""

    @property
    def spec(self) -> Spec:
        """What the algorithm was built for (agent_only makes frames of its shape)."""

    @property
    def rollout_steps(self) -> int:
        """Loop step s acts at rollout step s % rollout_steps."""

    @property
    def updates(self) -> int:
        """Updates finished."""

    @property
    def tracker(self) -> Optional[EpisodeReturns]:
        """The episodes' returns (a learning run's curve), or None where the algorithm keeps none."""

    def start(self, ids: np.ndarray) -> None:
        """The envs `ids` begin episodes from the frames reset() returned."""

    def restart(self) -> None:
        """What was in flight in the vector env is dropped (a new one, or another driver used it)."""

    def act(self, frames: torch.Tensor, rollout_step: int, ids: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """Actions and values for the batch of envs `ids`, at the loop step's `rollout_step`."""

    def actions_to_host(self, actions: torch.Tensor) -> np.ndarray:
        """The actions for the emulators (waits for the device)."""

    def store(self, frames: torch.Tensor, actions: torch.Tensor, values: torch.Tensor) -> None:
        """The rollout stores that may wait until the actions were sent."""

    def observe(self, ids: np.ndarray, rewards: np.ndarray, terminations: np.ndarray,
                truncations: np.ndarray) -> None:
        """A batch's step results, in the loop step that brought them."""

    def update_after(self, loop_step: int) -> bool:
        """Whether the loop runs an update after loop step `loop_step`."""

    def can_update(self) -> bool:
        """Whether an update may run now, due or not (the warm-up's closing update)."""

    def update(self, order: Optional[torch.Tensor] = None) -> None:
        """One update over the rollout (in minibatch `order`, drawn on the device when not given)."""

    def device_state(self) -> str:
        """One line on what the device still runs, for a stalled job's error."""
