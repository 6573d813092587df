"""Where a stalled job waits: its threads' stacks, asked for before the job is killed (see isolation).

A stall is a bug to find (on the H200, a 1-env sendrecv job with overlap stopped stepping twice in
one day's runs, once in the act's CUDA event; a stalled job's error also carries its
`Progress.on_stall` reports: whether the agent's streams still held work).
faulthandler writes every thread's stack from a signal handler, so it answers even while the
job's thread waits in C++ with the GIL released, as ale-py's recv does. The child listens
(`listen`) on a file the parent made (`StackFile`); the parent asks (`StackFile.ask`) when it has
seen no progress for the stall timeout, and the job's error then names where its main thread was
(`where_it_waits`).
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sysconfig
import tempfile
import threading
import time
from contextlib import suppress
from dataclasses import dataclass
from typing import Optional

SIGNAL = signal.SIGUSR1
WAIT_S = 3.0
"""How long a stalled child may take to write its stacks before it is killed."""
_LIBRARIES = tuple(sorted({path for key, path in sysconfig.get_paths().items()
                           if key in ("stdlib", "platstdlib", "purelib", "platlib")}))


def listen(path: str) -> None:
    """In the child: on `SIGNAL` write every thread's stack to `path`, after a first line that
    names the main thread as faulthandler names threads. The file stays open for the process's life."""
    out = open(path, "w")  # noqa: SIM115
    out.write(f"0x{threading.main_thread().ident:016x}\n")
    out.flush()
    faulthandler.register(SIGNAL, file=out, all_threads=True)


@dataclass
class Stacks:
    main: str
    """The main thread's id, as faulthandler writes it."""
    dump: str
    """faulthandler's text: a block per thread, innermost frame first."""


class StackFile:
    """The parent's side: a temporary file for one child's stacks."""

    def __init__(self) -> None:
        with tempfile.NamedTemporaryFile(prefix="ppo_bench-stacks-", suffix=".txt", delete=False) as f:
            self.path = f.name

    def ask(self, pid: Optional[int]) -> Optional[Stacks]:
        """Signal the child and read what it wrote; None when no stack came within `WAIT_S` (a
        stopped child, or one that stalled before it listened)."""
        with suppress(ProcessLookupError, TypeError):
            os.kill(pid, SIGNAL)
        deadline, text = time.monotonic() + WAIT_S, ""
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = ""
            with suppress(OSError), open(self.path) as f:
                now = f.read()
            if "File" in now and now == text:  # written, and no longer growing
                break
            text = now
        main, _, dump = text.partition("\n")
        return Stacks(main, dump) if "File" in dump else None

    def close(self) -> None:
        with suppress(OSError):
            os.unlink(self.path)


def where_it_waits(stacks: Stacks) -> str:
    """Words for where the main thread is: its innermost frame and, when that is library code
    (Python's or an installed package's, as ale-py's recv), the innermost frame of the code that
    was run, which called it."""
    for block in stacks.dump.split("\n\n"):
        lines = block.strip().splitlines()
        if lines and lines[0].split(" (", 1)[0].endswith(stacks.main):
            frames = [_frame(line) for line in lines[1:] if line.strip().startswith("File ")]
            if frames:
                words = f"its main thread was in {frames[0][1]}"
                ours = next((f for f in frames if not f[0].startswith(_LIBRARIES)), frames[0])
                return words if ours is frames[0] else f"{words}, called from {ours[1]}"
    return "its main thread's stack was not in the dump"


def _frame(line: str) -> tuple[str, str]:
    """`  File "/a/b/c.py", line 7 in f` as its path and `f (b/c.py:7)`."""
    where, _, name = line.strip().rpartition(" in ")
    path, _, number = where.rpartition(", line ")
    path = path.removeprefix("File ").strip('"')
    return path, f"{name} ({'/'.join(path.split('/')[-2:])}:{number})"
