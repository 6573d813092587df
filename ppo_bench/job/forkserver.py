"""The fork server a job's child is forked from: started once, its imports (torch, dynamo) done for
every job, restarted where the environment the children would inherit has changed, and ended
whatever state it is in.

Why a server and not a fork of the parent or a fresh interpreter: `context`. Every wait on it is
bounded (`start_child`, `stop_server`), so a server that does not answer never holds a job or the sweep.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import multiprocessing.forkserver
import multiprocessing.resource_tracker
import os
import signal
import threading
import time
from typing import Any, Callable, Optional

from ppo_bench import signals
from ppo_bench.signals import sigint_held

SERVER_WAIT_S = 10.0
"""How long the fork server may take to say how a killed child ended (or a start to give up), or to
end once killed."""

_server_key: Optional[tuple] = None
_served: Optional[int] = None  # the pid of the last server that started a job's process (`start_child`)

SET_BY_IMPORTS = frozenset({"PYGAME_HIDE_SUPPORT_PROMPT"})
"""Environment variables that the project's imports set, in this process (gymnasium's import, in
the config check's backend probe) as in the server (its preload): a server started before one was
set has it too, so it does not restart for it. It did restart on the H200, and a sweep's first
job waited for the server's imports after the check rather than beside it (14.9 s; a log line
now names any variable that restarts it)."""

SET_BY_THE_COMMAND_LINE = frozenset({"HYDRA_FULL_ERROR"})
"""Set by `cli.main` after run.py has started its server (`launch.ahead`), and read by no child
(Hydra runs in the parent alone): a server restarted for them would import all again."""


def context(preload: str) -> Any:
    """multiprocessing's forkserver, its server preloaded with the module `preload`: the module of
    the function the child runs, which imports what every job needs once for all jobs (torch,
    dynamo, scipy, the drivers). Not the main script: a script that touched CUDA as it loads
    would poison every child forked after it.

    On the H200 a job in a fresh interpreter ('spawn') took about 7 s longer to
    reach its setup than one in the sweep's own process had: Python, torch,
    dynamo and scipy starting again, for every job. Forked from a server that
    has imported them, a job still gets a fresh process that has never touched
    CUDA (the server only imports, it never runs a job) but skips that cost.
    A child takes this process's working directory and sys.path as they are
    at its start (multiprocessing sends them), but its environment is the
    server's, so the server is restarted when this process's environment (or
    the module to preload) has changed since it started (CUDA_VISIBLE_DEVICES,
    a test's injected faults).
    """
    global _server_key
    key = (preload, *sorted((k, v) for k, v in os.environ.items() if k not in SET_BY_IMPORTS | SET_BY_THE_COMMAND_LINE))
    if _server_key is not None and key != _server_key:
        changed = ", ".join(sorted({k for k, _ in set(key[1:]) ^ set(_server_key[1:])}))
        what = "the module to preload" if key[0] != _server_key[0] else f"the environment ({changed})"
        logging.getLogger(__name__).info("fork server restarted: %s changed since it started (its imports "
                                         "run again)", what)
        stop_server()  # a new one starts with the next child
    _server_key = key
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload([signals.__name__, preload])  # first: `signals.end_with_clients`
    return ctx


def start_server(preload: str) -> bool:
    """Start the fork server that imports the module `preload` if none runs, to import torch while the
    config is checked (run.py's from its start where its jobs run in its process: `launch.ahead`). True
    while it has started no job's process: a refusal stops it."""
    context(preload)
    ensure_running()
    return server_pid() != _served


def ensure_running() -> None:
    """Start the fork server if none runs; it and the children it forks ignore Ctrl-C, and one that
    comes to this process meanwhile is raised once the server has started."""
    mp.resource_tracker.ensure_running()  # the server's start would start it, and it unblocks Ctrl-C
    with sigint_held():
        mp.forkserver.ensure_running()


def server_pid() -> Optional[int]:
    """The pid of this process's fork server (None before the first; a dead one's until the next).

    No public way exists to learn it: multiprocessing.forkserver offers ensure_running,
    connect_to_new_process, get_inherited_fds and set_forkserver_preload (CPython 3.10 to 3.13
    alike), none of which says which process serves; so this one function reads its private state."""
    return mp.forkserver._forkserver._forkserver_pid


def module_of(fn: Callable | str) -> str:
    return fn.split(":")[0] if isinstance(fn, str) else fn.__module__


def stop_server() -> None:
    """End the fork server, also a stopped or stuck one (SIGKILL): the pipes it was to answer on then
    read as closed. It is waited for (up to SERVER_WAIT_S) but left to multiprocessing to reap: its
    `ensure_running`, before the next child, finds it ended and starts a new server."""
    pid, deadline = server_pid(), time.monotonic() + SERVER_WAIT_S
    try:
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            while hasattr(os, "waitid") and time.monotonic() < deadline and os.waitid(  # Linux; elsewhere the kill
                    os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:  # not ended yet (and not reaped)
                time.sleep(0.01)
    except (ProcessLookupError, ChildProcessError):  # ended and reaped already
        pass


def start_child(ctx: Any, proc: Any, timeout: float) -> bool:
    """Start `proc`; False when the fork server did not answer within `timeout` (it is then killed).

    The start waits for the server to send the child's pid, with no bound of its own; so it runs
    in a thread that the parent waits for, while Ctrl-C and SIGTERM still reach the parent. The
    thread says itself that the start returned: after a join that Ctrl-C interrupted, Python 3.11's
    `is_alive` read False for the start thread still waiting, and the server was left to answer a
    job that had stopped. A start thread that reaches the start only after the stop (on a busy
    machine) finds the server gone, and multiprocessing starts another that forks the child: that
    child and that server are ended too (the child's unanswered start printed a traceback). Where
    that start returns only after this wait has given up on it as well, the start thread ends the
    child itself, as it returns; the server it started then serves the next job.
    """
    ensure_running()
    failed: list[BaseException] = []
    returned = threading.Event()
    handoff = threading.Lock()  # whether the start returned, or this wait gave up on it first
    gave_up = False

    def start() -> None:
        try:
            proc.start()
        except BaseException as e:  # noqa: B036 - handed to the parent's thread
            failed.append(e)
        finally:
            with handoff:
                returned.set()
                late = gave_up
            if late and not failed:  # a child for a job that is over: no one else will end it
                proc.kill()

    try:
        threading.Thread(target=start, name="ppo_bench-start", daemon=True).start()
        returned.wait(timeout)
    finally:  # also when Ctrl-C or SIGTERM came during the wait, or as the thread started
        answered = returned.is_set()
        if not answered:
            stop_server()  # its pipe reads as closed: the start gives up
            returned.wait(SERVER_WAIT_S)
            with handoff:
                gave_up = not returned.is_set()  # the start thread ends what its start forks
            if not gave_up and not failed:  # the start thread came to the start only after the stop
                # (a busy machine), found the server gone and started another, which forked the child:
                # a process for a job that stopped, ended here with the server that answered it
                proc.kill()
                stop_server()
    if not answered:
        return False
    if failed:
        raise failed[0]
    global _served
    _served = server_pid()
    return True
