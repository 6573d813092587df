"""The names in a sweep's folder that the sweep writes and the collector reads, said once; and the one
move made in it, `set_aside`, which the sweep (earlier results) and a job (an earlier record) both make."""

import itertools
import time
from pathlib import Path


RESULT = "result.json"  # in a job's folder: its record (results.Record.write)
JOB_NOTES = ".jobs.jsonl"  # in a sweep folder: a line per job as it starts and as it ends (launch.launching.note_job)
MULTIRUN = "multirun.yaml"  # in a sweep folder: Hydra's record of the sweep, its command among it
SET_ASIDE = "set_aside"  # in a sweep folder: <UTC time>/ per move, earlier results at their relative paths (set_aside)
SUMMARY = "summary"  # in a sweep folder: the collector's tables and page, written at the sweep's end
MANIFEST = ".collect.json"  # in a collection's out dir (a sweep's SUMMARY): what it wrote there (collect.report)
LOCK = ".sweep.lock"  # in a sweep folder: held by the sweep that runs in it (record.locks)
RUN_LOCK = ".run.lock"  # in a single run's folder: held by the run that writes into it (launch.claim)
COMMANDS = ".commands.jsonl"  # in a sweep folder: a line per command that ran a sweep into it (launch.claim)


def set_aside(folder: Path, paths: list[Path]) -> Path:
    """Move `paths` (inside `folder`) to a new `folder/set_aside/<UTC time>/`, at the same relative
    paths, and return that folder. A rename: nothing is copied or deleted, so the records stay whole."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for n in itertools.count():
        dest = folder / SET_ASIDE / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            dest.mkdir(parents=True)
            break
        except FileExistsError:  # a second move within the same second
            continue
    for path in paths:
        target = dest / path.relative_to(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        path.rename(target)
    return dest
