"""`hydra/launcher=node`: a sweep's jobs side by side on one node, each on a GPU and cores of its own.

The jobs run through joblib (loky worker processes, `n_jobs` = the node's slots, one job a
batch, dispatched in sweep order) and hydra-joblib-launcher's `execute_job`, which sets up each
job as Hydra's own joblib launcher does; what is added here is only what those leave out. Each
job claims a slot and pins its process to it (`placement`), and the sweep ends as the basic
launcher's does:

- failure: a job that fails has its record and its line; its JobReturn comes back failed
  (JobFailed) and is counted here (`sweep.OUTCOME`), so the other jobs, the summary
  (`on_multirun_end`) and the exit status are as with the basic launcher. A job folder that
  cannot be written fails that job alone: `cli.guard_job_folders` also wraps the `run_job` that
  hydra-joblib-launcher calls, in the worker;
- resume: the runner skips a job already ok, as always (the job still claims a slot, briefly);
- Ctrl-C, SIGTERM, SIGHUP: the workers leave the terminal's process group and ignore these
  signals between jobs (a Ctrl-C would otherwise reach each of them, and a worker that dies of one
  makes joblib kill every worker at once, records unwritten). The sweep's process takes the
  signal and sends it on to each job holding a slot, which records that it was stopped; it waits
  for them (up to STOP_WAIT_S), and only then raises, so that joblib ends the workers after the
  records are written. Jobs not yet started do not start (a stop file beside the slots). A second
  signal stops at once.
- killed outright (SIGKILL): every worker dies with the sweep's process (a parent-death signal,
  `_die_with`), and its job's child and fork server with it (isolation), so that the jobs in
  progress leave no record, as under the basic launcher. Left running, the workers went on with
  their jobs for minutes, and wrote records into a folder that a resumed sweep already wrote in.
  A folder's lock is not taken over while a slot is held (`sweep.take_lock`).

Why joblib and not Hydra's submitit local launcher (already a test dependency): submitit local
starts every job of the sweep at once, one process each, with no bound on how many run (its
`array_parallelism` is SLURM's), and gives every job the same GPUs (CUDA_VISIBLE_DEVICES =
the first `gpus_per_node`); slots would then be a queue of its own on top, every waiting job
holding a Python process that has imported torch, counting against its `timeout_min`, and
starting in no particular order. On Ctrl-C its job controllers send SIGINT and SIGKILL one
second later, and a sweep's process that ends leaves them running. joblib bounds the jobs at
`n_jobs`, starts them in sweep order and reuses its workers (and their fork servers); what it
lacks is slots (here, flock) and a graceful stop (here, above).

On one slot (one GPU, or cpu_jobs=1) joblib runs the jobs in the sweep's own process, one after
another, as the basic launcher does; they are still placed and recorded.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import multiprocessing
import os
import signal
import time
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

from ppo_bench.launch import cli, placement, sweep
from ppo_bench.signals import HANDLED, Terminated, raise_on_sigterm
from ppo_bench.job.parent import JobFailed

log = logging.getLogger(__name__)

SLOTS = placement.SLOTS  # one lock file per slot, and STOP
STOP = "stop"
STOP_WAIT_S = 60.0
"""How long the sweep's process waits, after a signal, for the jobs in progress to record it."""
SIGNALS = (signal.SIGINT, *HANDLED)
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
EXTRA = 'hydra/launcher=node needs joblib and hydra-joblib-launcher: pip install -e ".[node]"'


def launch(launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> list:
    """The launcher's `launch`: every job of the batch, at most one per slot at a time."""
    try:
        from hydra_plugins.hydra_joblib_launcher import _core  # noqa: F401  (the workers import it)
        from joblib import Parallel, delayed
    except ImportError:
        raise sweep.SweepRefused(EXTRA) from None
    from hydra.core.singleton import Singleton
    from hydra.core.utils import configure_log, filter_overrides, setup_globals

    setup_globals()
    config = launcher.config
    configure_log(config.hydra.hydra_logging, config.hydra.verbose)
    try:
        slots = placement.launcher_slots(launcher.gpus, launcher.cpu_jobs, sorted(os.sched_getaffinity(0)))
    except ValueError as e:
        raise sweep.SweepRefused(f"hydra/launcher=node: {e}") from None
    folder = Path(str(config.hydra.sweep.dir)) / SLOTS
    folder.mkdir(parents=True, exist_ok=True)
    (folder / STOP).unlink(missing_ok=True)
    log.info("node launcher: %d jobs, %d at a time", len(job_overrides), len(slots))
    for where in slots:
        log.info("\t%s", placement.describe(where))
    for idx, overrides in enumerate(job_overrides):
        log.info("\t#%d : %s", initial_job_idx + idx, " ".join(filter_overrides(overrides)))
    state = Singleton.get_state()
    jobs = (delayed(run_in_slot)(folder, slots, initial_job_idx + idx, overrides, launcher.hydra_context, config,
                                 launcher.task_function, state) for idx, overrides in enumerate(job_overrides))
    parallel = Parallel(n_jobs=len(slots), backend="loky", batch_size=1, pre_dispatch="n_jobs",
                        initializer=functools.partial(_worker_init, os.getpid()))
    with _forwarding(folder) if len(slots) > 1 else contextlib.nullcontext():
        runs = parallel(jobs)
    return [_counted(r) for r in runs]


def run_in_slot(folder: Path, slots: list[dict], *job: Any) -> Optional[Any]:
    """One job, in a worker: claim a slot, pin this process to it, run the job as Hydra's joblib launcher
    does; None when the sweep is stopping (the job does not start)."""
    from hydra_plugins.hydra_joblib_launcher import _core

    cli.guard_job_folders(_core)
    with _stoppable(), placement.claim(folder, slots) as where:
        if (folder / STOP).exists():
            return None
        placement.place(where)
        return _core.execute_job(*job)


def _worker_init(sweep_pid: int) -> None:
    """A worker dies with the sweep's process (see `_die_with`), leaves the terminal's process group
    and ignores the signals the sweep's process sends on: between jobs (a signal sent as its job
    ended) they would kill it, and joblib every worker. It also forgets loky's start method, which
    multiprocessing would hand to the job's fork server and child (isolation), where no "loky"
    context exists."""
    _die_with(sweep_pid)
    os.setpgrp()
    multiprocessing.set_start_method(None, force=True)
    for s in SIGNALS:
        signal.signal(s, signal.SIG_IGN)


def _die_with(parent: int) -> None:
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


@contextlib.contextmanager
def _stoppable() -> Iterator[None]:
    """While a job runs: Ctrl-C raises KeyboardInterrupt, SIGTERM and SIGHUP Terminated (the runner
    records either), then the handlers are as before (in the sweep's own process, its own)."""
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    raise_on_sigterm()
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _counted(ret: Any) -> Any:
    """A failed job's return, counted as the basic launcher's jobs are: its record and its line say
    why; Hydra would otherwise end the sweep with the first failure once the batch is done."""
    if ret is not None and ret.status.name == "FAILED" and isinstance(ret._return_value, JobFailed):
        sweep.OUTCOME.failed_jobs += 1
        ret.status, ret._return_value = type(ret.status).COMPLETED, None
    return ret


@contextlib.contextmanager
def _forwarding(folder: Path) -> Iterator[None]:
    """For the duration: SIGINT, SIGTERM and SIGHUP go on to the jobs (see the module doc)."""
    stopping: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        if stopping:  # the second: at once
            raise KeyboardInterrupt if signum == signal.SIGINT else Terminated(signal.Signals(signum).name)
        stopping.append(signum)
        (folder / STOP).touch()
        log.warning("%s: stopping the jobs in progress (again to stop at once)", signal.Signals(signum).name)
        told: set[int] = set()
        deadline = time.monotonic() + STOP_WAIT_S
        while True:
            pids = placement.holders(folder)
            for pid in set(pids) - told:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signum)
                told.add(pid)
            if not pids or time.monotonic() > deadline:
                break
            time.sleep(placement.POLL_S)
        raise KeyboardInterrupt if signum == signal.SIGINT else Terminated(signal.Signals(signum).name)

    previous = {s: signal.signal(s, stop) for s in SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
