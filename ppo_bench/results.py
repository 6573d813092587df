"""The result record: build it, write it atomically, read it back and check it.

One `result.json` per job, in the job's Hydra output directory. It keeps the
raw per-repetition seconds and throughputs so any statistic can be recomputed;
the summary figures in it are derived from them (see `stats`). Writes go to a
temporary file in the same directory, then `os.replace`, so a killed job
leaves either the previous file or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

SCHEMA = 1
FILENAME = "result.json"
UNIT = "env_steps/s"


def utc_iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat()


def write_atomic(path: Path, record: dict) -> None:
    """Write JSON to `path` through a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(record, f, indent=2, allow_nan=False)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class BadResult(ValueError):
    """A result file that cannot be used: unreadable JSON, wrong schema, missing fields."""


REQUIRED = ("schema", "status", "error", "mode", "game", "agent", "num_envs", "device",
            "config", "overrides", "timing", "provenance")


def read_result(path: Path) -> dict:
    """Load and check one result file; raise BadResult saying what is wrong."""
    try:
        record = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadResult(f"unreadable: {e}") from None
    if not isinstance(record, dict):
        raise BadResult("not a JSON object")
    if record.get("schema") != SCHEMA:
        raise BadResult(f"schema={record.get('schema')!r}, expected {SCHEMA}")
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise BadResult(f"missing fields: {', '.join(missing)}")
    if record["status"] not in ("ok", "failed"):
        raise BadResult(f"status={record['status']!r}, expected ok or failed")
    if record["status"] == "ok":
        reps = (record.get("throughput") or {}).get("reps")
        if not reps or not all(isinstance(x, (int, float)) and x > 0 for x in reps):
            raise BadResult("status ok but throughput.reps is empty or not positive numbers")
    return record


def _run(cmd: list[str]) -> Optional[str]:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def provenance() -> dict:
    """What ran where: host, versions, accelerator, source commit (local commands only)."""
    import ale_py
    import torch

    commit = _run(["git", "rev-parse", "HEAD"])
    dirty = _run(["git", "status", "--porcelain", "--untracked-files=no"])
    cuda = torch.cuda.is_available()
    return {
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "ale_py": ale_py.__version__,
        "numpy": __import__("numpy").__version__,
        "cuda": torch.version.cuda if cuda else None,
        "gpu": torch.cuda.get_device_name() if cuda else None,
        "cpu_count": os.cpu_count(),
        "git_commit": commit,
        "git_dirty": None if commit is None or dirty is None else bool(dirty),
        "argv": sys.argv,
    }


def machine_state() -> dict:
    """What the machine was doing: 1-minute load average and mean CPU clock, where readable."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    mhz = None
    try:
        values = [float(line.split(":")[1]) for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("cpu MHz")]
        mhz = sum(values) / len(values) if values else None
    except (OSError, ValueError, IndexError):
        pass
    return {"load_1m": load, "cpu_mhz": mhz}


def summarise_record(record: dict) -> str:
    """One line per job for the log."""
    head = f"{record['mode']} {record['game']} {record['agent']} n={record['num_envs']} on {record['device']}"
    if record["status"] != "ok":
        return f"{head}: FAILED: {record['error']}"
    thr = record["throughput"]
    ci = "no interval" if thr["ci95"] is None else f"± {thr['ci95']:.0f}"
    return f"{head}: {thr['mean']:.0f} {UNIT} {ci} over {len(thr['reps'])} reps"
