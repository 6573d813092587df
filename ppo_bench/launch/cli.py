"""The command line around Hydra: one line for every refusal, an exit status for every end.

Hydra prints a traceback, or several lines of detail, for an error in the
config or the task function, and exits 0 or 1 without regard to the jobs. Here:

- a bad key, value or group option is one line on stderr (Hydra is told to
  re-raise, HYDRA_FULL_ERROR=1, and the error is worded here); set
  HYDRA_FULL_ERROR=1 yourself to see Hydra's full error instead;
- a failed job has already logged its one line and written its record; the
  task function counts it instead of raising (see sweep);
- Ctrl-C, SIGTERM and SIGHUP (the terminal closed) stop the job in progress (its
  record says so) and the sweep, which still collects its summary and releases
  its lock; the exit status is 130, 143 or 129. One line says what was stopped: the
  job in progress, no job (between jobs), or the summary (sweep.collect_sweep: the
  summary is written all or nothing, so the previous one is kept);
- a sweep folder that cannot be written is one line; a job folder that Hydra cannot
  make or write (read-only, a file in its place) fails that job, in one line, and the
  sweep goes on (`guard_job_folders`);
- the exit status is non-zero when a job failed or the summary could not be made.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable, Optional

from hydra.core.hydra_config import HydraConfig
from hydra.errors import HydraException, MissingConfigException
from hydra.types import RunMode
from omegaconf import DictConfig
from omegaconf.errors import ConfigAttributeError, ConfigKeyError

from ppo_bench.config import keys
from ppo_bench.launch import sweep
from ppo_bench.signals import HANDLED, Terminated, one_line, raise_on_sigterm
from ppo_bench.job.parent import JobFailed, Kept, run


JOBS = sweep.JOB_NOTES
"""In a sweep folder: a line per job as it starts and one as it ends (`note_job`), written by the
process that runs it under any launcher, so that the summary (collect.load) counts and names a job
that left no record: killed, or its folder or the disk refused it."""
NOTED: Optional[tuple[Path, str]] = None
"""(sweep folder, job folder name) of the job the wrapper around Hydra's run_job noted, while it
runs (`guard_job_folders`); `job` notes those of launchers that run_job is not wrapped for."""
KEPT: Optional[str] = None
"""The line of the job that just ended refused for an ok record its folder keeps (runner.Kept), for
its end note: the summary names such a job, whose folder's record is an earlier run's."""
STOPPED_IN_JOB = False
"""Whether the signal that ends the command came while a job ran (`job`): main's line says so."""
SIGNALS: list[int] = []
"""The stop signals that reached this process, noted before they raise as usual (`note_signals`):
where the part they stopped ended its own interruption (the summary: sweep.collect_sweep), the
exit status still says the command was stopped."""


def job(cfg: DictConfig) -> None:
    """Hydra's task function: one job; its failure is in its record and its log line."""
    global STOPPED_IN_JOB, KEPT
    hydra = HydraConfig.get()
    unnoted = hydra.mode == RunMode.MULTIRUN and NOTED is None  # a launcher whose run_job is not wrapped
    if unnoted:
        note_job(Path(hydra.sweep.dir), Path(hydra.runtime.output_dir).name, overrides=list(hydra.overrides.task))
    try:
        run(cfg)
    except JobFailed as e:
        KEPT = str(e) if isinstance(e, Kept) else None
        if not sweep.jobs_run_here():
            raise  # the job's own process: its launcher hands the failure back to the sweep
        sweep.OUTCOME.failed_jobs += 1
    except (KeyboardInterrupt, Terminated):
        STOPPED_IN_JOB = True
        raise
    finally:
        if unnoted:
            note_job(Path(hydra.sweep.dir), Path(hydra.runtime.output_dir).name, kept=_kept())


def _kept() -> Optional[str]:
    """The refusal of the job that just ended for an ok record it kept (runner.Kept), once."""
    global KEPT
    line, KEPT = KEPT, None
    return line


def note_job(sweep_dir: Path, name: str, overrides: Optional[list] = None, kept: Optional[str] = None) -> None:
    """Append a line to `<sweep dir>/JOBS`: the job's folder name with its overrides as it starts, or
    that it ended (with `kept`: refused for an earlier ok record, which its folder still holds). One
    write with O_APPEND, so that jobs side by side (node launcher) never mix their lines. A line that
    cannot be written is said on stderr; the job goes on."""
    entry: dict = {"job": name}
    if overrides is not None:
        entry["overrides"] = overrides
    else:
        entry["ended"] = True
        if kept:
            entry["kept"] = kept
    try:
        fd = os.open(sweep_dir / JOBS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            os.write(fd, (json.dumps(entry) + "\n").encode())
        finally:
            os.close(fd)
    except OSError as e:
        print(f"job {name}: cannot note it in {sweep_dir / JOBS} ({e.strerror or e}); a summary will not "
              "count it if it leaves no record", file=sys.stderr)


def note_signals() -> None:
    """Note each Ctrl-C, SIGTERM and SIGHUP in SIGNALS, then handle it as before; a signal that is
    ignored (Ctrl-C in a shell's background job) stays ignored."""
    for signum in (signal.SIGINT, *HANDLED):
        handler = signal.getsignal(signum)
        if callable(handler):
            signal.signal(signum, functools.partial(_noted, handler))


def _noted(handler: Callable, signum: int, frame) -> None:
    SIGNALS.append(signum)
    handler(signum, frame)


def refusal_line(e: HydraException) -> str:
    """One line for an error Hydra raised while composing the config, or a sweep refused."""
    cause = e.__cause__
    key = getattr(cause, "full_key", None)
    if isinstance(cause, (ConfigKeyError, ConfigAttributeError)) and key and not key.startswith("hydra."):
        return keys.unknown_key_message(key)
    if isinstance(e, MissingConfigException) and e.options and e.missing_cfg_file:
        group, _, option = e.missing_cfg_file.rpartition("/")
        return f"{group}={option}: no such option; allowed: {', '.join(sorted(e.options))}"
    lines = [line.strip() for line in str(e).splitlines() if line.strip() and not line[0].isspace()]
    text = " ".join(lines) or type(e).__name__
    if cause is not None and str(cause).strip():
        text += f": {str(cause).strip().splitlines()[0]}"
    return text


def _caused_by_os_error(e: BaseException) -> bool:
    while e is not None:
        if isinstance(e, OSError):
            return True
        e = e.__cause__ or e.__context__
    return False


def guard_job_folders(*more: ModuleType) -> None:
    """Make a job whose folder Hydra cannot make or write fail alone, in one line.

    Hydra makes the job's folder, its log file and its .hydra/ copies before it calls the task
    function, and an OSError there ended the whole sweep with a traceback. The jobs of the
    basic launcher and of a single run go through Hydra's `run_job`, those of the node launcher
    through the one hydra-joblib-launcher imported (`more`: modules whose `run_job` to wrap too,
    in the process that runs the jobs). Wrapped, such a job fails (it has no record: its folder
    is what failed): counted here where the sweep's own process runs it, else handed back failed
    (JobFailed, which the node launcher counts), and the next one runs. An exception of the task
    function never reaches this wrapper (run_job keeps it in the job's return). The wrapper also
    notes a multirun's job in the sweep folder as it starts, before its folder is made, and as it
    ends (`note_job`)."""
    from hydra._internal import hydra as hydra_internal
    from hydra._internal.core_plugins import basic_launcher
    from hydra.core import utils as hydra_utils
    from hydra.core.utils import JobReturn, JobStatus

    def guarded(run_job: Callable) -> Callable:
        if getattr(run_job, "guarded", False):
            return run_job

        def run_job_or_fail(task_function: Callable, config: DictConfig, *args, **kwargs) -> JobReturn:
            global NOTED
            if config.hydra.mode == RunMode.MULTIRUN:  # before Hydra makes its folder, which may fail
                NOTED = Path(str(config.hydra.sweep.dir)), str(config.hydra.sweep.subdir)
                note_job(*NOTED, overrides=list(config.hydra.overrides.task))
            try:
                return run_job(task_function, config, *args, **kwargs)
            except Exception as e:
                if not _caused_by_os_error(e):
                    raise
                folder = config.hydra.runtime.get("output_dir")
                while e.__cause__ is not None:
                    e = e.__cause__  # logging's "Unable to configure handler" names the OSError as its cause
                # Hydra's logging may be half set up here: straight to stderr
                line = (f"job {','.join(config.hydra.overrides.task)}: FAILED: its folder {folder} cannot be "
                        f"written ({type(e).__name__}: {getattr(e, 'strerror', None) or e}); no record")
                print(line, file=sys.stderr)
                if not sweep.jobs_run_here(config.hydra):
                    return JobReturn(status=JobStatus.FAILED, _return_value=JobFailed(line))
                sweep.OUTCOME.failed_jobs += 1
                return JobReturn(status=JobStatus.COMPLETED, _return_value=None)
            finally:
                if NOTED is not None:
                    note_job(*NOTED, kept=_kept())
                NOTED = None

        run_job_or_fail.guarded = True  # type: ignore[attr-defined]
        return run_job_or_fail

    # Hydra's plugin scan loads basic_launcher's module again, which then imports core.utils' run_job
    for module in (hydra_utils, hydra_internal, basic_launcher, *more):
        module.run_job = guarded(module.run_job)


def _hydra_s_own(e: BaseException) -> bool:
    """Whether an exception was raised inside Hydra (its command line: `-m --cfg job`)."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and "hydra" in Path(tb.tb_frame.f_code.co_filename).parts


def main(hydra_main: Callable[[], None]) -> int:
    """Run `hydra_main` (run.py's @hydra.main function) and return the exit status."""
    full_error = os.environ.get("HYDRA_FULL_ERROR") == "1"
    os.environ["HYDRA_FULL_ERROR"] = "1"
    raise_on_sigterm()
    note_signals()
    guard_job_folders()
    try:
        hydra_main()
    except (KeyboardInterrupt, Terminated) as e:
        by = "Ctrl-C" if isinstance(e, KeyboardInterrupt) else str(e)
        what = "the job in progress is recorded as failed" if STOPPED_IN_JOB else "no job was in progress"
        print(f"stopped by {by}: {what}; run again with resume=true to finish", file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else 128 + e.signum
    except sweep.SweepRefused as e:
        sweep.OUTCOME.refused = True  # a launcher's refusal comes after the summary was registered
        print(e, file=sys.stderr)
        return 1
    except HydraException as e:
        if full_error:
            raise
        print(refusal_line(e), file=sys.stderr)
        return 1
    except ValueError as e:  # Hydra's own word on its command line, e.g. `-m --cfg job`
        if full_error or not _hydra_s_own(e):
            raise
        print(one_line(e).removeprefix("ValueError: "), file=sys.stderr)
        return 1
    if SIGNALS:  # stopped where it was said already (the summary)
        return 128 + SIGNALS[-1]
    return sweep.exit_code()
