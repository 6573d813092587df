"""One job: check the config, build, measure, and write `result.json`.

Jobs of a multirun share one process under Hydra's basic launcher, so each job
starts from what a fresh process would see: dynamo's caches, recompile counts
and automatic-dynamic-shape state are reset (else the ninth job silently runs
eager), the previous job's emulators are closed, its CUDA-graph pools and
cached blocks freed. The result records whether the inference really ran
compiled, how long the compile took, and how many graphs were built.

A job that fails, for any reason and at any point, writes a "failed" result
with a one-line error and re-raises, so Hydra marks it failed and goes on.
"""

from __future__ import annotations

import gc
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf

from . import results, stats
from .agent import compiled_graphs, cudagraph_skips
from .config import validate, warnings_for
from .drivers import make_driver
from .envs import num_threads
from .measure import measure, synchronizer
from .phases import describe

log = logging.getLogger(__name__)

RUN_CONTROL_KEYS = ("resume", "collect")  # how a job runs, not what it measures: not stored


@dataclass
class Job:
    output_dir: Path
    overrides: list[str]
    num: Optional[int]


def job_of(cfg: DictConfig, output_dir: Optional[Path]) -> Job:
    """Where this job writes and how it was asked for, from Hydra's runtime config."""
    from hydra.core.hydra_config import HydraConfig

    hydra = HydraConfig.get() if HydraConfig.initialized() else cfg.get("hydra")
    if output_dir is None:
        output_dir = Path(hydra.runtime.output_dir)
    overrides = list(hydra.overrides.task) if hydra is not None else []
    num = hydra.job.get("num") if hydra is not None else None
    return Job(Path(output_dir), overrides, num)


def identity_config(cfg: DictConfig) -> dict:
    """The resolved config without Hydra's node and the keys that do not change the measurement."""
    keys = [k for k in cfg.keys() if k != "hydra" and k not in RUN_CONTROL_KEYS]
    return OmegaConf.to_container(OmegaConf.masked_copy(cfg, keys), resolve=True)


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def release() -> None:
    """Return the process to a fresh state between jobs (see the module docstring)."""
    gc.collect()
    torch._dynamo.reset()
    from torch._dynamo.utils import counters

    counters.clear()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def run(cfg: DictConfig, output_dir: Optional[Path] = None) -> dict:
    """Run one job and return its record; the record is also written to `<output_dir>/result.json`."""
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
        "provenance": results.provenance(),
    }
    try:
        validate(cfg)
        record["warnings"] = warnings_for(cfg)
        for note in record["warnings"]:
            log.warning(note)
        _measure_into(record, cfg, started)
        record["status"] = "ok"
    except BaseException as e:  # KeyboardInterrupt too: the job's file says it did not finish
        record["error"] = f"{type(e).__name__}: {e}".splitlines()[0] if str(e) else type(e).__name__
        raise
    finally:
        record["timing"]["finished_at"] = results.utc_iso(time.time())
        results.write_atomic(path, record)
        log.info("%s -> %s", results.summarise_record(record), path)
        release()
    return record


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


def _measure_into(record: dict, cfg: DictConfig, started: float) -> None:
    """Build, warm up and time the job; fill the measurement fields of `record`."""
    device = resolve_device(cfg.device)
    release()
    torch.manual_seed(cfg.seed)
    if device.type == "cuda":
        torch.set_float32_matmul_precision("high")

    t = time.perf_counter()
    driver = make_driver(cfg, device)
    setup_s = time.perf_counter() - t
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

        before = results.machine_state()
        timings = measure(driver, sched, cfg.agent.num_steps, synchronizer(device), on_rep)
        after = results.machine_state()
    finally:
        driver.close()

    agent = driver.agent
    compile = agent is not None and agent.compiled
    graphs = compiled_graphs()
    if compile and graphs != 1:
        record["warnings"].append(f"the inference compiled {graphs} graphs, expected 1: it recompiled")
    reps = [n_steps / s for s in timings.rep_seconds]
    record["device"] = str(device)
    record["batch_size"] = cfg.env.num_envs // cfg.mode.groups
    record["num_threads"] = num_threads(cfg.env) if cfg.mode.name != "agent_only" else None
    record["throughput"] = {"unit": results.UNIT, "reps": reps, "seconds": timings.rep_seconds,
                            "env_steps_per_rep": n_steps, **stats.summary(reps)}
    counts = timings.env_steps
    record["env_steps"] = None if counts is None else {
        "total": int(counts.sum()), "per_env_min": int(counts.min()), "per_env_max": int(counts.max())}
    if counts is not None and counts.min() < counts.max() / 2:
        idle = np.flatnonzero(counts == 0).tolist()
        record["warnings"].append(
            f"uneven stepping: per-env steps {counts.min()}..{counts.max()}"
            + (f", envs {idle} never stepped" if idle else "")
            + " (ale-py's async batches can starve envs: ALE issue #641)")
    graphed = agent is not None and agent.runtime == "graphed"
    record["inference"] = {
        "runtime": None if agent is None else agent.runtime,
        "compiled": compile and graphs >= 1,
        "cudagraphs": graphed or (compile and device.type == "cuda" and graphs >= 1 and cudagraph_skips() == 0),
        "graphs": graphs,
        # the first loop step compiles (compiled) or captures the act graph (graphed)
        "compile_s": timings.first_step_s if graphs >= 1 or graphed else None,
    }
    record["phases"] = timings.phases
    if timings.phases is not None:
        log.info(describe(timings.phases))
    record["machine"] = {"before": before, "after": after}
    record["timing"].update({
        "setup_s": setup_s,
        "first_step_s": timings.first_step_s,
        "warmup_s": timings.first_step_s + timings.warmup_s,
        "measure_s": sum(timings.rep_seconds),
        "measure_started_at": results.utc_iso(timings.measure_started),
        "measure_finished_at": results.utc_iso(timings.measure_finished),
    })
