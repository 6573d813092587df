"""A single run's imports begin with its process, before Hydra's.

`python run.py [overrides]` runs one job, and its child waits for the fork server's imports (torch
and dynamo: 2.3-3.7 s on the H200 with torch's bytecode cached). The job's runner starts that
server (`parent._checked`) only after Hydra's import and its composition of the config, 0.3-0.8 s
into the process. So run.py starts it first, and its imports run beside Hydra's start as well as
beside the config check.

Only a plain single run starts it ahead: no argument that starts with "-" (a sweep, --help, --cfg)
and no `hydra.mode`. A sweep's jobs may run on other machines (SLURM) or in processes of their own
(the node launcher), and each job's runner starts a server where it runs, as before. A run refused
after this start leaves nothing behind: the server exits with its last client
(`signals.end_with_clients`), or the refusal stops it (`parent._checked`).
"""

from __future__ import annotations

from typing import Sequence

from ppo_bench.job import CHILD
from ppo_bench.job.forkserver import start_server


def a_single_run(args: Sequence[str]) -> bool:
    """Whether run.py's arguments `args` ask for one job run here."""
    return not any(a.startswith("-") or a.startswith("hydra.mode") for a in args)


def start_imports(args: Sequence[str]) -> bool:
    """Start the job's fork server now where `args` ask for a single run; True when it did."""
    return a_single_run(args) and start_server(CHILD)
