"""A run's folder is its own: claimed before Hydra writes into it, and never shared.

Hydra makes a run's folder, appends to its log and writes its `.hydra/` copies before the task
function runs, and it names a folder by the clock to the second: two single runs started in the
same second (`for s in 1 2 3; do python run.py seed=$s & done`) shared one folder and left one
record, and two runs given one `hydra.run.dir` did the same. So, before Hydra's first write
(`RunCallback.on_run_start`, which Hydra calls before it runs the job):

- a folder named by the clock (its configured name holds `${now:...}`, as the default does) is made
  new: where that name is taken, `-2`, `-3`, ... are tried, each made with one mkdir, which fails
  where the folder exists, so two processes never get one name; the run says in one line which
  folder it took. A sweep's folder named by the clock is made new the same way (`fresh_sweep_dir`).
- a folder the user named is locked (`<run dir>/.run.lock`, `record.locks`) for as long as the run
  lasts; a second run into it while the first runs is refused in one line. A lock whose process is
  gone is taken over, and an earlier run's ok record there is kept as before (`job.parent`).

A sweep's own folder is locked by the sweep (`sweep.take_lock`), and its jobs' folders are named by
their overrides inside it, so no two jobs of one sweep share a folder.
"""

from __future__ import annotations

import atexit
import logging
import re
import sys
from pathlib import Path
from typing import Any, Optional

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf, read_write

from ppo_bench.record import locks
from ppo_bench.record.folder import RUN_LOCK

log = logging.getLogger(__name__)

CLOCK = "${now:"
TRIES = 1000


class FolderTaken(BaseException):
    """A run's folder is in use by another live run. A BaseException: Hydra turns a callback's
    Exception into a warning and goes on (cli prints its one line)."""


def named_by_clock(cfg: DictConfig, key: str) -> bool:
    """Whether the folder at `key` ("run" or "sweep") is named from the clock (`${now:...}`), not chosen."""
    return CLOCK in str(OmegaConf.to_container(cfg.hydra[key], resolve=False).get("dir", ""))


def fresh(base: Path) -> Path:
    """Make a new folder `base`, or `base-2`, `base-3`, ... where it is taken, and return it: each is
    made by one mkdir that fails where it exists, so no two processes get one folder."""
    base.parent.mkdir(parents=True, exist_ok=True)
    for n in range(1, TRIES + 1):
        folder = base if n == 1 else base.with_name(f"{base.name}-{n}")
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
    raise FileExistsError(f"{base} and {TRIES - 1} folders after it are all taken")


def _took(kind: str, base: Path, folder: Path) -> None:
    if folder != base:
        log.info("%s is taken by another %s: this one writes into %s", base, kind, folder)


def _override_value(path: Path) -> str:
    """`path` as an override's value: plain where it holds only safe characters, else quoted."""
    text = str(path)
    if re.fullmatch(r"[\w./:+-]+", text):
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fresh_sweep_dir(cfg: DictConfig) -> Path:
    """The sweep's folder: made new where it is named by the clock (its name set in `cfg`, and added
    to the Hydra overrides its jobs' configs are composed from), else as configured."""
    sweep_dir = Path(str(cfg.hydra.sweep.dir))
    if not named_by_clock(cfg, "sweep"):
        return sweep_dir
    try:
        folder = fresh(sweep_dir)
    except OSError:  # the sweep's lock cannot be written there either: its refusal says so (sweep.take_lock)
        return sweep_dir
    _took("sweep", sweep_dir, folder)
    with read_write(cfg.hydra):
        cfg.hydra.sweep.dir = str(folder)
        cfg.hydra.overrides.hydra.append(f"hydra.sweep.dir={_override_value(folder)}")
    return folder


class RunCallback(Callback):
    """A single run's folder claimed before Hydra writes into it, released as the run ends (also where
    Hydra skips `on_run_end`: the run stopped by a signal)."""

    lock: Optional[Path] = None

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        run_dir = Path(str(config.hydra.run.dir))
        if named_by_clock(config, "run"):
            try:
                folder = fresh(run_dir)
            except OSError as e:
                raise FolderTaken(f"hydra.run.dir={run_dir}: cannot make it: {e.strerror or e}") from None
            _took("run", run_dir, folder)
            with read_write(config.hydra):
                config.hydra.run.dir = str(folder)
            run_dir = folder
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
            held = locks.take(run_dir / RUN_LOCK)
        except OSError as e:  # the job cannot write there either: its own line (cli) says so
            log.debug("cannot lock %s: %s", run_dir, e)
            return
        if held is not None:
            raise FolderTaken(f"hydra.run.dir={run_dir} is in use by the run of {held}; use another "
                              f"hydra.run.dir, or delete {run_dir / RUN_LOCK} if that run is gone")
        self.lock = run_dir / RUN_LOCK
        atexit.register(self.release)

    def on_run_end(self, config: DictConfig, **kwargs: Any) -> None:
        self.release()

    def release(self) -> None:
        if self.lock is None:
            return
        lock, self.lock = self.lock, None
        try:
            locks.release(lock)
        except OSError as e:  # the folder turned read-only: a later run takes over a lock whose process is gone
            print(f"{lock} is left ({type(e).__name__}: {e.strerror or e}); a later run into {lock.parent} takes it "
                  "over", file=sys.stderr)
