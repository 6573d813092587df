"""`hydra/launcher=toy`: the class Hydra instantiates, and its config store entry."""

from __future__ import annotations

from typing import Any, Sequence

from hydra.core.config_store import ConfigStore

from hydra_plugins.ppo_bench_launcher import SweepLauncher


class ToyLauncher(SweepLauncher):
    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[Any]:
        import toy_launcher  # tests/ is on PYTHONPATH with tests/plugins

        return toy_launcher.launch(self, job_overrides, initial_job_idx)


ConfigStore.instance().store(group="hydra/launcher", name="toy", node={"_target_": f"{__name__}.ToyLauncher"},
                             provider="ppo_bench tests")
