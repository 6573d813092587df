"""What every launcher of a sweep needs, in one place: the job notes, failure counting, the folder
guard, and signals sent on to the jobs in progress.

ppo_bench's basic launcher (`hydra/launcher=basic`), the node launcher (`node`) and SLURM's
(`hydra/launcher=slurm`) use it, through Hydra's public parts: a Launcher plugin calls Hydra's
`run_job` for each job, and the task function (`cli.job`) runs inside it. A new launcher is a loop
over `job_config` and `run_job` (tests/toy_launcher.py is one).

- Job notes: a line per job in `<sweep dir>/.jobs.jsonl` as it starts and one as it ends (`noted`,
  around the task function), written by the process that runs the job, under any launcher: the
  collector names from them a job that left no record, and the sweep counts from them.
- Failure counting: a failed job fails alone. Hydra's sweeper ends a sweep after the first batch
  that holds a job whose task function raised, with that job's traceback; so the task function
  returns, its end note says that the job failed, and the sweep's process counts this sweep's notes
  (`tally`): also those of jobs that ran in other processes or on other nodes, so the exit status and
  the last line say how many failed under every launcher. Where the notes cannot be written (the
  folder full or read-only), the sweep stops (NotesUnwritable): it could count no later job, each of
  which would fail too; the notes this process could not write are still counted (UNWRITTEN).
- Folder guard: Hydra's `run_job` makes the job's folder, its log file and its .hydra/ copies before
  it calls the task function, and an OSError there ended the whole sweep with a traceback. `run_job`
  here calls Hydra's and makes such a job fail alone, in one line, noted; the next one runs (a folder
  that takes those but no record fails in the job's check, before it builds anything: job.parent).
- Signals: the basic launcher's job runs in the sweep's process, which the signal reaches. Where jobs
  run in processes of their own, `forwarding` (the sweep's process) sends Ctrl-C, SIGTERM and SIGHUP
  on to the jobs in progress, which record that they were stopped, and waits for them before the sweep
  stops: to the processes a launcher knows (the node launcher's slots), or to those the notes name
  (`in_progress`, `send_on`: a process on this host, a SLURM job elsewhere). `stoppable` (around a job:
  a signal is held until its runner can record it), `init_worker` (a pool's worker: it dies with the
  sweep) and `apart` (a process that runs jobs for the sweep's: it takes no signal meant for the
  terminal), `stopping` (a job not started yet does not start).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Iterator, Optional, Sequence

from hydra.core.utils import JobReturn, JobStatus, configure_log, filter_overrides, setup_globals
from hydra.core.utils import run_job as hydra_run_job
from hydra.errors import CompactHydraException
from hydra.types import HydraContext, RunMode, TaskFunction
from omegaconf import DictConfig, open_dict

from ppo_bench.record.folder import JOB_NOTES
from ppo_bench.signals import STOPS, Terminated, heeded, stop_of, stops_held

log = logging.getLogger(__name__)

STOP_WAIT_S = 60.0
"""How long the sweep's process waits, after a signal, for the jobs in progress to record it."""
POLL_S = 0.2
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


# --- the job notes and the count of failed jobs -----------------------------------------------------

@dataclass
class Tally:
    """The jobs of a sweep (or of a single run) and how they ended."""
    jobs: int = 0
    failed: int = 0  # failed, refused for an earlier ok record among them, or their folder could not be written
    stopped: int = 0  # stopped by Ctrl-C, SIGTERM or SIGHUP while they ran (their records say failed)
    unread: Optional[str] = None  # why the notes could not be read: how many failed is not known


LOCAL = Tally()
"""The jobs that ran in this process (a single run's, the basic launcher's)."""


@dataclass
class Notes:
    """A sweep folder's job notes, from where this sweep's own begin (a resumed sweep's folder holds
    an earlier sweep's notes before them)."""
    sweep_dir: Path
    start: int = 0

    def last(self) -> dict[str, dict]:
        """Each job this sweep noted, by its last line, with those this process could not write (UNWRITTEN);
        OSError where the notes cannot be read."""
        try:
            with open(self.sweep_dir / JOB_NOTES, "rb") as f:
                f.seek(self.start)
                lines = f.read().decode(errors="replace").splitlines()
        except FileNotFoundError:
            lines = []
        last: dict[str, dict] = {}
        for line in lines:
            try:
                entry = json.loads(line)
                last[str(entry["job"])] = entry
            except (ValueError, KeyError, TypeError):
                continue  # not a job's line (the collector says so)
        last.update((entry["job"], entry) for entry in UNWRITTEN)
        return last

    def tally(self) -> Tally:
        try:
            last = self.last()
        except OSError as e:
            return Tally(unread=f"{self.sweep_dir / JOB_NOTES}: {e.strerror or e}")
        ended = [e for e in last.values() if e.get("ended")]
        return Tally(len(last), sum(bool(e.get("failed")) for e in ended), sum(bool(e.get("stopped")) for e in ended))

    def in_progress(self) -> list[tuple]:
        """The jobs that started and have not ended, each as (name, host, pid, SLURM job id) from its
        start note (`send_on`); none where the notes cannot be read."""
        try:
            last = self.last()
        except OSError:
            return []
        return [(name, e.get("host"), e.get("pid"), e.get("slurm_job")) for name, e in last.items() if not e.get("ended")]


SWEEP: Optional[Notes] = None
"""The notes of the sweep this process runs (`begin`), None in a single run and in a job's process."""


def begin(sweep_dir: Path) -> None:
    """In the sweep's process, before any job: this sweep's notes begin at the notes' current end."""
    global SWEEP
    try:
        start = (sweep_dir / JOB_NOTES).stat().st_size
    except OSError:
        start = 0
    SWEEP = Notes(sweep_dir, start)


def tally() -> Tally:
    """How the jobs of this command ended: the sweep's, by their notes; a single run's, here."""
    return SWEEP.tally() if SWEEP is not None else LOCAL


class NotesUnwritable(CompactHydraException):
    """The sweep's job notes cannot be written: the sweep stops (see the module doc). Its message is the
    one line that says so (cli prints it, then the count)."""


UNWRITTEN: list[dict] = []
"""The notes this process could not write, counted as if written (Notes.last)."""
NOTES_ERROR: Optional[str] = None
"""Why the notes could not be written, as the line that stops the sweep (`note_job`), once one could not."""


def note_job(sweep_dir: Path, name: str, **entry: Any) -> bool:
    """Append a line to `<sweep dir>/.jobs.jsonl`: the job's folder name and `entry` (its overrides and where
    it runs as it starts; `ended`, and `failed`, `stopped` or `kept` as it ends; empty fields left out). One write with O_APPEND, so that jobs
    side by side never mix their lines. A line that cannot be written is kept in UNWRITTEN and NOTES_ERROR
    says why (the caller stops the sweep); False then."""
    global NOTES_ERROR
    note = {"job": name, **{k: v for k, v in entry.items() if v}}
    try:
        fd = os.open(sweep_dir / JOB_NOTES, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            os.write(fd, (json.dumps(note) + "\n").encode())
        finally:
            os.close(fd)
    except OSError as e:
        UNWRITTEN.append(note)
        NOTES_ERROR = NOTES_ERROR or (f"the sweep stops: its job notes {sweep_dir / JOB_NOTES} cannot be written "
                                      f"({type(e).__name__}: {e.strerror or e}), so no later job could be counted; "
                                      "none runs")
        return False
    return True


@dataclass
class Outcome:
    """What the task function says of the job it ran (`noted`)."""
    failed: Optional[BaseException] = None
    kept: Optional[str] = None  # refused for an earlier ok record, which its folder keeps: the refusal's line

    def fail(self, error: BaseException, kept: Optional[str] = None) -> None:
        self.failed, self.kept = error, kept


@contextlib.contextmanager
def noted(hydra: Any) -> Iterator[Outcome]:
    """Around the task function: in a multirun, note the job as it starts and as it ends, with how it
    ended; the task function marks a failure on the Outcome and returns. `hydra`: the job's Hydra config
    (HydraConfig.get()). A failure whose end note cannot be written is raised (see the module doc)."""
    where = None
    if hydra.mode == RunMode.MULTIRUN:
        where = Path(str(hydra.sweep.dir)), Path(str(hydra.runtime.output_dir)).name
        if not note_job(*where, overrides=list(hydra.overrides.task), host=socket.gethostname(), pid=os.getpid(),
                        slurm_job=os.environ.get("SLURM_JOB_ID")):  # where it runs, for `send_on`
            UNWRITTEN.pop()  # the job does not run, and is not counted
            raise NotesUnwritable(NOTES_ERROR)
    outcome = Outcome()
    LOCAL.jobs += 1
    try:
        yield outcome
    except BaseException as e:  # stopped by a signal, or an error that Hydra reports
        stopped = isinstance(e, (KeyboardInterrupt, Terminated))
        LOCAL.stopped += stopped
        LOCAL.failed += not stopped
        if where is not None:
            note_job(*where, ended=True, stopped=stopped, failed=not stopped)
        raise
    LOCAL.failed += outcome.failed is not None
    if where is not None and not note_job(*where, ended=True, failed=outcome.failed is not None, kept=outcome.kept):
        raise NotesUnwritable(NOTES_ERROR)  # under a launcher that does not run jobs through run_job, too


# --- one job of a sweep, its folder guarded -----------------------------------------------------------

def in_turn(launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> list[JobReturn]:
    """The basic launcher's `launch`: the jobs one after another in this process, in sweep order, each
    logged and run as Hydra's basic launcher does, through `run_job`. `launcher`: its config,
    task_function and hydra_context, as Hydra set it up."""
    config, context = launcher.config, launcher.hydra_context
    setup_globals()
    configure_log(config.hydra.hydra_logging, config.hydra.verbose)
    Path(str(config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
    log.info("Launching %d jobs locally", len(job_overrides))
    runs = []
    for idx, overrides in enumerate(job_overrides, initial_job_idx):
        log.info("\t#%d : %s", idx, " ".join(filter_overrides(overrides)))
        try:
            with stoppable():
                runs.append(run_job(context, launcher.task_function, job_config(context, config, overrides, idx, idx)))
        finally:  # the job's own logging set it up anew (its log file too, where the sweep stops)
            configure_log(config.hydra.hydra_logging, config.hydra.verbose)
    return runs


def job_config(hydra_context: HydraContext, config: DictConfig, overrides: Sequence[str], num: int,
               job_id: Any) -> DictConfig:
    """One job's config as Hydra's launchers make it: the sweep's, with the job's overrides, id and number."""
    job = hydra_context.config_loader.load_sweep_config(config, list(overrides))
    with open_dict(job):
        job.hydra.job.id = job_id
        job.hydra.job.num = num
    return job


def run_job(hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> JobReturn:
    """Run one job of a sweep (`config`: its `job_config`) through Hydra's run_job; a job whose folder
    Hydra cannot make or write fails alone (see the module doc).

    Such a job has no record (its folder is what failed): one line on stderr, its notes, and a return
    that Hydra reads as done, as it reads every failed job here (the notes count it). An exception of
    the task function never reaches this (Hydra's run_job keeps it in the job's return). Where the job's
    notes could not be written, this raises NotesUnwritable: the sweep stops (see the module doc)."""
    try:
        ran = hydra_run_job(hydra_context=hydra_context, task_function=task_function, config=config,
                            job_dir_key="hydra.sweep.dir", job_subdir_key="hydra.sweep.subdir")
    except Exception as e:
        cause = os_error_of(e)
        if cause is None:
            raise
        sweep_dir, name = Path(str(config.hydra.sweep.dir)), str(config.hydra.sweep.subdir)
        folder = config.hydra.runtime.get("output_dir") or os.path.abspath(sweep_dir / name)
        overrides = list(config.hydra.overrides.task)
        # Hydra's logging may be half set up here: straight to stderr
        print(f"job {','.join(overrides)}: FAILED: its folder {folder} {folder_failure(cause)}", file=sys.stderr)
        if note_job(sweep_dir, name, overrides=overrides):
            note_job(sweep_dir, name, ended=True, failed=True)
        else:  # counted as it ended (UNWRITTEN)
            UNWRITTEN[-1].update(ended=True, failed=True)
        ran = JobReturn(overrides=overrides, status=JobStatus.COMPLETED)
    if NOTES_ERROR is not None:
        raise NotesUnwritable(NOTES_ERROR)
    return ran


def folder_failure(e: OSError) -> str:
    """The end of the line of a job whose folder cannot be written."""
    return f"cannot be written ({os_error_line(e)}); no record"


def os_error_line(e: OSError) -> str:
    """`Type: what went wrong: the file`, the file where the error names one."""
    return f"{type(e).__name__}: {e.strerror or e}" + (f": {e.filename}" if e.filename else "")


def os_error_of(e: Optional[BaseException]) -> Optional[OSError]:
    """The OSError that `e` is or was caused by (logging's "Unable to configure handler" names the
    file's as its cause), else None."""
    while e is not None:
        if isinstance(e, OSError):
            return e
        e = e.__cause__ or e.__context__
    return None


# --- signals: the sweep's process, a job's process, a pool's worker ----------------------------------

@contextlib.contextmanager
def forwarding(stop_file: Path, running: Callable[[], Iterable[Hashable]],
               send: Callable[[Any, int], None] = os.kill) -> Iterator[None]:
    """For the duration, in the sweep's process: Ctrl-C, SIGTERM and SIGHUP go on to the jobs in progress.

    A signal creates `stop_file` (the jobs not started yet do not start: `stopping`), is sent on with
    `send` to each job `running()` names (a pid by default; once each, as they appear), and is waited on
    until none runs or for STOP_WAIT_S; it then raises KeyboardInterrupt or Terminated as usual, so that
    the launcher ends its workers after the records are written. A second signal stops at once."""
    stops: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        if not stops:
            stops.append(signum)
            stop_file.touch()
            log.warning("%s: stopping the jobs in progress (again to stop at once)", signal.Signals(signum).name)
            told: set = set()
            deadline = time.monotonic() + STOP_WAIT_S
            while True:
                jobs = set(running())
                for job in jobs - told:
                    with contextlib.suppress(ProcessLookupError):
                        send(job, signum)
                told |= jobs
                if not jobs or time.monotonic() > deadline:
                    break
                time.sleep(POLL_S)
        raise stop_of(signum)

    previous = {s: signal.signal(s, stop) for s in heeded(STOPS)}  # an ignored one stays ignored (nohup)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def in_progress() -> list[tuple]:
    """The jobs of this process's sweep in progress, by their notes (for `forwarding` and `send_on`)."""
    return SWEEP.in_progress() if SWEEP is not None else []


def send_on(job: tuple, signum: int) -> None:
    """Send `signum` to a job in progress (`in_progress`): to its process where it runs on this host, else
    to its SLURM job's steps (scancel), where the runner records it as on this host."""
    _, host, pid, slurm_job = job
    if host == socket.gethostname() and pid:
        os.kill(pid, signum)
    elif slurm_job:
        name = signal.Signals(signum).name.removeprefix("SIG")
        subprocess.run(["scancel", f"--signal={name}", str(slurm_job)], capture_output=True, check=False)


def stopping(stop_file: Path) -> bool:
    """Whether the sweep is stopping (`forwarding`): a job that has not started does not start."""
    return stop_file.exists()


IN_POOL_WORKER = False
"""Whether this process runs jobs for the sweep's process (`apart`), which ignores the stop signals
between jobs."""


def stoppable() -> contextlib.AbstractContextManager:
    """Around a job in a launcher's process, from the moment it begins: Ctrl-C, SIGTERM and SIGHUP
    are held back until the job's runner can record them, and raised there (signals.stops_held), so
    that a job stopped while Hydra composes its config or makes its folder is recorded as stopped,
    not lost; then the handlers are as before (in the sweep's own process, its own). A process that
    runs jobs for the sweep's (`apart`) takes the signals it ignores between jobs; any other process
    leaves an ignored one ignored."""
    return stops_held(ignored_too=IN_POOL_WORKER)


def init_worker(sweep_pid: int) -> None:
    """A pool's worker process, as it starts: it dies with the sweep's process (`die_with`) and takes
    the stop signals from the sweep's process alone (`apart`). It also forgets the pool's start method,
    which multiprocessing would hand to the job's fork server and child (isolation), where the pool's
    own context (loky's) does not exist."""
    die_with(sweep_pid)
    multiprocessing.set_start_method(None, force=True)
    apart()


def apart() -> None:
    """In a process that runs jobs for the sweep's process (a pool's worker, submitit local's job), before
    its first job: it leaves the terminal's process group and ignores the stop signals between jobs,
    taking them inside `stoppable` only, where the sweep's process sends them on (`forwarding`); a stop
    signal blocked as it started (submitit local's, whose controller starts with them blocked) is
    unblocked once the group is left, and one that came meanwhile is dropped.

    In the terminal's group, a Ctrl-C reached each worker at once (and a worker that dies of one makes
    a pool such as joblib's kill every worker, records unwritten), and submitit local's job took the
    terminal's signal and the sweep's: a second stop, which stops a job at once, wherever it is."""
    os.setpgrp()
    global IN_POOL_WORKER
    IN_POOL_WORKER = True
    for s in STOPS:
        signal.signal(s, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)


def die_with(parent: int) -> None:
    """SIGKILL this process when `parent` dies, however it dies (prctl's parent-death signal).

    A worker left running after a SIGKILL of the sweep went on with its job and the next ones for
    minutes, writing records into a folder whose lock a resumed sweep could by then take over. The
    signal comes when the thread that started the worker ends: loky starts the workers from the
    thread that submits the first jobs (here the sweep's main thread), and starts one again from its
    manager thread, which lives as long as the workers it manages. Checked against `parent` right
    after it is set: a parent that died before then sends no signal.
    """
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
