"""The job's own process: build the emulators, the agent and the driver, then measure.

This is the child half of a job (the parent half, `parent`, checks the config,
watches this process and writes the record). It runs in a process forked
from a server that imported this module once (see `isolation`), so it
starts with torch, the drivers and the registry loaded but CUDA untouched.
What it returns is what the record gains when the job finished (`results.Finished`).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Optional

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf

from ppo_bench import IMPORTS_BEGAN, registry
from ppo_bench.config import plugins
from ppo_bench.config.schema import interleaves, resolved_device
from ppo_bench.agent.make import make_agent, total_updates
from ppo_bench.agent.runtimes import compiled_graphs, cudagraph_skips
from ppo_bench.env.backends import make_vector_env, num_threads
from ppo_bench.env.torch_envs import DuplicateEnvError, TorchEnvs, Upload, probe_spaces, spaces
from ppo_bench.job.isolation import Progress, Stage
from ppo_bench.loop.observers import EachStep, Observers
from ppo_bench.loop.phases import describe
from ppo_bench.loop.run import Interleaver, learn, measure, synchronizer
from ppo_bench.record import provenance
from ppo_bench.record.parts import (UNIT, Curve, EnvSteps, Imports, Inference, Interleaved, Learning, Machine,
                                    Measured, Phases, Throughput, Timing, to_target, utc_iso)
from ppo_bench.record.precision import Stopping
from ppo_bench.record.results import Finished
from ppo_bench.registry import ALGOS, BACKENDS, MODES
from ppo_bench.signals import one_line

log = logging.getLogger(__name__)
try:  # the fork server preloads this module: the installed plugins are imported once, there
    plugins.load()
except plugins.PluginError:
    pass  # each job's check refuses it in its line
IMPORTS_ENDED = time.monotonic()  # this module is what the fork server preloads: its imports end here


def imports_went_on() -> None:
    """The fork server's preload imported more after this module (a sweep's: job.sweep_preload): a job's
    record counts those imports too (`imports`)."""
    global IMPORTS_ENDED
    IMPORTS_ENDED = time.monotonic()


LARGE_BUILD = 256
"""From this many emulators the set-up logs a line before building them and one after: ale-py's
constructor builds them all in one call that holds the GIL (nothing can report meanwhile), and
256 of them took minutes on a busy 2-core machine."""


def run(config: dict, started_mono: float, entries: list, progress: Progress) -> Finished:
    """The child's half of a job: load the job's plugins, take the parent's registry additions,
    describe the machine, then build, warm up and time. `started_mono` is the job's start on the monotonic clock, which every
    duration is measured from (the record's times are stamped with time.time)."""
    # one clock for the machine: the parent's instant holds here
    forked = Timing(forked_s=time.monotonic() - started_mono, imports=imports(started_mono))
    plugins.load(config.get(plugins.KEY) or ())  # a .py plugin's folder joins this process's path too
    registry.install(entries)
    progress.send("provenance", provenance.part())
    return _build_and_run(OmegaConf.create(config), started_mono, progress, forked)


def imports(started_mono: float) -> Imports | None:
    """When the project's imports (torch, dynamo, scipy, ale-py, the drivers) began, from the job's
    start, and what they took, where they ended after it: a job waits for the fork server its runner
    started (or a spawned child imports them itself), and a single run or a basic launcher's first
    job for the one that run.py started with the process (`launch.ahead`: began_s is then below 0). None where a server
    had them before the job began. Why: that wait was 13-18 s of a first job on the H200 against about 7 s of
    imports in one process (docs/findings.md, a job's start), and forked_s alone cannot say which
    part is the imports and which the interpreter's start or the wait for the parent's config check.
    With them, whether torch's bytecode was cached (the parent warns where it was not)."""
    if IMPORTS_ENDED <= started_mono:
        return None
    return Imports(began_s=IMPORTS_BEGAN - started_mono, took_s=IMPORTS_ENDED - IMPORTS_BEGAN,
                   bytecode_cached=provenance.bytecode_cached(torch))


def resolve_device(name: str) -> torch.device:
    """The job's device (config.schema.resolved_device decides what auto is)."""
    return torch.device(resolved_device(name))


def make_envs(cfg: Any):
    """The vector env of the job's mode: an algorithm that sums episode returns wants the rewards
    unclipped (it clips them for training itself)."""
    mode = MODES[cfg.mode.name]
    clip = not (mode.agent and ALGOS[cfg.agent.algo].clips_rewards_itself)
    return make_vector_env(cfg.env, cfg.mode.groups, clip_rewards=clip)


def build(cfg: Any, device: torch.device, parts: dict | None = None):
    """The driver of `mode.name`, over the emulators and the agent its mode needs (registry.MODES).

    `parts`, when given, gets the seconds of each part of the set-up: `emulators` (the vector env,
    ALE's constructor one emulator after another), `agent` (the network and algorithm on the
    device) and `driver` (the adapter, and the driver's reset of every env). Why: a learning run's
    set-up took 7.5 to 14 s on the H200 and one figure could not say which part varied."""
    mode, groups = MODES[cfg.mode.name], cfg.mode.groups
    n = cfg.env.num_envs
    envs = agent = None
    clock = {} if parts is None else parts
    t = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal t
        now = time.perf_counter()
        clock[name] = now - t
        t = now

    large = mode.emulators and n >= LARGE_BUILD
    try:
        if large:
            _announce(cfg)
        if mode.emulators:
            envs = make_envs(cfg)
        lap("emulators")
        if mode.agent:
            obs_shape, num_actions = spaces(envs) if envs is not None else probe_spaces(cfg.env)
            agent = make_agent(cfg.agent, obs_shape, num_actions, n, device, n // groups, total_updates(cfg))
        lap("agent")
        observers = Observers()  # told by the driver (and the adapter) of each call and loop step
        if agent is not None and envs is None:  # agent_only: its synthetic frames go up as the loop's would
            driver = mode.load()(Upload((n // groups, *obs_shape), device, cfg.env.upload, agent.uploader),
                                 agent, cfg.seed, groups, observers)
        else:
            if agent is not None:
                envs = TorchEnvs(envs, device, cfg.env.upload, agent.uploader, observers)
            driver = mode.load()(envs, agent, cfg.seed, groups, observers)
        lap("driver")
        if large:  # the driver's lap holds the first reset (where envpool makes its pool)
            log.info("%d emulators built in %.1f s and reset in %.1f s", n, clock["emulators"], clock["driver"])
        return driver
    except BaseException:
        if envs is not None:
            envs.close()
        raise


def _announce(cfg: Any) -> None:
    """The line before a large build: how many emulators, and how long they take by the backend's
    measured CPU seconds each (registry.Backend.build_s)."""
    n, backend = cfg.env.num_envs, BACKENDS[cfg.env.backend]
    line = f"building {n} emulators of {cfg.env.game} (env.backend={backend.name})"
    if backend.build_s:
        estimate = n * backend.build_s
        line += (f": about {estimate:.0f} s to build and reset ({backend.build_s:g} s of CPU each, "
                 "longer on a busy machine)")  # one longer than stall_timeout_s: warned of by the parent
    log.info("%s", line)


def _build_and_run(cfg: DictConfig, started_mono: float, progress: Progress, forked: Timing) -> Finished:
    """Build the job's driver, then run its loop: timed repetitions or a learning run."""
    device = resolve_device(cfg.device)
    torch.manual_seed(cfg.seed)
    if device.type == "cuda":
        torch.set_float32_matmul_precision("high")

    # the job's process start, its imports and provenance (which probes CUDA): paid by every job,
    # as each runs in a fresh process, and most of a short job on the GPU machine
    startup_s = time.monotonic() - started_mono
    progress.enter(Stage.SETUP)
    parts: dict = {}
    driver = build(cfg, device, parts)
    setup_s = sum(parts.values())  # the parts' laps run from build's start to its end: one clock, not two
    # forked_s: of startup_s, the part before this process ran its first line (the fork server's
    # start and imports, once per sweep, and the fork; `imports` says when those ran and took); the
    # rest is provenance (git, the CUDA probe)
    start = Timing(startup_s=startup_s, forked_s=forked.forked_s, imports=forked.imports, setup_s=setup_s,
                   setup=parts)
    # what a failed job's record still says: where it ran and what its start cost
    progress.send("partial", "device", str(device))
    progress.send("partial", "timing", start)
    driver.observers.add(EachStep(progress.count))
    if driver.agent is not None:
        progress.on_stall(driver.agent.device_state)
    loop = _learn if cfg.schedule.total_env_steps is not None else _timed
    measured, timing, warnings, other = loop(cfg, driver, device, started_mono, progress)
    return Finished(device=str(device), measured=measured, timing=start.updated(timing), warnings=warnings,
                    other=other)


def _inference(agent: Any, runtime: str, first_step_s: float | None) -> Inference:
    """What ran the agent: its runtime, whether the inference compiled (once) and ran as CUDA graphs."""
    if agent is None:
        return Inference(runtime=None, compiled=False, cudagraphs=False, graphs=compiled_graphs(), compile_s=None)
    graphs = compiled_graphs()
    compiled = agent.compiled and graphs >= 1
    cudagraphs = agent.cudagraphs and (not agent.compiled or (graphs >= 1 and cudagraph_skips() == 0))
    built = compiled or (agent.cudagraphs and not agent.compiled)  # compiled, or captured by hand
    # the first loop step compiles (compiled) or captures the act graph (graphed)
    return Inference(runtime=runtime, compiled=compiled, cudagraphs=cudagraphs, graphs=graphs,
                     compile_s=first_step_s if built and first_step_s is not None else None)


def recovery(cfg: Any, driver: Any, device: torch.device):
    """What a loop over emulators and an agent does when the vector env loses track of its envs
    (`DuplicateEnvError`: ale-py 0.12.1's async batches on a CPU-starved machine): a new vector env,
    seeded afresh (env i of the k-th gets seed + k x num_envs + i), and the driver goes on over it.
    Anything else ends the job."""
    rebuilt = [0]

    def recover(e: BaseException):
        if not isinstance(e, DuplicateEnvError) or not hasattr(driver, "restart"):
            return None
        rebuilt[0] += 1
        seed = cfg.seed + rebuilt[0] * cfg.env.num_envs
        log.warning("%s; building a new vector env (seed %d) and going on", one_line(e), seed)
        t = time.perf_counter()
        driver.restart(TorchEnvs(make_envs(cfg), device, cfg.env.upload, driver.agent.uploader, driver.observers), seed)
        return {"error": one_line(e), "seed": seed, "rebuild_s": time.perf_counter() - t}

    return recover


def _faults_warning(faults: list[dict], what: str) -> list[str]:
    if not faults:
        return []
    return [f"survived {len(faults)} emulator fault(s) ({faults[0]['error']}): {what}; see faults"]


def _run_on(driver: Any, progress: Progress, loop) -> tuple[Any, Machine]:
    """`loop(restart)` between two readings of the machine's load, its job's scheduling clocked
    meanwhile (from `restart()` on, where the loop calls it: the timed repetitions start after the
    warm-up, whose compile would otherwise fill half the clock of a short job); the emulators
    closed whatever happens."""
    progress.enter(Stage.LOOP)
    before = provenance.machine_state()
    clock = provenance.SchedClock()
    try:
        out = loop(clock.restart)
    finally:
        scheduling = clock.scheduling()
        after = provenance.machine_state()
        progress.enter(Stage.CLOSING)
        driver.close()
    return out, Machine(before=before, after=after, scheduling=scheduling)


def _timed(cfg: DictConfig, driver: Any, device: torch.device, started_mono: float,
           progress: Progress) -> tuple[Measured, Timing, list[str], Optional[Measured]]:
    """Warm-up and timed repetitions: what they measured, their clocks, their warnings, and what the
    loop mode that took turns with them over the same build measured (schedule.interleave; else None)."""
    sched = cfg.schedule
    n_steps = cfg.env.num_envs * sched.bench_steps
    stopping = Stopping.of(sched)
    reps = (f"{sched.reps} reps" if sched.precision is None else f"a pilot of {sched.reps} reps and up to "
            f"{sched.max_reps} in all for schedule.precision={sched.precision:g}")
    log.info("%s %s n=%d on %s: %d warm-up steps, then %s x %d steps", cfg.mode.name, cfg.agent.name,
             cfg.env.num_envs, device, sched.warmup, reps, sched.bench_steps)

    def on_rep(rep: int, seconds: float) -> None:
        progress.send("partial", "rep", n_steps / seconds)  # the parent keeps the reps should the job fail
        done, total = rep + 1, stopping.planned or sched.reps
        if sched.precision is not None and done >= sched.reps:  # the stall watch counts the reps by the plan
            progress.send("partial", "planned", total)
            if done == sched.reps:
                log.info("the pilot's spread asks for %d reps in all for a relative half-width of %g: timing %d",
                         stopping.needed, sched.precision, total)
        log.info("rep %d/%d%s: %.0f %s in %.2f s; elapsed %.1f s, about %.1f s left", done, total,
                 " of the pilot" if stopping.planned is None else "", n_steps / seconds, UNIT, seconds,
                 time.monotonic() - started_mono, seconds * (total - done))

    interleave, other = None, sched.interleave
    if interleaves(cfg):
        kind = MODES[other]

        def other_driver(loop: Any) -> Any:  # a probe over the loop's vector env; a loop mode over its build
            if kind.agent:
                loop.agent.restart()
                return kind.load()(loop.envs, loop.agent, cfg.seed, cfg.mode.groups, loop.observers)
            return kind.load()(loop.vector_env, None, cfg.seed, cfg.mode.groups)

        interleave = Interleaver(driver, other_driver, sched, cfg.seed, synchronizer(device))

    def on_other(rep: int, seconds: float) -> None:
        progress.send("partial", "probe", n_steps / seconds)
        log.info("  %s %s it: %.0f %s in %.2f s", other, "before" if interleave.first(rep) else "after",
                 n_steps / seconds, UNIT, seconds)

    parked: list = []  # when a job started ahead of its turn waited for it, and went on (`Progress.park`)

    def park() -> None:
        window = progress.park()
        if window is not None:
            parked.extend(window)
            progress.send("partial", "timing", Timing(parked_at=utc_iso(window[0]), unparked_at=utc_iso(window[1])))
            log.info("set up ahead of its turn (setup_batch): waited %.1f s for it after its first step",
                     window[1] - window[0])

    timings, machine = _run_on(driver, progress, lambda restart: measure(
        driver, sched, synchronizer(device), on_rep, recovery(cfg, driver, device), interleave,
        on_other=on_other, on_timed=restart, stopping=stopping, after_first_step=park))
    agent = driver.agent
    warnings = []
    graphs = compiled_graphs()
    if agent is not None and agent.compiled and graphs != 1:
        warnings.append(f"the inference compiled {graphs} graphs, expected 1: it recompiled")
    counts = timings.env_steps
    if counts is not None and counts.min() < counts.max() / 2:
        idle = np.flatnonzero(counts == 0).tolist()
        warnings.append(
            f"uneven stepping: per-env steps {counts.min()}..{counts.max()}"
            + (f", envs {idle} never stepped" if idle else "")
            + " (ale-py's async batches can starve envs: ALE issue #641)")
    warnings += _faults_warning(timings.faults, "each failed repetition was dropped and run again")
    if timings.phases is not None:
        log.info(describe(timings.phases))
    measured = Measured(
        batch_size=cfg.env.num_envs // cfg.mode.groups,
        num_threads=num_threads(cfg.env, cfg.mode.groups) if MODES[cfg.mode.name].emulators else None,
        throughput=Throughput.of(timings.rep_seconds, n_steps, stopping.record()),
        env_steps=None if counts is None else EnvSteps(
            total=int(counts.sum()), per_env_min=int(counts.min()), per_env_max=int(counts.max())),
        inference=_inference(agent, cfg.agent.runtime, timings.first_step_s),
        phases=None if timings.phases is None else Phases.from_json(timings.phases, "phases"), machine=machine,
        faults=timings.faults)
    if interleave is not None:  # a record has the key only where the job interleaved another mode
        measured.interleaved = Interleaved(mode=other, reps=[n_steps / s for s in timings.probe_seconds],
                                           seconds=timings.probe_seconds, env_steps_per_rep=n_steps)
    waited = dict(zip(("parked_at", "unparked_at"), map(utc_iso, parked)))  # only where the job waited for its turn
    timing = Timing(first_step_s=timings.first_step_s, warmup_s=timings.first_step_s + timings.warmup_s,
                    measure_s=sum(timings.rep_seconds), measure_started_at=utc_iso(timings.measure_started),
                    measure_finished_at=utc_iso(timings.measure_finished), **waited)
    paired = None
    if interleave is not None and MODES[other].agent:  # its own record: its reps, this build's other figures
        paired = Measured(batch_size=measured.batch_size, num_threads=measured.num_threads,
                          throughput=Throughput.of(timings.probe_seconds, n_steps), env_steps=None,
                          inference=measured.inference, phases=None, machine=machine, faults=[])
    return measured, timing, warnings, paired


def _learn(cfg: DictConfig, driver: Any, device: torch.device, started_mono: float,
           progress: Progress) -> tuple[Measured, Timing, list[str], None]:
    """A learning run: the loop to schedule.total_env_steps; what it measured (its `learning` among
    it), its clocks and its warnings."""
    sched = cfg.schedule
    log.info("%s %s n=%d on %s: learning to %d env steps", cfg.mode.name, cfg.agent.name,
             cfg.env.num_envs, device, sched.total_env_steps)
    last_log = [time.monotonic()]

    def on_point(point: dict) -> None:
        progress.send("partial", "curve", point)  # the parent keeps the curve should the job fail
        now = time.monotonic()
        if now - last_log[0] < 10:
            return
        last_log[0] = now
        ret = "no episode yet" if point["return_mean"] is None else f"return {point['return_mean']:.1f}"
        log.info("%d env steps, %.0f s, %d episodes, %s (last %d)", point["env_steps"], point["wall_s"],
                 point["episodes"], ret, sched.return_window)

    run, machine = _run_on(driver, progress, lambda _restart: learn(
        driver, sched.total_env_steps, sched.return_window, started_mono, synchronizer(device), on_point,
        sched.max_seconds, recovery(cfg, driver, device),
        stop_at=sched.target_return if sched.stop_at_target else None))
    if run.env_steps == 0:  # ok with no figure would read as a run that learned nothing
        raise RuntimeError(f"schedule.max_seconds={sched.max_seconds:g} ran out during start-up and set-up "
                           f"({run.setup_s:.1f} s), before the first loop step: nothing was measured")
    tracker = driver.agent.tracker
    final_mean, final_std = tracker.recent(sched.return_window)
    rate = run.env_steps / run.loop_s
    time_to_target, steps_to_target = to_target(run.curve, sched.return_window, sched.target_return)
    learning = Learning(
        total_env_steps=run.env_steps, stopped_by=run.stopped_by, target_return=sched.target_return,
        window=sched.return_window, setup_s=run.setup_s, wall_s=run.wall_s, env_steps_per_s=rate,
        episodes=tracker.num_episodes, updates=driver.agent.updates,
        final_return_mean=None if np.isnan(final_mean) else final_mean,
        final_return_std=None if np.isnan(final_std) else final_std,
        time_to_target_s=time_to_target, env_steps_to_target=steps_to_target,
        returns=tracker.returns().tolist(), curve=Curve(**run.curve))
    measured = Measured(
        batch_size=cfg.env.num_envs // cfg.mode.groups, num_threads=num_threads(cfg.env, cfg.mode.groups),
        throughput=Throughput.of([run.loop_s], run.env_steps),
        env_steps=EnvSteps(total=run.env_steps, per_env_min=int(driver.env_steps.min()),
                           per_env_max=int(driver.env_steps.max())),
        inference=_inference(driver.agent, cfg.agent.runtime, None), phases=None, machine=machine,
        faults=run.faults, learning=learning)
    timing = Timing(first_step_s=None, warmup_s=0.0, measure_s=run.loop_s,
                    measure_started_at=utc_iso(run.measure_started), measure_finished_at=utc_iso(run.measure_finished))
    dropped = "the vector env was rebuilt and the episodes in progress dropped"
    return measured, timing, _faults_warning(run.faults, dropped), None
