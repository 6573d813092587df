"""Run a job's measurement in a child process that the parent watches and can always end.

ale-py's recv() blocks in C++ with the GIL released and, when an emulator worker
starves (ALE #641), never returns: no Python exception or signal handler in that
process can interrupt it. So the measurement runs in a child process
(multiprocessing's 'forkserver', never a fork of the parent: the parent holds
Hydra's state and must never initialise CUDA; see `forkserver.context`), and the parent
only waits and watches:

- progress: the child names its stage (start-up, setup, loop, closing) and
  bumps a shared counter on every loop step; when neither changes for
  `stall_timeout_s`, the parent kills the child: "no progress for N s in ...";
  before that it asks for the child's threads' stacks (`stacks`): the error
  names where its main thread waited, the record's traceback holds them all;
- Ctrl-C, SIGTERM and SIGHUP reach the parent as exceptions (the child ignores SIGINT
  and dies of SIGTERM's default action); the parent kills the child and
  re-raises, so the record says why and the sweep stops;
- a child that dies (a segfault, the OOM killer) is reported with its signal;
- a parent that dies (SIGKILL) closes a pipe that a thread of the child
  watches: the child exits instead of stepping on for ever; and the fork
  server exits as soon as neither the parent nor a child of it is left
  (`signals.end_with_clients`), also while it still imports. So a sweep
  killed outright leaves no process behind (under the node launcher the
  parent is a worker, which dies with the sweep's process: `node`);
- every wait on the fork server is bounded: it starts the child (the parent
  waits `stall_timeout_s` for its answer) and reports the child's end (the
  parent waits `SERVER_WAIT_S` after killing it). A server that does not answer
  (stopped, stuck) is killed (it holds nothing but imports) and the next job
  starts a new one; so no child is left that multiprocessing would wait for,
  with no bound, as the sweep's process exits.

A child can also be started ahead of its turn, gated (`start(gated=True)`): it builds, takes its
first loop step (the compile) and parks, blocked on an Event, until its job's parent runs it
(`run` opens the gate); meanwhile `settle` watches it up to its park as `run` would, holding its log
lines for the job's own log (`job.prepared` starts a sweep's jobs so, side by side).

The server, its start and its end: `forkserver`. A fresh process per job also isolates CUDA errors (an illegal memory access
poisons a process for all its later jobs) and gives every job a fresh dynamo
and allocator. Forked from a server that has imported torch, it costs a fork
rather than a new interpreter.
"""

from __future__ import annotations

import enum
import importlib
import logging
import logging.handlers
import os
import signal
import threading
import time
import traceback
from types import SimpleNamespace
from typing import Any, Callable, Optional

from ppo_bench.signals import one_line
from ppo_bench.job.forkserver import SERVER_WAIT_S, context, module_of, start_child, stop_server
from ppo_bench.job.stacks import WAIT_S, StackFile, listen, where_it_waits


class Stage(enum.IntEnum):
    """Where the child is (its `Progress`); the parent words a stall by it (ChildJob.run's `where`)."""
    START_UP, SETUP, LOOP, CLOSING = range(4)


POLL_S = 0.5
EXIT_WAIT_S = 30.0
"""How long a child that has reported may take to exit before it is killed."""


class Progress:
    """The child's side of the watch: its stage and a loop-step counter, both read by the parent."""

    def __init__(self, stage: Any, steps: Any, send: Callable[..., None], gate: Any = None):
        self._stage, self._steps, self.send, self._gate = stage, steps, send, gate
        self.stall_reports: list[Callable[[], str]] = []

    def park(self) -> Optional[tuple[float, float]]:
        """Where a child started ahead of its turn waits for it (`ChildJob.start(gated=True)`): says
        so to the parent, then blocks (never spins: a spinning thread slowed a job's emulators 9x)
        until its job runs it. Returns when it parked and when it went on (time.time), or None where
        the child has no gate (it never waits)."""
        if self._gate is None:
            return None
        at = time.time()
        self.send("parked")
        self._gate.wait()
        return at, time.time()

    def on_stall(self, report: Callable[[], str]) -> None:
        """`report()` gives one line for a stalled job's error (or nothing to add: ""), asked from
        another thread of the child while its main thread waits (so it must not wait itself): e.g.
        whether the device still has work queued, which says whether the device or the host stopped."""
        self.stall_reports.append(report)

    def enter(self, stage: Stage) -> None:
        self._stage.value = stage

    def count(self) -> None:
        """One more loop step (a shared-memory add: ~0.1 us a loop step); the driver's observer calls it."""
        self._steps.value += 1


class ChildJob:
    """`fn(*args, progress)` in a child process; what it sent stays readable after `run`, also when
    `run` raised (Ctrl-C, SIGTERM): `provenance`, `result`, or `error` (one line) and `traceback`,
    and `partial`: items the child sent as it went (`progress.send("partial", name, item)`, e.g.
    a learning curve's points), kept whatever becomes of the job."""

    def __init__(self, fn: Callable | str, *args: Any, preload: Optional[str] = None):
        """`fn`: a function, or its "module:name" (then this process need not import its module, which
        the child's server imports anyway: the parent of a job stays free of torch). `preload`: the
        name of the module the fork server imports once for all children (by default `fn`'s)."""
        self.fn, self.args = fn, args
        self.preload = preload or module_of(fn)
        self.provenance: Optional[dict] = None
        self.result: Any = None
        self.error: Optional[str] = None
        self.traceback: Optional[str] = None
        self.partial: dict[str, list] = {}
        self.parked = False  # a gated child that waits at its gate (`start`, `settle`)
        self._proc: Any = None
        self._held: Optional[list] = None  # its log records while it is settled, before its job's log exists
        self._ended = False  # it reported, ended or stalled: nothing more to watch
        self._reported = False  # of those, it reported (it exits on its own)

    def start(self, stall_timeout_s: float, gated: bool = False) -> bool:
        """Start the child; False (and `error` says why) where the fork server did not. `gated`: it
        parks after its first loop step until `run` opens its gate (`Progress.park`)."""
        ctx = context(self.preload)
        self._messages, child_end = ctx.Pipe(duplex=False)
        parent_alive, self._alive = ctx.Pipe(duplex=False)
        self._stage, self._steps = ctx.Value("i", 0, lock=False), ctx.Value("q", 0, lock=False)
        self._gate = ctx.Event() if gated else None
        self._stacks = StackFile()
        self._proc = ctx.Process(target=_child_main, name="ppo_bench-job", args=(
            self.fn, self.args, child_end, parent_alive, self._stage, self._steps,
            logging.getLogger().getEffectiveLevel(), self._stacks.path, self._gate))
        try:
            started = start_child(ctx, self._proc, stall_timeout_s)
        except BaseException:
            self.close()
            raise
        finally:
            child_end.close()
            parent_alive.close()
        if not started:
            self.error = (f"the fork server did not start the job's process within {stall_timeout_s:g} s "
                          "(stopped or stuck); it is started again for the next job")
            self._ended = True
        return started

    def settle(self, stall_timeout_s: float, where: Callable[[Stage, int], str]) -> None:
        """Watch a gated child (`start`) as `run` would, until it parks, reports (a failure) or ends;
        its log lines are held for `run`, which hands them to this process's loggers (by then the
        job's own log). A stall ends it here, its error kept for `run`."""
        if self._ended or self.parked:
            return
        self._held = [] if self._held is None else self._held
        try:
            got = self._watch(stall_timeout_s, where, until_parked=True)
        except BaseException:
            self.close()
            raise
        if not self.parked:
            self._ended, self._reported = True, got

    def run(self, stall_timeout_s: float, where: Callable[[Stage, int], str]) -> None:
        """Start the child (unless `start` has) and wait for it; `where(stage, loop_steps)` words a
        stall's place. A gated child is watched up to its park, then its gate opened."""
        reported = False
        try:
            if self._proc is None and not self.start(stall_timeout_s):
                return
            held, self._held = self._held or [], None
            for record in held:  # a settled child's lines, now in its job's log
                logging.getLogger(record.name).handle(record)
            if self._ended:
                reported = self._reported
                return
            if self._gate is not None and not self.parked:
                reported = self._watch(stall_timeout_s, where, until_parked=True)
                if not self.parked:
                    return
            if self._gate is not None:
                self._gate.set()
            reported = self._watch(stall_timeout_s, where)
        finally:
            self.close(EXIT_WAIT_S if reported else 0)
        if self.result is None and self.error is None:
            self._ended_without_result()

    def close(self, wait_s: float = 0) -> None:
        """End the child (waiting `wait_s` for it to exit on its own) and close its pipes: also for a
        child started ahead whose job does not run it (`job.prepared`)."""
        proc, self._ended = self._proc, True
        if proc is None:
            return
        try:
            if proc.pid is not None:
                _end(proc, wait_s)
        finally:
            for conn in (self._messages, self._alive):
                conn.close()
            self._stacks.close()

    def _ended_without_result(self) -> None:
        code = self._proc.exitcode if self._proc is not None else None
        how = f"killed by {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"
        self.error = f"the job's process ended without a result ({how})"

    def _watch(self, stall_timeout_s: float, where: Callable[[Stage, int], str], until_parked: bool = False) -> bool:
        """Wait for the child's report, its end, or a stall (or, `until_parked`, its park); True when
        it reported (or parked)."""
        proc, messages, alive, stage, steps = self._proc, self._messages, self._alive, self._stage, self._steps
        last, since = None, time.monotonic()
        while True:
            if messages.poll(POLL_S):
                try:
                    kind, *payload = messages.recv()
                except EOFError:  # the child closed its end: it is gone
                    return False
                since = time.monotonic()
                if self._receive(kind, payload) or (until_parked and self.parked):
                    return True
                continue
            if not proc.is_alive():
                while messages.poll(0):  # what it sent just before it ended
                    try:
                        kind, *payload = messages.recv()
                    except EOFError:
                        break
                    if self._receive(kind, payload):
                        return True
                return False
            now = (stage.value, steps.value)
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since > stall_timeout_s:
                self.error = f"no progress for {stall_timeout_s:g} s in {where(Stage(now[0]), now[1])}"
                report = self._stall_report(messages, alive)
                if report:
                    self.error += f"; {report}"
                stacks = self._stacks.ask(proc.pid)
                if stacks is not None:
                    self.error += f"; {where_it_waits(stacks)}"
                    self.traceback = f"the job's threads when it was stopped (faulthandler):\n{stacks.dump}"
                return False

    def _stall_report(self, messages: Any, alive: Any) -> Optional[str]:
        """Ask the stalled child for its `Progress.on_stall` lines; None when none came within
        `stacks.WAIT_S` (a child whose threads cannot run)."""
        try:
            alive.send("report")
        except OSError:
            return None
        deadline = time.monotonic() + WAIT_S
        while messages.poll(max(0.0, deadline - time.monotonic())):
            try:
                kind, *payload = messages.recv()
            except EOFError:
                return None
            if kind == "stall_report":
                return payload[0]
            self._receive(kind, payload)  # a log line or a partial sent just before: kept
        return None

    def _receive(self, kind: str, payload: list) -> bool:
        if kind == "log":
            if self._held is not None:
                self._held.append(payload[0])
            else:
                logging.getLogger(payload[0].name).handle(payload[0])
        elif kind == "parked":
            self.parked = True
        elif kind == "provenance":
            self.provenance = payload[0]
        elif kind == "partial":
            self.partial.setdefault(payload[0], []).append(payload[1])
        elif kind == "ok":
            self.result = payload[0]
            return True
        elif kind == "failed":
            self.error, self.traceback = payload
            return True
        return False


def _end(proc: Any, wait_s: float) -> None:
    """Wait `wait_s` for the child to exit, then kill it; and when the fork server does not say how
    it ended (stopped, stuck), kill the server too, so that the child counts as ended."""
    try:
        proc.join(wait_s)
    finally:  # also when Ctrl-C comes during that wait
        if proc.is_alive():
            proc.kill()
            proc.join(SERVER_WAIT_S)
        if proc.exitcode is None:
            stop_server()
            proc.join(SERVER_WAIT_S)


def _listen_to_parent(parent_alive: Any, progress: Progress) -> None:
    """Blocked on the parent's pipe: ends the child when the parent's end closes, and answers a
    stalled job's "report" with its `Progress.on_stall` lines (a thread of its own runs them, as
    the main thread is the one that stopped)."""
    while True:
        try:
            parent_alive.recv()
        except EOFError:
            os._exit(3)
        lines = []
        for report in progress.stall_reports:
            try:
                lines.append(report())
            except Exception as e:  # noqa: BLE001 - a report that fails says so, the rest still go
                lines.append(f"(stall report failed: {one_line(e)})")
        progress.send("stall_report", "; ".join(line for line in lines if line))


def _child_main(fn: Callable, args: tuple, conn: Any, parent_alive: Any, stage: Any, steps: Any,
                log_level: int, stacks_path: str, gate: Any = None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent alone decides what Ctrl-C does
    listen(stacks_path)  # a stall's stacks, when the parent asks
    lock = threading.Lock()

    def send(*message: Any) -> None:
        with lock:  # log records may come from other threads
            conn.send(message)

    progress = Progress(stage, steps, send, gate)
    threading.Thread(target=_listen_to_parent, args=(parent_alive, progress), daemon=True).start()
    root = logging.getLogger()
    up_the_pipe = SimpleNamespace(put_nowait=lambda record: send("log", record))  # to the parent's handlers
    root.handlers[:] = [logging.handlers.QueueHandler(up_the_pipe)]
    root.setLevel(log_level)
    try:
        if isinstance(fn, str):  # "module:name", imported by the server already
            module, name = fn.split(":")
            fn = getattr(importlib.import_module(module), name)
        result = fn(*args, progress)
    except BaseException as e:
        send("failed", one_line(e), traceback.format_exc())
        return
    send("ok", result)
