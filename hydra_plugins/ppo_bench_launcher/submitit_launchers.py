"""`hydra/launcher=slurm` (conf/hydra/launcher/slurm.yaml): hydra-submitit-launcher's keys and submission,
waited for by ppo_bench.launch.slurm, each job run as every launcher here runs it
(ppo_bench.launch.launching.run_on_worker), with SLURM's grant recorded: its folder guarded, its notes written on the
node that runs it, where the sweep's process counts them, and Ctrl-C, SIGTERM or SIGHUP sent on to the
jobs in progress (scancel --signal), while those not started yet do not start, and are cancelled.
`LocalLauncher` is the same on this machine through submitit's local executor (its launch as
hydra-submitit-launcher has it), which the tests run beside a real SLURM cluster of one node.

submitit runs a job by calling the launcher (pickled) on the node: `__call__` is replaced; `launch`
(submission, the results) runs inside `stops.forwarding`. Without the slurm extra there
is nothing to subclass; the classes are then not defined, and hydra/launcher=slurm is refused when the
config is composed (its defaults name submitit_slurm, which the extra provides).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from hydra.core.utils import JobReturn

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
        from ppo_bench.launch import launching, stops

        self.stop_file = Path(str(self.config.hydra.sweep.dir)) / f".stop.{os.getpid()}"  # this sweep's own
        with stops.forwarding(self.stop_file, launching.in_progress, stops.send_on):
            return self.submitted(job_overrides, initial_job_idx)

    def submitted(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        """submitit's launch: the jobs submitted, and their results waited for."""
        return super().launch(job_overrides, initial_job_idx)  # type: ignore[misc]

    def __call__(self, sweep_overrides: Sequence[str], job_dir_key: str, job_num: int, job_id: str,
                 singleton_state: dict) -> Optional[JobReturn]:
        import submitit

        from ppo_bench.launch import launching, placement

        # submitit's own handler lets SIGTERM pass (it waits for preemption's): the stop is held from here
        return launching.run_on_worker(self.hydra_context, self.task_function, self.config, sweep_overrides,
                                       job_num, submitit.JobEnvironment().job_id, singleton_state=singleton_state,
                                       stop_file=self.stop_file,
                                       before=lambda held, job: placement.granted(placement.slurm_grant()))


def in_a_thread_apart(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)` in a thread of its own that blocks the stop signals, waited for here, where they are
    handled as ever (the sweep's `forwarding` raises out of the wait): a process it starts starts with
    them blocked."""
    from ppo_bench import signals

    outcome: dict = {}

    def run() -> None:
        with signals.blocked(signals.STOPS):
            try:
                outcome["value"] = fn(*args)
            except BaseException as e:  # noqa: B036 - raised in the waiting thread
                outcome["error"] = e

    thread = threading.Thread(target=run, name="ppo_bench-submit", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


if submitit_launcher is not None:
    class SlurmLauncher(Guarded, submitit_launcher.SlurmLauncher):
        """The jobs as one SLURM array, each waited for by what SLURM says of it (ppo_bench.launch.slurm):
        also one that ended without a result, on a cluster without accounting too."""

        def submitted(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
            from ppo_bench.launch import slurm

            slurm.preempt_signal()
            return slurm.submit(self, job_overrides, initial_job_idx)

        def checkpoint(self, *args: Any, **kwargs: Any) -> None:
            """No resubmission of a job that SLURM signals: it records the stop (and SLURM's word on why);
            SLURM's own requeue (a node lost) still runs it again, and resume=true runs what did not finish."""
            return None

    class LocalLauncher(Guarded, submitit_launcher.LocalLauncher):
        """Each job in a process of its own on this machine, under a controller process of submitit's.

        Both would take a stop that a terminal sends the sweep's process group, beside the one the
        sweep sends its jobs: a controller took Ctrl-C as KeyboardInterrupt (a traceback on the
        sweep's terminal), sent its job SIGINT and SIGKILL a second later, whether the job had
        recorded its stop or not, and died of SIGHUP; a job took two stops, and a second stops it at
        once, wherever it is. So the controllers start with the stop signals blocked (they are
        started from a thread that blocks them: submitit offers no way to start them apart) and
        keep them blocked, and each job leaves the terminal's process group as it starts
        (`stops.apart`), taking its stop from the sweep alone, as SLURM's jobs on their nodes do."""

        def submitted(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
            return in_a_thread_apart(super().submitted, job_overrides, initial_job_idx)

        def __call__(self, *args: Any, **kwargs: Any) -> Optional[JobReturn]:
            from ppo_bench.launch import stops

            stops.apart()
            return super().__call__(*args, **kwargs)
