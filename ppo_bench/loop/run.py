"""The one loop that every job runs: `run_loop`, for warm-up, timed repetitions and learning.

A loop step is the driver's `step(rollout_step)`; after it, the update runs when the
agent says one is due (`update_after`), told to the driver's observers as the
phase `update`. The warm-up, each timed repetition and a learning run
are that loop with another end (`until`) and another thing to do after an
update (`on_update`); nothing else steps a driver.

Clock discipline: durations on `perf_counter`, a learning run's clock on
`time.monotonic` (system-wide, so it continues the job's start taken in the
parent process), and the device synchronised before every read, so queued
device work is charged to the repetition that queued it. The first loop step
(which compiles the inference) is timed on its own, the rest of the warm-up
(CUDA-graph capture, the first update) separately, and nothing is logged
inside a timed repetition: `on_rep` is called between them. How many repetitions run is
`record.precision.Stopping`'s to say (schedule.reps, or a precision target's count). With `profile`,
one more repetition runs after the timed ones with a `PhaseClock` among the
driver's observers (see `phases`); it is not one of the timed repetitions. Wall-clock times
(`time.time`) are read only to stamp the record.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import torch

from ppo_bench.agent.algos.base import EpisodeReturns
from ppo_bench.loop.drivers import Driver, drain
from ppo_bench.loop.phases import PhaseClock
from ppo_bench.record.parts import CURVE_KEYS, to_target
from ppo_bench.record.precision import Stopping


def run_loop(driver: Driver, until: Callable[[int], bool], first: int = 0,
             on_update: Optional[Callable[[], None]] = None) -> int:
    """Loop steps `first`, `first` + 1, ... until `until(step)` holds before one; an update after
    each step at which the agent has one due. Loop step s acts at the agent's rollout step s % rollout_steps.
    Returns the first step not taken."""
    agent, s, tell = driver.agent, first, driver.observers
    rollout_steps = agent.rollout_steps if agent is not None else 1
    while not until(s):
        driver.step(s % rollout_steps)
        if agent is not None and agent.update_after(s):
            tell.call("update", agent.update)
            if on_update is not None:
                on_update()
        s += 1
    return s


@dataclass
class Timings:
    first_step_s: float = 0.0
    """The first loop step alone: on a compiled agent, the compile."""
    warmup_s: float = 0.0
    """The rest of the warm-up, including one update."""
    rep_seconds: list[float] = field(default_factory=list)
    """Wall time of each timed repetition."""
    measure_started: float = 0.0
    """time.time() when the first timed repetition began (for overlap checks)."""
    measure_finished: float = 0.0
    env_steps: Optional[np.ndarray] = None
    """Steps each env took during the timed repetitions; None without emulators."""
    phases: Optional[dict] = None
    """The profiled repetition's breakdown (`PhaseClock.report`), when asked for."""
    faults: list[dict] = field(default_factory=list)
    """Repetitions that failed and ran again (see `measure`)."""
    probe_seconds: list[float] = field(default_factory=list)
    """With `interleave`: the other side's repetitions, paired with the timed ones in order."""


Recover = Callable[[BaseException], Optional[dict]]
"""What a job does with an exception out of the loop: None lets it end the job; otherwise the
driver was set to go on (over a new vector env) and the dict describes the fault for the record."""


def synchronizer(device: torch.device) -> Callable[[], None]:
    return torch.cuda.synchronize if device.type == "cuda" else (lambda: None)


def warm_up(driver: Driver, steps: int, sync: Callable[[], None],
            after_first_step: Callable[[], None] = lambda: None) -> tuple[float, float]:
    """`steps` loop steps and one update; returns the first step's seconds and the rest's.

    The update closes the warm-up as soon as the algorithm allows one: at once
    for the reference (it trains on whatever the rollout holds), after the
    rollouts fill for ppo (the loop steps on until its update is due).
    `after_first_step` runs between the first step and the rest, on neither clock: where a job
    started ahead of its turn waits for it (`Progress.park`), so that the rest of its warm-up runs
    just before its timed repetitions, as in a job that did not wait.
    """
    agent = driver.agent
    sync()
    t = time.perf_counter()
    run_loop(driver, until=lambda s: s >= 1)
    sync()
    first = time.perf_counter() - t
    after_first_step()
    t = time.perf_counter()
    s = run_loop(driver, until=lambda s: s >= steps, first=1)
    if agent is not None and agent.updates == 0:
        if agent.can_update():
            driver.observers.call("update", agent.update)
        else:
            run_loop(driver, until=lambda _: agent.updates > 0, first=s)
    sync()
    return first, time.perf_counter() - t


def repetition(driver: Driver, steps: int, sync: Callable[[], None]) -> tuple[float, float]:
    """One repetition of `steps` loop steps, counted from 0 (updates when due, as in the reference).

    Returns its wall time and, within it, the final wait for the device.
    """
    sync()
    t = time.perf_counter()
    run_loop(driver, until=lambda s: s >= steps)
    queued = time.perf_counter()
    sync()
    done = time.perf_counter()
    return done - t, done - queued


class Interleaver:
    """Another mode timed in turn with a loop's repetitions, over the loop's own emulators
    (schedule.interleave), in the order A B B A: the loop's rep 0, the other's 0, the other's 1, the
    loop's 1, the loop's 2, ... so that a steady drift within the job weighs on both sides alike,
    and each switch pays once for two reps. `other(driver)` builds the other side's driver over the
    loop's (a probe over its vector env; a loop mode over its emulators and agent, which then drops
    its episodes and rollout in progress): at a switch to it the loop's batches in flight are
    drained, the other driver's reset starts every env afresh and it warms up for schedule.warmup
    loop steps; at a switch back its batches are drained and the loop starts over on the same
    emulators (`driver.reset`) and warms up again before its next timed repetition."""

    def __init__(self, driver: Driver, other: Callable[[Driver], Driver], schedule: Any, seed: int,
                 sync: Callable[[], None]):
        self.driver, self.other, self.schedule, self.seed, self.sync = driver, other, schedule, seed, sync
        self.active: Optional[Driver] = None  # the other side's driver while it holds the emulators

    def first(self, rep: int) -> bool:
        """Whether the other side's rep `rep` comes before the loop's (odd reps: A B, B A, A B, ...)."""
        return rep % 2 == 1

    def rep(self) -> float:
        """One timed repetition of the other side (switching to it where the loop held the emulators)."""
        if self.active is None:
            drain(self.driver.vector_env, self.driver.pending())
            self.active = self.other(self.driver)
            run_loop(self.active, until=lambda s: s >= self.schedule.warmup)
        seconds, _ = repetition(self.active, self.schedule.bench_steps, self.sync)
        return seconds

    def back(self) -> None:
        """The loop holds the emulators again (a no-op where it does), warmed up."""
        if self.active is None:
            return
        drain(self.active.vector_env, self.active.pending())
        self.active = None
        self.driver.reset(self.seed)
        run_loop(self.driver, until=lambda s: s >= self.schedule.warmup)
        self.sync()


def measure(driver: Driver, schedule: Any, sync: Callable[[], None],
            on_rep: Callable[[int, float], None], recover: Optional[Recover] = None,
            interleave: Optional[Interleaver] = None, on_other: Callable[[int, float], None] = lambda r, s: None,
            on_timed: Callable[[], None] = lambda: None, stopping: Optional[Stopping] = None,
            after_first_step: Callable[[], None] = lambda: None) -> Timings:
    """Warm up, then time repetitions of `schedule.bench_steps` loop steps until `stopping` (by
    default `Stopping.of(schedule)`: schedule.reps of them, or as many as a precision target's pilot
    asks for) says no more (`on_timed()` between the two). `stopping` hears of each rep before
    `on_rep` does, so `on_rep` reads its plan.

    A repetition that fails in a way `recover` can mend is dropped (its time and env steps) and
    run again, once: a second failure of the same repetition ends the job. With `interleave`
    (see `Interleaver`), the other side's repetitions are timed in turn with these, A B B A, one for
    each (`on_other` hears of each). `after_first_step`: see `warm_up`.
    """
    out = Timings()
    stopping = Stopping.of(schedule) if stopping is None else stopping
    out.first_step_s, out.warmup_s = warm_up(driver, schedule.warmup, sync, after_first_step)
    timed = None if driver.env_steps is None else np.zeros_like(driver.env_steps)
    on_timed()
    out.measure_started = time.time()
    while stopping.stopped_by is None:
        rep = len(out.rep_seconds)
        if interleave is not None and interleave.first(rep):
            out.probe_seconds.append(interleave.rep())
            on_other(rep, out.probe_seconds[-1])
            interleave.back()
        counts = None if driver.env_steps is None else driver.env_steps.copy()
        try:
            seconds, _ = repetition(driver, schedule.bench_steps, sync)
        except Exception as e:
            fault = recover(e) if recover is not None else None
            if fault is None:
                raise
            out.faults.append({**fault, "rep": rep})
            if counts is not None:
                driver.env_steps[:] = counts
            seconds, _ = repetition(driver, schedule.bench_steps, sync)
        if timed is not None:
            timed += driver.env_steps - counts  # the timed steps only, not an interleave's warm-up
        out.rep_seconds.append(seconds)
        stopping.add(out.rep_seconds)
        on_rep(rep, seconds)
        if interleave is not None and not interleave.first(rep):
            out.probe_seconds.append(interleave.rep())
            on_other(rep, out.probe_seconds[-1])
    out.measure_finished = time.time()
    if interleave is not None and schedule.profile:
        interleave.back()  # the profiled rep is the loop's (the emulators close under either driver)
    out.env_steps = timed
    if schedule.profile:
        clock = PhaseClock(driver)
        try:
            seconds, drain = repetition(driver, schedule.bench_steps, sync)
        finally:
            clock.restore()
        out.phases = clock.report(seconds, drain, schedule.bench_steps)
    return out


@dataclass
class LearningRun:
    """What a learning run measured: its loop time and the learning curve (one point per update)."""
    loop_s: float = 0.0
    """Wall time of the loop (the first step, so the compile or capture, included)."""
    env_steps: int = 0
    measure_started: float = 0.0
    measure_finished: float = 0.0
    setup_s: float = 0.0
    """From the job's start to the loop's (process start, imports, set-up), on the monotonic clock."""
    wall_s: float = 0.0
    """From the job's start to the loop's end, on the monotonic clock."""
    curve: dict = field(default_factory=lambda: {k: [] for k in CURVE_KEYS})
    stopped_by: str = "total_env_steps"
    """What ended the run: total_env_steps, max_seconds, or target_return (with `stop_at`)."""
    faults: list[dict] = field(default_factory=list)
    """What the run survived (see `learn`), with the env steps and seconds where it happened."""


MAX_FAULTS = 3
"""Faults a learning run survives; the next one ends it (a vector env that keeps failing is broken)."""


def learn(driver: Driver, total_env_steps: int, window: int, started: float, sync: Callable[[], None],
          on_point: Callable[[dict], None], max_seconds: Optional[float] = None,
          recover: Optional[Recover] = None, stop_at: Optional[float] = None) -> LearningRun:
    """Run the loop until the envs took `total_env_steps` steps (or, with `max_seconds`, until that
    much time has passed since `started`, a `time.monotonic()` reading; with `stop_at`, until the
    running mean over a full window first reaches it), updating whenever one is due.

    After each update a curve point: env steps so far, seconds since `started`
    (the job's start, so set-up and compile count), finished episodes, and the
    mean and spread of the last `window` episodes' unclipped returns (None
    before the first). `on_point` sees each point. An exception that `recover` mends (up to
    MAX_FAULTS) is recorded and the run goes on where it was.
    """
    tracker: EpisodeReturns = driver.agent.tracker
    out = LearningRun()
    deadline = float("inf") if max_seconds is None else started + max_seconds

    def until(_: int) -> bool:
        if int(driver.env_steps.sum()) >= total_env_steps:
            return True
        if out.stopped_by == "target_return":  # set by on_update
            return True
        if time.monotonic() >= deadline:
            out.stopped_by = "max_seconds"
            return True
        return False

    def on_update() -> None:
        mean, std = tracker.recent(window)
        point = {"env_steps": int(driver.env_steps.sum()), "wall_s": time.monotonic() - started,
                 "episodes": tracker.num_episodes,
                 "return_mean": None if np.isnan(mean) else mean, "return_std": None if np.isnan(std) else std}
        for k in CURVE_KEYS:
            out.curve[k].append(point[k])
        if stop_at is not None and to_target({k: [point[k]] for k in CURVE_KEYS}, window, stop_at)[0] is not None:
            out.stopped_by = "target_return"  # the rule the result's time to target uses, on this point
        on_point(point)

    sync()
    out.measure_started = time.time()
    out.setup_s = time.monotonic() - started
    t = time.perf_counter()
    while True:
        try:
            run_loop(driver, until, on_update=on_update)
            break
        except Exception as e:
            fault = recover(e) if recover is not None and len(out.faults) < MAX_FAULTS else None
            if fault is None:
                raise
            out.faults.append({**fault, "env_steps": int(driver.env_steps.sum()),
                               "wall_s": time.monotonic() - started})
    sync()
    out.loop_s = time.perf_counter() - t
    out.measure_finished = time.time()
    out.wall_s = time.monotonic() - started
    out.env_steps = int(driver.env_steps.sum())
    return out
