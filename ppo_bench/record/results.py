"""The result record: build it, write it atomically, read it back and check it.

One `result.json` per job, in the job's Hydra output directory. It keeps the
raw per-repetition seconds and throughputs so any statistic can be recomputed;
the summary figures in it are derived from them (see `stats`). Writes go to a
temporary file in the same directory, then `os.replace`, so a killed job
leaves either the previous file or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

from ppo_bench.config.schema import AgentConfig, EnvConfig, ScheduleConfig
from ppo_bench.record.checks import disagreement, why_unreadable
from ppo_bench.registry import ALGOS, RUNTIMES

SCHEMA = 1
FILENAME = "result.json"
UNIT = "env_steps/s"


def utc_iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat()


def _umask() -> int:
    mask = os.umask(0)  # the only portable way to read it is to set it and put it back
    os.umask(mask)
    return mask


def non_finite(value: Any, where: str = "") -> list[tuple[str, float]]:
    """(dotted place, number) of every inf, -inf and nan in a parsed or built record."""
    if isinstance(value, float) and not math.isfinite(value):
        return [(where, value)]
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in non_finite(v, f"{where}.{k}" if where else str(k))]
    if isinstance(value, (list, tuple)):
        return [x for i, v in enumerate(value) for x in non_finite(v, f"{where}[{i}]")]
    return []


def _nulled(value: Any) -> Any:
    """A copy of `value` with every non-finite float replaced by None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _nulled(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nulled(v) for v in value]
    return value


def write_atomic(path: Path, record: dict) -> None:
    """Write JSON to `path` through a temporary file and a rename.

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


RUN_CONTROL_KEYS = ("resume", "set_aside", "collect", "stall_timeout_s")
"""How a job runs, not what it measures: not part of its identity, not stored."""


@dataclass(frozen=True)
class JobIdentity:
    """What a job measures, defined once: its resolved config without Hydra's node and the
    run-control keys. Resume compares it with an earlier record's, the record stores it, and the
    collector groups jobs by `group()` (what is left once the keys a table varies are taken out)."""

    key: str
    """The config as canonical JSON: equal identities, equal keys."""
    config: dict = field(compare=False, hash=False)

    @classmethod
    def of(cls, config: dict) -> "JobIdentity":
        kept = {k: v for k, v in config.items() if k != "hydra" and k not in RUN_CONTROL_KEYS}
        return cls(json.dumps(kept, sort_keys=True), kept)

    @classmethod
    def of_record(cls, record: dict) -> "JobIdentity":
        return cls.of(record["config"])

    def fields(self) -> dict:
        """The record's plain values for grouping."""
        c = self.config
        return {"mode": c["mode"]["name"], "game": c["env"]["game"], "agent": c["agent"]["name"],
                "runtime": c["agent"]["runtime"], "algo": c["agent"]["algo"], "backend": c["env"]["backend"],
                "num_envs": c["env"]["num_envs"], "device": c["device"], "frameskip": c["env"]["frameskip"],
                "groups": c["mode"]["groups"], "round": c["round"], "seed": c["seed"]}

    def group(self) -> dict:
        """The flat keys that say which measurements are comparable (see `group_identity`)."""
        return group_identity(as_today(flatten(self.config)))


def new_record(identity: JobIdentity, overrides: list, num: Optional[int], output_dir: str,
               started: float) -> dict:
    """A job's record before it ran: "failed" until the job says otherwise, so a job stopped at any
    point leaves a record that says it did not finish."""
    return {"schema": SCHEMA, "status": "failed", "error": None, "warnings": [], **identity.fields(),
            "config": identity.config, "overrides": overrides, "job": {"num": num, "output_dir": output_dir},
            "timing": {"started_at": utc_iso(started), "finished_at": None}, "provenance": None}


def measurement(*, device: str, batch_size: int, num_threads: Optional[int], reps: list[float],
                seconds: list[float], env_steps_per_rep: int, env_steps: Optional[dict], inference: dict,
                phases: Optional[dict], machine: dict, timing: dict, warnings: list[str],
                faults: list[dict] = (), learning: Optional[dict] = None,
                interleaved: Optional[dict] = None) -> dict:
    """The fields the job's process adds to its record: the same for timed repetitions and a learning
    run (whose one repetition is its loop), with the summary derived from the raw reps. `faults`:
    what the loop survived (a rebuilt vector env), each with where it happened. `interleaved`: the
    probe timed after each of the loop's reps (schedule.interleave), its reps in the same order."""
    from ppo_bench.record.stats import summary

    fields = {"warnings": warnings, "device": device, "batch_size": batch_size, "num_threads": num_threads,
              "throughput": {"unit": UNIT, "reps": reps, "seconds": seconds, "env_steps_per_rep": env_steps_per_rep,
                             **summary(reps)},
              "env_steps": env_steps, "inference": inference, "phases": phases, "machine": machine,
              "timing": timing, "faults": list(faults)}
    if learning is not None:
        fields["learning"] = learning
    if interleaved is not None:
        fields["interleaved"] = interleaved
    return fields


class BadResult(ValueError):
    """A result file that cannot be used: unreadable JSON, wrong schema, missing or mistyped fields."""


STATUSES = ("ok", "failed", "skipped")  # skipped: the combination does not apply (error says why)
REQUIRED = {"schema": "integer", "status": "string", "error": "string|null", "mode": "string",
            "game": "string", "agent": "string", "num_envs": "integer", "device": "string",
            "config": "object", "overrides": "array", "timing": "object", "provenance": "object"}
"""Fields every result has, with their JSON types ("number" takes integers; booleans are neither)."""
OPTIONAL = {
    "throughput": "object", "throughput.reps": "array", "throughput.reps.*": "number",
    "throughput.seconds": "array", "throughput.seconds.*": "number",
    "interleaved": "object|null", "interleaved.mode": "string", "interleaved.reps": "array",
    "interleaved.reps.*": "number", "interleaved.seconds": "array", "interleaved.seconds.*": "number",
    "timing.started_at": "string|null", "timing.finished_at": "string|null",
    "timing.measure_started_at": "string|null", "timing.measure_finished_at": "string|null",
    "provenance.host": "string|null", "provenance.gpu": "string|null", "provenance.cpu_count": "integer|null",
    "machine": "object|null", "machine.before": "object|null", "machine.after": "object|null",
    "machine.*.load_1m": "number|null", "machine.*.cpu_mhz": "number|null",
    "phases": "object|null", "phases.ms_per_loop_step": "object|null", "phases.ms_per_loop_step.*": "number",
    "config.env": "object", "config.agent": "object", "config.schedule": "object", "config.mode": "object",
    "config.mode.groups": "integer", "config.env.frameskip": "integer", "config.round": "integer",
    "frameskip": "integer|null", "groups": "integer|null", "warnings": "array",
    "job": "object|null", "job.output_dir": "string|null",
    "placement": "object|null", "placement.slot": "integer", "placement.slots": "integer",
    "placement.gpu": "string|null", "placement.cores": "array", "placement.cores.*": "integer",
    "placement.shared_node": "boolean",
}
"""Fields the collector reads where present; a parent that is absent or null skips its children."""
TIMES = ("started_at", "finished_at", "measure_started_at", "measure_finished_at")


def _kind(value: Any) -> str:
    """The JSON type name of a parsed value (bool before int: in Python a bool is an int)."""
    for kind, types in (("null", type(None)), ("boolean", bool), ("integer", int), ("number", float),
                        ("string", str), ("array", list), ("object", dict)):
        if isinstance(value, types):
            return kind
    return type(value).__name__


def _at(record: dict, path: str) -> list[tuple[str, Any]]:
    """(name, value) of what lies at a dotted path; `*` stands for every item of an array or object."""
    found = [("", record)]
    for part in path.split("."):
        step = []
        for name, v in found:
            if part == "*" and isinstance(v, list):
                step += [(f"{name}[{i}]", x) for i, x in enumerate(v)]
            elif part == "*" and isinstance(v, dict):
                step += [(f"{name}.{k}", x) for k, x in v.items()]
            elif isinstance(v, dict) and part in v:
                step.append((f"{name}.{part}" if name else part, v[part]))
        found = step
    return found


def _check_types(record: dict) -> None:
    for path, allowed in {**REQUIRED, **OPTIONAL}.items():
        for name, value in _at(record, path):
            kind = _kind(value)
            if kind not in allowed.split("|") and not (kind == "integer" and "number" in allowed):
                raise BadResult(f"{name}: {kind}, expected {allowed.replace('|', ' or ')}")


def read_result(path: Path, data: Optional[bytes] = None) -> dict:
    """Load and check one result file (`data`: its bytes where they were read already, as the collector
    reads a member of an archive in memory); raise BadResult saying what is wrong.

    Types are checked, not only presence, and the figures against each other (record_checks), so
    that a file that would break the collector, read `true` as 1.0 or table reps its own seconds deny
    is refused with one reason, and resume runs such a job again.
    """
    text = None
    try:
        record = json.loads(text := (Path(path).read_bytes() if data is None else data).decode())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadResult(why_unreadable(e, text)) from None
    if not isinstance(record, dict):
        raise BadResult("not a JSON object")
    bad = non_finite(record)  # Python's json reads NaN and Infinity, which are not JSON
    if bad:
        where, value = bad[0]
        raise BadResult(f"{where}: non-finite number ({json.dumps(value)}); JSON has no NaN or Infinity")
    if record.get("schema") != SCHEMA or _kind(record.get("schema")) != "integer":
        raise BadResult(f"schema={record.get('schema')!r}, expected {SCHEMA}")
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise BadResult(f"missing fields: {', '.join(missing)}")
    _check_types(record)
    if record["status"] not in STATUSES:
        raise BadResult(f"status={record['status']!r}, expected {', '.join(STATUSES)}")
    if record["status"] == "ok":
        reps = (record.get("throughput") or {}).get("reps")
        if not reps or not all(x > 0 for x in reps):
            raise BadResult("status ok but throughput.reps is empty or not positive numbers")
    disagrees = record.get("throughput") and disagreement(record["throughput"])
    if disagrees:
        raise BadResult(disagrees)
    for key in TIMES:
        value = record["timing"].get(key)
        if value is None:
            continue
        try:
            datetime.fromisoformat(value)
        except ValueError:
            raise BadResult(f"timing.{key}: {value!r} is not an ISO 8601 time") from None
    return record


def measurement_key(record: dict) -> Optional[str]:
    """What identifies one measurement, whichever file it was read from; None if it cannot tell.

    The host and the job's clock readings (start, end, and the measurement window) with the raw
    repetitions: a copy of a result file carries them unchanged, two real jobs never share them.
    A record without any timestamp is never taken for another.
    """
    timing = record["timing"]
    if not any(timing.get(k) for k in TIMES):
        return None
    thr = record.get("throughput") or {}
    key = [record["status"], record["provenance"].get("host"), *(timing.get(k) for k in TIMES),
           thr.get("reps"), thr.get("seconds"), record["error"]]
    return hashlib.sha1(json.dumps(key).encode()).hexdigest()


CURVE_KEYS = ("env_steps", "wall_s", "episodes", "return_mean", "return_std")
"""A learning run's curve (`learning.curve`): one list per key, one item per update."""


def to_target(curve: dict, window: int, target: Optional[float]) -> tuple[Optional[float], Optional[int]]:
    """(wall seconds, env steps) at a curve's first point whose running mean over a full window of
    episodes reached `target`; (None, None) if none did or there is no target. The runner writes
    it into the result and the collector reads it off the curve with this same rule."""
    if target is None:
        return None, None
    for steps, wall, episodes, ret in zip(curve["env_steps"], curve["wall_s"], curve["episodes"],
                                          curve["return_mean"]):
        if ret is not None and episodes >= window and ret >= target:
            return wall, steps
    return None, None


# ---------------------------------------------------------------- identity and learning records

NOT_IDENTITY = ("env.num_envs", "round", "schedule.profile", "schedule.interleave")  # and every key under mode.
STOPS = ("schedule.max_seconds", "schedule.stop_at_target")  # where a learning run stops
SCHEMA_DEFAULTS = {f"{g}.{k}": v for g, cls in (("env", EnvConfig), ("agent", AgentConfig),
                                                ("schedule", ScheduleConfig)) for k, v in vars(cls()).items()}
"""Flat defaults of the schema's groups (mode aside), for keys older result files lack."""
LEARNING_FIELDS = {  # key -> (integer only, null allowed)
    "total_env_steps": (True, False), "target_return": (False, True), "window": (True, False),
    "setup_s": (False, False), "wall_s": (False, False), "env_steps_per_s": (False, False),
    "episodes": (True, False), "final_return_mean": (False, True), "final_return_std": (False, True),
    "time_to_target_s": (False, True), "env_steps_to_target": (True, True)}
UNFINISHED = ("env_steps_per_s", "setup_s")  # what a learning run that failed part-way may lack
CURVE_FIELDS = {"env_steps": (True, False), "wall_s": (False, False), "episodes": (True, False),
                "return_mean": (False, True), "return_std": (False, True)}


def flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def as_today(flat: dict) -> dict:
    """A flat config in today's schema: keys it gained read as their defaults, and agent.compile
    (a bool, before agent.runtime) read as runtime compiled or eager, so old files group with new."""
    flat = dict(flat)
    if "agent.compile" in flat:
        compiled = flat.pop("agent.compile")
        flat.setdefault("agent.runtime", next(r.name for r in RUNTIMES if r.old_compile_flag == bool(compiled)))
    return {**SCHEMA_DEFAULTS, **flat}


def group_identity(flat: dict) -> dict:
    """The keys that say what was measured: all but the mode's, num_envs, round, profile and interleave
    (what runs beside the timed reps, not in them); and
    for a learning run the seed (its seeds are samples of one configuration) and where it stops
    (`STOPS`: they cut a curve short, they do not change it)."""
    reference = ALGOS.reference.name  # the reference's workload; any other algorithm learns
    pooled = NOT_IDENTITY + (("seed", *STOPS) if flat.get("agent.algo", reference) != reference else ())
    return {k: v for k, v in flat.items() if k not in pooled and not k.startswith("mode.")}


def check_number(where: str, value, integer: bool, null: bool) -> None:
    kind = _kind(value)
    if not (kind == "integer" or (kind == "number" and not integer) or (kind == "null" and null)):
        expected = ("integer" if integer else "number") + (" or null" if null else "")
        raise ValueError(f"{where}: {kind}, expected {expected}")


def check_learning(value, stopped: bool = False) -> Optional[dict]:
    """A result's `learning` record, checked: every field typed, the curve's lists of one length,
    its env steps and wall seconds in order (they are interpolated); None for a non-learning job.
    A stopped run's record (`stopped_learning`) may lack its throughput and setup time."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"learning: {_kind(value)}, expected object or null")
    for key, (integer, null) in LEARNING_FIELDS.items():
        if key not in value:
            raise ValueError(f"learning.{key}: missing")
        check_number(f"learning.{key}", value[key], integer, null or (stopped and key in UNFINISHED))
    curve = value.get("curve")
    if not isinstance(curve, dict) or not all(isinstance(curve.get(k), list) for k in CURVE_KEYS):
        raise ValueError(f"learning.curve: expected an object of lists {', '.join(CURVE_KEYS)}")
    lengths = {k: len(curve[k]) for k in CURVE_KEYS}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k} {n}" for k, n in lengths.items())
        raise ValueError(f"learning.curve: lists of unequal length ({shown})")
    for key, (integer, null) in CURVE_FIELDS.items():
        for i, v in enumerate(curve[key]):
            check_number(f"learning.curve.{key}[{i}]", v, integer, null)
    for key in ("env_steps", "wall_s"):
        if any(b < a for a, b in zip(curve[key], curve[key][1:])):
            raise ValueError(f"learning.curve.{key}: not in increasing order")
    return value


def stopped_learning(rec: dict) -> dict:
    """A failed learning run's `learning_so_far` as a learning record: the curve up to the failure,
    with the fields a finished run's record has read off that curve; no env_steps_per_s (the run
    never finished its loop) and setup_s only where the setup had finished."""
    curve = rec["learning_so_far"]["curve"]
    sched = rec["config"]["schedule"]
    window, target = sched.get("return_window"), sched.get("target_return")
    returns = [(m, s) for m, s in zip(curve.get("return_mean") or [], curve.get("return_std") or []) if m is not None]
    wall, steps = to_target(curve, window, target)
    last = lambda k, empty: curve[k][-1] if curve.get(k) else empty  # noqa: E731
    return check_learning({
        "total_env_steps": last("env_steps", 0), "target_return": target, "window": window,
        "setup_s": rec["timing"].get("setup_s"), "wall_s": last("wall_s", 0.0), "env_steps_per_s": None,
        "episodes": last("episodes", 0), "final_return_mean": returns[-1][0] if returns else None,
        "final_return_std": returns[-1][1] if returns else None,
        "time_to_target_s": wall, "env_steps_to_target": steps, "curve": curve}, stopped=True)
