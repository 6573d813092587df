"""Which machine each job ran on, so that no cell pools the throughput of two machines.

Timings of one config drift 5-15% between two starts of one cloud machine, and differ by far more
between GPU models or CPU counts: a cell whose reps came from two machines is an average of two
answers. So a timed job's machine, host and hardware (`Provenance`: the host's name, its GPU model,
its core count, its CPU model), is part of what its row is grouped by: where a collection holds
jobs of more than one machine, each configuration's group name gains `machine=<host (hardware)>`,
and its rows, tables and page panel are its own (a section per machine, as any differing key has).

A learning run is one sample of its seed's outcome, whose speed (env steps per second, time to the
target) depends on the hardware it ran on, not on the host's name: its seeds pool across hosts of
one hardware (`machine=<hardware>` only), and a row whose seeds ran on several hosts says how many
(`Collection.learning`'s `hosts` column, and the row's note).

Older records lack a part of this (no CPU model before 2026-12-02; no GPU model where the job did
not probe CUDA, an emulator probe beside its loop): a part a record lacks is taken from the jobs of
the collection that agree on every part it has, where they name one value, so that an older probe
and its loop stay in one row; else it reads as unknown.
"""

from __future__ import annotations

import pandas as pd

HARDWARE = ("gpu", "cpu_count", "cpu_model")
PARTS = ("host", *HARDWARE)


def of(provenance) -> dict:
    """A job's machine from its record's provenance: the GPU it ran on, else the machine's GPUs as the
    driver names them (a job that never initialised CUDA), else None (unknown, or none)."""
    models = provenance.gpu_models if isinstance(provenance.gpu_models, list) else None
    gpu = provenance.gpu or (" + ".join(sorted(set(models))) if models else None)
    cpu_model = provenance.cpu_model if isinstance(provenance.cpu_model, str) else None
    return {"host": provenance.host if isinstance(provenance.host, str) else None, "gpu": gpu,
            "cpu_count": provenance.cpu_count if isinstance(provenance.cpu_count, int) else None,
            "cpu_model": cpu_model}


def fill(machines: list[dict]) -> list[dict]:
    """Each machine with a part it lacks taken from the machines that agree on every part it has, where
    they name one value for it (see the module doc)."""
    known = [m for m in machines if all(m[p] is not None for p in PARTS)]
    filled = []
    for m in machines:
        m = dict(m)
        for part in PARTS:
            if m[part] is None:
                like = {k[part] for k in known if all(k[p] == m[p] for p in PARTS if p != part and m[p] is not None)}
                m[part] = like.pop() if len(like) == 1 else None
        filled.append(m)
    return filled


def hardware(m: dict) -> str:
    """A machine's hardware in words: `NVIDIA H200, 16 cores Intel(R) Xeon(R) Processor`."""
    cores = f"{m['cpu_count']} cores" if m["cpu_count"] is not None else "cores unknown"
    return f"{m['gpu'] or 'no GPU named'}, {cores} {m['cpu_model'] or 'of an unknown CPU'}"


def label(m: dict) -> str:
    """A machine in words: its host and hardware, `vm (NVIDIA H200, 16 cores Intel(R) Xeon(R) Processor)`."""
    return f"{m['host'] or 'unknown host'} ({hardware(m)})"


def assign(jobs: pd.DataFrame, machines: list[dict]) -> None:
    """Each job's `ran_on` (what its row is grouped by: the host and hardware of a timed job, the
    hardware of a learning run) and `host_machine` (its host and hardware, for the hosts a learning
    row's seeds ran on)."""
    machines = fill(machines)
    jobs["host_machine"] = [label(m) for m in machines]
    jobs["ran_on"] = [hardware(m) if learning is not None else label(m)
                       for m, learning in zip(machines, jobs["learning"])]
