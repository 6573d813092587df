"""One job: check the config, measure in a child process, and write `result.json`.

Checks come first and build nothing: a key the schema lacks or a bad value is
refused with one line naming the key and what is allowed. In a multirun, a
combination that the sweep's axes cross into but that has no job (mode.groups
not dividing env.num_envs, groups for a mode without batches) is recorded as
"skipped", not failed; anything else wrong stays an error.

The measurement itself runs in a fresh child process (see `isolation`): the
parent can end it whatever it does (ale-py's recv can block in C++ for ever),
CUDA errors die with it, and every job compiles from a clean dynamo. The parent
writes the record: "ok" with the child's figures, or "failed" with a one-line
error naming the cause (the child's exception, a stall, Ctrl-C, SIGTERM, the
child's death), and then raises, so a sweep counts the job failed and goes on
(JobFailed) or stops (KeyboardInterrupt, Terminated).

A script that calls `run` must guard its entry point with
`if __name__ == "__main__":`, as run.py does: the child process re-imports the
script's main module (multiprocessing's forkserver and spawn both do).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import torch
from hydra.errors import CompactHydraException
from omegaconf import DictConfig, OmegaConf

from . import results, stats
from .agent import compiled_graphs, cudagraph_skips
from .config import NotApplicable, validate, warnings_for
from .drivers import make_driver
from .envs import num_threads
from .isolation import ChildJob, Progress, one_line, signals_deferred, sigterm_raises
from .keys import unknown_key_message, unknown_keys
from .measure import learn, measure, synchronizer
from .phases import describe

log = logging.getLogger(__name__)

RUN_CONTROL_KEYS = ("resume", "collect", "stall_timeout_s")  # how a job runs, not what it measures: not stored


class JobFailed(CompactHydraException):
    """The job did not finish; its record (written, and logged in one line) says why.

    Compact: where Hydra reports it (a launcher that runs jobs in other processes
    hands it back to the sweep), Hydra prints the message without a traceback.
    """


class Refused(JobFailed, ValueError):
    """A key or value refused before anything was built."""


@dataclass
class Job:
    output_dir: Path
    overrides: list[str]
    num: Optional[int]
    multirun: bool


def job_of(cfg: DictConfig, output_dir: Optional[Path]) -> Job:
    """Where this job writes and how it was asked for, from Hydra's runtime config."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    hydra = HydraConfig.get() if HydraConfig.initialized() else cfg.get("hydra")
    if output_dir is None:
        output_dir = Path(hydra.runtime.output_dir)
    overrides = list(hydra.overrides.task) if hydra is not None else []
    num = hydra.job.get("num") if hydra is not None else None
    multirun = hydra is not None and hydra.get("mode") == RunMode.MULTIRUN
    return Job(Path(output_dir), overrides, num, multirun)


def identity_config(cfg: DictConfig) -> dict:
    """The resolved config without Hydra's node and the keys that do not change the measurement."""
    keys = [k for k in cfg.keys() if k != "hydra" and k not in RUN_CONTROL_KEYS]
    return OmegaConf.to_container(OmegaConf.masked_copy(cfg, keys), resolve=True)


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def release() -> None:
    """Reset dynamo and free cached device memory in this process.

    Jobs never need it (each runs in a fresh process); it is for a caller that runs
    its own torch work here between jobs, as bench/compare_reference.py runs the
    reference's loop.
    """
    import gc

    gc.collect()
    torch._dynamo.reset()
    from torch._dynamo.utils import counters

    counters.clear()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def check(cfg: DictConfig, multirun: bool) -> Optional[str]:
    """Refuse a bad key or value (Refused); in a multirun, return why the job does not apply."""
    unknown = unknown_keys(cfg)
    if unknown:
        raise Refused(f"ValueError: {unknown_key_message(unknown[0])}")
    try:
        validate(cfg)
    except NotApplicable as e:
        if multirun:  # validate checks relations last: every value on its own was right
            return str(e).splitlines()[0]
        raise Refused(one_line(e)) from e
    except ValueError as e:
        raise Refused(one_line(e)) from e
    return None


def run(cfg: DictConfig, output_dir: Optional[Path] = None) -> dict:
    """Run one job and return its record; the record is also written to `<output_dir>/result.json`.

    Raises Refused or JobFailed when the job failed (after writing the record), and
    KeyboardInterrupt or isolation.Terminated when it was interrupted.
    """
    job = job_of(cfg, output_dir)
    path = job.output_dir / results.FILENAME
    config = identity_config(cfg)
    if cfg.get("resume"):
        earlier = _finished_earlier(path, config)
        if earlier is not None:
            log.info("resume: %s already ok, skipped", path)
            return earlier
    started = time.time()
    record = {
        "schema": results.SCHEMA,
        "status": "failed",
        "error": None,
        "warnings": [],
        "mode": cfg.mode.name,
        "game": cfg.env.game,
        "agent": cfg.agent.name,
        "runtime": cfg.agent.runtime,
        "algo": cfg.agent.algo,
        "backend": cfg.env.backend,
        "num_envs": cfg.env.num_envs,
        "device": cfg.device,
        "frameskip": cfg.env.frameskip,
        "groups": cfg.mode.groups,
        "round": cfg.round,
        "seed": cfg.seed,
        "config": config,
        "overrides": job.overrides,
        "job": {"num": job.num, "output_dir": str(job.output_dir)},
        "timing": {"started_at": results.utc_iso(started), "finished_at": None},
        "provenance": None,
    }
    child = None
    try:
        with sigterm_raises():
            reason = check(cfg, job.multirun)
            if reason is not None:
                record["status"], record["error"] = "skipped", reason
                return record
            record["warnings"] = warnings_for(cfg)
            for note in record["warnings"]:
                log.warning(note)
            child = ChildJob(_measure_child, config, started)
            child.run(cfg.stall_timeout_s, _where(cfg.schedule))
            if child.error is not None:
                record["traceback"] = child.traceback
                raise JobFailed(child.error)
            _merge(record, child.result)
            record["status"] = "ok"
    except JobFailed as e:
        record["error"] = str(e)
        raise
    except BaseException as e:  # KeyboardInterrupt, Terminated: the job's file says it did not finish
        record["error"] = one_line(e)
        raise
    finally:
        # A record the child did not describe (a refusal) gets the parent's provenance without
        # the GPU probe, which would initialise CUDA here (see isolation): cuda and gpu read null.
        record["provenance"] = (child and child.provenance) or results.provenance(gpu=False)
        partial = child.partial if child is not None and record["status"] != "ok" else {}
        record["device"] = (partial.get("device") or [record["device"]])[-1]  # cuda, not auto, once set up
        record["timing"].update(*partial.get("timing", [])[-1:])
        curve = partial.get("curve")
        if curve:  # a learning run that did not finish keeps the curve it had
            record["learning_so_far"] = {"curve": {k: [p[k] for p in curve] for k in results.CURVE_KEYS}}
        busy = _busy_machine(record)
        if busy:
            record["warnings"].append(busy)
        record["timing"]["finished_at"] = results.utc_iso(time.time())
        with signals_deferred():
            results.write_atomic(path, record)
        _log_outcome(record, path)
    return record


def _log_outcome(record: dict, path: Path) -> None:
    """The job's one line on the terminal (and in its log)."""
    if record["status"] == "ok":
        log.info("%s -> %s", results.summarise_record(record), path)
        return
    head = f"{record['mode']} {record['game']} {record['agent']} n={record['num_envs']}"
    if record["status"] == "skipped":
        log.warning("%s: skipped, not applicable in this sweep: %s -> %s", head, record["error"], path)
    else:
        log.error("%s: FAILED: %s -> %s", head, record["error"], path)


def _finished_earlier(path: Path, config: dict) -> Optional[dict]:
    if not path.exists():
        return None
    try:
        earlier = results.read_result(path)
    except results.BadResult as e:
        log.warning("resume: %s is not usable (%s); running the job again", path, e)
        return None
    if earlier["status"] != "ok":
        return None
    if earlier["config"] != config:
        log.warning("resume: %s holds a different config; running the job again", path)
        return None
    return earlier


def _busy_machine(record: dict) -> Optional[str]:
    """A warning when the 1-minute load exceeded the CPU count around the measurement."""
    machine, cpus = record.get("machine") or {}, record["provenance"].get("cpu_count")
    loads = [(machine.get(when) or {}).get("load_1m") for when in ("before", "after")]
    loads = [x for x in loads if x is not None]
    if not cpus or not loads or max(loads) <= cpus:
        return None
    return (f"busy machine: 1-minute load {max(loads):.1f} > {cpus} CPUs around the measurement; "
            "other work took CPU time from the emulators")


def _where(schedule: Any) -> Callable[[str, int], str]:
    """Words for a stall's place: the child's stage, and in the loop, how far it got."""
    def where(stage: str, steps: int) -> str:
        if stage != "loop":
            return {"start-up": "start-up (starting Python and torch)",
                    "setup": "setup (building the emulators and the agent)",
                    "closing": "closing the emulators"}[stage]
        if steps == 0:
            return "the first loop step (the compile, on a compiled agent)"
        if schedule.total_env_steps is not None:
            return f"the learning run after {steps} loop steps"
        if steps < schedule.warmup:
            return f"warm-up after {steps} of {schedule.warmup} loop steps"
        rep, done = divmod(steps - schedule.warmup, schedule.bench_steps)
        name = f"repetition {rep + 1} of {schedule.reps}" if rep < schedule.reps else "the profiled repetition"
        return f"{name} after {done} of {schedule.bench_steps} loop steps"
    return where


def _merge(record: dict, fields: dict) -> None:
    fields = dict(fields)
    record["warnings"] += fields.pop("warnings")
    record["timing"].update(fields.pop("timing"))
    record.update(fields)


# ---------------------------------------------------------------- in the child process

def _measure_child(config: dict, started: float, progress: Progress) -> dict:
    """The child's job: describe the machine, then build, warm up and time."""
    progress.send("provenance", results.provenance())
    return _measure(OmegaConf.create(config), started, progress)


def _measure(cfg: DictConfig, started: float, progress: Progress) -> dict:
    """Build, warm up and time the job; return the measurement fields of its record."""
    device = resolve_device(cfg.device)
    torch.manual_seed(cfg.seed)
    if device.type == "cuda":
        torch.set_float32_matmul_precision("high")

    # the job's process start, its imports and provenance (which probes CUDA): paid by every job,
    # as each runs in a fresh process, and most of a short job on the GPU machine
    startup_s = time.time() - started
    progress.enter("setup")
    t = time.perf_counter()
    driver = make_driver(cfg, device)
    setup_s = time.perf_counter() - t
    start = {"startup_s": startup_s, "setup_s": setup_s}
    # what a failed job's record still says: where it ran and what its start cost
    progress.send("partial", "device", str(device))
    progress.send("partial", "timing", start)
    driver.step = progress.counting(driver.step)
    run = _learn if cfg.schedule.total_env_steps is not None else _timed
    fields = run(cfg, driver, device, started, progress)
    fields["timing"] = {**start, **fields["timing"]}
    return fields


def _timed(cfg: DictConfig, driver: Any, device: torch.device, started: float, progress: Progress) -> dict:
    """Warm-up and timed repetitions; the measurement fields of the record."""
    try:
        sched = cfg.schedule
        n_steps = cfg.env.num_envs * sched.bench_steps
        log.info("%s %s n=%d on %s: %d warm-up steps, then %d reps x %d steps",
                 cfg.mode.name, cfg.agent.name, cfg.env.num_envs, device, sched.warmup,
                 sched.reps, sched.bench_steps)

        def on_rep(rep: int, seconds: float) -> None:
            done = rep + 1
            elapsed = time.time() - started
            left = seconds * (sched.reps - done)
            log.info("rep %d/%d: %.0f %s in %.2f s; elapsed %.1f s, about %.1f s left",
                     done, sched.reps, n_steps / seconds, results.UNIT, seconds, elapsed, left)

        progress.enter("loop")
        before = results.machine_state()
        timings = measure(driver, sched, cfg.agent.num_steps, synchronizer(device), on_rep)
        after = results.machine_state()
    finally:
        progress.enter("closing")
        driver.close()

    agent = driver.agent
    compile = agent is not None and agent.compiled
    graphed = agent is not None and agent.runtime == "graphed"
    warnings = []
    graphs = compiled_graphs()
    if compile and graphs != 1:
        warnings.append(f"the inference compiled {graphs} graphs, expected 1: it recompiled")
    reps = [n_steps / s for s in timings.rep_seconds]
    counts = timings.env_steps
    if counts is not None and counts.min() < counts.max() / 2:
        idle = np.flatnonzero(counts == 0).tolist()
        warnings.append(
            f"uneven stepping: per-env steps {counts.min()}..{counts.max()}"
            + (f", envs {idle} never stepped" if idle else "")
            + " (ale-py's async batches can starve envs: ALE issue #641)")
    if timings.phases is not None:
        log.info(describe(timings.phases))
    return {
        "warnings": warnings,
        "device": str(device),
        "batch_size": cfg.env.num_envs // cfg.mode.groups,
        "num_threads": num_threads(cfg.env) if cfg.mode.name != "agent_only" else None,
        "throughput": {"unit": results.UNIT, "reps": reps, "seconds": timings.rep_seconds,
                       "env_steps_per_rep": n_steps, **stats.summary(reps)},
        "env_steps": None if counts is None else {
            "total": int(counts.sum()), "per_env_min": int(counts.min()), "per_env_max": int(counts.max())},
        "inference": {
            "runtime": None if agent is None else agent.runtime,
            "compiled": compile and graphs >= 1,
            "cudagraphs": graphed or (compile and device.type == "cuda" and graphs >= 1 and cudagraph_skips() == 0),
            "graphs": graphs,
            # the first loop step compiles (compiled) or captures the act graph (graphed)
            "compile_s": timings.first_step_s if graphs >= 1 or graphed else None,
        },
        "phases": timings.phases,
        "machine": {"before": before, "after": after},
        "timing": {
            "first_step_s": timings.first_step_s,
            "warmup_s": timings.first_step_s + timings.warmup_s,
            "measure_s": sum(timings.rep_seconds),
            "measure_started_at": results.utc_iso(timings.measure_started),
            "measure_finished_at": results.utc_iso(timings.measure_finished),
        },
    }


def _learn(cfg: DictConfig, driver: Any, device: torch.device, started: float, progress: Progress) -> dict:
    """A learning run: the loop to schedule.total_env_steps; the measurement fields plus `learning`."""
    sched = cfg.schedule
    log.info("%s %s n=%d on %s: learning to %d env steps", cfg.mode.name, cfg.agent.name,
             cfg.env.num_envs, device, sched.total_env_steps)
    last_log = [time.time()]

    def on_point(point: dict) -> None:
        progress.send("partial", "curve", point)  # the parent keeps the curve should the job fail
        now = time.time()
        if now - last_log[0] < 10:
            return
        last_log[0] = now
        ret = "no episode yet" if point["return_mean"] is None else f"return {point['return_mean']:.1f}"
        log.info("%d env steps, %.0f s, %d episodes, %s (last %d)", point["env_steps"], point["wall_s"],
                 point["episodes"], ret, sched.return_window)

    progress.enter("loop")
    before = results.machine_state()
    try:
        run = learn(driver, sched.total_env_steps, sched.return_window, started, synchronizer(device), on_point,
                    sched.max_seconds)
    finally:
        after = results.machine_state()
        progress.enter("closing")
        driver.close()
    tracker = driver.agent.tracker
    final_mean, final_std = tracker.recent(sched.return_window)
    rate = run.env_steps / run.loop_s
    time_to_target, steps_to_target = results.to_target(run.curve, sched.return_window, sched.target_return)
    return {
        "warnings": [],
        "device": str(device),
        "batch_size": cfg.env.num_envs // cfg.mode.groups,
        "num_threads": num_threads(cfg.env),
        "throughput": {"unit": results.UNIT, "reps": [rate], "seconds": [run.loop_s],
                       "env_steps_per_rep": run.env_steps, **stats.summary([rate])},
        "env_steps": {"total": run.env_steps, "per_env_min": int(driver.env_steps.min()),
                      "per_env_max": int(driver.env_steps.max())},
        "inference": {"runtime": driver.agent.runtime, "compiled": driver.agent.compiled,
                      "cudagraphs": driver.agent.runtime == "graphed", "graphs": compiled_graphs(),
                      "compile_s": None},
        "phases": None,
        "machine": {"before": before, "after": after},
        "learning": {
            "total_env_steps": run.env_steps,
            "stopped_by": run.stopped_by,
            "target_return": sched.target_return,
            "window": sched.return_window,
            "setup_s": run.measure_started - started,
            "wall_s": run.measure_finished - started,
            "env_steps_per_s": rate,
            "episodes": tracker.num_episodes,
            "updates": driver.agent.updates,
            "final_return_mean": None if np.isnan(final_mean) else final_mean,
            "final_return_std": None if np.isnan(final_std) else final_std,
            "time_to_target_s": time_to_target,
            "env_steps_to_target": steps_to_target,
            "returns": tracker.returns().tolist(),
            "curve": run.curve,
        },
        "timing": {
            "first_step_s": None,
            "warmup_s": 0.0,
            "measure_s": run.loop_s,
            "measure_started_at": results.utc_iso(run.measure_started),
            "measure_finished_at": results.utc_iso(run.measure_finished),
        },
    }
