"""The job's record, `result.json`: one type (`Record`) that the job builds and writes, and that resume
and the collector read back, checked.

One file per job, in the job's Hydra output directory. It keeps the raw per-repetition seconds and
throughputs so any statistic can be recomputed; the summary figures in it are derived from them
(see `stats`) and checked against them on reading (`checks`). Writes go to a temporary file in the
same directory, then `os.replace`, so a killed job leaves either the previous file or the new one,
never half of one.

The file says its schema's version (`schema`). Every record written so far is version 1; a file
without the field reads as version 1 and is written back with it; a later version is refused, as
its fields may mean something else. The record's parts are in `parts`; the figures a reader checks
against each other in `checks`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from ppo_bench.record.checks import why_unreadable
from ppo_bench.record.identity import JobIdentity
from ppo_bench.record.parts import (CURVE_KEYS, Curve, Interleaved, JobFolder, LearningSoFar, Measured, MeasuredSoFar,
                                    Placement, Provenance, Timing, utc_iso)
from ppo_bench.record.typed import UNSET, BadResult, Part, kind, non_finite, typed


SCHEMA = 1
"""The version this code writes and reads."""
UNVERSIONED = 1
"""The version of a file without the field."""
STATUSES = ("ok", "failed", "skipped")  # skipped: the combination does not apply (error says why)
CONFIG_TYPES = {("env",): dict, ("agent",): dict, ("schedule",): dict, ("mode",): dict, ("mode", "groups"): int,
                ("env", "frameskip"): int, ("round",): int}
"""Keys of the stored config that the collector reads, with their types (the config's own schema,
config.schema, checks it before the job runs; this checks a file read back)."""


@dataclass(kw_only=True)
class Record(Part):
    """A job's record: who it is (its config and the fields grouped by), how it ended (`status`,
    `error`), its clocks, where it ran, and what it measured (`measured`: its keys stand in the
    record's own object) or, for a job that failed part-way, what it measured so far."""
    schema: int = UNSET
    status: str = UNSET
    error: Optional[str] = UNSET
    warnings: list[str] = UNSET
    mode: str = UNSET
    game: str = UNSET
    agent: str = UNSET
    runtime: str = UNSET
    algo: str = UNSET
    backend: str = UNSET
    num_envs: int = UNSET
    device: str = UNSET
    frameskip: Optional[int] = UNSET
    groups: Optional[int] = UNSET
    round: Optional[int] = UNSET
    seed: Optional[int] = UNSET
    config: dict = UNSET
    overrides: list[str] = UNSET
    job: Optional[JobFolder] = UNSET
    timing: Timing = UNSET
    provenance: Provenance = UNSET
    placement: Optional[Placement] = UNSET
    traceback: Optional[str] = UNSET
    measured: Optional[Measured] = UNSET
    learning_so_far: Optional[LearningSoFar] = UNSET
    measured_so_far: Optional[MeasuredSoFar] = UNSET
    REQUIRED = ("status", "error", "mode", "game", "agent", "num_envs", "device", "config", "overrides", "timing",
                "provenance")
    FLAT = ("measured",)

    @classmethod
    def new(cls, identity: JobIdentity, overrides: list[str], folder: JobFolder, started: float,
            placement: Optional[Placement]) -> "Record":
        """A job's record before it ran: "failed" until the job says otherwise, so a job stopped at any
        point leaves a record that says it did not finish. Its provenance comes at its end."""
        return cls(schema=SCHEMA, status="failed", error=None, warnings=[], **identity.fields(),
                   config=identity.config, overrides=overrides, job=folder,
                   timing=Timing(started_at=utc_iso(started), finished_at=None), provenance=None, placement=placement)

    @classmethod
    def from_json(cls, value: Any, where: str = "") -> "Record":
        """The record a parsed file holds, checked: BadResult says the first thing wrong."""
        if not isinstance(value, dict):
            raise BadResult("not a JSON object")
        bad = non_finite(value)  # Python's json reads NaN and Infinity, which are not JSON
        if bad:
            place, number = bad[0]
            raise BadResult(f"{place}: non-finite number ({json.dumps(number)}); JSON has no NaN or Infinity")
        value = {"schema": UNVERSIONED, **value}  # the file's own version where it has one
        if kind(value["schema"]) != "integer" or value["schema"] != SCHEMA:
            raise BadResult(f"schema={value['schema']!r}, expected {SCHEMA}")
        return super().from_json(value, where)

    @classmethod
    def read(cls, path: Path, data: Optional[bytes] = None) -> "Record":
        """Load and check one result file (`data`: its bytes where they were read already, as the
        collector reads a member of an archive in memory); raise BadResult saying what is wrong.

        Types are checked, not only presence, and the figures against each other (checks), so
        that a file that would break the collector, read `true` as 1.0 or table reps its own seconds
        deny is refused with one reason, and resume runs such a job again.
        """
        text = None
        try:
            value = json.loads(text := (Path(path).read_bytes() if data is None else data).decode())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise BadResult(why_unreadable(e, text)) from None
        return cls.from_json(value)

    def check(self, where: str) -> None:
        if self.status not in STATUSES:
            raise BadResult(f"status={self.status!r}, expected {', '.join(STATUSES)}")
        for path, hint in CONFIG_TYPES.items():
            value = self.config
            for key in path:
                value = value.get(key, UNSET) if isinstance(value, dict) else UNSET
            if value is not UNSET:
                typed(value, hint, ".".join(("config", *path)))
        if self.status == "ok":
            reps = self.measured.throughput.reps if self.measured and self.measured.throughput else None
            if not reps or not all(x > 0 for x in reps):
                raise BadResult("status ok but throughput.reps is empty or not positive numbers")

    def write(self, path: Path) -> None:
        write_atomic(path, self.to_json())

    def finish(self, finished: "Finished") -> None:
        """The record of a job whose child finished: ok, with what it measured."""
        self.status, self.device, self.measured = "ok", finished.device, finished.measured
        self.timing = self.timing.updated(finished.timing)
        self.warnings = self.warnings + finished.warnings

    def keep(self, partial: dict[str, list], interleave: Optional[str]) -> None:
        """What a job that did not finish keeps of what its child sent as it went
        (isolation.ChildJob.partial): the device it resolved (cuda, not auto), its clocks so far, a
        learning run's curve, the timed repetitions that finished, each with its probe's after it
        (`interleave`: the probe's mode)."""
        self.device = (partial.get("device") or [self.device])[-1]
        for timing in partial.get("timing", []):  # the start's clocks, then its wait for its turn's
            self.timing = self.timing.updated(timing)
        points = partial.get("curve")
        if points:
            self.learning_so_far = LearningSoFar(curve=Curve(**{k: [p[k] for p in points] for k in CURVE_KEYS}))
        if partial.get("rep"):
            probe = partial.get("probe")
            self.measured_so_far = MeasuredSoFar(reps=partial["rep"], interleaved=probe and Interleaved(
                mode=interleave, reps=probe))

    def paired(self, measured: Measured, output_dir: Path) -> "Record":
        """The record of the loop mode that took turns with this ok job's over the same build
        (schedule.interleave names it): this record as that mode's, with its figures, its config's
        interleave naming this job's mode, in `output_dir`. This record holds the pairs
        (`interleaved`); that one holds its own reps only."""
        other = self.measured.interleaved.mode
        value = {k: v for k, v in self.to_json().items() if k not in Measured.__dataclass_fields__}
        config = json.loads(json.dumps(self.config))
        config["mode"]["name"], config["schedule"]["interleave"] = other, self.mode
        value.update(measured.to_json(), mode=other, config=config,
                     job={**self.job.to_json(), "output_dir": str(output_dir)})  # the job's warnings kept
        return Record.from_json(value)

    def fingerprint(self) -> Optional[str]:
        """What identifies the run this record is of, whichever file it was read from; None if it
        cannot tell. The host and the job's clock readings (start, end, and the measurement window)
        with the raw repetitions: a copy of a result file carries them unchanged, two real jobs
        never share them. A record without any timestamp is never taken for another."""
        times = [getattr(self.timing, k) for k in Timing.TIMES]
        if not any(times):
            return None
        thr = self.measured.throughput if self.measured else None
        key = [self.status, self.provenance.host, *times, thr and thr.reps, thr and thr.seconds, self.error]
        return hashlib.sha1(json.dumps(key).encode()).hexdigest()


@dataclass
class Finished:
    """What a job's child hands its parent when it finished measuring (Record.finish)."""
    device: str
    """What it ran on: cuda or cpu, never auto."""
    measured: Measured
    timing: Timing
    """Its clocks, from its start-up to the measurement's end."""
    warnings: list[str]
    other: Optional[Measured] = None
    """What the loop mode that took turns with it over the same build measured (schedule.interleave
    naming step or sendrecv), for its own record (Record.paired); None else."""


def read_result(path: Path, data: Optional[bytes] = None) -> dict:
    """A result file as JSON, once read into a Record and checked (Record.read; BadResult)."""
    return Record.read(path, data).to_json()


def _umask() -> int:
    mask = os.umask(0)  # the only portable way to read it is to set it and put it back
    os.umask(mask)
    return mask


def _nulled(value: Any) -> Any:
    """A copy of `value` with every non-finite float replaced by None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _nulled(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nulled(v) for v in value]
    return value


def check_writable(path: Path) -> None:
    """Raise the OSError that a record's write to `path` would meet where its folder cannot take one
    (read-only, full, a file in its place), so that a job fails before it spends minutes on what it
    could not keep: a block of bytes written to a temporary file beside it, which is then removed.
    Cheap, and no promise: a disk can still fill before the record is written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.write(fd, bytes(4096))
    finally:
        os.close(fd)
        os.unlink(tmp)


def write_atomic(path: Path, record: dict) -> None:
    """Write a record's JSON to `path` through a temporary file and a rename.

    JSON has no inf or nan (json.dump with allow_nan=False refuses them, and the record was
    lost with a traceback); so a non-finite number is written as null and, in a record with
    `warnings`, one warning per number says where and what it was. The caller's dict is not
    changed. mkstemp creates the file 0600; it is widened to what open() would give (0666 less
    the umask), so results on a shared machine stay readable by the collector of another user.
    """
    found = non_finite(record)
    if found:
        record = _nulled(record)
        if isinstance(record.get("warnings"), list):
            record["warnings"] += [f"{where}={value}: not a finite number; written as null" for where, value in found]
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w") as f:
            json.dump(record, f, indent=2, allow_nan=False)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
