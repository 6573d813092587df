"""`hydra/launcher=slurm`'s side in the sweep's process: the jobs submitted as one SLURM array through
submitit, and waited for by what SLURM itself says of each.

hydra-submitit-launcher submits the same way, then waits on each job's result in turn, asking `sacct`
whether a job without one has ended. Where a cluster keeps no accounting (no slurmdbd: `sacct`
answers "accounting storage is disabled", as on many small clusters) a job that ended without a
result, cancelled while pending, killed on a node that went down, killed past its time limit, was
waited for without end; and a job whose result was an error ended the wait for every later job with
a traceback. Here:

- every job is waited for, by its result file or by `squeue` (SLURM keeps an ended job's state there
  for MinJobAge, 300 s by default; a job gone from it has ended): a job requeued (a node that went
  down, with SLURM's requeue on) is waited for again;
- a job that ended without a result (SIGKILL, cancelled while pending) is one line naming SLURM's state
  for it and end notes that count it failed, as a job's own would; the sweep goes on to the others;
- the signal SLURM sends `signal_delay_s` before a job's time limit is SIGTERM (SUBMITIT_PREEMPT_SIGNAL,
  set before submitit is imported), the stop every job here records; its record says what SLURM says of
  the job then (record.provenance.scheduler_says: cancelled, time limit, node failure);
- a stop of the sweep (Ctrl-C, SIGTERM, SIGHUP) reaches the jobs in progress as under every launcher
  (`stops.forwarding`, `send_on`), then cancels the array's jobs not started (`scancel`), so that
  none of the sweep's jobs is left in the queue.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional, Sequence

from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, JobStatus, filter_overrides
from omegaconf import OmegaConf

from ppo_bench.config import placed
from ppo_bench.launch import launching

log = logging.getLogger(__name__)

POLL_S = 2.0
RESULT_LAG_S = 15.0
"""How long a job SLURM says has ended may still be writing its result file (a shared file system's lag)."""
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
         "PREEMPTED", "GONE"}
"""SLURM's states of a job that runs no more (GONE: no longer in squeue); REQUEUED and PENDING run again."""
PREEMPT_SIGNAL = ("SUBMITIT_PREEMPT_SIGNAL", "TERM")


def submit(launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> list[JobReturn]:
    """The jobs submitted as one array (as hydra-submitit-launcher submits them: its keys, its folder) and
    waited for (see the module doc). `launcher`: the SLURM launcher, set up by Hydra, whose `__call__` runs
    a job on its node."""
    import submitit
    from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf

    params = dict(launcher.params)
    init = {"folder": params.pop("submitit_folder")}
    if "max_num_timeout" in params:
        init["slurm_max_num_timeout"] = params.pop("max_num_timeout")
    executor = submitit.AutoExecutor(cluster="slurm", **init)
    base = set(OmegaConf.structured(BaseQueueConf).keys())
    executor.update_parameters(**{k if k in base else f"slurm_{k}": v for k, v in params.items()})
    os.environ[placed.SLURM_SIGNAL_ENV] = str(params.get("signal_delay_s", 90))  # the jobs inherit it (sbatch)
    sweep_dir = Path(str(launcher.config.hydra.sweep.dir))
    sweep_dir.mkdir(parents=True, exist_ok=True)
    log.info("SLURM: %d jobs, folder %s", len(job_overrides), sweep_dir)
    args = []
    for idx, overrides in enumerate(job_overrides, initial_job_idx):
        log.info("\t#%d : %s", idx, " ".join(filter_overrides(overrides)))
        args.append((list(overrides), "hydra.sweep.dir", idx, f"job_id_for_{idx}", Singleton.get_state()))
    jobs = executor.map_array(launcher, *zip(*args))
    try:
        return wait(launcher, jobs, [a[0] for a in args], initial_job_idx)
    except BaseException:  # a stop: the jobs in progress have recorded it (stops.forwarding); none is left queued
        cancel(jobs)
        raise


def states(jobs: Sequence[Any]) -> Optional[dict[str, str]]:
    """SLURM's state of each job of these arrays by submitit's id (`12_3`), from squeue; a job not in its
    answer has ended long enough ago to be forgotten (GONE). None where squeue does not answer."""
    arrays = sorted({str(j.job_id).split("_")[0] for j in jobs})
    out = subprocess.run(["squeue", "-h", "-r", "--states=all", "-o", "%i|%T", "-j", ",".join(arrays)],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        return None
    listed = dict(line.split("|", 1) for line in out.stdout.splitlines() if "|" in line)
    return {str(j.job_id): listed.get(str(j.job_id), "GONE") for j in jobs}


def wait(launcher: Any, jobs: Sequence[Any], overrides: list[list[str]], first_idx: int) -> list[JobReturn]:
    """Each job's return: its result where it left one, else an ended job's (`ended_without_result`)."""
    returns: list[Optional[JobReturn]] = [None] * len(jobs)
    waiting = dict(enumerate(jobs))
    ended_at: dict[int, float] = {}
    unanswered = False
    while waiting:
        known = states(list(waiting.values()))
        if (known is None) != unanswered:  # said once as squeue stops answering, and once as it answers again
            unanswered = known is None
            log.warning("squeue does not answer (SLURM's controller down?): waiting for it" if unanswered
                        else "squeue answers again")
        known = known or {}
        for i, job in list(waiting.items()):
            if job.paths.result_pickle.exists():
                returns[i] = result(job, overrides[i])
            elif known.get(str(job.job_id)) in ENDED:
                if time.monotonic() - ended_at.setdefault(i, time.monotonic()) < RESULT_LAG_S:
                    continue
                returns[i] = ended_without_result(launcher, job, known[str(job.job_id)], overrides[i], first_idx + i)
            else:
                ended_at.pop(i, None)  # requeued: it runs again
                continue
            del waiting[i]
        if waiting:
            time.sleep(POLL_S)
    return returns  # type: ignore[return-value]


def result(job: Any, overrides: list[str]) -> JobReturn:
    """A job's own return; one that raised (its traceback is in its SLURM log) counts as failed by its notes."""
    try:
        return job.result()
    except Exception as e:  # noqa: BLE001 - the job's error, said in one line; the sweep goes on
        print(f"job {','.join(overrides)}: SLURM job {job.job_id} raised {type(e).__name__} "
              f"(its log: {job.paths.stderr})", file=sys.stderr)
        return JobReturn(overrides=overrides, status=JobStatus.COMPLETED)


def ended_without_result(launcher: Any, job: Any, state: str, overrides: list[str], idx: int) -> JobReturn:
    """A job SLURM ended before it returned (killed, cancelled while pending, a node lost): one line, and
    end notes that count it failed (a start note too where it never started), as its own would have."""
    print(f"job {','.join(overrides)}: SLURM job {job.job_id} ended {state} before it returned: "
          f"see its record if it wrote one, and its log {job.paths.stderr}", file=sys.stderr)
    launching.noted_failed(launcher, overrides, idx, slurm_state=state)
    return JobReturn(overrides=overrides, status=JobStatus.COMPLETED)


def cancel(jobs: Sequence[Any]) -> None:
    """Cancel every job of these arrays still in SLURM's queue (those not started: the others have
    recorded their stop, or are told so by `stops.forwarding`)."""
    arrays = sorted({str(j.job_id).split("_")[0] for j in jobs})
    if arrays:
        subprocess.run(["scancel", *arrays], capture_output=True, check=False, timeout=60)


def preempt_signal() -> None:
    """SIGTERM as the signal SLURM sends a job `signal_delay_s` before its time limit (and submitit's
    handler's), before submitit is imported: its jobs, which inherit the variable, read it too."""
    if "submitit" in sys.modules and os.environ.get(PREEMPT_SIGNAL[0]) != PREEMPT_SIGNAL[1]:
        log.warning("submitit was imported before %s was set: SLURM sends its default signal", PREEMPT_SIGNAL[0])
    os.environ.setdefault(*PREEMPT_SIGNAL)
