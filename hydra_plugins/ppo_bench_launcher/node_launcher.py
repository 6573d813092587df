"""Hydra's handle on `hydra/launcher=node` (conf/hydra/launcher/node.yaml): the work is in ppo_bench.launch.node.

Hydra instantiates launchers only from the `hydra_plugins` package and imports every module in it
at each start, so this one imports nothing beyond Hydra: joblib, an optional extra, is imported
when a sweep is launched, and its absence is then one line naming the extra.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from hydra.plugins.launcher import Launcher


class NodeLauncher(Launcher):
    def __init__(self, gpus: Optional[list] = None, cpu_jobs: int = 1) -> None:
        self.gpus, self.cpu_jobs = gpus, cpu_jobs
        self.config = self.task_function = self.hydra_context = None

    def setup(self, *, hydra_context: Any, task_function: Any, config: Any) -> None:
        self.config, self.task_function, self.hydra_context = config, task_function, hydra_context

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[Any]:
        from ppo_bench.launch import node

        return node.launch(self, job_overrides, initial_job_idx)
