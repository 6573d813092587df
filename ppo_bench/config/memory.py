"""Whether a job's emulators fit in the machine's memory: asked before anything is built.

Why: ale-py's constructor builds every emulator in one call that prints nothing, so a num_envs far
beyond the machine's memory grew for minutes until the stall timeout (or the kernel's OOM killer)
ended the job. The need is num_envs times the backend's measured memory per env
(`registry.Backend.memory_mib`, measured by bench/emulator_memory.py); what there is, MemAvailable
of /proc/meminfo (the kernel's estimate of what can be allocated without swapping). Jobs of the node
launcher run side by side and share it: each gets an equal share, the memory available when it is
checked divided by the node's slots (`placed`; on a node whose other slots already hold jobs that
is stricter than it needs to be, never looser). Where the memory is unknown, nothing is refused.
"""

from __future__ import annotations

from typing import Any, Optional

from ppo_bench.config import placed

MEMINFO = "/proc/meminfo"
MIB = 2 ** 20
GIB = 2 ** 30


def available(meminfo: str = MEMINFO) -> Optional[int]:
    """MemAvailable in bytes; None where the file or the line is missing (not Linux, an old kernel)."""
    try:
        with open(meminfo) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024  # in kB
    except (OSError, ValueError, IndexError):
        pass
    return None


def machine() -> tuple[Optional[int], int]:
    """What this job's check reads: (MemAvailable in bytes or None, the node launcher's slots or 1: a
    scheduler's grant is one job's)."""
    where = placed.current()
    return available(), int(where["slots"]) if where else 1


def _about(count: float) -> str:
    """A count rounded down to two significant digits: 37000, 5700, 420."""
    digits = max(len(str(int(count))) - 2, 0)
    return str(int(count) // 10 ** digits * 10 ** digits)


def _size(n: float) -> str:
    return f"{n / GIB:.0f} GiB" if n >= 10 * GIB else f"{n / GIB:.1f} GiB" if n >= GIB else f"{n / MIB:.0f} MiB"


def refusal(num_envs: int, backend: Any, memory: tuple[Optional[int], int]) -> Optional[str]:
    """The one-line refusal when `num_envs` emulators of `backend` need more than this job's share of
    the memory `memory` = (available bytes or None, slots), else None."""
    total, slots = memory
    if total is None or backend.memory_mib is None:
        return None
    share = total / max(slots, 1)
    need = num_envs * backend.memory_mib * MIB
    if need <= share:
        return None
    has = f"{_size(total)} available"
    if slots > 1:
        has += f", {_size(share)} for each of the node's {slots} slots"
    fit = share / (backend.memory_mib * MIB)
    return (f"env.num_envs={num_envs}: its emulators need about {_size(need)} ({backend.memory_mib:g} MiB "
            f"each, measured for env.backend={backend.name}) but this machine has {has}; at most ~{_about(fit)} fit")
