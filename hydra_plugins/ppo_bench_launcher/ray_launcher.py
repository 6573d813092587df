"""Hydra's handle on `hydra/launcher=ray` (conf/hydra/launcher/ray.yaml): the work is in ppo_bench.launch.ray_jobs.

ray, an optional extra, is imported when a sweep is launched, and its absence is then one line naming
the extra.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from hydra_plugins.ppo_bench_launcher import SweepLauncher


class RayLauncher(SweepLauncher):
    def __init__(self, address: Optional[str] = None, gpus_per_job: Optional[float] = None,
                 cpus_per_job: Optional[float] = None, cpu_jobs: int = 1) -> None:
        self.address, self.gpus_per_job, self.cpus_per_job, self.cpu_jobs = address, gpus_per_job, cpus_per_job, cpu_jobs

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[Any]:
        from ppo_bench.launch import ray_jobs

        return ray_jobs.launch(self, job_overrides, initial_job_idx)
