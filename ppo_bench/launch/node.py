"""`hydra/launcher=node`: a sweep's jobs side by side on one node, each on a GPU and cores of its own.

The jobs run through joblib (loky worker processes, `n_jobs` = the node's slots, one job a
batch, dispatched in sweep order); each worker runs its job as every launcher here does
(`launching.run_on_worker`: the job's config, its plugins, Hydra's run_job with the folder guard, the notes). What is
added here is the slots: each job claims one and pins its process to it (`placement`). The
sweep ends as the basic launcher's does:

- failure: a job that fails has its record, its line and its end note, which the sweep's process
  counts (launching), so the other jobs, the summary (`on_multirun_end`) and the exit status are as
  with the basic launcher. A job folder that cannot be written fails that job alone;
- resume: the runner skips a job already ok, as always (the job still claims a slot, briefly);
- Ctrl-C, SIGTERM, SIGHUP: the workers leave the terminal's process group and ignore these
  signals between jobs (`stops.init_worker`); the pool's resource trackers, which stay in it,
  start with them blocked (`trackers_apart`). The sweep's process takes the signal and sends it
  on to each job holding a slot, which records that it was stopped (also one that has only
  just begun: past its check of the stop file, `stops.stoppable` holds the stop until its
  runner can record it); it waits for them, and only
  then raises, so that joblib ends the workers after the records are written (`stops.forwarding`).
  Jobs not yet started do not start (a stop file beside the slots). A second signal stops at once,
  but the same signal within half a second is the same stop sent twice (`timeout`'s forwarding).
- killed outright (SIGKILL): every worker dies with the sweep's process (a parent-death signal,
  `stops.die_with`), and its job's child and fork server with it (isolation), so that the jobs in
  progress leave no record, as under the basic launcher. Left running, the workers went on with
  their jobs for minutes, and wrote records into a folder that a resumed sweep already wrote in.
  A folder's lock is not taken over while a slot is held (`sweep.take_lock`).

Why joblib and not Hydra's submitit local launcher (already a test dependency): submitit local
starts every job of the sweep at once, one process each, with no bound on how many run (its
`array_parallelism` is SLURM's), and gives every job the same GPUs (CUDA_VISIBLE_DEVICES =
the first `gpus_per_node`); slots would then be a queue of its own on top, every waiting job
holding a Python process that has imported torch, counting against its `timeout_min`, and
starting in no particular order. On Ctrl-C its job controllers send SIGINT and SIGKILL one
second later, and a sweep's process that ends leaves them running. joblib bounds the jobs at
`n_jobs`, starts them in sweep order and reuses its workers (and their fork servers); what it
lacks is slots (here, flock) and a graceful stop (here, above).

On one slot (one GPU, or cpu_jobs=1) joblib runs the jobs in the sweep's own process, one after
another, as the basic launcher does; they are still placed and recorded.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
from pathlib import Path
from typing import Any, Optional, Sequence

from ppo_bench import signals
from ppo_bench.launch import launching, placement, stops, sweep

log = logging.getLogger(__name__)

SLOTS = placement.SLOTS  # one lock file per slot, and STOP
STOP = "stop"
EXTRA = 'hydra/launcher=node needs joblib: pip install -e ".[node]"'


def launch(launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> list:
    """The launcher's `launch`: every job of the batch, at most one per slot at a time."""
    try:
        from joblib import Parallel, delayed
    except ImportError:
        raise sweep.SweepRefused(EXTRA) from None
    from hydra.core.singleton import Singleton
    from hydra.core.utils import configure_log, filter_overrides, setup_globals

    setup_globals()
    config = launcher.config
    configure_log(config.hydra.hydra_logging, config.hydra.verbose)
    try:
        slots = placement.launcher_slots(launcher.gpus, launcher.cpu_jobs, sorted(os.sched_getaffinity(0)))
    except ValueError as e:
        raise sweep.SweepRefused(f"hydra/launcher=node: {e}") from None
    folder = Path(str(config.hydra.sweep.dir)) / SLOTS
    folder.mkdir(parents=True, exist_ok=True)
    (folder / STOP).unlink(missing_ok=True)
    log.info("node launcher: %d jobs, %d at a time", len(job_overrides), len(slots))
    for where in slots:
        log.info("\t%s", placement.describe(where))
    for idx, overrides in enumerate(job_overrides):
        log.info("\t#%d : %s", initial_job_idx + idx, " ".join(filter_overrides(overrides)))
    state = Singleton.get_state()
    jobs = (delayed(run_in_slot)(folder, slots, launcher.hydra_context, config, launcher.task_function, state,
                                 initial_job_idx + idx, overrides) for idx, overrides in enumerate(job_overrides))
    parallel = Parallel(n_jobs=len(slots), backend="loky", batch_size=1, pre_dispatch="n_jobs",
                        initializer=functools.partial(stops.init_worker, os.getpid()))
    if len(slots) == 1:  # joblib runs the jobs here, one after another
        return parallel(jobs)
    trackers_apart()
    with stops.forwarding(folder / STOP, lambda: placement.holders(folder)):
        return parallel(jobs)


def trackers_apart() -> None:
    """Start the resource trackers of the pool (loky's and multiprocessing's, which loky would start
    from this process) with the stop signals blocked, which they keep: they stay in the terminal's
    process group, where they ignore Ctrl-C and SIGTERM but a SIGHUP (the terminal closed) ended
    them, and loky's, started again, printed a traceback for each resource it did not know. Loky's also
    starts with its own warnings off (PYTHONWARNINGS, in its environment alone): after a stop, joblib
    ends the workers outright and the tracker unlinks the semaphore they held, as it is there to do,
    with two lines of warning under the sweep's last line."""
    import multiprocessing.resource_tracker

    from joblib.externals.loky.backend import resource_tracker

    before = os.environ.get("PYTHONWARNINGS")
    os.environ["PYTHONWARNINGS"] = "ignore:resource_tracker:UserWarning"
    try:
        with signals.blocked(signals.STOPS):
            resource_tracker.ensure_running()
    finally:
        if before is None:
            del os.environ["PYTHONWARNINGS"]
        else:
            os.environ["PYTHONWARNINGS"] = before
    with signals.blocked(signals.STOPS):
        multiprocessing.resource_tracker.ensure_running()


def run_in_slot(folder: Path, slots: list[dict], hydra_context: Any, config: Any, task_function: Any,
                singleton_state: dict, idx: int, overrides: Sequence[str]) -> Optional[Any]:
    """One job, in a worker, as every launcher runs one (`launching.run_on_worker`), with this launcher's
    own step before it: claim a slot and pin this process to it. None when the sweep is stopping (the
    job does not start). A slot that cannot be claimed (the sweep folder turned read-only or full)
    fails the job as its folder would."""

    def in_a_slot(held: contextlib.ExitStack, job: Any) -> bool:
        where = held.enter_context(placement.claim(folder, slots))
        if stops.stopping(folder / STOP):  # stopped while it waited for a slot: it does not start
            return False
        placement.place(where)  # pinned only past that check: a pinned job runs (the stop tests wait on it)
        return True

    return launching.run_on_worker(hydra_context, task_function, config, overrides, idx,
                                   f"{config.hydra.job.name}_{idx}", singleton_state=singleton_state,
                                   stop_file=folder / STOP, before=in_a_slot)
