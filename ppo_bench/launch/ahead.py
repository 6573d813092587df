"""The imports of jobs run in run.py's own process begin with that process, before Hydra's.

`python run.py [overrides]` runs one job, and its child waits for the fork server's imports (torch
and dynamo: 2.3-3.7 s on the H200 with torch's bytecode cached). The job's runner starts that
server (`parent._checked`) only after Hydra's import and its composition of the config, 0.3-0.8 s
into the process (a sweep's, after its launcher's start and the sweep's own set-up as well). So
run.py starts it first, and its imports run beside Hydra's start as well as beside the config check.

It does so where the jobs run in run.py's process: a single run (no argument that starts with "-":
not --help, --cfg, ...) and a sweep by Hydra's basic launcher (`-m` or `--multirun`, with no
launcher named but `basic`). Not with `hydra.mode` or another launcher: their jobs run on other
machines (SLURM, Ray) or in processes of their own (the node launcher), and each job's runner
starts a server where it runs, as before. A run refused after this start leaves nothing behind:
the server exits with its last client (`signals.end_with_clients`), or the refusal stops it
(`parent._checked`).
"""

from __future__ import annotations

from typing import Sequence

from ppo_bench.job import preload_of
from ppo_bench.job.forkserver import start_server


MULTIRUN = ("-m", "--multirun")
LAUNCHER = "hydra/launcher="


def jobs_run_here(args: Sequence[str]) -> bool:
    """Whether run.py's arguments `args` ask for jobs run in this process: one job, or a sweep by
    Hydra's basic launcher."""
    if any(a.startswith("-") and a not in MULTIRUN or a.startswith("hydra.mode") for a in args):
        return False
    return all(a == LAUNCHER + "basic" for a in args if a.startswith((LAUNCHER, "hydra.launcher")))


def start_imports(args: Sequence[str]) -> bool:
    """Start the jobs' fork server now where `args` ask for jobs run here; True when it did."""
    return jobs_run_here(args) and start_server(preload_of(any(a in MULTIRUN for a in args)))
