"""`hydra/launcher=ray`: a sweep's jobs as Ray tasks, on a Ray cluster's nodes (its Hydra class:
hydra_plugins/ppo_bench_launcher/ray_launcher.py; `pip install -e ".[ray]"`).

Built on Ray's own API (ray.remote, ray.wait), not on hydra-ray-launcher, whose jobs run Hydra's
run_job as it comes (no folder guard, no notes, no stop that reaches a job): each task runs its job
through the one per-job path every launcher here takes (`launching.run_on_worker`), with Ray's grant
recorded. What is Ray's:

- where: `hydra.launcher.address` (null: a Ray of this machine started for the sweep and stopped after;
  `auto` or `ray://<head>:10001`: an existing cluster, one key);
- how much: each job asks `gpus_per_job` GPUs (null: one where the cluster has GPUs, else none) and
  `cpus_per_job` CPUs (null: the cluster's CPUs per GPU, or per `cpu_jobs` jobs where it has none), so
  Ray runs one job per GPU with its share of the cores, as many at once as the cluster holds. Ray
  counts CPUs, it does not pin them: a job's record keeps its grant (`placement.grant`: node, CPUs,
  GPUs) and `env.num_threads=null` follows the CPUs granted (env.backends.num_threads);
- a job whose task died (its worker or its node gone: a raylet killed) is one line and end notes that
  count it failed; the others go on; Ray does not retry it (max_retries=0): resume=true runs it again;
- a stop of the sweep reaches the jobs in progress (their process on this host, `ray.cancel` on
  another), which record it, then every task not finished is cancelled.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, JobStatus, filter_overrides

from ppo_bench.launch import launching, placement, stops, sweep

log = logging.getLogger(__name__)

EXTRA = 'hydra/launcher=ray needs ray: pip install -e ".[ray]"'
POLL_S = 1.0
NICENESS = "RAY_worker_niceness"
"""Ray runs its task workers at niceness 15 (its raylet's `worker_niceness`): beside anything at the
default priority, a Ray of Ray's own processes included, a job's emulators waited for a CPU 98% of
the time (1 env step/s where 80/s was due, 2026-12-06, a 2-core machine under load). A Ray this launcher
starts runs them at 0; on an existing cluster each job raises its own priority back where it may
(`run_task`), and its record says the niceness it ran at (`placement.grant.nice`)."""


def launch(launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> list[JobReturn]:
    """The launcher's `launch`: every job as a Ray task, waited for; Ray started here where no address
    is given, and stopped after."""
    try:
        import ray
    except ImportError:
        raise sweep.SweepRefused(EXTRA) from None
    config = launcher.config
    sweep_dir = Path(str(config.hydra.sweep.dir))
    sweep_dir.mkdir(parents=True, exist_ok=True)
    started_here = not ray.is_initialized()
    if started_here:
        if launcher.address is None:  # a Ray of this machine: its workers at the sweep's own priority
            os.environ.setdefault(NICENESS, "0")
        ray.init(address=launcher.address, log_to_driver=True, include_dashboard=False)
    try:
        gpus, cpus = resources(launcher, ray.cluster_resources())
        log.info("Ray: %d jobs, each %s GPU and %s CPU, on %d node(s)", len(job_overrides), gpus, cpus,
                 len([n for n in ray.nodes() if n.get("Alive")]))
        task = ray.remote(run_task).options(num_gpus=gpus, num_cpus=cpus, max_retries=0)
        stop_file = sweep_dir / f".stop.{os.getpid()}"  # this sweep's own: its jobs not started do not start
        jobs = {}
        for idx, overrides in enumerate(job_overrides, initial_job_idx):
            log.info("\t#%d : %s", idx, " ".join(filter_overrides(overrides)))
            ref = task.remote(launcher.hydra_context, config, launcher.task_function, Singleton.get_state(),
                              list(overrides), idx, stop_file)
            jobs[ref] = (idx, list(overrides))
        try:
            with stops.forwarding(stop_file, launching.in_progress, lambda job, signum: send(job, signum, jobs)):
                return wait(launcher, jobs)
        except BaseException:
            for ref in jobs:
                ray.cancel(ref)
            raise
        finally:
            stop_file.unlink(missing_ok=True)
    finally:
        if started_here:
            ray.shutdown()


def resources(launcher: Any, cluster: dict) -> tuple[float, float]:
    """(GPUs, CPUs) each job asks for (see the module doc); ValueError in one line for a bad key."""
    gpus = launcher.gpus_per_job
    if gpus is None:
        gpus = 1 if cluster.get("GPU", 0) >= 1 else 0
    cpus = launcher.cpus_per_job
    if cpus is None:
        share = cluster.get("GPU", 0) if gpus else launcher.cpu_jobs
        cpus = max(1, int(cluster.get("CPU", 1) // max(share, 1)))
    for key, value in (("gpus_per_job", gpus), ("cpus_per_job", cpus)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise sweep.SweepRefused(f"hydra.launcher.{key}={value}: allowed: a number >= 0, or null")
    return gpus, cpus


def run_task(hydra_context: Any, config: Any, task_function: Any, singleton_state: dict, overrides: list[str],
             idx: int, stop_file: Path) -> Optional[JobReturn]:
    """One job, in a Ray worker: apart from the terminal's signals (the sweep sends its stop on), its grant
    said as a slot is (`placement.granted`), then the one per-job path every launcher takes."""
    import ray

    stops.apart()
    with contextlib.suppress(PermissionError):  # back to the default priority where this user may (NICENESS)
        os.setpriority(os.PRIO_PROCESS, 0, 0)
    context = ray.get_runtime_context()
    assigned = context.get_assigned_resources()
    where = placement.grant("ray", os.environ.get("CUDA_VISIBLE_DEVICES") or None, job_id=context.get_task_id(),
                            node=context.get_node_id(), partition=None, cpus=int(assigned.get("CPU", 0)) or None,
                            gpus=assigned.get("GPU", 0), nice=os.getpriority(os.PRIO_PROCESS, 0))
    return launching.run_on_worker(hydra_context, task_function, config, overrides, idx, f"ray_{idx}",
                                   singleton_state=singleton_state, stop_file=stop_file,
                                   before=lambda held, job: placement.granted(where))


def send(job: tuple, signum: int, jobs: dict) -> None:
    """A stop to a job in progress: to its process where it runs on this host, else `ray.cancel` of its
    task (a KeyboardInterrupt there, which its runner records)."""
    import socket

    import ray

    _, host, pid, _, task = job
    if host == socket.gethostname() and pid:
        os.kill(pid, signum)
        return
    for ref in jobs:
        if task and ref.task_id().hex() == task:
            ray.cancel(ref)


def wait(launcher: Any, jobs: dict) -> list[JobReturn]:
    """Each job's return in sweep order: its own, or for a task that died, one line and end notes that
    count it failed (as `slurm.ended_without_result`)."""
    import ray
    from ray.exceptions import RayError

    returns: dict[int, JobReturn] = {}
    waiting = list(jobs)
    while waiting:
        done, waiting = ray.wait(waiting, num_returns=1, timeout=POLL_S)
        for ref in done:
            idx, overrides = jobs[ref]
            try:
                returns[idx] = ray.get(ref) or JobReturn(overrides=overrides, status=JobStatus.COMPLETED)
            except RayError as e:
                returns[idx] = died(launcher, idx, overrides, e)
    return [returns[idx] for idx, _ in sorted(jobs.values())]


def died(launcher: Any, idx: int, overrides: list[str], error: BaseException) -> JobReturn:
    """A job whose Ray task died before it returned: its line, and its notes ended as failed."""
    why = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    print(f"job {','.join(overrides)}: its Ray task died before it returned ({type(error).__name__}: {why}); "
          "see its record if it wrote one", file=sys.stderr)
    launching.noted_failed(launcher, overrides, idx, ray_error=type(error).__name__)
    return JobReturn(overrides=overrides, status=JobStatus.COMPLETED)
