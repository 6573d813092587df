"""What every launcher of a sweep needs, in one place: the job notes, failure counting, the folder
guard, and which jobs are in progress (the signals sent on to them: `stops`).

ppo_bench's basic launcher (`hydra/launcher=basic`), the node launcher (`node`), SLURM's (`hydra/launcher=slurm`) and
Ray's (`ray`) use it, through Hydra's public parts: a Launcher plugin calls Hydra's `run_job` for each job, and the
task function (`cli.job`) runs inside it. Every launcher runs each job through `run_on_worker`, the one per-job path,
wherever the job runs; a new launcher is a loop over it (tests/toy_launcher.py is one).

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
- Signals: sent on to the jobs in progress, which the notes name (`in_progress`); how, in `stops`.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, JobStatus, configure_log, filter_overrides, setup_globals
from hydra.core.utils import run_job as hydra_run_job
from hydra.errors import CompactHydraException
from hydra.types import HydraContext, RunMode, TaskFunction
from omegaconf import DictConfig, open_dict, read_write

from ppo_bench.config import placed
from ppo_bench.job import prepared
from ppo_bench.record.folder import JOB_NOTES
from ppo_bench.launch.stops import stoppable, stopping
from ppo_bench.signals import Terminated

log = logging.getLogger(__name__)



# --- the job notes and the count of failed jobs -----------------------------------------------------

@dataclass
class Tally:
    """The jobs of a sweep (or of a single run) and how they ended."""
    jobs: int = 0
    failed: int = 0  # failed, refused for an earlier ok record among them, or their folder could not be written
    stopped: int = 0  # stopped by Ctrl-C, SIGTERM or SIGHUP while they ran (their records say failed)
    unended: int = 0  # started and not ended: killed, still running, or ended with no end note
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
        return Tally(len(last), sum(bool(e.get("failed")) for e in ended), sum(bool(e.get("stopped")) for e in ended),
                     len(last) - len(ended))

    def in_progress(self) -> list[tuple]:
        """The jobs that started and have not ended, each as (name, host, pid, SLURM job id, Ray task id)
        from its start note (`send_on`); none where the notes cannot be read."""
        try:
            last = self.last()
        except OSError:
            return []
        return [(name, e.get("host"), e.get("pid"), e.get("slurm_job"), e.get("ray_task"))
                for name, e in last.items() if not e.get("ended")]


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


def noted_failed(launcher: Any, overrides: list[str], idx: int, **why: Any) -> None:
    """Notes for a job that ended without its own end note (its SLURM job or Ray task killed, cancelled
    while it waited): a start note where it has none, and an end note that counts it failed (`why`: what
    its scheduler says), written by the sweep's process, as the job's own would have been. `launcher`:
    the sweep's, as Hydra set it up (its job's folder name is made from its config, as the job makes it)."""
    job = job_config(launcher.hydra_context, launcher.config, overrides, idx, idx)
    sweep_dir, name = Path(str(job.hydra.sweep.dir)), str(job.hydra.sweep.subdir)
    noted = SWEEP.last() if SWEEP is not None else {}
    if name not in noted:
        note_job(sweep_dir, name, overrides=overrides)
    if not noted.get(name, {}).get("ended"):
        note_job(sweep_dir, name, ended=True, failed=True, **why)


@dataclass
class JobOutcome:
    """What the task function says of the job it ran (`noted`)."""
    failed: Optional[BaseException] = None
    kept: Optional[str] = None  # refused for an earlier ok record, which its folder keeps: the refusal's line

    def fail(self, error: BaseException, kept: Optional[str] = None) -> None:
        self.failed, self.kept = error, kept


@contextlib.contextmanager
def noted(hydra: Any) -> Iterator[JobOutcome]:
    """Around the task function: in a multirun, note the job as it starts and as it ends, with how it
    ended; the task function marks a failure on the JobOutcome and returns. `hydra`: the job's Hydra config
    (HydraConfig.get()). A failure whose end note cannot be written is raised (see the module doc)."""
    where = None
    if hydra.mode == RunMode.MULTIRUN:
        where = Path(str(hydra.sweep.dir)), Path(str(hydra.runtime.output_dir)).name
        if not note_job(*where, overrides=list(hydra.overrides.task), host=socket.gethostname(), pid=os.getpid(),
                        slurm_job=placed.slurm_job(), ray_task=placed.ray_task()):  # where it runs, for `send_on`
            UNWRITTEN.pop()  # the job does not run, and is not counted
            raise NotesUnwritable(NOTES_ERROR)
    outcome = JobOutcome()
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
    task_function and hydra_context, as Hydra set it up. With `setup_batch=N`, every N jobs' children
    start together and wait, set up, for their turn (`job.prepared`)."""
    config, context = launcher.config, launcher.hydra_context
    setup_globals()
    configure_log(config.hydra.hydra_logging, config.hydra.verbose)
    Path(str(config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
    log.info("Launching %d jobs locally", len(job_overrides))
    asked, cpus = config.get("setup_batch"), len(os.sched_getaffinity(0))
    asked = 1 if asked is None or asked < 0 else int(asked)  # a wrong value is each job's check's to refuse
    batch = prepared.batch_size(asked, cpus)
    if asked == 0:
        log.info("setup_batch=0: %d job%s set up at a time on %d CPUs", batch, "s" * (batch > 1), cpus)
    runs = []
    try:
        for pos, overrides in enumerate(job_overrides):
            idx = initial_job_idx + pos
            if batch > 1 and pos % batch == 0:  # the next jobs set up side by side (job.prepared)
                start_batch(context, config, job_overrides[pos:pos + batch], idx)
            log.info("\t#%d : %s", idx, " ".join(filter_overrides(overrides)))
            try:
                runs.append(run_on_worker(context, launcher.task_function, config, overrides, idx, idx))
            finally:  # the job's own logging set it up anew (its log file too, where the sweep stops)
                configure_log(config.hydra.hydra_logging, config.hydra.verbose)
    finally:
        prepared.discard()
    return runs


def start_batch(hydra_context: HydraContext, config: DictConfig, overrides: Sequence[Sequence[str]],
                first_idx: int) -> None:
    """Start the children of these jobs of a sweep (`overrides`, numbered from `first_idx`) side by side,
    then wait until each has parked or ended (`job.prepared`). Each job's config is made as `run_on_worker`
    and Hydra's `run_job` make it (its plugins loaded, its folder, its Hydra config set while its checks
    run); a job that cannot be started so runs as ever when its turn comes, and says then what is wrong."""
    from hydra.core.hydra_config import HydraConfig

    from ppo_bench.config import plugins
    from ppo_bench.job import parent

    hydra_config = HydraConfig.instance()
    saved = hydra_config.cfg
    try:
        for idx, overrides_ in enumerate(overrides, first_idx):
            with stoppable():  # a stop raised inside Hydra's composition was lost: the sweep ran on
                try:
                    plugins.load([*(config.get(plugins.KEY) or ()), *plugins.named_on(overrides_)])
                    job = job_config(hydra_context, config, overrides_, idx, idx)
                    hydra_config.set_config(job)  # the folder's name resolves through it
                    folder = Path(os.path.abspath(os.path.join(str(job.hydra.sweep.dir), str(job.hydra.sweep.subdir))))
                    with read_write(job.hydra.runtime), open_dict(job.hydra.runtime):
                        job.hydra.runtime.output_dir = str(folder)
                    hydra_config.set_config(job)
                    task = copy.deepcopy(job)
                    with read_write(task), open_dict(task):
                        del task["hydra"]
                    ahead = parent.prepare(task, folder)
                except Exception as e:  # noqa: BLE001 - see the docstring
                    log.debug("job #%d not started ahead: %s", idx, e)
                    continue
                if ahead is not None:
                    prepared.add(folder, ahead)
    finally:
        hydra_config.cfg = saved
    prepared.settle()


def run_on_worker(hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig,
                  overrides: Sequence[str], idx: int, job_id: Any, *, singleton_state: Optional[dict] = None,
                  stop_file: Optional[Path] = None,
                  before: Optional[Callable[[contextlib.ExitStack, DictConfig], bool]] = None) -> Optional[JobReturn]:
    """One job of a sweep, in whichever process a launcher runs it (the sweep's own, a pool's worker, a
    SLURM or Ray job's fresh interpreter): the one per-job path every launcher calls.

    In order: a stop from here on is held until the job's runner can record it (`stops.stoppable`);
    Hydra's state is the sweep's (`singleton_state`, where this is another process); the plugins the
    sweep names are loaded (`config.plugins`: from the sweep's config and the job's overrides, before
    the job's config is composed, so that a plugin's keys are in its schema); the job's config is made;
    a job of a sweep that is stopping (`stop_file`) does not start (None); `before(held, job)`, a
    launcher's own step, says whether the job starts (the node launcher claims a slot, which may take
    a while, looks at its stop file again, and only then pins itself to the slot; what it enters into
    `held` is left after the job), where an OSError fails the job alone, in one line (`failed_before`);
    then the job runs through `run_job`."""
    from ppo_bench.config import plugins

    with contextlib.ExitStack() as held:
        held.enter_context(stoppable())
        if singleton_state is not None:
            Singleton.set_state(singleton_state)
            setup_globals()
        plugins.load([*(config.get(plugins.KEY) or ()), *plugins.named_on(overrides)])
        job = job_config(hydra_context, config, overrides, idx, job_id)
        if stop_file is not None and stopping(stop_file):
            return None
        if before is not None:
            try:
                if not before(held, job):
                    return None
            except OSError as e:
                return failed_before(job, e)
        return run_job(hydra_context, task_function, job)


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
        return failed_before(config, cause)
    if NOTES_ERROR is not None:
        raise NotesUnwritable(NOTES_ERROR)
    return ran


def failed_before(config: DictConfig, cause: OSError) -> JobReturn:
    """A job (`config`: its `job_config`) that failed before its task function, for `cause` in its sweep
    folder (Hydra's writes into its own, a launcher's slot file): its line on stderr and its notes; the
    return Hydra reads as done (`run_job`). Raises NotesUnwritable where its notes could not be written."""
    sweep_dir, name = Path(str(config.hydra.sweep.dir)), str(config.hydra.sweep.subdir)
    folder = config.hydra.runtime.get("output_dir") or os.path.abspath(sweep_dir / name)
    overrides = list(config.hydra.overrides.task)
    # Hydra's logging may be half set up here: straight to stderr
    print(f"job {','.join(overrides)}: FAILED: its folder {folder} {folder_failure(cause)}", file=sys.stderr)
    if note_job(sweep_dir, name, overrides=overrides):
        note_job(sweep_dir, name, ended=True, failed=True)
    else:  # counted as it ended (UNWRITTEN)
        UNWRITTEN[-1].update(ended=True, failed=True)
    if NOTES_ERROR is not None:
        raise NotesUnwritable(NOTES_ERROR)
    return JobReturn(overrides=overrides, status=JobStatus.COMPLETED)


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


def in_progress() -> list[tuple]:
    """The jobs of this process's sweep in progress, by their notes (for `forwarding` and `send_on`)."""
    return SWEEP.in_progress() if SWEEP is not None else []
