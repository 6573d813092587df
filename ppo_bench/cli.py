"""The command line around Hydra: one line for every refusal, an exit status for every end.

Hydra prints a traceback, or several lines of detail, for an error in the
config or the task function, and exits 0 or 1 without regard to the jobs. Here:

- a bad key, value or group option is one line on stderr (Hydra is told to
  re-raise, HYDRA_FULL_ERROR=1, and the error is worded here); set
  HYDRA_FULL_ERROR=1 yourself to see Hydra's full error instead;
- a failed job has already logged its one line and written its record; the
  task function counts it instead of raising (see sweep);
- Ctrl-C and SIGTERM stop the job in progress (its record says so) and the
  sweep, which still collects its summary; the exit status is 130 or 143;
- the exit status is non-zero when a job failed or the summary could not be made.
"""

from __future__ import annotations

import os
import sys
from typing import Callable

from hydra.errors import HydraException, MissingConfigException
from omegaconf import DictConfig
from omegaconf.errors import ConfigAttributeError, ConfigKeyError

from . import keys, sweep
from .isolation import Terminated, raise_on_sigterm
from .runner import JobFailed, run


def job(cfg: DictConfig) -> None:
    """Hydra's task function: one job; its failure is in its record and its log line."""
    try:
        run(cfg)
    except JobFailed:
        if not sweep.jobs_run_here():
            raise  # the job's own process: its launcher hands the failure back to the sweep
        sweep.OUTCOME.failed_jobs += 1


def refusal_line(e: HydraException) -> str:
    """One line for an error Hydra raised while composing the config, or a sweep refused."""
    cause = e.__cause__
    key = getattr(cause, "full_key", None)
    if isinstance(cause, (ConfigKeyError, ConfigAttributeError)) and key and not key.startswith("hydra."):
        return keys.unknown_key_message(key)
    if isinstance(e, MissingConfigException) and e.options and e.missing_cfg_file:
        group, _, option = e.missing_cfg_file.rpartition("/")
        return f"{group}={option}: no such option; allowed: {', '.join(sorted(e.options))}"
    lines = [line.strip() for line in str(e).splitlines() if line.strip() and not line[0].isspace()]
    text = " ".join(lines) or type(e).__name__
    if cause is not None and str(cause).strip():
        text += f": {str(cause).strip().splitlines()[0]}"
    return text


def main(hydra_main: Callable[[], None]) -> int:
    """Run `hydra_main` (run.py's @hydra.main function) and return the exit status."""
    full_error = os.environ.get("HYDRA_FULL_ERROR") == "1"
    os.environ["HYDRA_FULL_ERROR"] = "1"
    raise_on_sigterm()
    try:
        hydra_main()
    except (KeyboardInterrupt, Terminated) as e:
        by = "Ctrl-C" if isinstance(e, KeyboardInterrupt) else str(e)
        print(f"stopped by {by}: the job in progress is recorded as failed; "
              "run again with resume=true to finish", file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else 143
    except sweep.SweepLocked as e:
        print(e, file=sys.stderr)
        return 1
    except HydraException as e:
        if full_error:
            raise
        print(refusal_line(e), file=sys.stderr)
        return 1
    return sweep.exit_code()
