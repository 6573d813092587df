"""The placement a job runs under, as the launcher that placed it said: read by every layer that
needs it (the record, the emulators' threads, the memory check), written by the node launcher
(`launch.placement.place`), which claims and pins the slot, and by SLURM's and Ray's launchers from
their scheduler's grant (`launch.placement.granted`).

It lives at the bottom of the layers because a job's own modules read it and a launcher writes it:
an environment variable, so that the job's fork server and child see it too.
"""

from __future__ import annotations

import json
import os
from typing import Optional

ENV = "PPO_BENCH_PLACEMENT"
SLURM_SIGNAL_ENV = "PPO_BENCH_SLURM_SIGNAL_S"
"""How many seconds before its time limit SLURM signals a job of hydra/launcher=slurm (its
`signal_delay_s`), set by the sweep's process for its jobs, which inherit it: a job stopped that close
to its limit was stopped for it (record.provenance.scheduler_says)."""


def slurm_job(environ: Optional[dict] = None) -> Optional[str]:
    """This process's SLURM job as scancel and scontrol name it alone: an array's task as `12_3` (its
    numeric SLURM_JOB_ID may be the array's own id, which names every task), else the job id; None
    outside SLURM."""
    env = os.environ if environ is None else environ
    if env.get("SLURM_ARRAY_JOB_ID") and env.get("SLURM_ARRAY_TASK_ID"):
        return f"{env['SLURM_ARRAY_JOB_ID']}_{env['SLURM_ARRAY_TASK_ID']}"
    return env.get("SLURM_JOB_ID") or None


def ray_task() -> Optional[str]:
    """The Ray task this process's job runs in (its grant's id, `launch.ray_jobs`); None outside one."""
    where = current() or {}
    grant = where.get("grant") or {}
    return grant.get("job_id") if grant.get("scheduler") == "ray" else None


def current() -> Optional[dict]:
    """The placement of the job this process runs (None: not placed, as under the basic launcher)."""
    text = os.environ.get(ENV)
    return json.loads(text) if text else None
