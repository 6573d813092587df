"""What ran where: the record's provenance (host, versions, accelerator, commit), whether a module's
bytecode is cached, the machine's load, and where the measurement's CPU time went (SchedClock).

Local commands only (git, /proc): nothing here reaches the network.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Optional

from ppo_bench.config import placed
from ppo_bench.record.parts import MachineState, Provenance, Scheduling
from ppo_bench.registry import BACKENDS


def _run(cmd: list[str]) -> Optional[str]:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _installed(distribution: str) -> Optional[str]:
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _version(module: str, distribution: str) -> Optional[str]:
    """The module's own version where this process has imported it, else the installed one: the
    runner's process, which describes a refused or stopped job, never imports torch for it (an
    import of seconds, while Ctrl-C waits for the record). A plain str: torch's is a `TorchVersion`,
    and the child's provenance, unpickled in the runner, imported torch there (1-2 s of a sweep's
    parent, beside its first job)."""
    imported = sys.modules.get(module)
    return str(imported.__version__) if imported is not None else _installed(distribution)


def _read(path: str) -> Optional[str]:
    try:
        return Path(path).read_text()
    except OSError:
        return None


def cpu() -> dict:
    """The CPU as /proc and /sys tell it: its model; whether this is a virtual machine (the
    `hypervisor` flag); and the cpuidle driver, "none" where idle CPUs simply halt. On the H200's
    machine (a KVM guest, no driver) a thread that blocks and wakes waits for its halted vCPU,
    0.05-0.1 ms (docs/findings.md), a cost that a machine whose idle CPUs poll does not have."""
    info = _read("/proc/cpuinfo") or ""
    fields = {key.strip(): value.strip() for key, _, value in (line.partition(":") for line in info.splitlines())}
    model, flags = fields.get("model name"), fields.get("flags")
    driver = _read("/sys/devices/system/cpu/cpuidle/current_driver")
    return {"cpu_model": model or None,
            "virtual_machine": ("hypervisor" in flags.split()) if flags is not None else None,
            "cpuidle_driver": driver.strip() if driver is not None else None}


def nvidia(root: Path = Path("/proc/driver/nvidia")) -> dict:
    """The machine's NVIDIA GPUs by model and its driver's version, as the driver tells them without
    initialising CUDA (so a job that never touches the GPU, an emulator probe, names the GPU its machine
    has, as the loop beside it does): /proc/driver/nvidia, else `nvidia-smi`; None where neither answers
    (no NVIDIA driver, or a container that shows neither)."""
    models = []
    try:
        for info in sorted((root / "gpus").glob("*/information")):
            fields = dict(line.partition(":")[::2] for line in info.read_text().splitlines())
            models += [fields["Model"].strip()] if "Model" in fields else []
    except OSError:
        models = []
    version = _read(str(root / "version")) or ""
    driver = next((w for line in version.splitlines() if line.startswith("NVRM") for w in line.split()
                   if w[:1].isdigit() and "." in w), None)
    if not models or driver is None:
        smi = _run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
        rows = [[c.strip() for c in line.split(",")] for line in (smi or "").splitlines() if "," in line]
        models = models or [r[0] for r in rows]
        driver = driver or (rows[0][1] if rows else None)
    return {"gpu_models": models or None, "gpu_driver": driver}


def describe(gpu: bool = True) -> dict:
    """What ran where: host, versions, accelerator (the job's own GPU, and the machine's GPUs and their
    driver), CPU model and count, source commit (local commands only).
    gpu=False: no CUDA probe (it would initialise CUDA) and no import of torch."""
    commit = _run(["git", "rev-parse", "HEAD"])
    dirty = _run(["git", "status", "--porcelain", "--untracked-files=no"])
    torch = None
    if gpu:
        import torch
    cuda = torch is not None and torch.cuda.is_available()
    return {
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": _version("torch", "torch"),
        "ale_py": _version("ale_py", "ale-py"),
        "numpy": _version("numpy", "numpy"),
        # the other backends' packages, by their installed metadata (nothing is imported)
        **{name.replace("-", "_"): _installed(name) for b in BACKENDS for name in b.versions},
        "cuda": torch.version.cuda if cuda else None,
        "gpu": torch.cuda.get_device_name() if cuda else None,
        **nvidia(),
        "cpu_count": os.cpu_count(),
        **cpu(),
        "git_commit": commit,
        "git_dirty": None if commit is None or dirty is None else bool(dirty),
        "argv": sys.argv,
    }


SLURM_LAG_S = 30
"""SLURM checks its jobs' time limits and signal times every half minute or so: a job stopped within
its signal delay of its limit, plus this, was stopped for it."""


def scheduler_says(placement: Optional[dict]) -> str:
    """What SLURM says of this job as it is stopped, for its record's error: `... its time limit of
    00:01:00 reached` (its state TIMEOUT, or within its signal delay of the limit: the signal before
    it: placed.SLURM_SIGNAL_ENV), `... its node n1 went down`, ` (SLURM: cancelled)` (SLURM ending it otherwise: scancel; its
    state then reads COMPLETING, as at any end); "" while it runs on (a stop the sweep sent on), outside
    a SLURM grant, or where scontrol does not answer."""
    grant = (placement or {}).get("grant") or {}
    if grant.get("scheduler") != "slurm" or not grant.get("job_id"):
        return ""
    state, limit, ran = _fields("job", grant["job_id"], "JobState", "TimeLimit", "RunTime")
    if not state:
        return ""
    left = _seconds(limit) - _seconds(ran) if _seconds(limit) is not None and _seconds(ran) is not None else None
    delay = os.environ.get(placed.SLURM_SIGNAL_ENV, "")
    near = (int(delay) if delay.isdigit() else 0) + SLURM_LAG_S
    if state == "TIMEOUT" or (left is not None and left <= near):
        return f" (SLURM: its time limit of {limit} reached, after {ran})"
    if state == "RUNNING":
        return ""  # signalled by the sweep's own stop, or by hand
    node = _fields("node", grant.get("node") or "", "State")[0] or ""
    if any(word in node for word in ("DOWN", "DRAIN", "FAIL")):
        return f" (SLURM: its node {grant['node']} went {node.lower()})"
    if state in ("PENDING", "REQUEUED"):
        return " (SLURM: requeued, to run again)"  # its node lost (and back already): SLURM's requeue
    return " (SLURM: cancelled)" if state in ("CANCELLED", "COMPLETING") else f" (SLURM: {state})"


def _fields(kind: str, name: str, *keys: str) -> list[str]:
    """Fields of `scontrol -o show <kind> <name>`'s first line ("" each where it does not answer)."""
    shown = (_run(["scontrol", "-o", "show", kind, name]) or "").splitlines() if name else []
    fields = dict(w.partition("=")[::2] for w in (shown[0] if shown else "").split() if "=" in w)
    return [fields.get(k, "") for k in keys]


def _seconds(duration: str) -> Optional[int]:
    """SLURM's `[days-]hours:minutes:seconds` (or `minutes:seconds`) in seconds; None for UNLIMITED."""
    days, _, clock = duration.rpartition("-")
    try:
        parts = [int(p) for p in clock.split(":")]
    except ValueError:
        return None
    while len(parts) < 3:
        parts.insert(0, 0)
    return int(days or 0) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]


def part(gpu: bool = True) -> Provenance:
    """`describe()` as the record's part."""
    return Provenance.from_json(describe(gpu), "provenance")


def bytecode_cached(module: ModuleType) -> bool:
    """Whether the imported `module`'s bytecode is cached where Python reads it from (its
    __pycache__, or under PYTHONPYCACHEPREFIX). Asked after the import: where it is missing, this
    process compiled the module from source and could not write the cache (PYTHONDONTWRITEBYTECODE,
    python -B, a read-only install), so every fresh process compiles it again. On the H200 as lent
    (PYTHONDONTWRITEBYTECODE=1, torch installed without its bytecode) that made `import torch._dynamo`
    take 9.0-11.8 s instead of 3.3-3.7 s (docs/findings.md, start-up)."""
    source = getattr(module, "__file__", None)
    return source is None or os.path.exists(importlib.util.cache_from_source(source))


def machine_state() -> MachineState:
    """What the machine was doing: 1-minute load average and mean CPU clock, where readable."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    mhz = None
    try:
        values = [float(line.split(":")[1]) for line in (_read("/proc/cpuinfo") or "").splitlines()
                  if line.startswith("cpu MHz")]
        mhz = sum(values) / len(values) if values else None
    except (ValueError, IndexError):
        pass
    return MachineState(load_1m=load, cpu_mhz=mhz)


def _thread_times() -> dict[int, tuple[int, int]]:
    """Each thread of this process by id: its nanoseconds on a CPU and runnable waiting for one, as the
    kernel's schedstat keeps them (none where it does not)."""
    found = {}
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return found
    for tid in tids:
        text = _read(f"/proc/self/task/{tid}/schedstat")
        try:
            run_ns, wait_ns = (int(x) for x in (text or "").split()[:2])
        except ValueError:
            continue
        found[int(tid)] = run_ns, wait_ns
    return found


def _cpu_ticks() -> Optional[tuple[int, int]]:
    """All CPUs' ticks since boot, and those the hypervisor took (steal), from /proc/stat's first line."""
    line = (_read("/proc/stat") or "").split("\n", 1)[0].split()
    if len(line) < 9 or line[0] != "cpu":
        return None
    try:
        ticks = [int(x) for x in line[1:9]]  # user nice system idle iowait irq softirq steal (guest is in user)
    except ValueError:
        return None
    return sum(ticks), ticks[7]


class SchedClock:
    """Started just before a measurement, read just after it (`scheduling`): see parts.Scheduling."""

    def __init__(self) -> None:
        self.restart()

    def restart(self) -> None:
        """Count from now."""
        self.mono, self.threads, self.ticks = time.monotonic(), _thread_times(), _cpu_ticks()

    def scheduling(self) -> Optional[Scheduling]:
        """What this process's threads did since the start; None without schedstat. A thread that
        started meanwhile counts from zero; the measuring thread is the one that reads this."""
        wall, now, ticks = time.monotonic() - self.mono, _thread_times(), _cpu_ticks()
        if not now:
            return None
        spent = {tid: (run - self.threads.get(tid, (0, 0))[0], wait - self.threads.get(tid, (0, 0))[1])
                 for tid, (run, wait) in now.items()}
        loop = spent.get(threading.get_native_id())
        steal = None
        if ticks is not None and self.ticks is not None and ticks[0] > self.ticks[0]:
            steal = (ticks[1] - self.ticks[1]) / (ticks[0] - self.ticks[0])
        return Scheduling(wall_s=wall, threads=len(spent), cpu_s=sum(r for r, _ in spent.values()) / 1e9,
                          waited_s=sum(w for _, w in spent.values()) / 1e9,
                          loop_cpu_s=None if loop is None else loop[0] / 1e9,
                          loop_waited_s=None if loop is None else loop[1] / 1e9, steal_share=steal)
