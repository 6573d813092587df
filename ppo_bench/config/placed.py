"""The placement a job runs under, as the launcher that placed it said: read by every layer that
needs it (the record, the emulators' threads, the memory check), written by the node launcher
(`launch.placement.place`), which claims and pins the slot, and by SLURM's and Ray's launchers from
their scheduler's grant (`launch.placement.granted`).

It lives at the bottom of the layers because a job's own modules read it and a launcher writes it:
an environment variable, so that the job's fork server and child see it too.
"""

from __future__ import annotations

import json
import os
from typing import Optional

ENV = "PPO_BENCH_PLACEMENT"


def current() -> Optional[dict]:
    """The placement of the job this process runs (None: not placed, as under the basic launcher)."""
    text = os.environ.get(ENV)
    return json.loads(text) if text else None
