"""Reading result files: which files count, and how their jobs group.

The first step of a collection after sources (which finds the files, in folders and archives), and
the only one that reads result files, each into its typed record (ppo_bench.record.results.Record,
which checks itself). It lists what cannot be used (bad files, copies of a measurement already read,
job folders without a result, paths that do not exist) and the failed and skipped jobs, and reads
every config in today's schema (old keys renamed, keys gained since at their defaults), so that a
job's identity, and with it the group it is pooled in, does not depend on when its file was written
(see the package docstring). An earlier table.csv given as a baseline is checked here too. Nothing
here computes a statistic: the Collection defined here is filled in by the sections (see report).

A learning run (agent.algo other than "reference", today's workload; files from before the key read
as "reference") is one sample of a configuration whose outcome depends on its seed, so its seed is
pooled like a round; the reference workload's seed stays part of what was measured, as before. Its
`learning` record is checked with the rest of the record, so that a malformed one (curve lists of
unequal length, say) makes the file unusable with one reason, like any other mistyped field; so does
a malformed `interleaved` record (a probe timed in turn with a loop's reps, see limits). A learning
run that failed part-way keeps the curve it had (`learning_so_far`): its points up to the failure
are as good as any finished run's, so it is read too (`Collection.stopped`), for the curves and the
comparison at equal env steps, never for a throughput or a final return. So is a timed job that
failed part-way (a `timeout` that killed it, say) with the repetitions it finished
(`measured_so_far`): each of its loop/probe pairs is as good as a finished job's (see limits), its
throughput is not used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from ppo_bench.record.checks import OLDER_RUNNER, not_applicable, why_unreadable
from ppo_bench.record.identity import as_today, flatten, group_identity
from ppo_bench.record.line import steal_share
from ppo_bench.record.parts import Machine, Measured, Timing
from ppo_bench.record.results import BadResult, Record
from ppo_bench.record.typed import UNSET
from . import machines
from .sources import ACCEPTS, KILLED, Found, launched, walk

SINGLE_GROUP = "all"
MACHINE = "machine"  # in a group's name where jobs ran on more than one machine (`machines`)
BASELINE_COLUMNS = ["identity", "mode", "num_envs", "mean", "reps"]


class CollectError(Exception):
    """A path the collector cannot use (the --out dir, a --baseline table): main prints one line."""

    def __init__(self, path, reason):
        super().__init__(f"{path}: {reason}")


@dataclass
class Collection:
    """What one collection found; `table` is what table.csv holds."""
    table: pd.DataFrame      # one row per group x mode x num_envs
    jobs: pd.DataFrame       # one row per ok result file (one per measurement: duplicates dropped)
    runs: pd.DataFrame       # one row per repetition (long form)
    phases: pd.DataFrame     # ms per loop step by phase, one row per group x mode x num_envs (profiled jobs)
    startup: pd.DataFrame = field(default_factory=pd.DataFrame)  # seconds of each start-up part, a row per cell
    side_by_side: dict = field(default_factory=dict)  # "backend"/"runtime": values side by side, ratios to the reference
    learning: pd.DataFrame = field(default_factory=pd.DataFrame)  # learning runs: one row per group x mode x num_envs
    seeds: pd.DataFrame = field(default_factory=pd.DataFrame)     # ... and one row per learning job (seed)
    curves: list[dict] = field(default_factory=list)              # ... and the curves of each learning row
    equal_steps: list[dict] = field(default_factory=list)         # pairs differing only in mode, at equal env steps
    learning_warnings: list[str] = field(default_factory=list)
    stopped: pd.DataFrame = field(default_factory=pd.DataFrame)  # failed jobs with their curve or reps so far
    interleaved: pd.DataFrame = field(default_factory=pd.DataFrame)  # loop over a probe timed in its job (limits)
    interleaved_notes: list[str] = field(default_factory=list)       # ... jobs failed or with lists of two lengths
    failed: list[dict] = field(default_factory=list)      # path, mode, num_envs, error
    skipped: list[dict] = field(default_factory=list)     # path, mode, num_envs, error (why it does not apply)
    bad: list[dict] = field(default_factory=list)         # path, reason
    duplicates: list[dict] = field(default_factory=list)  # path, kept: the copy not used and the one used
    no_result: list[dict] = field(default_factory=list)   # path, reason: jobs without a result file
    missing: list[str] = field(default_factory=list)      # paths given that do not exist
    unreadable: list[str] = field(default_factory=list)   # folders or archives that could not be read: "path: why"
    sweeps: dict = field(default_factory=dict)  # sweep folder -> its multirun.yaml's text (folder.MULTIRUN)
    histories: dict = field(default_factory=dict)  # sweep folder -> its .commands.jsonl's text (folder.COMMANDS)
    unmeasured: list[dict] = field(default_factory=list)  # failed and skipped jobs: sweep, path, overrides (commands)
    contended: list[dict] = field(default_factory=list)   # path, host, overlaps (other jobs' runs)
    contention: list[str] = field(default_factory=list)   # one line per stretch of overlapping runs on a host
    shared_node: list[str] = field(default_factory=list)  # per group, timed jobs that ran beside others on the node
    set_up_ahead: list[str] = field(default_factory=list)  # per group, timed jobs set up beside others (setup_batch)
    overloaded: list[str] = field(default_factory=list)   # one line per group measured above the CPU count
    stolen: list[str] = field(default_factory=list)       # one line per group measured under steal (marks.stolen)
    machine_warnings: list[str] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)   # rows whose ratio to the baseline lies below 1
    improvements: list[str] = field(default_factory=list)  # ... above 1
    baseline: Optional[Path] = None  # the --baseline compared with (None: none)
    baseline_named: str = ""         # ... by what it ran: its date, commit and commands
    baseline_rows: int = 0           # rows of `table` the baseline also has (compared)
    markdown: str = ""
    out_dir: Optional[Path] = None

    @property
    def ok(self) -> bool:
        return len(self.jobs) > 0

    @property
    def jobs_and_stopped(self) -> pd.DataFrame:
        """The ok jobs and those that failed part-way, for what counts what they finished (curves, pairs)."""
        return pd.concat([self.jobs, self.stopped], ignore_index=True)

    @property
    def backends(self) -> pd.DataFrame:
        """The env backends side by side, ratios to ale-py (empty when not compared)."""
        return self.side_by_side.get("backend", pd.DataFrame())

    @property
    def runtimes(self) -> pd.DataFrame:
        """The agent runtimes side by side, ratios to the compiled agent (empty when not compared)."""
        return self.side_by_side.get("runtime", pd.DataFrame())


def read_records(found: Found) -> tuple[list[tuple[Path, Record]], list[dict]]:
    """Every result file found, read into its Record and checked; the unreadable ones: {path, reason}."""
    records, bad = [], []
    for path in found.results:
        try:
            records.append((path, Record.read(path, found.read(path))))
        except OSError as e:  # a member that is no file
            bad.append({"path": str(path), "reason": why_unreadable(e, None)})
        except BadResult as e:
            bad.append({"path": str(path), "reason": str(e)})
    return records, bad


def _at_home(path: Path, rec: Record) -> bool:
    """Whether the file lies in the folder its job wrote it to (the original, not a copy)."""
    home = rec.job and rec.job.output_dir
    return home is not None and Path(home).resolve() == path.parent.resolve()


def _drop_duplicates(records: list[tuple[Path, Record]]) -> tuple[list[tuple[Path, Record]], list[dict]]:
    """One file per measurement (see the package docstring); the others are reported, never pooled.

    The file kept is the one in the folder its job wrote it to, else the first by path.
    """
    if not records:
        return records, []
    files = pd.DataFrame({"path": [str(p) for p, _ in records], "home": [_at_home(p, r) for p, r in records],
                          "key": [r.fingerprint() for _, r in records]})
    files = files.sort_values(["home", "path"], ascending=[False, True])
    files["kept"] = files.groupby("key")["path"].transform("first")  # no key (no timestamps): never merged
    copies = files[files["key"].notna() & (files["path"] != files["kept"])].sort_values("path")
    dropped = set(copies.index)
    return ([pr for i, pr in enumerate(records) if i not in dropped],
            [{"path": p, "kept": k} for p, k in zip(copies["path"], copies["kept"])])


def epoch_seconds(s: Optional[str]) -> float:
    """An ISO 8601 time as POSIX seconds (NaN when absent), so windows compare as plain numbers."""
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() if s else np.nan


def run_window(timing: Timing) -> tuple[float, float]:
    """The job's whole run, set-up to end; the measurement alone where a file lacks the job's times."""
    return (epoch_seconds(timing.started_at or timing.measure_started_at),
            epoch_seconds(timing.finished_at or timing.measure_finished_at))


def _readings(machine: Optional[Machine], key: str) -> list[float]:
    """A machine reading taken just before and just after the measurement, where it was readable."""
    states = (machine.before, machine.after) if machine is not None else ()
    values = [getattr(state, key) for state in states if state is not None]
    return [v for v in values if v is not None] or [np.nan]


def _job(path: Path, rec: Record) -> dict:
    """One row of `Collection.jobs`; for a failed job with a curve or reps so far, one of `stopped`."""
    stopped = rec.status == "failed"
    measured = rec.measured or Measured()
    flat = flatten(rec.config)
    if rec.algo is not None:  # the record's own field where the config predates agent.algo
        flat.setdefault("agent.algo", rec.algo)
    flat = as_today(flat)
    flat["device"] = rec.device  # what it ran on, not "auto"
    if stopped and rec.device == "auto":  # a failed job's file from before the job kept its device
        flat["device"] = "cuda" if rec.provenance.gpu else "cpu"  # auto's own rule, as the job saw it
    ident = group_identity(flat)
    # groups as the schema's default (or the record's own field) where the mode config lacks it,
    # so files with and without the key share one row
    mode_cfg = {"groups": rec.groups or 1, **(rec.config.get("mode") or {"name": rec.mode})}
    timing, so_far = rec.timing, rec.measured_so_far
    run, loads = run_window(timing), _readings(measured.machine, "load_1m")
    probe = so_far.interleaved if stopped and so_far else measured.interleaved
    # the other mode of a pair over one build: written in its job's folder, by its job, in its run
    of_job = str(path.parent.parent / path.name) if ident.get("schedule.interleave") and probe is None else None
    return {
        "path": str(path), "identity": json.dumps(ident, sort_keys=True), "ident": ident,
        "mode_name": mode_cfg.pop("name", rec.mode), "mode_cfg": mode_cfg,
        "groups": int(mode_cfg["groups"]), "num_envs": int(rec.num_envs),
        "round": int(flat.get("round", 0) or 0),
        "sweep": str(Path(of_job or path).parent.parent),  # the multirun folder: rounds pair only within one sweep
        "of_job": of_job,
        "reps": [float(x) for x in (so_far.reps if so_far else [])] if stopped
        else [float(x) for x in measured.throughput.reps],
        **_precision(None if stopped else measured.throughput),
        "frameskip": flat.get("env.frameskip", rec.frameskip),
        "game": rec.game, "agent": rec.agent, "device": flat["device"],
        "backend": flat["env.backend"], "runtime": flat["agent.runtime"],
        "gpu": rec.provenance.gpu, "host": rec.provenance.host,
        "cpus": rec.provenance.cpu_count, "num_threads": measured.num_threads,
        "cores": slot_cores(rec), "slot_gpu": rec.placement and rec.placement.gpu,
        "schedule": rec.config.get("schedule"), "finished_at": timing.finished_at,
        "started_at": timing.started_at, "machine": measured.machine.to_json() if measured.machine else {},
        "start": epoch_seconds(timing.measure_started_at), "end": epoch_seconds(timing.measure_finished_at),
        "run_start": run[0], "run_end": run[1],
        "load": np.mean(loads), "peak_load": max(loads), "mhz": np.mean(_readings(measured.machine, "cpu_mhz")),
        "steal": np.nan if (steal := steal_share(measured.machine)) is None else float(steal),
        "phases": measured.phases and measured.phases.ms_per_loop_step,
        "timing": timing,
        "algo": flat["agent.algo"], "network": flat.get("agent.name"), "seed": flat.get("seed"),
        "learning": _learning(rec, stopped),
        "stopped": rec.error if stopped else None,
        "provenance": rec.provenance.to_json(), "hardware": machines.of(rec.provenance), "overrides": [str(o) for o in rec.overrides or []],
        "warnings": [str(w) for w in rec.warnings or []],
        "interleaved": probe and {"mode": probe.mode, "reps": [float(x) for x in probe.reps]},
    }


def _precision(thr) -> dict:
    """A timed job's precision target (record.precision), its pilot's reps and why its reps stopped; none
    for a job without a target, an older record, or one that failed part-way (its reps are a pilot's
    at most: its interval is the plain one)."""
    target = thr and thr.precision
    if target in (None, UNSET):
        return {"precision": None, "pilot": None, "stopped_by": None}
    return {"precision": float(target), "pilot": int(thr.pilot), "stopped_by": str(thr.stopped_by)}


def _learning(rec: Record, stopped: bool) -> Optional[dict]:
    """A row's learning record: a finished run's own, or what a failed one's curve so far says."""
    if not stopped:
        return rec.measured.learning.to_json() if rec.measured and rec.measured.learning else None
    if rec.learning_so_far is None:
        return None
    schedule = rec.config["schedule"]
    return rec.learning_so_far.as_learning(schedule.get("return_window"), schedule.get("target_return"),
                                           rec.timing.setup_s).to_json()


def slot_cores(rec: Record) -> Optional[frozenset]:
    """The cores the node launcher gave the job (its `placement`); None for a job not placed."""
    return None if rec.placement is None else frozenset(rec.placement.cores)


def name_groups(jobs: pd.DataFrame) -> None:
    """Name each identity on each machine (`machines`): its `group`, `group_names` of the identities with
    the machine among their keys (named where the collection's jobs ran on more than one)."""
    machines.assign(jobs, list(jobs["hardware"]))
    jobs["group"] = group_names([{**d, MACHINE: m} for d, m in zip(jobs["ident"], jobs["ran_on"])],
                                hide=() if jobs["host_machine"].nunique() > 1 else (MACHINE,))


def group_names(idents: list[dict], hide: tuple = ()) -> list[str]:
    """Each identity named by the keys whose values differ between the identities that have them (but
    those in `hide`: a single machine, which a learning run names by its hardware alone).

    A key an identity lacks (a learning run's pooled seed; another algorithm's own key, which its
    record does not keep) is left out of its name rather than shown as null, which would read as a
    seed called null, and does not make the identities that have it differ: agent.algo already
    tells a PPO run from a reference job, without PPO's every default."""
    keys = sorted(set().union(*idents) - set(hide))
    differing = [k for k in keys if len({json.dumps(d[k]) for d in idents if k in d}) > 1]
    show = lambda v: v if isinstance(v, str) else json.dumps(v)  # noqa: E731  (Hydra override syntax)
    return [", ".join(f"{k}={show(d[k])}" for k in differing if k in d) or SINGLE_GROUP for d in idents]


def _label_modes(jobs: pd.DataFrame) -> None:
    """Mode name, plus the mode settings that differ within the group (async[groups=4])."""
    jobs["mode"] = jobs["mode_name"]
    for _, sub in jobs.groupby(["group", "mode_name"]):
        cfgs = list(sub["mode_cfg"])
        keys = sorted(set().union(*cfgs))
        differing = [k for k in keys if len({json.dumps(c.get(k)) for c in cfgs}) > 1]
        if differing:
            jobs.loc[sub.index, "mode"] = [
                f"{n}[{','.join(f'{k}={c.get(k)}' for k in differing)}]"
                for n, c in zip(sub["mode_name"], cfgs)]


def _listing(path: Path, rec: Record, error: Optional[str] = None) -> dict:
    return {"path": str(path), "mode": rec.mode, "num_envs": rec.num_envs, "error": error or rec.error}


def _outcomes(records: list[tuple[Path, Record]]) -> tuple[list[dict], list[dict]]:
    """The failed and the skipped jobs, listed: a job an older runner recorded as failed for a combination
    that does not apply (record.checks.not_applicable) is skipped, as today's runner records it, and says so."""
    failed, skipped = [], []
    for p, r in records:
        refused = r.status == "failed" and not_applicable(r.config, r.error)
        if r.status == "skipped" or refused:
            skipped.append(_listing(p, r, refused and f"{refused} ({OLDER_RUNNER})"))
        elif r.status == "failed":
            failed.append(_listing(p, r))
    return failed, skipped


def load_jobs(paths: list[Path]) -> tuple[Collection, list[tuple[Path, Record]]]:
    """The ok jobs (one row each, grouped and labelled) and the listings, in a Collection; and the
    records read, one per measurement, for what needs more than the ok jobs (failed jobs' runs)."""
    paths = [Path(p) for p in paths]
    found = walk([p for p in paths if p.exists()])
    records, bad = read_records(found)
    refuse(found, bad)
    no_result = {**dict.fromkeys(found.unfinished, KILLED), **launched(found, bad)}
    records, duplicates = _drop_duplicates(records)
    jobs = []
    for path, rec in records:
        if rec.status != "ok" and not (rec.status == "failed" and (rec.learning_so_far or rec.measured_so_far)):
            continue
        try:
            jobs.append(_job(path, rec))
        except (AttributeError, KeyError, TypeError, ValueError) as e:
            bad.append({"path": str(path), "reason": f"unusable field: {type(e).__name__}: {e}"})
    failed, skipped = _outcomes(records)
    unmeasured = [{"sweep": str(p.parent.parent), "path": str(p), "overrides": [str(o) for o in r.overrides or []]}
                  for p, r in records if r.status != "ok"]
    c = Collection(pd.DataFrame(), pd.DataFrame(jobs), pd.DataFrame(), pd.DataFrame(), failed=failed, skipped=skipped,
                   bad=sorted(bad, key=lambda b: b["path"]), duplicates=duplicates,
                   no_result=[{"path": p, "reason": no_result[p]} for p in sorted(no_result)],
                   unreadable=found.unreadable, missing=[str(p) for p in paths if not p.exists()],
                   sweeps=_texts(found.sweeps, found), histories=_texts(found.histories, found),
                   unmeasured=unmeasured)
    if not c.jobs.empty:  # named together, so that a stopped run's group is its finished seeds' group
        name_groups(c.jobs)
        _label_modes(c.jobs)
        done = c.jobs["stopped"].isna()
        c.jobs, c.stopped = c.jobs[done].reset_index(drop=True), c.jobs[~done].reset_index(drop=True)
    return c, records


def refuse(found: Found, bad: list[dict]) -> None:
    """Stop the collection before anything is tabled or written (CollectError, one line: the first path
    and the others') for a file given by its path that is neither a result nor an archive, and for an
    archive not read whole: a summary of either would stand for what was meant (the sweep's own summary
    replaced by one of "1 unusable"; the records before the damage tabled as the whole sweep)."""
    refused = [(Path(b["path"]), f"not a result file ({b['reason']}) nor an archive; {ACCEPTS}")
               for b in bad if Path(b["path"]) in found.named] + found.damaged
    if refused:
        (path, why), more = refused[0], [str(p) for p, _ in refused[1:]]
        raise CollectError(path, why + (f"; also refused: {', '.join(more)}" if more else "") + "; nothing was written")


def _texts(paths: list[Path], found: Found) -> dict[str, str]:
    """Each sweep's multirun.yaml (or history) as text, by its folder; one that cannot be read is left out
    (it only names the commands, which the records' own overrides give too)."""
    texts = {}
    for path in paths:
        try:
            texts[str(path.parent)] = found.read_bytes(path).decode()
        except (OSError, UnicodeDecodeError):
            continue
    return texts


def read_table(csv: Path) -> pd.DataFrame:
    """An earlier table.csv, checked here so that a bad one stops with its path and what is wrong."""
    try:
        table = pd.read_csv(csv, dtype=str, keep_default_na=False)  # raw text, to quote what is wrong
    except (OSError, ValueError) as e:  # pandas' empty-file and parser errors are ValueErrors
        raise CollectError(csv, f"not a table.csv: {e}") from None
    missing = sorted(set(BASELINE_COLUMNS) - set(table.columns))
    if missing:
        raise CollectError(csv, f"no column {', '.join(missing)}")
    if table.empty:
        raise CollectError(csv, "no rows")
    idents = table["identity"].map(_json_object)
    num, mean = (pd.to_numeric(table[k], errors="coerce") for k in ("num_envs", "mean"))
    wrong = {"identity": (idents.isna(), "a JSON object"), "num_envs": (num.isna() | (num % 1 != 0), "an integer"),
             "mean": (~(mean > 0), "a positive number"),
             "reps": (~table["reps"].map(_is_reps), "a JSON list of positive numbers")}
    for col, (rows, expected) in wrong.items():
        if rows.any():
            i = rows.idxmax()
            raise CollectError(csv, f"line {i + 2}: {col}={table.at[i, col]!r} is not {expected}")
    today = idents.map(lambda d: json.dumps(group_identity(as_today(d)), sort_keys=True))  # an older table's keys
    return table[BASELINE_COLUMNS].assign(identity=today, num_envs=num.astype(int), mean=mean)


def _json_object(text: str) -> Optional[dict]:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _is_reps(text) -> bool:
    try:
        reps = json.loads(text)
    except (TypeError, ValueError):
        return False
    return isinstance(reps, list) and bool(reps) and all(type(x) in (int, float) and x > 0 for x in reps)
