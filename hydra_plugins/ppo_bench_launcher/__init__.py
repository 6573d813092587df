"""ppo_bench's Hydra launchers, each a handle on ppo_bench.launch: hydra/launcher=basic (basic_launcher.py),
node (node_launcher.py), slurm (submitit_launchers.py).

Hydra instantiates launchers only from the `hydra_plugins` package and imports every module in it at
each start, so these modules import nothing beyond Hydra at the top: the work is imported when a
sweep is launched.
"""

from __future__ import annotations

from typing import Any

from hydra.plugins.launcher import Launcher


class SweepLauncher(Launcher):
    """What Hydra hands a launcher before `launch`; `launch` is each launcher's own (so this one is
    abstract, and Hydra's plugin scan does not offer it)."""

    config: Any = None
    task_function: Any = None
    hydra_context: Any = None

    def setup(self, *, hydra_context: Any, task_function: Any, config: Any) -> None:
        self.config, self.task_function, self.hydra_context = config, task_function, hydra_context
