"""A toy launcher written outside the package from ppo_bench.launch.launching alone: the jobs of each
batch one after another in the sweep's process, the last first. The shortest worked example of a new
launcher; tests/test_toy_launcher.py runs sweeps with it, and its Hydra handle is
tests/plugins/hydra_plugins/ppo_bench_toy/ (on PYTHONPATH: `hydra/launcher=toy`).

What it does not write itself, it gets from launching's one per-job path (`run_on_worker`): a stop
as a job begins is recorded by its runner, the sweep's plugins are loaded, a failed job fails alone and is counted in
the sweep's exit status (its notes), a job whose folder cannot be written fails alone in one line
(`launching.run_job`), and resume=true runs only what is missing (the runner, as under any launcher).
"""

from __future__ import annotations

from typing import Any, Sequence

from hydra.core.utils import JobReturn, configure_log, setup_globals

from ppo_bench.launch import launching


def launch(launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> list[JobReturn]:
    """The launcher's `launch`: its config, task_function and hydra_context as Hydra set it up."""
    config, context = launcher.config, launcher.hydra_context
    setup_globals()
    jobs = list(enumerate(job_overrides, initial_job_idx))
    runs = {}
    for idx, overrides in reversed(jobs):
        configure_log(config.hydra.hydra_logging, config.hydra.verbose)
        runs[idx] = launching.run_on_worker(context, launcher.task_function, config, overrides, idx, f"toy_{idx}")
    return [runs[idx] for idx, _ in jobs]  # in sweep order, as Hydra reads them
