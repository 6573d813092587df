"""Who writes into a folder: a lock file naming its process and host, created atomically.

A sweep's folder (`<sweep dir>/.sweep.lock`) and a single run's (`<run dir>/.run.lock`) are each
written by one process at a time: two runs into one folder would leave one record, and Hydra's
copies of the config and its log would mix. The lock is a file of one line, "<pid> <host>",
made under another name and hard-linked into place: the link is atomic and fails where the lock
exists, so a lock is never half written and two processes never both take it. A lock whose process
is gone (on this host) may be taken over; on another host a process cannot be asked after, so its
lock counts as held. The file stays readable where flock cannot reach (a folder copied elsewhere, a
network file system whose locks are not shared): it names who to ask.
"""

from __future__ import annotations

import errno
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass(frozen=True)
class Holder:
    """The process a lock names."""
    pid: int
    host: str

    @classmethod
    def me(cls) -> "Holder":
        return cls(os.getpid(), socket.gethostname())

    def alive(self) -> bool:
        """Whether it runs; on another host that cannot be told, so it counts as running."""
        if self.host != socket.gethostname():
            return True
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True

    def __str__(self) -> str:
        return f"process {self.pid} on {self.host}"


def holder(path: Path) -> Optional[Holder]:
    """The process the lock at `path` names; None where there is none or it cannot be read."""
    try:
        pid, host = path.read_text().split()
        return Holder(int(pid), host)
    except (OSError, ValueError):
        return None


def take(path: Path) -> Optional[Holder]:
    """Create the lock at `path` for this process and return None; where another live process holds it,
    return that process and leave it. A lock whose process is gone is taken over (its file is replaced).
    Raises OSError where the folder cannot be written (or, very unlikely, others keep taking it)."""
    me = Holder.me()
    mine = path.with_name(f"{path.name}.{me.pid}")
    mine.write_text(f"{me.pid} {me.host}\n")
    try:
        for _ in range(3):
            try:
                os.link(mine, path)
                return None
            except FileExistsError:
                pass
            held = holder(path)
            if held == me:
                return None
            if held is not None and held.alive():
                return held
            path.unlink(missing_ok=True)  # its process is gone (or the file is not a lock): taken over
        raise FileExistsError(errno.EEXIST, "taken by others as often as it was taken over", str(path))
    finally:
        mine.unlink(missing_ok=True)


def release(path: Path) -> None:
    """Remove the lock at `path` if this process holds it (OSError where its folder no longer lets it)."""
    if holder(path) == Holder.me():
        path.unlink(missing_ok=True)
