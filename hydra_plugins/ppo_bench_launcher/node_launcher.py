"""Hydra's handle on `hydra/launcher=node` (conf/hydra/launcher/node.yaml): the work is in ppo_bench.launch.node.

joblib, an optional extra, is imported when a sweep is launched, and its absence is then one line
naming the extra.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from hydra_plugins.ppo_bench_launcher import SweepLauncher


class NodeLauncher(SweepLauncher):
    def __init__(self, gpus: Optional[list] = None, cpu_jobs: int = 1) -> None:
        self.gpus, self.cpu_jobs = gpus, cpu_jobs

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[Any]:
        from ppo_bench.launch import node

        return node.launch(self, job_overrides, initial_job_idx)
