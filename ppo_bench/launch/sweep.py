"""What a multirun needs besides its jobs: safe job folders, a lock, a summary, an exit status.

- Job folders: Hydra names a job's folder by its overrides joined into one name
  (`hydra.sweep.subdir`), so a resumed sweep finds it again. Through the
  `ppo_bench.job_dir` resolver, a `/` in a value cannot make a subfolder or
  climb out of the sweep folder (`/` and `%` are percent-encoded, so distinct
  overrides keep distinct names), and a name past 200 bytes (filesystems stop at
  255) becomes its first overrides plus a hash of all of them: deterministic,
  so resume finds it again.
- Earlier results: a sweep into a folder that holds results (`*/result.json`) is refused
  before any job runs, in one line naming the ways on: `resume=true` keeps the finished jobs
  and runs the rest; `set_aside=true` first moves every job folder with a result, the summary,
  multirun.yaml and the job notes to `<sweep dir>/set_aside/<UTC time>/` (same relative paths;
  never deleted), and runs every job again. A job never writes over an ok record either (`runner`).
- Lock: two sweeps writing into one folder would overwrite each other's
  results. A sweep takes `<sweep dir>/.sweep.lock` (pid, host: `record.locks`) at start; one
  that finds the lock held by a live process is refused with one line. A lock
  whose process is gone (on this host) is taken over, unless a job of that sweep still holds a
  slot of the node launcher (`placement.held`). A sweep folder named by the clock (the default)
  is made new instead, `-2` after its name where another sweep of the same second has it (`claim`).
- Summary: Hydra skips `on_multirun_end` when the sweep ends by an exception
  (Ctrl-C, SIGTERM, a launcher's error), which is when a summary matters most;
  so the collection is also registered with `atexit`. `collect=false` turns it off. The
  summary's imports (pandas, scipy.stats, matplotlib: 1-2 s) run in a thread of their own from the
  sweep's start (`import_the_summary`), beside its first job rather than before it or after its last.
- Exit status: a failed job does not raise out of the task function (Hydra would
  print a traceback and end the sweep with the first failure's message); its notes
  count it (launching: this sweep's notes begin when its folder is locked), and the
  command exits non-zero when one failed or the collection failed (cli).
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import logging
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Optional

from hydra.experimental.callback import Callback
from omegaconf import OmegaConf

from ppo_bench.launch import claim, history, launching
from ppo_bench.record import locks
from ppo_bench.record.folder import (COMMANDS, JOB_NOTES, LOCK, MANIFEST, MULTIRUN, RESULT, SET_ASIDE, SUMMARY,
                                     set_aside)
from ppo_bench.signals import STOPS, blocked

log = logging.getLogger(__name__)

MAX_NAME_BYTES = 200


def job_dir_name(overrides: str) -> str:
    """A job folder's name from its joined overrides: one path component, inside the sweep folder."""
    name = overrides.replace("%", "%25").replace("/", "%2F")
    if name in (".", ".."):
        name = name.replace(".", "%2E")
    if len(name.encode()) <= MAX_NAME_BYTES:
        return name
    digest = hashlib.sha256(overrides.encode()).hexdigest()[:16]
    head = name.encode()[:MAX_NAME_BYTES - len(digest) - 2].decode(errors="ignore")
    if "," in head:  # whole overrides only
        head = head.rsplit(",", 1)[0]
    return f"{head}--{digest}"


OmegaConf.register_new_resolver("ppo_bench.job_dir", job_dir_name, replace=True)


class SweepRefused(BaseException):
    """The sweep cannot start: its folder cannot be written, or another sweep holds it (SweepLocked).

    A BaseException: Hydra turns a callback's Exception into a warning and goes on.
    """


class SweepLocked(SweepRefused):
    """Another live sweep writes into this folder."""


def take_lock(sweep_dir: Path) -> Path:
    """Create the lock with this process's pid and host (`locks`), taking over one whose process is gone,
    but not while a job of that sweep still runs (one holding a slot of the node launcher: `placement`):
    its records and the new sweep's would overwrite each other."""
    from ppo_bench.launch import placement

    path = sweep_dir / LOCK
    slots = sweep_dir / placement.SLOTS
    try:
        sweep_dir.mkdir(parents=True, exist_ok=True)
        before, jobs = locks.holder(path), placement.held(slots)
        held = before if jobs and before is not None and before.alive() else None
        if held is None and not jobs:
            held = locks.take(path)
    except OSError as e:  # read-only, full, a file in the way: no job could write its record either
        raise SweepRefused(f"hydra.sweep.dir={sweep_dir}: cannot write there: {type(e).__name__}: "
                           f"{e.strerror or e}") from None
    if held is not None:
        raise SweepLocked(f"{sweep_dir} is in use by the sweep of {held}; use another "
                          f"hydra.sweep.dir, or delete {path} if that sweep is gone")
    if jobs:
        gone = before or f"no process named in {path}"
        raise SweepLocked(
            f"{sweep_dir} is in use by jobs of a sweep that is gone ({gone}): job processes "
            f"{', '.join(p or '?' for p in jobs)} still hold their slots in {slots}; wait for them "
            "to end, or use another hydra.sweep.dir")
    if before is not None and before != locks.Holder.me():
        log.warning("taking over %s from a sweep that is gone (%s)", path, before)
    return path


def release_lock(path: Path) -> None:
    """Remove the lock this process holds. Where its folder no longer lets it (read-only, immutable), one
    line says that it is left and how it goes: a later sweep on this host takes over a lock whose process
    is gone (take_lock); elsewhere it is deleted by hand."""
    try:
        locks.release(path)
    except OSError as e:
        print(f"{path} is left ({type(e).__name__}: {e.strerror or e}): a later sweep on this host takes it over; "
              f"elsewhere delete it once {path.parent} can be written again", file=sys.stderr)


@dataclass
class SweepOutcome:
    """How the sweep's own parts ended (its jobs: launching.tally)."""
    collection_failed: bool = False
    refused: bool = False  # the launcher refused the sweep before any job: nothing to summarise


OUTCOME = SweepOutcome()


def collect_sweep(sweep_dir: Path) -> bool:
    """Collect into `<sweep dir>/summary`; False (and one logged line) when that failed.

    Ctrl-C, SIGTERM or SIGHUP while collecting stops the collection alone. A summary is written all
    or nothing, so the previous one is kept (or, where the signal came as the new one was swapped
    in, the new one is whole: its manifest is another file then); one line says which. It goes no
    further: from an atexit callback (the summary of a sweep stopped earlier) it printed "Exception
    ignored" and a traceback, and after the last job it read as a job stopped; the command's exit
    status still says the signal (cli.main)."""

    from ppo_bench.signals import Terminated

    def manifest() -> Optional[tuple]:
        try:
            st = (sweep_dir / SUMMARY / MANIFEST).stat()
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns

    before = manifest()
    try:  # where a stop is caught: the summary's imports (`import_the_summary`) may still run
        for thread in threading.enumerate():
            if thread.name == SUMMARY_IMPORTS:
                thread.join()
        from ppo_bench.collect import collect

        collect([sweep_dir], out_dir=sweep_dir / SUMMARY)
    except Exception as e:  # the results are on disk; a summary failure must not hide that
        log.error("collecting %s failed: %s (run: python -m ppo_bench.collect %s)", sweep_dir, e, sweep_dir)
        return False
    except (KeyboardInterrupt, Terminated) as e:
        by = "Ctrl-C" if isinstance(e, KeyboardInterrupt) else str(e)
        after = manifest()
        if after != before:
            print(f"stopped by {by} as the summary was written: {sweep_dir / SUMMARY} is whole", file=sys.stderr)
            return True
        kept = "the previous summary is kept" if before else "none was written"
        print(f"stopped by {by} while writing the summary: {kept}; run python -m ppo_bench.collect {sweep_dir}",
              file=sys.stderr)
        return False
    return True


def clear_earlier(sweep_dir: Path, resume: bool, set_aside_: bool, config: Optional[Any] = None) -> None:
    """Before any job runs: refuse a folder that holds results (SweepRefused), unless resume keeps
    them (each job decides on its own record: `runner`) or set_aside moves them out of the way; refuse a
    resume whose overrides name jobs the folder's sweep never had (`history.foreign`)."""
    if resume:
        line = history.foreign(sweep_dir, config) if config is not None else None
        if line is not None:
            raise SweepRefused(line)
        return
    found = sorted(p.parent for p in sweep_dir.glob(f"*/{RESULT}"))  # one level: set_aside/ is not searched
    if not found:
        return
    held = f"{len(found)} result{'s' if len(found) != 1 else ''} of an earlier sweep"
    if not set_aside_:
        raise SweepRefused(
            f"hydra.sweep.dir={sweep_dir} holds {held}: resume=true to finish it (finished jobs are kept), "
            f"or set_aside=true to move them to {sweep_dir / SET_ASIDE}/<time>/ and run every job again")
    extra = [p for p in (sweep_dir / n for n in (SUMMARY, MULTIRUN, JOB_NOTES, COMMANDS)) if p.exists()]
    try:
        dest = set_aside(sweep_dir, found + extra)
    except OSError as e:
        raise SweepRefused(f"hydra.sweep.dir={sweep_dir}: set_aside=true could not move its {held}: "
                           f"{type(e).__name__}: {e.strerror or e}") from None
    log.warning("set_aside: %s%s moved to %s", held, "".join(f", {p.name}" for p in extra), dest)


SUMMARY_IMPORTS = "ppo_bench-summary-imports"
"""The name of the thread that imports the summary's modules (`import_the_summary`)."""


def _summary_imports() -> None:
    try:
        importlib.import_module("ppo_bench.collect")
        from ppo_bench.collect.common import can_plot

        if can_plot():  # the figures' own modules, which the collector imports as it draws
            for module in ("matplotlib.figure", "matplotlib.ticker"):
                importlib.import_module(module)
    except Exception:  # noqa: BLE001 - the summary imports it again, and says what failed
        pass


def import_the_summary() -> threading.Thread:
    """Import what the summary needs, in a thread, as the sweep begins: it runs beside the first job,
    whose process waits on its child, and ends with its imports.

    - Started with the stops blocked, which it inherits: a Ctrl-C or SIGTERM sent to the process then
      goes to the main thread alone, as ever, where `signals.blocked` holds it back while a record is
      written (a thread that did not block them received them there, and the main thread's handler ran
      inside the block).
    - `concurrent.futures.thread` is imported first, here: pandas imports it, and it registers an
      exit hook, which fails once the interpreter has begun to exit (its exit flags a thread it has
      yet to join, so a stop early in the sweep left the thread's import, and the summary written at
      exit, failing). The summary joins the thread, found by its name, before it collects
      (`collect_sweep`): the sweep does not hold it, as submitit's launcher pickles the sweep's callback."""
    importlib.import_module("concurrent.futures.thread")
    thread = threading.Thread(target=_summary_imports, name=SUMMARY_IMPORTS)
    with blocked(STOPS):
        thread.start()
    return thread


class _Sweep:
    def __init__(self, sweep_dir: Path, config: Any):
        self.dir, self.collect, self.lock = sweep_dir, bool(config.get("collect", True)), take_lock(sweep_dir)
        self.done, self.noted_at = False, None
        try:  # under the lock: no other sweep writes results while they are counted or moved
            clear_earlier(sweep_dir, bool(config.get("resume", False)), bool(config.get("set_aside", False)), config)
            self.noted_at = history.note(sweep_dir, config)  # before Hydra's multirun.yaml replaces the last one
        except OSError as e:
            release_lock(self.lock)
            raise SweepRefused(f"hydra.sweep.dir={sweep_dir}: cannot write there: {type(e).__name__}: "
                               f"{e.strerror or e}") from None
        except BaseException:
            release_lock(self.lock)
            raise
        launching.begin(sweep_dir)  # after the move: this sweep's job notes begin here
        if self.collect:
            import_the_summary()

    def withdraw(self) -> None:
        """This sweep ran nothing (refused as Hydra began it): its command leaves the folder's history."""
        history.withdraw(self.dir, self.noted_at)

    def finish(self) -> None:
        """Collect (unless collect=false) and release the lock, once: from on_multirun_end, or from atexit
        where Hydra skipped that (the sweep ended by an exception). Raises nothing a signal raises
        (collect_sweep)."""
        if self.done:
            return
        self.done = True
        try:
            if self.collect and not OUTCOME.refused and not collect_sweep(self.dir):
                OUTCOME.collection_failed = True
        finally:
            release_lock(self.lock)


class SweepCallback(Callback):
    """Lock the sweep folder at start; collect it and unlock at the end, however the sweep ends."""

    sweep: Optional[_Sweep] = None
    running: ClassVar[Optional[_Sweep]] = None
    """This process's sweep: where Hydra skips on_multirun_end, the command line finishes it before its
    own last line (cli), rather than leave it to atexit, whose lines would come after."""

    def on_multirun_start(self, config: Any, **kwargs: Any) -> None:
        self.sweep = SweepCallback.running = _Sweep(claim.fresh_sweep_dir(config), config)
        atexit.register(self.sweep.finish)
        batch, launcher = config.get("setup_batch") or 1, str(config.hydra.launcher.get("_target_", ""))
        if batch > 1 and not launcher.endswith(".BasicLauncher"):  # launching.in_turn alone batches
            log.warning("setup_batch=%s: only the basic launcher sets jobs up side by side; %s runs each job "
                        "as ever", batch, launcher.rsplit(".", 1)[-1])

    def on_multirun_end(self, config: Any, **kwargs: Any) -> None:
        if self.sweep is not None:
            self.sweep.finish()
