"""How an algorithm's work reaches the device (`agent.runtime`; see registry.RUNTIMES).

A runtime wraps an algorithm (its contract: algos.base.Algorithm, whose members
are all a runtime touches) and gives the drivers and the loop one set of calls
(declared as algos.base.Agent):
`start`, then per batch `act(frames, rollout_step, ids)`, `actions_to_host(actions)`,
`store(frames, actions, values)` and `observe` (of a batch's results, before or
after the act on the frames they came with; see algos.base), and `update_after`,
`can_update`, `update(order)`. It changes how the algorithm's functions are
launched, never what they compute, in LeanRL's style (the same functions
compiled, then graphed):

- eager:    every op launched from Python, as written.
- compiled: the reference's: the forward pass through `torch.compile(mode=
            "reduce-overhead")` (CUDA-graph trees on CUDA), the update eager.
- graphed:  the whole act step (frames host-to-device, the algorithm's act and
            store, actions device-to-host) replayed as one CUDA graph, and the
            whole update (epochs x minibatches, Adam with `capturable=True`)
            as another: two graph launches where the others launch hundreds of
            kernels from one Python thread, which at 1 to 64 envs is what
            bounds the loop.

With `agent.overlap` (eager and graphed) the update on rollout k runs on a
CUDA stream of its own while the loop collects rollout k+1 with the acting
copy of the parameters (algos.base.Algorithm.catch_up), which catches up with the
trained ones at the next rollout boundary, once the update's event has
completed: the loop acts one update behind, always, as Cleanba's actor does,
and the emulators no longer wait for the update. On the CPU there are no
streams: the update runs in line, still one update behind.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np
import torch
# torch.optim imports dynamo anyway (3.8 s on the H200), so it stays in the fork server's preload
from torch._dynamo.utils import counters
from torch._inductor import list_mode_options

from ppo_bench.agent.algos.base import Algorithm, EpisodeReturns, Spec


def compiled_graphs() -> int:
    """Graphs dynamo has compiled since the counters were last cleared."""
    return int(counters["stats"]["unique_graphs"])


def cudagraph_skips() -> int:
    """Times inductor declined CUDA graphs (CPU tensors, mutated inputs, ...)."""
    return int(counters["inductor"]["cudagraph_skips"])


class Eager:
    """Every op launched from Python; the base of the other runtimes' calls."""

    compiled = False
    cudagraphs = False
    capturable = False
    """Whether the algorithm must be built for CUDA-graph replay (see algos.Spec)."""
    uploader: Optional[Callable[[np.ndarray], torch.Tensor]] = None
    """What the env adapter uploads frames with; None: the adapter's own (env.upload)."""

    def __init__(self, algo: Algorithm, cfg: Any):
        """`cfg`: the agent config, of which a runtime reads its own keys (overlap, compile_on_cpu,
        cudnn_benchmark)."""
        self.algo = algo
        self.device = algo.device
        self._cuda = self.device.type == "cuda"
        self._actions_host = torch.zeros(algo.spec.batch_size, dtype=torch.int64, pin_memory=self._cuda)
        self.overlap = bool(cfg.overlap)
        overlapped = self.overlap and self._cuda
        self._update_stream = None
        if overlapped:
            # The loop acts on a stream of higher priority than the update's: where both have
            # kernels waiting, the GPU schedules the act's first (graphs run at the priority of the
            # stream they are launched on). Blocks already running are not preempted, so an act can
            # still wait behind the update's; on the H200 at 64 envs this and the observe after the
            # send measured 1.02x [0.97, 1.08] together (docs/results/2026-12-01-h200).
            acting = torch.cuda.Stream(priority=-1)
            acting.wait_stream(torch.cuda.current_stream())  # what was queued so far (the build)
            torch.cuda.set_stream(acting)
            self._update_stream = torch.cuda.Stream(priority=0)
        self._updated = torch.cuda.Event() if overlapped else None
        self._in_flight = False
        self._acting = torch.cuda.current_stream() if self._cuda else None  # thread-local: kept for device_state

    @property
    def updates(self) -> int:
        return self.algo.updates

    @property
    def tracker(self) -> Optional[EpisodeReturns]:
        return self.algo.tracker

    @property
    def spec(self) -> Spec:
        """What the algorithm was built for (agent_only makes frames of its shape)."""
        return self.algo.spec

    @property
    def rollout_steps(self) -> int:
        """The loop's cycle of rollout steps: loop step s acts at rollout step s % rollout_steps."""
        return self.algo.rollout_steps

    def start(self, ids: np.ndarray) -> None:
        self.algo.start(ids)

    def restart(self) -> None:
        self.algo.restart()

    def observe(self, ids: np.ndarray, rewards: np.ndarray, terminations: np.ndarray,
                truncations: np.ndarray) -> None:
        self.algo.observe(ids, rewards, terminations, truncations)

    @torch.no_grad()
    def act(self, frames: torch.Tensor, rollout_step: int, ids: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """Actions and values for a batch of uint8 frames on the device, the batch of envs `ids`
        at the loop step's rollout step `rollout_step`."""
        self.algo.stage(rollout_step, ids)
        return self.algo.act(frames)

    def actions_to_host(self, actions: torch.Tensor) -> np.ndarray:
        """The actions as a numpy array for the emulators (waits for the device)."""
        if not self._cuda:
            return actions.numpy()
        self._actions_host.copy_(actions, non_blocking=True)
        torch.cuda.current_stream().synchronize()
        return self._actions_host.numpy()

    @torch.no_grad()
    def store(self, frames: torch.Tensor, actions: torch.Tensor, values: torch.Tensor) -> None:
        """The rollout stores that wait until the actions were sent (where the algorithm has any)."""
        self.algo.store(frames, actions, values)

    def update_after(self, loop_step: int) -> bool:
        """Whether the loop runs an update after loop step `loop_step` (the algorithm's schedule)."""
        return self.algo.update_after(loop_step)

    def can_update(self) -> bool:
        """Whether an update may run now, due or not (the warm-up's closing update)."""
        return self.algo.can_update()

    def update(self, order: Optional[torch.Tensor] = None) -> None:
        """The update over the whole rollout in `order` (drawn on the device when not given).

        With agent.overlap: first the acting parameters catch up with the last update (the host
        waits for its event: a rollout takes longer than an update, so it has ended), then this one
        is launched on the update stream after what the loop has queued (the rollout's rows, the
        catch-up) and runs beside the next rollout.
        """
        if not self.overlap:
            self.algo.prepare_update()
            self._launch(order)
            self.algo.finish_update()
            return
        self.wait_for_update()
        self.algo.catch_up()
        if self._update_stream is None:  # CPU: in line
            self.algo.prepare_update()
            self._launch(order)
        else:
            self._update_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self._update_stream):
                self.algo.prepare_update()
                self._launch(order)
                self._updated.record()
            self._in_flight = True
        self.algo.finish_update()

    def device_state(self) -> str:
        """One line for a stalled job's error (`Progress.on_stall`, asked from another thread): does
        the acting stream (and with agent.overlap the update's) still hold work? A stall in a wait
        for the device with both idle stopped on the host; with one busy, on the device. Both
        queries return at once. Empty on the CPU: nothing runs beside the host there."""
        if not self._cuda:
            return ""
        state = f"the device: acting stream {'idle' if self._acting.query() else 'busy'}"
        if self._update_stream is not None:
            state += (f", update stream {'idle' if self._update_stream.query() else 'busy'}"
                      f" ({'an update in flight' if self._in_flight else 'no update in flight'})")
        return state

    def wait_for_update(self) -> None:
        """Block until the update in flight (agent.overlap) has ended; nothing otherwise."""
        if self._in_flight:
            self._updated.synchronize()
            self._in_flight = False

    def _launch(self, order: Optional[torch.Tensor]) -> None:
        self.algo.update_step(self.algo.new_order() if order is None else order)


COMPILE_THREADS = 1
"""inductor's compile_threads for the compiled runtime: compile in the job's own process. With its
default (a thread per core, up to 32), inductor's first compile in a process starts a pool of
compile workers, processes that import torch while the job's warm-up and first timed repetitions
run beside them, in every job's fresh process (on the H200, 5 s after a compiled job's first
steps, 17 such processes that had used 10.6 CPU seconds; 2026-12-03). Its on-disk cache, shared
by a sweep's jobs, leaves a later job little to compile."""


def hash_compile_keys() -> None:
    """Compute, once in this process, the two hashes a compiled policy's first call keys inductor's
    caches with: torch's (its sources) and triton's (its sources and shared library). Each is the
    same in every process and kept for the process's life, so a fork server that computes them
    hands them to every job it forks; else each job's first step computes both (0.7 of its 1.8 s on
    an H100, 2026-12-07: docs/findings.md, "Start-up"). inductor does the same before
    it forks its own compile workers (`async_compile.pre_fork_setup`). Neither asks CUDA anything.
    Both are inductor's internals, found where torch 2.13 keeps them (and 2.11 its own hash, by a
    profile of its first step); where one is not, the job computes it (a lost saving, never a failed
    sweep)."""
    try:
        from torch._inductor.codecache import torch_key
    except ImportError:
        pass
    else:
        torch_key()
    try:
        from torch._inductor.runtime.triton_compat import HAS_TRITON, triton_key
    except ImportError:
        return
    if HAS_TRITON:
        triton_key()


class Compiled(Eager):
    """The reference's runtime: torch.compile(mode="reduce-overhead") inference, eager update.

    On CPU it compiles only with `agent.compile_on_cpu` (slow to build, no CUDA
    graphs); otherwise it runs eager there, and the result says so.

    It compiles in the job's own process (COMPILE_THREADS).
    """

    def __init__(self, algo: Algorithm, cfg: Any):
        super().__init__(algo, cfg)
        self.compiled = self._cuda or bool(cfg.compile_on_cpu)
        self.cudagraphs = self.compiled and self._cuda
        if self.compiled:
            # the mode's own options (torch.compile takes a mode or options, not both)
            options = {**list_mode_options("reduce-overhead" if self.cudagraphs else "default"),
                       "compile_threads": COMPILE_THREADS}
            # dynamic=False: one static shape per job, never dynamo's automatic dynamic shapes.
            algo.wrap_policy(lambda policy: torch.compile(policy, options=options, fullgraph=True, dynamic=False))

    def act(self, frames: torch.Tensor, rollout_step: int, ids: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        if self.cudagraphs:
            torch.compiler.cudagraph_mark_step_begin()
        # The outputs live in the graph tree's memory until the next replay: argmax makes a fresh
        # tensor, and the value is stored before the next act.
        return super().act(frames, rollout_step, ids)


class Graphed(Eager):
    """The act step and the update, each captured once and replayed as one CUDA graph.

    Frames reach the graph through its own pinned host buffer (`uploader`, which
    the env adapter calls): the host copies the env's array there, and the
    graph copies it to the device. The algorithm's staged indices go up the
    same way, inside its act; the actions come down into a pinned buffer inside
    the graph, and `actions_to_host` only waits for an event. Capture happens
    at the first act and the first update (inside the warm-up); the update's
    capture runs it for real on a side stream, so the parameters and Adam's
    state are put back afterwards and the first replay starts from the state a
    fresh eager agent would have.
    """

    cudagraphs = True
    capturable = True

    def __init__(self, algo: Algorithm, cfg: Any):
        if algo.device.type != "cuda":
            raise ValueError("agent.runtime=graphed: needs CUDA graphs and the device is " + str(algo.device))
        super().__init__(algo, cfg)
        # Each shape is captured once, so cuDNN may time its algorithms during the capture's
        # warm-up and the fastest one for these small batches is then replayed; the timing cost
        # 4.7 s of a learning run's start on the H200 (agent.cudnn_benchmark).
        torch.backends.cudnn.benchmark = bool(cfg.cudnn_benchmark)
        shape = (algo.spec.batch_size, *algo.spec.obs_shape)
        self._frames_host = torch.zeros(shape, dtype=torch.uint8, pin_memory=True)
        self._frames_host_np = self._frames_host.numpy()
        self._frames = torch.zeros(shape, dtype=torch.uint8, device=self.device)
        self._order = torch.zeros(algo.order_shape, dtype=torch.int64, device=self.device)
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

    def act(self, frames: torch.Tensor, rollout_step: int, ids: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        if frames is not self._frames:
            raise ValueError("graphed act takes the frames its own uploader staged")
        self.algo.stage(rollout_step, ids)
        if self._act_graph is None:
            self._act_graph, self._act_out = capture(self._act_step, warmup=2)
        self._act_graph.replay()
        self._acted.record()
        return self._act_out

    @torch.no_grad()
    def _act_step(self) -> tuple[torch.Tensor, torch.Tensor]:
        self._frames.copy_(self._frames_host, non_blocking=True)
        actions, values = self.algo.act(self._frames)
        self.algo.store(self._frames, actions, values)
        self._actions_host.copy_(actions, non_blocking=True)
        return actions, values

    def actions_to_host(self, actions: torch.Tensor) -> np.ndarray:
        self._acted.synchronize()
        return self._actions_host.numpy()

    def store(self, frames: torch.Tensor, actions: torch.Tensor, values: torch.Tensor) -> None:
        """Nothing: the act graph stored this step."""

    def _launch(self, order: Optional[torch.Tensor]) -> None:
        algo = self.algo
        self._order.copy_(algo.new_order() if order is None else order)
        if self._update_graph is None:
            saved = algo.checkpoint()
            self._update_graph, _ = capture(lambda: algo.update_step(self._order), warmup=1)
            algo.rewind(saved)  # undo the capture's real updates: start where eager would
        self._update_graph.replay()


def capture(body: Callable, warmup: int):
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
