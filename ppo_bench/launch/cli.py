"""The command line around Hydra: one line for every refusal, an exit status for every end.

Hydra prints a traceback, or several lines of detail, for an error in the
config or the task function, and exits 0 or 1 without regard to the jobs. Here:

- a plugin that cannot be loaded (config.plugins), a bad key, value or group option is one line on stderr (Hydra is told to
  re-raise, HYDRA_FULL_ERROR=1, and the error is worded here); set
  HYDRA_FULL_ERROR=1 yourself to see Hydra's full error instead;
- a failed job has already logged its one line and written its record; the
  task function notes it instead of raising, and the sweep counts the notes (launching);
- Ctrl-C, SIGTERM and SIGHUP (the terminal closed) stop the jobs in progress (their
  records say so) and the sweep, which still collects its summary and releases
  its lock; the exit status is 130, 143 or 129. One line says what was stopped: the
  jobs in progress and how many failed before, no job (between jobs), or the summary
  (sweep.collect_sweep: the summary is written all or nothing, so the previous one is kept);
- a sweep folder that cannot be written, at the sweep's start (its lock, Hydra's multirun.yaml),
  is one line; a job folder that cannot be made or written (read-only, full, a file in its
  place: Hydra's copies, or the job's own check before it builds anything) fails that job,
  in one line, and the sweep goes on (launching.run_job), as does a single run's, alone; where
  the sweep's own job notes can no longer be written, it stops, in one line (NotesUnwritable),
  and still summarises, releases its lock (or says in one line why not) and counts;
- a job's log file that cannot be written is one line, once, and the job goes on (JobLog);
- the exit status is non-zero when a job failed or the summary could not be made, and a
  sweep's last line then says how many of its jobs failed.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Callable, Optional

from hydra.core.hydra_config import HydraConfig
from hydra.errors import HydraException, MissingConfigException
from omegaconf import DictConfig
from omegaconf.errors import ConfigAttributeError, ConfigKeyError

from ppo_bench.config import keys, plugins
from ppo_bench.launch import claim, launching, sweep
from ppo_bench.signals import HANDLED, Terminated, one_line, raise_on_sigterm
from ppo_bench.job.parent import JobFailed, Kept, run


SIGNALS: list[int] = []
"""The stop signals that reached this process, noted before they raise as usual (`note_signals`):
where the part they stopped ended its own interruption (the summary: sweep.collect_sweep), the
exit status still says the command was stopped."""


def job(cfg: DictConfig) -> None:
    """Hydra's task function: one job; its failure is in its record, its log line and its end note
    (launching: counted there, so the job returns and the sweep goes on)."""
    with launching.noted(HydraConfig.get()) as outcome:
        try:
            run(cfg)
        except JobFailed as e:
            outcome.fail(e, kept=str(e) if isinstance(e, Kept) else None)


class JobLog(logging.FileHandler):
    """The job's log file (Hydra's job_logging `file` handler: conf/config.yaml). Where it cannot be
    written (the folder full or read-only), one line says so and the job goes on: the log repeats the
    terminal's lines, and the record, which the job is for, fails the job where it cannot be written.
    logging's own report was a traceback for each later line. The file is opened with its first line,
    so that one that cannot be made is said the same way (Hydra's made it first: a job failed for it)."""

    def __init__(self, filename: str, mode: str = "a", encoding: Optional[str] = None, delay: bool = True,
                 errors: Optional[str] = None) -> None:
        super().__init__(filename, mode, encoding, delay=True, errors=errors)
        self.lost = False

    def emit(self, record: logging.LogRecord) -> None:
        if self.lost:
            return
        try:
            super().emit(record)  # a write that fails comes back through handleError
        except OSError as e:  # the file could not be opened
            self._lose(e)

    def handleError(self, record: logging.LogRecord) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, OSError):
            self._lose(error)
        else:
            super().handleError(record)

    def _lose(self, error: OSError) -> None:
        self.lost = True
        stream, self.stream = self.stream, None
        with contextlib.suppress(OSError):  # what it still holds cannot be written either
            if stream is not None:
                stream.close()
        print(f"{self.baseFilename}: the job's log cannot be written ({launching.os_error_line(error)}); "
              "its lines from here on are on the terminal only", file=sys.stderr)


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


def _hydra_s_own(e: BaseException) -> bool:
    """Whether an exception was raised inside Hydra (its command line: `-m --cfg job`)."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and "hydra" in Path(tb.tb_frame.f_code.co_filename).parts


def main(hydra_main: Callable[[], None]) -> int:
    """Run `hydra_main` (run.py's @hydra.main function) and return the exit status."""
    try:  # before Hydra composes the config: a plugin's algorithm brings its keys into the schema
        plugins.load(plugins.named_on(sys.argv[1:]))
    except plugins.PluginError as e:
        print(e, file=sys.stderr)
        return 1
    full_error = os.environ.get("HYDRA_FULL_ERROR") == "1"
    os.environ["HYDRA_FULL_ERROR"] = "1"
    raise_on_sigterm()
    note_signals()
    try:
        hydra_main()
    except (KeyboardInterrupt, Terminated) as e:
        by = "Ctrl-C" if isinstance(e, KeyboardInterrupt) else str(e)
        print(f"stopped by {by}: {stop_line(launching.tally())}; run again with resume=true to finish", file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else 128 + e.signum
    except (sweep.SweepRefused, claim.FolderTaken) as e:
        sweep.OUTCOME.refused = True  # a launcher's refusal comes after the summary was registered
        print(e, file=sys.stderr)
        return 1
    except launching.NotesUnwritable as e:  # the sweep stopped: said, then summarised, then counted
        print(e, file=sys.stderr)
        if sweep.SweepCallback.running is not None:
            sweep.SweepCallback.running.finish()
        print(failed_line(launching.tally()), file=sys.stderr)
        return 1
    except HydraException as e:
        if full_error:
            raise
        print(refusal_line(e), file=sys.stderr)
        return 1
    except Exception as e:
        error = launching.os_error_of(e)
        if not full_error and error is not None and not launching.LOCAL.jobs:
            # Hydra could not make or write a single run's folder, or a sweep's own file before any job
            # (multirun.yaml); its logging may be half set up: to stderr
            if launching.SWEEP is None:
                print(f"job: FAILED: its folder {launching.folder_failure(error)}", file=sys.stderr)
                return 1
            if not launching.tally().jobs:
                sweep.OUTCOME.refused = True  # nothing to summarise, nor a command to keep in its history
                if sweep.SweepCallback.running is not None:
                    sweep.SweepCallback.running.withdraw()
                print(f"hydra.sweep.dir={launching.SWEEP.sweep_dir}: cannot write there: "
                      f"{launching.os_error_line(error)}", file=sys.stderr)
                return 1
        if full_error or not isinstance(e, ValueError) or not _hydra_s_own(e):
            raise
        print(one_line(e).removeprefix("ValueError: "), file=sys.stderr)  # Hydra's word on its command line
        return 1
    if SIGNALS:  # stopped where it was said already (the summary)
        return 128 + SIGNALS[-1]
    jobs = launching.tally()
    failed = jobs.failed + jobs.stopped  # a job stopped alone while the sweep went on (scancel, its time limit)
    if launching.SWEEP is not None and (failed or jobs.unread):
        print(failed_line(jobs), file=sys.stderr)
    return 1 if failed or jobs.unread or sweep.OUTCOME.collection_failed else 0


def stop_line(jobs: launching.Tally) -> str:
    """What a stop signal stopped: the jobs in progress (recorded as failed), and how many failed before."""
    if jobs.unread:
        return f"which jobs were in progress is not known: their notes cannot be read ({jobs.unread})"
    if jobs.stopped:
        what = ("the job in progress is" if jobs.stopped == 1 else f"the {jobs.stopped} jobs in progress are")
        what += " recorded as failed"
    elif not jobs.unended:
        what = "no job was in progress"
    else:
        what = ""
    if jobs.unended:  # a job that ended at once (a second stop), or one a stop did not reach
        what += ("; " if what else "") + (f"{_jobs(jobs.unended)} in progress left no record "
                                          "(ended at once, or still running)")
    return what + (f", {_jobs(jobs.failed)} failed before" if jobs.failed else "")


def failed_line(jobs: launching.Tally) -> str:
    """The sweep's last line where a job failed: how many, of how many."""
    if jobs.unread:
        return f"whether a job failed is not known: its notes cannot be read ({jobs.unread})"
    if not jobs.jobs:
        return "no job ran"
    return f"{jobs.failed + jobs.stopped} of {_jobs(jobs.jobs)} failed (each one's line says why)"


def _jobs(n: int) -> str:
    return f"{n} job{'s' if n != 1 else ''}"
