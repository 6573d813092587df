"""Collect a multirun's results when the sweep process ends, failed jobs or not.

Hydra skips `on_multirun_end` once any job raised, which is exactly when a
summary matters most. So the callback registers the collection at multirun
start with `atexit`: it runs after the last job, after Hydra re-raises the
first failure (and exits non-zero), and after Ctrl-C. The collector CLI stays
the contract; this is a convenience that `collect=false` turns off.
"""

from __future__ import annotations

import atexit
import logging
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback

log = logging.getLogger(__name__)


def collect_sweep(sweep_dir: Path) -> None:
    from .collect import collect

    try:
        collect([sweep_dir], out_dir=sweep_dir / "summary")
    except Exception as e:  # the results are on disk; a summary failure must not hide that
        log.error("collecting %s failed: %s (run: python -m ppo_bench.collect %s)", sweep_dir, e, sweep_dir)


class CollectAtSweepEnd(Callback):
    def on_multirun_start(self, config: Any, **kwargs: Any) -> None:
        if config.get("collect", True):
            atexit.register(collect_sweep, Path(config.hydra.sweep.dir))
