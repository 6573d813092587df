"""Stop signals and the jobs of a sweep: sent on to the jobs in progress, held until a job can record
them, and kept from the processes that run jobs for the sweep's.

The basic launcher's job runs in the sweep's process, which the signal reaches. Where jobs run in
processes of their own, `forwarding` (the sweep's process) sends Ctrl-C, SIGTERM and SIGHUP on to the
jobs in progress, which record that they were stopped, and waits for them before the sweep stops: to
the processes a launcher knows (the node launcher's slots), or to those the notes name
(`launching.in_progress`, `send_on`: a process on this host, a SLURM job elsewhere). `stoppable`
(around a job: a signal is held until its runner can record it), `init_worker` (a pool's worker: it
dies with the sweep) and `apart` (a process that runs jobs for the sweep's: it takes no signal meant
for the terminal), `stopping` (a job not started yet does not start).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Iterator

from ppo_bench.signals import STOPS, heeded, stop_of, stops_held

log = logging.getLogger(__name__)

STOP_WAIT_S = 60.0
"""How long the sweep's process waits, after a signal, for the jobs in progress to record it."""
POLL_S = 0.2
ECHO_S = 0.5
"""A second signal, the same as the first, this soon after it is the same stop sent twice (the terminal's
Ctrl-C and `timeout`'s forwarding of it to the group), not a person's second Ctrl-C: it is ignored."""
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


@contextlib.contextmanager
def forwarding(stop_file: Path, running: Callable[[], Iterable[Hashable]],
               send: Callable[[Any, int], None] = os.kill) -> Iterator[None]:
    """For the duration, in the sweep's process: Ctrl-C, SIGTERM and SIGHUP go on to the jobs in progress.

    A signal creates `stop_file` (the jobs not started yet do not start: `stopping`), is sent on with
    `send` to each job `running()` names (a pid by default; once each, as they appear), and is waited on
    until none runs or for STOP_WAIT_S; it then raises KeyboardInterrupt or Terminated as usual, so that
    the launcher ends its workers after the records are written. A second signal stops at once, but not
    the same signal within ECHO_S of the first (the same stop sent twice)."""
    stops: list[tuple[int, float]] = []

    def stop(signum: int, frame: Any) -> None:
        if stops and stops[0][0] == signum and time.monotonic() - stops[0][1] < ECHO_S:
            return  # an echo of the first: its handler goes on waiting for the jobs
        if not stops:
            stops.append((signum, time.monotonic()))
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


def send_on(job: tuple, signum: int) -> None:
    """Send `signum` to a job in progress (`in_progress`): to its process where it runs on this host, else
    to its SLURM job's steps (scancel), where the runner records it as on this host."""
    _, host, pid, slurm_job, _ = job
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
