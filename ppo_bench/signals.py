"""How the sweep's process and a job's child treat Ctrl-C, SIGTERM and SIGHUP (see isolation: the
parent alone decides, the child ignores Ctrl-C), and the one-line form a record's error takes."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator


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


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated(signal.Signals(signum).name)


def raise_on_sigterm() -> None:
    """From now on SIGTERM and SIGHUP raise Terminated in the main thread; by default they end
    the process at once, leaving neither a record nor a summary."""
    for signum in HANDLED:
        signal.signal(signum, _raise_terminated)


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


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """`raise_on_sigterm` for the duration of a job, where signals can be handled (main thread)."""
    with _handled(signal.SIGTERM, _raise_terminated), _handled(signal.SIGHUP, _raise_terminated):
        yield


@contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP back while a record is written; they arrive right after.

    A second Ctrl-C during the write would otherwise leave the job without a record.
    """
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, *HANDLED})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def sigint_ignored() -> Any:
    """Ignore Ctrl-C while starting the child: an ignored signal stays ignored through exec and
    fork, so a fork server started here, and a spawned child, ignore it from their first
    instruction and the parent alone decides (`_child_main` ignores it too, for a server that
    was started before)."""
    return _handled(signal.SIGINT, signal.SIG_IGN)
