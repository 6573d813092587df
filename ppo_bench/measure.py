"""The one warm-up + timed-repetition loop that every driver shares.

Clock discipline: `perf_counter`, with the device synchronised before every
read, so queued device work is charged to the repetition that queued it. The
first loop step (which compiles the inference) is timed on its own, the rest of
the warm-up (CUDA-graph capture, the first update) separately, and nothing is
logged inside a timed repetition: `on_rep` is called between them. With
`profile`, one more repetition runs after the timed ones under a `PhaseClock`
(see `phases`); it is not one of the timed repetitions.

A learning run (`learn`) is the same loop run once to a number of env steps,
with a point of the learning curve after every update.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import torch

from .phases import PhaseClock
from .results import CURVE_KEYS


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


def synchronizer(device: torch.device) -> Callable[[], None]:
    return torch.cuda.synchronize if device.type == "cuda" else (lambda: None)


def measure(driver: Any, schedule: Any, num_steps: int, sync: Callable[[], None],
            on_rep: Callable[[int, float], None]) -> Timings:
    """Warm up, then time `schedule.reps` repetitions of `schedule.bench_steps` loop steps.

    The update runs after every `num_steps` loop steps, counted from the start
    of each repetition, as in the reference; warm-up ends with one update.
    """
    agent = driver.agent
    out = Timings()

    sync()
    t = time.perf_counter()
    driver.step(0)
    sync()
    out.first_step_s = time.perf_counter() - t

    t = time.perf_counter()
    for w in range(1, schedule.warmup):
        driver.step(w % num_steps)
    if agent is not None and agent.ppo:
        # ppo updates when every env's rollout is complete: step on until the first one has run
        w = schedule.warmup
        while agent.updates == 0:
            if agent.update_due(w):
                agent.update()
            else:
                driver.step(w % num_steps)
                w += 1
    elif agent is not None:
        agent.update()
    sync()
    out.warmup_s = time.perf_counter() - t

    counts_before = None if driver.env_steps is None else driver.env_steps.copy()
    out.measure_started = time.time()
    for rep in range(schedule.reps):
        seconds, _ = _repetition(driver, schedule.bench_steps, num_steps, sync)
        out.rep_seconds.append(seconds)
        on_rep(rep, seconds)
    out.measure_finished = time.time()
    if counts_before is not None:
        out.env_steps = driver.env_steps - counts_before
    if schedule.profile:
        clock = PhaseClock(driver)
        try:
            seconds, drain = _repetition(driver, schedule.bench_steps, num_steps, sync)
        finally:
            clock.restore()
        out.phases = clock.report(seconds, drain, schedule.bench_steps)
    return out


def _repetition(driver: Any, steps: int, num_steps: int, sync: Callable[[], None]) -> tuple[float, float]:
    """One repetition of `steps` loop steps with an update after every `num_steps`.

    Returns its wall time and, within it, the final wait for the device.
    """
    agent = driver.agent
    sync()
    t = time.perf_counter()
    for s in range(steps):
        driver.step(s % num_steps)
        if agent is not None and agent.update_due(s):
            agent.update()
    queued = time.perf_counter()
    sync()
    done = time.perf_counter()
    return done - t, done - queued



@dataclass
class Learning:
    """What a learning run measured: its loop time and the learning curve (one point per update)."""
    loop_s: float = 0.0
    """Wall time of the loop (the first step, so the compile or capture, included)."""
    env_steps: int = 0
    measure_started: float = 0.0
    measure_finished: float = 0.0
    curve: dict = field(default_factory=lambda: {k: [] for k in CURVE_KEYS})
    stopped_by: str = "total_env_steps"
    """What ended the run: total_env_steps, or max_seconds."""


def learn(driver: Any, total_env_steps: int, window: int, started: float, sync: Callable[[], None],
          on_point: Callable[[dict], None], max_seconds: Optional[float] = None) -> Learning:
    """Run the loop until the envs took `total_env_steps` steps (or, with `max_seconds`, until that
    much time has passed since `started`), updating whenever one is due.

    After each update a curve point: env steps so far, wall seconds since
    `started` (the job's start, so set-up and compile count), finished
    episodes, and the mean and spread of the last `window` episodes'
    unclipped returns (None before the first). `on_point` sees each point.
    """
    agent, tracker = driver.agent, driver.agent.tracker
    num_steps = agent.cfg.num_steps
    out = Learning()
    sync()
    out.measure_started = time.time()
    t = time.perf_counter()
    s = 0
    deadline = float("inf") if max_seconds is None else started + max_seconds
    while int(driver.env_steps.sum()) < total_env_steps:
        if time.time() >= deadline:
            out.stopped_by = "max_seconds"
            break
        driver.step(s % num_steps)
        if agent.update_due(s):
            agent.update()
            mean, std = tracker.recent(window)
            point = {"env_steps": int(driver.env_steps.sum()), "wall_s": time.time() - started,
                     "episodes": tracker.num_episodes,
                     "return_mean": None if np.isnan(mean) else mean, "return_std": None if np.isnan(std) else std}
            for k in CURVE_KEYS:
                out.curve[k].append(point[k])
            on_point(point)
        s += 1
    sync()
    out.loop_s = time.perf_counter() - t
    out.measure_finished = time.time()
    out.env_steps = int(driver.env_steps.sum())
    return out
