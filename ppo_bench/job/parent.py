"""One job, the parent's half: check the config, resume, run the job's process, write `result.json`.

Checks come first and build nothing: a key the schema lacks or a bad value is
refused with one line naming the key and what is allowed. In a multirun, a
combination that the sweep's axes cross into but that has no job (mode.groups
not dividing env.num_envs, groups for a mode without batches) is recorded as
"skipped", not failed; anything else wrong stays an error.

The measurement itself (`child`, the child's half) runs in a fresh child process (see `isolation`): the
parent can end it whatever it does (ale-py's recv can block in C++ for ever),
CUDA errors die with it, and every job compiles from a clean dynamo. The parent
writes the record: "ok" with the child's figures, or "failed" with a one-line
error naming the cause (the child's exception, a stall, Ctrl-C, SIGTERM, the
child's death), and then raises, so a sweep counts the job failed and goes on
(JobFailed) or stops (KeyboardInterrupt, Terminated).

An ok record already in the job's folder is never written over: resume returns it where its config
is the job's (skipped); `set_aside=true` moves it to `<folder's parent>/set_aside/<UTC time>/` first;
otherwise the job fails in one line and the record stays as it was (nothing is written). Anything
else in the record's place that is not a usable record (a damaged file, a folder) is moved aside the
same way before the job runs, never written over.

A script that calls `run` must guard its entry point with
`if __name__ == "__main__":`, as run.py does: the child process re-imports the
script's main module (multiprocessing's forkserver and spawn both do).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from hydra.errors import CompactHydraException
from omegaconf import DictConfig, OmegaConf

from ppo_bench import registry
from ppo_bench.config import plugins
from ppo_bench.config.keys import unknown_key_message, unknown_keys
from ppo_bench.config.schema import NotApplicable, validate, warnings_for
from ppo_bench.job import CHILD, preload_of, prepared
from ppo_bench.job.forkserver import start_server, stop_server
from ppo_bench.job.isolation import ChildJob, Stage
from ppo_bench.config import placed
from ppo_bench.record import machine_notes, provenance
from ppo_bench.record.folder import RESULT, SET_ASIDE, set_aside
from ppo_bench.record.identity import JobIdentity
from ppo_bench.record.line import head_of, summarise_record
from ppo_bench.record.parts import JobFolder, Placement, utc_iso
from ppo_bench.record.results import BadResult, Record, check_writable
from ppo_bench.signals import one_line, signals_deferred, stops_raise

log = logging.getLogger(__name__)


class JobFailed(CompactHydraException):
    """The job did not finish; its record (written, and logged in one line) says why.

    Compact: where Hydra reports it (a launcher that runs jobs in other processes
    hands it back to the sweep), Hydra prints the message without a traceback.
    """


class Refused(JobFailed, ValueError):
    """A key or value refused before anything was built."""


class Kept(JobFailed):
    """An ok record already in the job's folder is kept, and the job refused: the folder's record is an
    earlier run's, so the sweep notes the refusal for its summary (launch.launching.noted)."""


@dataclass
class HydraJob:
    """The job as Hydra launched it: the folder it writes to, the overrides it was asked for with,
    its number in the sweep, and whether it is one of a multirun."""
    output_dir: Path
    overrides: list[str]
    num: Optional[int]
    multirun: bool


def hydra_job(cfg: DictConfig, output_dir: Optional[Path]) -> HydraJob:
    """Where this job writes and how it was asked for, from Hydra's runtime config."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    hydra = HydraConfig.get() if HydraConfig.initialized() else cfg.get("hydra")
    if output_dir is None:
        output_dir = Path(hydra.runtime.output_dir)
    overrides = list(hydra.overrides.task) if hydra is not None else []
    num = hydra.job.get("num") if hydra is not None else None
    multirun = hydra is not None and hydra.get("mode") == RunMode.MULTIRUN
    return HydraJob(Path(output_dir), overrides, num, multirun)


def identity_of(cfg: DictConfig) -> JobIdentity:
    """The job's identity from its resolved config (Hydra's node left unresolved: it is not kept)."""
    keys = [k for k in cfg.keys() if k != "hydra"]
    return JobIdentity.of(OmegaConf.to_container(OmegaConf.masked_copy(cfg, keys), resolve=True))


def release() -> None:
    """Reset dynamo and free cached device memory in this process.

    Jobs never need it (each runs in a fresh process); it is for a caller that runs
    its own torch work here between jobs, as bench/compare_reference.py runs the
    reference's loop.
    """
    import gc

    import torch

    gc.collect()
    torch.compiler.reset()
    from torch._dynamo.utils import counters

    counters.clear()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def check(cfg: DictConfig, multirun: bool) -> Optional[str]:
    """Refuse a plugin that cannot be loaded, a bad key or value (Refused); in a multirun, return why the
    job does not apply."""
    try:
        plugins.load(cfg.get(plugins.KEY) or ())
    except plugins.PluginError as e:
        raise Refused(f"ValueError: {e}") from None
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
    """Run one job and return its record's JSON, as written to `<output_dir>/result.json`.

    Raises Refused or JobFailed when the job failed (after writing the record), and
    KeyboardInterrupt or signals.Terminated when it was interrupted.
    """
    job = hydra_job(cfg, output_dir)
    path = job.output_dir / RESULT
    with contextlib.suppress(plugins.PluginError):  # `check` refuses the job in its line
        plugins.load(cfg.get(plugins.KEY) or ())  # before the identity: its algorithm's keys are the plugin's
    identity = identity_of(cfg)
    earlier = _finished_earlier(path, identity, cfg, job.multirun)
    if earlier is not None:
        return earlier.to_json()
    try:  # a folder that cannot take the record fails the job before it builds anything
        check_writable(path)
    except OSError as e:
        line = f"its folder {job.output_dir} cannot be written ({one_line(e)}); no record"
        print(f"{head_of(Record(**identity.fields()))}: FAILED: {line}", file=sys.stderr)  # its log is in that folder
        raise JobFailed(line) from None
    started, started_mono = time.time(), time.monotonic()
    config = {**identity.config, plugins.KEY: list(cfg.get(plugins.KEY) or ())}  # the child loads them too
    ahead = prepared.take(job.output_dir, config)  # its child, started ahead of its turn (setup_batch)
    if ahead is not None:  # the job began then
        started, started_mono = ahead.started, ahead.started_mono
    where = placed.current()  # the node launcher's slot, SLURM's or Ray's grant; None under the basic launcher
    record = Record.new(identity, job.overrides, JobFolder(num=job.num, output_dir=str(job.output_dir)), started,
                        None if where is None else Placement.from_json(where, "placement"))
    child = None
    try:
        with stops_raise():  # a stop held since the job began (a launcher's stops_held) is raised here
            reason = _checked(cfg, job.multirun, record, started_mono)
            if ahead is not None:  # its check ran as it started, and is counted so
                record.timing.check_s = ahead.check_s
            if reason is not None:
                record.status, record.error = "skipped", reason
            else:
                record.warnings = warnings_for(cfg)
                for note in record.warnings:
                    log.warning(note)
                if ahead is not None:
                    child, ahead = ahead.child, None
                else:
                    child = ChildJob(CHILD, config, started_mono, registry.added(), preload=preload_of(job.multirun))
                child.run(cfg.stall_timeout_s, _stall_place(cfg.schedule, child.partial))
                if child.error is not None:
                    record.traceback = child.traceback
                    raise JobFailed(child.error)
                record.finish(child.result)
    except JobFailed as e:
        record.error = str(e)
        raise
    except BaseException as e:  # KeyboardInterrupt, Terminated: the job's file says it did not finish
        record.error = one_line(e) + provenance.scheduler_says(where)  # SLURM's word on why: cancelled, its time limit
        raise
    finally:
        if ahead is not None:  # started ahead, but the job did not run it
            ahead.child.close()
        _close(record, child, cfg.schedule.interleave, path)
    return record.to_json()


def prepare(cfg: DictConfig, output_dir: Path) -> Optional[prepared.Prepared]:
    """Start this job of a sweep's child ahead of its turn, gated (`job.prepared`): its checks first, as
    `run` makes them, and nothing started (None) for a job that would not run it: a learning run, a
    folder that holds a record already, a refused job or one that does not apply. The job's parent
    (`run`) takes it when the job's turn comes."""
    if cfg.schedule.get("total_env_steps") is not None or os.path.lexists(output_dir / RESULT):
        return None
    started, started_mono = time.time(), time.monotonic()
    start_server(preload_of(True))
    try:
        if check(cfg, True) is not None:
            return None
    except Refused:
        return None
    check_s = time.monotonic() - started_mono
    config = {**identity_of(cfg).config, plugins.KEY: list(cfg.get(plugins.KEY) or ())}
    child = ChildJob(CHILD, config, started_mono, registry.added(), preload=preload_of(True))
    if not child.start(cfg.stall_timeout_s, gated=True):
        child.close()
        return None
    return prepared.Prepared(config, child, started, started_mono, check_s, cfg.stall_timeout_s,
                             _stall_place(cfg.schedule, child.partial))


def _checked(cfg: DictConfig, multirun: bool, record: Record, started_mono: float) -> Optional[str]:
    """`check`, with the child's fork server started first (if run.py has not: `launch.ahead`) so that
    its imports (torch, dynamo) run meanwhile; a refused job stops a server that has started no job's
    process yet. Its seconds go to the record."""
    started_server = start_server(preload_of(multirun))
    try:
        reason = check(cfg, multirun)
    except Refused:
        if started_server:  # no job follows this one: nothing left importing for it
            stop_server()
        raise
    # the check's own imports (torch, to ask for CUDA) also come before the child's fork:
    # with the child's timing.imports, this says where a first job's forked_s goes
    record.timing.check_s = time.monotonic() - started_mono
    return reason


def _close(record: Record, child: Optional[ChildJob], interleave: Optional[str], path: Path) -> None:
    """The record's end, whatever happened: where it ran, what a job that did not finish keeps of what
    its child sent, a busy machine's warning, the time; then written, and the job's line logged.
    Raises JobFailed where the record could not be written and nothing else is on its way up."""
    # A record the child did not describe (a refusal) gets the parent's provenance without
    # the GPU probe, which would initialise CUDA here (see isolation): cuda and gpu read null.
    record.provenance = (child and child.provenance) or provenance.part(gpu=False)
    if child is not None and record.status != "ok":
        record.keep(child.partial, interleave)
    for note in filter(None, (machine_notes.busy_machine(record), machine_notes.uncached_imports(record))):
        record.warnings.append(note)
        log.warning(note)
    record.timing.finished_at = utc_iso(time.time())
    other = child.result.other if child is not None and child.result is not None and record.status == "ok" else None
    if other is not None:  # the mode that took turns with this one over its build: its record first, so
        # that an ok record here (which resume keeps) says the other's is on disk too
        paired_path = path.parent / record.measured.interleaved.mode / RESULT
        paired = record.paired(other, paired_path.parent)
        unwritten = _write(paired_path, paired)
        if unwritten is None:
            _log_outcome(paired, paired_path)
        else:
            record.status, record.error = "failed", unwritten
    unwritten = _write(path, record)
    if unwritten is None:  # the job's line only once its record is on disk
        _log_outcome(record, path)
        if record.status == "failed" and other is not None and sys.exc_info()[0] is None:
            raise JobFailed(record.error)
        return
    cause = f"{record.error}; " if record.status == "failed" and record.error else ""
    log.error("%s: FAILED: %s%s", head_of(record), cause, unwritten)
    if sys.exc_info()[0] is None:  # else the job's own failure or interruption goes on up
        raise JobFailed(unwritten)


def _write(path: Path, record: Record) -> Optional[str]:
    """Write the record; one line saying why not where its folder cannot take it (read-only, full,
    a file in the folder's place): that fails this job, not the sweep, and prints no traceback."""
    try:
        with signals_deferred():
            record.write(path)
    except OSError as e:
        return f"its record could not be written to {path}: {one_line(e)}"
    return None


def _log_outcome(record: Record, path: Path) -> None:
    """The job's one line on the terminal (and in its log)."""
    if record.status == "ok":
        log.info("%s -> %s", summarise_record(record), path)
        return
    head = head_of(record)
    if record.status == "skipped":
        log.warning("%s: skipped, not applicable in this sweep: %s -> %s", head, record.error, path)
    else:
        log.error("%s: FAILED: %s -> %s", head, record.error, path)


def _finished_earlier(path: Path, identity: JobIdentity, cfg: DictConfig, multirun: bool) -> Optional[Record]:
    """The ok record already at `path` when resume finds it this job's (the job is skipped), else None.

    Any other ok record there is kept: moved aside with `set_aside=true`, else the job fails here,
    before its own record exists, so nothing writes over the earlier one. A failed or skipped record
    is replaced by the job's own; anything unusable in the record's place is moved aside (`_ok_record`)."""
    earlier = _ok_record(path)
    if earlier is None:
        return None
    same = JobIdentity.of(earlier.config) == identity
    if cfg.get("resume") and same:
        log.info("resume: %s already ok, skipped", path)
        return earlier
    what = "of this config" if same else "of a different config"
    aside = path.parent.parent / SET_ASIDE
    if cfg.get("set_aside"):
        try:
            dest = set_aside(path.parent.parent, [path])
        except OSError as e:
            line = f"{path} holds an ok record {what}, which set_aside=true could not move: {one_line(e)}"
        else:
            log.warning("set_aside: %s held an ok record %s; moved to %s", path, what, dest / path.parent.name)
            return None
    else:
        other = f"use another hydra.{'sweep' if multirun else 'run'}.dir"
        ways = (f"resume=true to skip this job, set_aside=true to move it to {aside}/<time>/ and run again, or {other}"
                if same else f"set_aside=true to move it to {aside}/<time>/ and run this job, or {other}")
        line = f"{path} holds an ok record {what}, kept: {ways}"
    log.error("%s: FAILED: %s", head_of(Record(**identity.fields())), line)
    raise Kept(line)


def _ok_record(path: Path) -> Optional[Record]:
    """The ok record at `path`, else None. Whatever else stands there that is not a usable record (a
    file that does not read as one, a folder) is moved aside before the job runs, never written over:
    it may be the only copy of a result that a tool or a hand broke (one line says where it went). A
    failed or skipped record is the job's own to replace. Raises Kept where it cannot be moved."""
    if not os.path.lexists(path):
        return None
    try:
        if not path.is_file():
            raise BadResult("not a file")
        earlier = Record.read(path)
    except BadResult as e:
        try:
            dest = set_aside(path.parent.parent, [path])
        except OSError as err:
            line = f"{path} is not a usable record ({e}) and could not be moved aside: {one_line(err)}"
            log.error("job: FAILED: %s", line)
            raise Kept(line) from None
        log.warning("%s is not a usable record (%s): moved to %s; running the job", path, e,
                    dest / path.parent.name / path.name)
        return None
    return earlier if earlier.status == "ok" else None


STAGE_WORDS = {Stage.START_UP: "start-up (starting Python and torch)",
               Stage.SETUP: "setup (building the emulators and the agent)", Stage.CLOSING: "closing the emulators"}
"""A stall's place in words, in each of the child's stages but the loop (`_stall_place`)."""


def _stall_place(schedule: Any, sent: Optional[dict] = None) -> Callable[[Stage, int], str]:
    """Words for a stall's place: the child's stage, and in the loop, how far it got (of a precision
    target's count once the child has `sent` it: isolation.ChildJob.partial's "planned")."""
    def where(stage: Stage, steps: int) -> str:
        if stage != Stage.LOOP:
            return STAGE_WORDS[stage]
        if steps == 0:
            return "the first loop step (the compile, on a compiled agent)"
        if schedule.total_env_steps is not None:
            return f"the learning run after {steps} loop steps"
        if steps < schedule.warmup:
            return f"warm-up after {steps} of {schedule.warmup} loop steps"
        rep, done = divmod(steps - schedule.warmup, schedule.bench_steps)
        total = schedule.reps if schedule.get("precision") is None else ((sent or {}).get("planned") or [None])[-1]
        if total is None:  # a target's pilot (or its count on its way)
            of = f"the pilot's {schedule.reps}" if rep < schedule.reps else f"at most {schedule.max_reps}"
            name = f"repetition {rep + 1} of {of}"
        else:
            name = f"repetition {rep + 1} of {total}" if rep < total else "the profiled repetition"
        return f"{name} after {done} of {schedule.bench_steps} loop steps"
    return where
