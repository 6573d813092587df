"""Where a job of the node launcher runs: a slot, that is one GPU and cores of its own.

`hydra/launcher=node` (see `node`) runs as many jobs at once as the node has slots: one per GPU
(all visible ones, or `hydra.launcher.gpus`), or `hydra.launcher.cpu_jobs` on a node without one.
Slot k gets the k-th GPU and the k-th of as many equal, disjoint sets of the node's cores (those
the sweep's process may use, in id order; cores that do not divide evenly stay unused, so that
every slot has as many as the others, and jobs compare).

A job claims a free slot with flock(2) on `<folder>/<k>` and writes its pid there: the kernel
drops the lock with its holder, so nothing is stale after a crash, and the sweep's process can
tell which processes run jobs (`holders`). The job's process then pins itself (`place`) before
anything touches CUDA or an emulator: os.sched_setaffinity to the slot's cores, which its child
(the measurement), the emulator threads of ale-py and envpool and gymnasium's worker processes
inherit; CUDA_VISIBLE_DEVICES to the slot's GPU (empty on a CPU slot); and the placement itself,
as JSON in PPO_BENCH_PLACEMENT (`config.placed`), which the runner records and `backends.num_threads` reads (the
emulator threads default to at most the slot's cores). The child is forked from a server that
is restarted when this process's environment changes (isolation), so it sees all three. ALE's
own `thread_affinity_offset` is not used: the process's mask already keeps the threads on the
slot's cores, and pinning each thread to one core would fight the loop's thread for it.

Under SLURM (and Ray) the scheduler grants the cores and the GPU and pins them itself: the job reads its
grant (`slurm_grant`, `grant`) and says it the same way (`granted`: PPO_BENCH_PLACEMENT, with
`granted_by` and what the scheduler says of it), so that the record and the emulators' thread count
follow it as they follow a slot.

Not done: NUMA. Cores are split in id order, not by the NUMA node of each GPU's PCIe root.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Iterator, Optional

from ppo_bench.config.placed import ENV, slurm_job

SLOTS = ".slots"  # in the sweep folder: a file per slot, locked by the job that holds it
POLL_S = 0.2
_last_slot: list[int] = []  # the slot this process held last: claimed first again (its fork server keeps)


def visible_gpus() -> list[str]:
    """The GPUs this process may use, as CUDA_VISIBLE_DEVICES names them: those it lists where it is
    set, else one per line of `nvidia-smi -L` (none without the tool). Counted without CUDA: the
    sweep's process never initialises it."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        return [g.strip() for g in listed.split(",") if g.strip()]
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [str(i) for i, _ in enumerate(line for line in out.splitlines() if line.startswith("GPU "))]


def launcher_slots(gpus: Any, cpu_jobs: Any, cores: list[int]) -> list[dict]:
    """The slots of `hydra.launcher.gpus` and `hydra.launcher.cpu_jobs`, both checked first:
    ValueError, one line naming the key, its value and what it allows."""
    return plan(chosen_gpus(gpus), checked_cpu_jobs(cpu_jobs), cores)


def chosen_gpus(gpus: Any) -> list[str]:
    """`hydra.launcher.gpus`: null for every visible GPU, or a list of distinct visible ones. A GPU
    that is not there would otherwise start its jobs on another GPU or on none, and record one they
    did not run on; a string would be split into characters."""
    visible = visible_gpus()
    if gpus is None:
        return visible
    allowed = ("allowed: null (every visible GPU) or a list of distinct visible GPU ids, as "
               f"CUDA_VISIBLE_DEVICES names them (visible: {', '.join(visible) or 'none'})")
    if isinstance(gpus, (str, bytes)) or not isinstance(gpus, Sequence):
        raise ValueError(f"hydra.launcher.gpus={_shown(gpus)}: not a list; {allowed}")
    ids = [str(g) for g in gpus]
    for g in ids:
        if g not in visible:
            raise ValueError(f"hydra.launcher.gpus={_shown(gpus)}: no visible GPU {g}; {allowed}")
        if ids.count(g) > 1:
            raise ValueError(f"hydra.launcher.gpus={_shown(gpus)}: GPU {g} is listed twice; {allowed}")
    return ids


def checked_cpu_jobs(cpu_jobs: Any) -> int:
    """`hydra.launcher.cpu_jobs`: a whole number >= 1 (checked also where GPUs decide the slots)."""
    if isinstance(cpu_jobs, bool) or not isinstance(cpu_jobs, int) or cpu_jobs < 1:
        raise ValueError(f"hydra.launcher.cpu_jobs={_shown(cpu_jobs)}: allowed: a whole number >= 1 (how many "
                         "jobs at once where no GPU is used)")
    return cpu_jobs


def _shown(value: Any) -> str:
    """A value as it reads on the command line: null, [0,1], abc."""
    if value is None:
        return "null"
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return f"[{','.join(map(_shown, value))}]"
    return str(value)


def plan(gpus: list[str], cpu_jobs: int, cores: list[int]) -> list[dict]:
    """One placement per slot: a GPU each (or `cpu_jobs` slots without GPU) and equal, disjoint cores."""
    slots = len(gpus) or cpu_jobs
    if slots > len(cores):
        raise ValueError(f"{slots} slots ({'GPUs' if gpus else 'hydra.launcher.cpu_jobs'}) but {len(cores)} "
                         "cores: every slot needs a core of its own")
    per = len(cores) // slots
    return [{"slot": k, "slots": slots, "gpu": gpus[k] if gpus else None,
             "cores": sorted(cores)[k * per:(k + 1) * per], "shared_node": slots > 1, "granted_by": "node"}
            for k in range(slots)]


def describe(where: dict) -> str:
    """`slot 0 of 2: GPU 0, cores 0-15` for the log."""
    cores = where["cores"]
    span = f"{cores[0]}-{cores[-1]}" if cores == list(range(cores[0], cores[-1] + 1)) else ",".join(map(str, cores))
    gpu = "no GPU" if where["gpu"] is None else f"GPU {where['gpu']}"
    return f"slot {where['slot']} of {where['slots']}: {gpu}, cores {span} ({len(cores)})"


@contextlib.contextmanager
def claim(folder: Path, slots: list[dict]) -> Iterator[dict]:
    """Hold a free slot for the duration (waiting for one when all are held) and yield its placement.

    The node launcher never runs more jobs than slots, so a wait is short: a job that has just
    ended may still hold its slot, or the sweep's process may be looking (`holders`)."""
    order = _last_slot[-1:] + [s["slot"] for s in slots if s["slot"] not in _last_slot[-1:]]
    while True:
        for k in order:
            fd = os.open(folder / str(k), os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
                _last_slot[:] = [k]
                yield slots[k]
            finally:
                with contextlib.suppress(OSError):  # the folder turned read-only: the pid stays, unheld
                    os.ftruncate(fd, 0)
                os.close(fd)  # releases the lock
            return
        time.sleep(POLL_S)


def holders(folder: Path) -> list[int]:
    """The pids of the processes that hold a slot under `folder` now (they run a job)."""
    return [int(text) for text in held(folder) if text.isdigit()]


def held(folder: Path) -> list[str]:
    """What each slot held now under `folder` says of its holder: its pid, or "" for a moment as the
    slot is taken or given back. A slot is held exactly while a job of the sweep runs in it."""
    found = []
    for path in folder.iterdir() if folder.is_dir() else []:
        if not path.name.isdigit():
            continue
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            found.append(os.pread(fd, 32, 0).decode().strip())
        finally:
            os.close(fd)
    return found


def place(where: dict) -> None:
    """Pin this process to the slot's cores and GPU, and say so in its environment (see the module doc)."""
    os.sched_setaffinity(0, where["cores"])
    os.environ["CUDA_VISIBLE_DEVICES"] = where["gpu"] or ""
    os.environ[ENV] = json.dumps(where)


def granted(where: Optional[dict]) -> bool:
    """Say in this process's environment where its job runs, as `place` does for a slot, for a grant the
    scheduler has already pinned (SLURM's, Ray's): the runner records it, and `env.num_threads=null`
    follows its cores (env.backends.num_threads), in the job's child too. None: no grant, nothing said.
    True: the job starts (a launcher's step before its job, `launching.run_on_worker`)."""
    if where is not None:
        os.environ[ENV] = json.dumps(where)
    return True


def grant(scheduler: str, gpu: Optional[str], **about: Any) -> dict:
    """A scheduler's grant as a placement: the cores this process may use (the scheduler's cgroup or
    affinity, as the kernel enforces it) and the GPU it may see (CUDA_VISIBLE_DEVICES, as the scheduler
    set it), with what the scheduler says of it (`about`: record.parts.Grant's fields). One job of its
    own: whether others ran beside it on the node is the collector's to tell, from their windows."""
    return {"slot": 0, "slots": 1, "gpu": gpu, "cores": sorted(os.sched_getaffinity(0)), "shared_node": None,
            "granted_by": scheduler, "grant": {"scheduler": scheduler, **about}}


def slurm_grant(environ: Optional[dict] = None) -> Optional[dict]:
    """This SLURM job's grant, from the variables SLURM sets in a job's environment; None outside one."""
    env = os.environ if environ is None else environ
    job = slurm_job(env)
    if job is None:
        return None
    visible = env.get("CUDA_VISIBLE_DEVICES") or None
    cpus = env.get("SLURM_CPUS_ON_NODE", "")
    return grant("slurm", visible, job_id=job, node=env.get("SLURMD_NODENAME"),
                 partition=env.get("SLURM_JOB_PARTITION"), cpus=int(cpus) if cpus.isdigit() else None,
                 gpus=len(visible.split(",")) if visible else 0)

