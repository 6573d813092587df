"""What ran where: the record's provenance (host, versions, accelerator, commit) and the machine's load.

Local commands only (git, /proc): nothing here reaches the network.
"""

from __future__ import annotations

import os
import platform
import socket
import subprocess
import sys
from pathlib import Path
from typing import Optional

from ppo_bench.record.parts import MachineState, Provenance
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
    import of seconds, while Ctrl-C waits for the record)."""
    imported = sys.modules.get(module)
    return imported.__version__ if imported is not None else _installed(distribution)


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


def describe(gpu: bool = True) -> dict:
    """What ran where: host, versions, accelerator, source commit (local commands only).
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
        "cpu_count": os.cpu_count(),
        **cpu(),
        "git_commit": commit,
        "git_dirty": None if commit is None or dirty is None else bool(dirty),
        "argv": sys.argv,
    }


def part(gpu: bool = True) -> Provenance:
    """`describe()` as the record's part."""
    return Provenance.from_json(describe(gpu), "provenance")


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
