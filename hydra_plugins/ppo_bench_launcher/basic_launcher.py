"""`hydra/launcher=basic` as ppo_bench has it, Hydra's default launcher: the work is in ppo_bench.launch.launching.

Hydra's own basic launcher calls Hydra's run_job for each job in turn; this one does the same through
`launching.run_job`, whose folder guard Hydra's launcher has no hook for. This module stores it in
Hydra's config store under Hydra's own name, `basic` (Hydra's plugin scan imports Hydra's launchers
first, then this package), so that every sweep uses it unless told otherwise; a file of that name
under conf/ would do the same with a warning (Hydra matches it to its own schema). It subclasses
Hydra's public Launcher rather than its BasicLauncher (in hydra._internal), since every part of that
is replaced.
"""

from __future__ import annotations

from typing import Any, Sequence

from hydra.core.config_store import ConfigStore

from hydra_plugins.ppo_bench_launcher import SweepLauncher


class BasicLauncher(SweepLauncher):
    """The jobs one after another, in the sweep's own process, in sweep order."""

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[Any]:
        from ppo_bench.launch import launching

        return launching.in_turn(self, job_overrides, initial_job_idx)


ConfigStore.instance().store(group="hydra/launcher", name="basic", node={"_target_": f"{__name__}.BasicLauncher"},
                             provider="ppo_bench")
