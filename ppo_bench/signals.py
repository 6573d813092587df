"""How the sweep's process, a job as it begins and a job's child treat Ctrl-C, SIGTERM and SIGHUP (a
job's stop is held until its runner can record it; see isolation: the parent alone decides, the child
ignores Ctrl-C), and the collector's command line (held back until it can say what a stop stopped,
and noted where Python discards one: `block_stops`, `stops_noted`), how a job's fork server ends with
its parent, and the one-line form a record's error takes."""

from __future__ import annotations

import os
import re
import signal
import stat
import sys
import threading
from contextlib import AbstractContextManager, ExitStack, contextmanager
from typing import Any, Iterable, Iterator, Optional


class Terminated(BaseException):
    """SIGTERM as an exception (what `timeout`, `scancel` and a SLURM time limit send), and SIGHUP
    (the terminal closed), whose default action also ended the sweep with no record, no summary
    and a stale lock. The message is the signal's name.

    A BaseException, like KeyboardInterrupt, so no `except Exception` swallows it
    and Hydra stops the sweep rather than going on to the next job.
    """

    @property
    def signum(self) -> int:
        return signal.Signals.__members__.get(str(self), signal.SIGTERM).value


HANDLED = (signal.SIGTERM, signal.SIGHUP)
"""The signals that raise Terminated."""


def one_line(e: BaseException) -> str:
    """`Type: first line of the message`, the form a record's error takes."""
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0]}" if text else type(e).__name__


STOPS = (signal.SIGINT, *HANDLED)
"""The signals that stop a job: Ctrl-C and those that raise Terminated."""


def heeded(signums: Iterable[int]) -> list[int]:
    """Those of `signums` that this process does not ignore. An ignored one stays ignored wherever a
    handler is set here: Ctrl-C in a shell's background job, SIGHUP under nohup (a sweep started
    with `nohup ... &` runs on when its terminal closes)."""
    return [s for s in signums if signal.getsignal(s) is not signal.SIG_IGN]


def stopped_by(stop: BaseException) -> str:
    """A stop as a line names it: "Ctrl-C" for KeyboardInterrupt, else the signal's name (Terminated's)."""
    return "Ctrl-C" if isinstance(stop, KeyboardInterrupt) else str(stop)


def exit_status(stop: BaseException) -> int:
    """The exit status of a process that a stop ended, as a shell gives one killed by it: 130, 143, 129."""
    return 128 + (signal.SIGINT if isinstance(stop, KeyboardInterrupt) else stop.signum)


def raise_on_sigterm() -> None:
    """From now on SIGTERM and SIGHUP raise Terminated in the main thread (unless ignored: `heeded`);
    by default they end the process at once, leaving neither a record nor a summary."""
    for signum in heeded(HANDLED):
        signal.signal(signum, _raise_stop)


@contextmanager
def _handled(signum: int, handler: Any) -> Iterator[None]:
    """`handler` for `signum` for the duration, then the previous one; a no-op off the main
    thread, where Python cannot set signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signum, handler)
    try:
        yield
    finally:
        signal.signal(signum, previous)


def stop_of(signum: int) -> BaseException:
    """The exception a stop signal raises: KeyboardInterrupt for Ctrl-C, else Terminated."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signal.Signals(signum).name)


_held: Optional[list[int]] = None
"""Inside `stops_held`: the stop that came and was not raised yet (none or one); None outside."""


def _hold(signum: int, frame: Any) -> None:
    if _held is None:
        return
    if _held:  # a second stop while one is held: at once, as the sweep's process stops on a second
        raise stop_of(signum)
    _held.append(signum)


def _raise_stop(signum: int, frame: Any) -> None:
    raise stop_of(signum)


@contextmanager
def stops_held(ignored_too: bool = False) -> Iterator[None]:
    """Around a job in a launcher's process, from the moment the job begins (its config composed,
    its folder made by Hydra): Ctrl-C, SIGTERM and SIGHUP are held back, except inside the
    runner's `stops_raise`, which raises the one held as it is entered. A stop still held as this
    ends (the job was skipped by resume, had written its record, or failed otherwise) is raised
    then, unless another stop is already on its way up: the stop is never lost, and never raised
    twice. A second stop while one is held raises at once, so that nothing keeps a job from
    stopping. A signal this process ignores stays ignored (`heeded`), unless `ignored_too`: a
    pool's worker ignores them between jobs, and takes them while it runs one. Inside the runner,
    the same holds a stop through a native import (`importing`).

    Raising a stop at once, wherever it came, lost the record of a job stopped before its runner
    began: a sweep stopped while its jobs composed their configs on a loaded 2-core machine ended with
    no record of either and said that no job was in progress. A no-op off the main thread, where
    Python cannot set signal handlers."""
    global _held
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    outer, held = _held, []
    _held = held
    try:
        with ExitStack() as handlers:
            for signum in (STOPS if ignored_too else heeded(STOPS)):
                handlers.enter_context(_handled(signum, _hold))
            try:
                yield
            except (KeyboardInterrupt, Terminated):
                raise
            except BaseException:
                if held:  # the job failed with a stop held: the stop, the failure as its context
                    raise stop_of(held.pop())
                raise
    finally:
        _held = outer
    if held:
        raise stop_of(held.pop())


def importing() -> AbstractContextManager:
    """Around an import of a native module (ale-py, torch) where a job's runner may make it (the config
    check of the first job in a process): a stop that comes meanwhile is raised as the import ends
    (`stops_held`), not inside it.

    Raised inside the module's initialisation, the stop crashed the job's process in ale-py's import
    (a segfault), or was lost there, as torch's import swallows it and goes on: a sweep stopped as its
    jobs began left a job with no record and no end note, or one that ran on unstopped."""
    return stops_held()


@contextmanager
def stops_raise() -> Iterator[None]:
    """Where a job's runner records a stop: SIGTERM and SIGHUP raise Terminated; inside `stops_held`
    also Ctrl-C raises KeyboardInterrupt, and a stop held until now is raised as this is entered.
    Outside `stops_held` (a single run) Ctrl-C is handled as before. An ignored signal stays
    ignored (`heeded`); a no-op off the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _held:
        raise stop_of(_held.pop())
    with ExitStack() as handlers:
        for signum in heeded(STOPS if _held is not None else HANDLED):
            handlers.enter_context(_handled(signum, _raise_stop))
        yield


def block_stops() -> None:
    """Ctrl-C, SIGTERM and SIGHUP held back from now on (blocked: each arrives when let through, by
    `stops_noted`), in a process that will take them only once it can say what they stopped."""
    signal.pthread_sigmask(signal.SIG_BLOCK, set(STOPS))


def pending_stop() -> Optional[BaseException]:
    """A stop held back in this thread (`block_stops`) that came since, taken (it is not delivered again)
    as the stop it is; None where none came. A process that holds stops back once it has its outcome
    asks before it exits: a blocked signal still pending as a process exits is dropped unseen."""
    taken = signal.sigtimedwait(STOPS, 0)
    return stop_of(taken.si_signo) if taken is not None else None


@contextmanager
def stops_noted() -> Iterator[list[BaseException]]:
    """Ctrl-C, SIGTERM and SIGHUP raise their stop (KeyboardInterrupt, Terminated), let through where they
    were held back (`block_stops`: one that came meanwhile is raised as this is entered), and each is
    noted in the list yielded; as this ends, all is as before (held back again, where it was).

    Python discards an exception raised inside a finalizer (a __del__, a weakref callback: its import
    system runs one as each module's lock goes) and prints it with a traceback, then goes on: a stop
    that came there printed "Exception ignored ... KeyboardInterrupt" and the process ran to its end.
    Here its traceback is not printed, and the list still holds it, for the caller to raise where it
    can. An ignored signal stays ignored (`heeded`); off the main thread this yields an empty list."""
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    noted: list[BaseException] = []
    previous = sys.unraisablehook

    def note(signum: int, frame: Any) -> None:
        noted.append(stop_of(signum))
        raise noted[-1]

    def quiet(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)):
            previous(unraisable)

    sys.unraisablehook = quiet
    try:
        with ExitStack() as handlers:
            for signum in heeded(STOPS):
                handlers.enter_context(_handled(signum, note))
            held = signal.pthread_sigmask(signal.SIG_UNBLOCK, set(STOPS))
            handlers.callback(signal.pthread_sigmask, signal.SIG_SETMASK, held)  # undone first
            yield noted
    finally:
        sys.unraisablehook = previous


@contextmanager
def blocked(signums: Iterable[int]) -> Iterator[None]:
    """`signums` blocked in this thread for the duration (`signal.pthread_sigmask`); one that came
    meanwhile arrives as the block ends. A process started meanwhile from this thread starts with
    them blocked, through fork and exec, and they stay blocked there until it unblocks them: how a
    helper process of a sweep is kept from the stops a terminal sends its whole process group
    (`sigint_held`, `launch.node`, the submitit local launcher)."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, set(signums))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def signals_deferred() -> AbstractContextManager:
    """Hold SIGINT, SIGTERM and SIGHUP back while a record is written; they arrive right after.

    A second Ctrl-C during the write would otherwise leave the job without a record.
    """
    return blocked(STOPS)


def sigint_held() -> AbstractContextManager:
    """Hold Ctrl-C back in this thread while it starts the fork server; one that came meanwhile
    arrives as the block ends.

    A blocked signal stays blocked through fork and exec, so the server imports its preload with
    Ctrl-C held back (multiprocessing's server then ignores it, and `_child_main` in each child):
    the parent alone decides. CPython starts its resource tracker the same way. Ignoring the signal
    around the start instead lost a Ctrl-C that came in those milliseconds: a sweep sends each job
    its signal once, so the job ran on with no record until the sweep stopped waiting and it was
    killed. CPython's resource tracker unblocks SIGINT after its own start: start it before this.
    """
    return blocked({signal.SIGINT})


FORKSERVER = re.compile(r"from multiprocessing\.forkserver import main; main\(\d+, (\d+), ")
"""The command multiprocessing starts a fork server with (ForkServer.ensure_running): `python -c` this,
with the server's listening socket and the read end of its "alive" pipe as file descriptors."""


def end_with_clients() -> None:
    """In a job's fork server (isolation), as its preload imports this module first: exit the moment
    it has no client left, that is when the process that started it and every child it forked are
    gone, however they ended.

    The server reads EOF on its "alive" pipe then (its clients alone hold the write end), but its
    own loop looks only after its preload, and then exits by SystemExit: a sweep killed while the
    server imported torch left it importing for 10-15 s on a loaded 2-core machine, and one killed
    later left it tearing its imports down for 4-5 s. A thread blocked on that pipe ends it at once
    instead, by os._exit: the server holds nothing but imports. Anywhere else (a sweep's process, or
    a job's child, forked with this module imported but without the thread) this does nothing."""
    alive_r = forkserver_alive_fd(sys.orig_argv)
    if alive_r is None:
        return

    def exit_with_the_last_client() -> None:
        os.read(alive_r, 1)  # blocks until EOF: no one writes to it
        os._exit(0)

    threading.Thread(target=exit_with_the_last_client, name="ppo_bench-clients", daemon=True).start()


def forkserver_alive_fd(argv: list[str]) -> Optional[int]:
    """The read end of the fork server's "alive" pipe where `argv` (sys.orig_argv) is a fork server's
    command, else None. multiprocessing has no public way to ask for it: the server gets it as an
    argument of its main function, whose caller's command line the interpreter keeps in sys.orig_argv.
    The number found there is used only if it is a pipe this process holds."""
    command = argv[argv.index("-c") + 1] if "-c" in argv[:-1] else ""
    found = FORKSERVER.match(command)
    if found is None:
        return None
    fd = int(found.group(1))
    try:
        return fd if stat.S_ISFIFO(os.fstat(fd).st_mode) else None
    except OSError:
        return None


end_with_clients()
