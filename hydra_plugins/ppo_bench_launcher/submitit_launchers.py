"""`hydra/launcher=slurm` (conf/hydra/launcher/slurm.yaml): hydra-submitit-launcher's, each job run as
every launcher here runs it (ppo_bench.launch.launching): its folder guarded, its notes written on the
node that runs it, where the sweep's process counts them, and Ctrl-C, SIGTERM or SIGHUP sent on to the
jobs in progress (scancel --signal), while those not started yet do not start. `LocalLauncher` is the
same on this machine (submitit's local executor), which is how the tests run SLURM's code.

submitit runs a job by calling the launcher (pickled) on the node: `__call__` is replaced; `launch`
(submission, the results) is submitit's, inside `launching.forwarding`. Without the slurm extra there
is nothing to subclass; the classes are then not defined, and hydra/launcher=slurm is refused when the
config is composed (its defaults name submitit_slurm, which the extra provides).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Sequence

from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, setup_globals

try:
    from hydra_plugins.hydra_submitit_launcher import submitit_launcher
except ImportError:  # the slurm extra is not installed
    submitit_launcher = None


class Guarded:
    """submitit's launch with the sweep's signals sent on, and its call of one job, on its node, through
    ppo_bench.launch.launching."""

    config: Any
    task_function: Any
    hydra_context: Any
    stop_file: Optional[Path] = None  # set by `launch` before submitit pickles the launcher for its jobs

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        from ppo_bench.launch import launching

        self.stop_file = Path(str(self.config.hydra.sweep.dir)) / f".stop.{os.getpid()}"  # this sweep's own
        with launching.forwarding(self.stop_file, launching.in_progress, launching.send_on):
            return super().launch(job_overrides, initial_job_idx)  # type: ignore[misc]

    def __call__(self, sweep_overrides: Sequence[str], job_dir_key: str, job_num: int, job_id: str,
                 singleton_state: dict) -> Optional[JobReturn]:
        import submitit

        from ppo_bench.launch import launching

        if self.stop_file is not None and launching.stopping(self.stop_file):
            return None  # its sweep is stopping: a job that has not started does not start
        with launching.stoppable():  # submitit's own handler lets SIGTERM pass (it waits for preemption's)
            Singleton.set_state(singleton_state)
            setup_globals()
            job = launching.job_config(self.hydra_context, self.config, sweep_overrides, job_num,
                                       submitit.JobEnvironment().job_id)
            return launching.run_job(self.hydra_context, self.task_function, job)


if submitit_launcher is not None:
    class SlurmLauncher(Guarded, submitit_launcher.SlurmLauncher):
        pass

    class LocalLauncher(Guarded, submitit_launcher.LocalLauncher):
        pass
