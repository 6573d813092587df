"""The parts of a job's record, each a typed JSON object (`typed.Part`) that checks itself on reading.

What a finished job measured (`Measured`: its throughput, the probe timed beside it, its learning
run), its clocks (`Timing`), where it ran (`Provenance`, `Placement`, `Machine`), and what a job
that failed part-way keeps (`LearningSoFar`, `MeasuredSoFar`). A duration the job could not
compute is written as null with a warning (results.write_atomic), so most figures here may be null.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Optional

from ppo_bench.record.checks import disagreement
from ppo_bench.record.precision import STOPS
from ppo_bench.record.typed import UNSET, BadResult, Part, inside, keys_of

UNIT = "env_steps/s"


def _epoch(time: datetime) -> float:
    """Seconds since the epoch of a record's time (one without a zone read as UTC, as the record writes)."""
    return (time if time.tzinfo else time.replace(tzinfo=timezone.utc)).timestamp()


def utc_iso(timestamp: float) -> str:
    """A time.time() reading as the record writes its times."""
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat()


def _positive(reps: Optional[list], where: str) -> None:
    """Rates are divided by (ratios, limits): each must be above zero."""
    if reps is not None and not all(x > 0 for x in reps):
        raise BadResult(f"{where}: {reps!r:.80}, expected a list of positive numbers")


@dataclass(kw_only=True)
class Throughput(Part):
    """The timed repetitions of a job's loop: each one's env-steps/s and seconds, the env steps each
    took, and their summary (stats.summary), which reading checks against them (checks.disagreement).
    A job with a precision target (record.precision) also says the target, its pilot, the count the
    pilot asked for and why the reps stopped; its lo and hi are then the two-stage interval
    (`interval`). Records without those keys are of jobs that timed schedule.reps."""
    unit: str = UNSET
    reps: list[float] = UNSET
    seconds: list[float] = UNSET
    env_steps_per_rep: Any = UNSET  # checked by disagreement, which names a wrong one in its own words
    n: int = UNSET
    mean: Optional[float] = UNSET
    ci95: Optional[float] = UNSET
    lo: Optional[float] = UNSET
    hi: Optional[float] = UNSET
    median: Optional[float] = UNSET
    cv: Optional[float] = UNSET
    precision: Optional[float] = UNSET
    """The target: the relative half-width asked for (schedule.precision)."""
    pilot: Optional[int] = UNSET
    """The first reps, whose spread alone set the count."""
    needed: Optional[int] = UNSET
    """The count the target needed by the pilot's spread (Stein's), before the caps."""
    stopped_by: Optional[str] = UNSET
    """precision (the count the target needed was timed), max_reps or max_measure_s (a cap bound first)."""
    interval: Optional[str] = UNSET
    """What lo and hi are: two_stage_serial (stats.two_stage_interval); two_stage before its widening for
    serial correlation (2026-12-07); absent: the t-interval on the log reps."""

    @classmethod
    def of(cls, seconds: list[float], env_steps_per_rep: int, stopping: Optional[dict] = None) -> "Throughput":
        """Repetitions of `env_steps_per_rep` env steps each, from their seconds; `stopping`: a target's
        account of them (precision.Stopping.record), whose pilot the interval is computed with."""
        from ppo_bench.record.stats import summary  # scipy: imported in the job's process, not the parent's

        reps, stop = [env_steps_per_rep / s for s in seconds], stopping or {}
        pilots = [reps[:stop["pilot"]]] if stop else None
        return cls(unit=UNIT, reps=reps, seconds=list(seconds), env_steps_per_rep=env_steps_per_rep,
                   **summary(reps, pilots), **stop)

    def check(self, where: str) -> None:
        reason = disagreement(self.to_json(), where)
        if self.stopped_by is not None and self.stopped_by not in STOPS:
            reason = f"{inside(where, 'stopped_by')}: {self.stopped_by!r}, expected one of {', '.join(STOPS)}"
        if self.pilot is not None and not 2 <= self.pilot <= len(self.reps or []):
            reason = f"{inside(where, 'pilot')}: {self.pilot}, expected 2 to its {len(self.reps or [])} reps"
        if reason:
            raise BadResult(reason)


@dataclass(kw_only=True)
class Interleaved(Part):
    """Another mode timed in turn with the loop's repetitions in the same job (schedule.interleave): its
    mode and its reps, in the loop's order; positive, since the loop's reps are divided by them."""
    mode: str = UNSET
    reps: list[float] = UNSET
    seconds: list[float] = UNSET
    env_steps_per_rep: Any = UNSET  # as the throughput's
    REQUIRED = ("mode", "reps")

    def check(self, where: str) -> None:
        _positive(self.reps, inside(where, "reps"))
        reason = disagreement(self.to_json(), where)
        if reason:
            raise BadResult(reason)


@dataclass(kw_only=True)
class Imports(Part):
    """When the project's imports began (from the job's start; below 0 where they began before it, with
    a single run's process) and what they took (child.imports), and
    whether torch's bytecode was cached after them (provenance.bytecode_cached): false, the process
    compiled torch from source and could not keep the result, so every fresh process does it again."""
    began_s: float = UNSET
    took_s: float = UNSET
    bytecode_cached: Optional[bool] = UNSET


@dataclass(kw_only=True)
class Timing(Part):
    """The job's clocks: its start and end and the measurement's window (ISO 8601 times, UTC), and
    the seconds of its stages (the parent's check; the child's start-up, set-up, first step and
    warm-up; the measurement)."""
    started_at: Optional[str] = UNSET
    finished_at: Optional[str] = UNSET
    check_s: Optional[float] = UNSET
    startup_s: Optional[float] = UNSET
    forked_s: Optional[float] = UNSET
    imports: Optional[Imports] = UNSET
    setup_s: Optional[float] = UNSET
    setup: Optional[dict[str, float]] = UNSET
    first_step_s: Optional[float] = UNSET
    warmup_s: Optional[float] = UNSET
    measure_s: Optional[float] = UNSET
    measure_started_at: Optional[str] = UNSET
    measure_finished_at: Optional[str] = UNSET
    parked_at: Optional[str] = UNSET  # a job started ahead (setup_batch) waited, running nothing, from here
    unparked_at: Optional[str] = UNSET  # to its turn: another job's measurement there overlaps nothing of it
    TIMES = ("started_at", "finished_at", "measure_started_at", "measure_finished_at")
    WAIT = ("parked_at", "unparked_at")

    def check(self, where: str) -> None:
        """Each time readable, and in the order the job takes them: its start, the measurement's start and
        end, its end (one clock: time.time() in the parent and its child). A hand-edited record whose
        measurement lies outside its own run would be read as measured during another job's."""
        read = {}
        for key in (*self.TIMES, *self.WAIT):
            value = getattr(self, key)
            try:
                read[key] = None if value is None else datetime.fromisoformat(value)
            except ValueError:
                raise BadResult(f"{inside(where, key)}: {value!r} is not an ISO 8601 time") from None
        seconds = [(k, _epoch(read[k])) for k in ("started_at", "parked_at", "unparked_at", "measure_started_at",
                                                  "measure_finished_at", "finished_at") if read.get(k) is not None]
        for (first, a), (then, b) in zip(seconds, seconds[1:]):
            if b < a:
                raise BadResult(f"{inside(where, then)}: {getattr(self, then)!r} comes before its "
                                f"{first} {getattr(self, first)!r}")

    def updated(self, later: Optional["Timing"]) -> "Timing":
        """These clocks with `later`'s readings added (and taken where both have one)."""
        if later is None:
            return self
        values = {k: getattr(later if k in later.present else self, k) for k in keys_of(Timing)}
        present = tuple(dict.fromkeys([*self.to_json(), *later.to_json()]))
        return Timing(**values, other={**self.other, **later.other}, present=present)


@dataclass(kw_only=True)
class JobFolder(Part):
    """The job's number in its sweep (None for a single run) and the folder it wrote its record to."""
    num: Optional[int] = UNSET
    output_dir: Optional[str] = UNSET


@dataclass(kw_only=True)
class Grant(Part):
    """What a cluster's scheduler granted the job (launch.placement): SLURM's job, or Ray's task."""
    scheduler: str = UNSET  # "slurm" or "ray"
    job_id: Optional[str] = UNSET  # SLURM's job id; Ray's job id
    node: Optional[str] = UNSET  # the node's name (SLURM) or id (Ray)
    partition: Optional[str] = UNSET  # SLURM's
    cpus: Optional[int] = UNSET  # the CPUs granted, as the scheduler counts them
    gpus: Optional[float] = UNSET  # the GPUs granted, as the scheduler counts them (Ray's may be a fraction)
    nice: Optional[int] = UNSET  # the niceness it ran at, where the scheduler sets one (Ray's workers: 15)


@dataclass(kw_only=True)
class Placement(Part):
    """The cores and GPU a launcher gave the job (launch.placement): the node launcher's slot, which it
    pinned; SLURM's or Ray's grant, which the job read (`granted_by`; absent in older records: the node
    launcher's)."""
    slot: int = UNSET
    slots: int = UNSET
    gpu: Optional[str] = UNSET
    cores: list[int] = UNSET
    shared_node: Optional[bool] = UNSET  # the node launcher's: beside other slots; a grant's: not known
    granted_by: Optional[str] = UNSET  # "node", "slurm" or "ray"
    grant: Optional[Grant] = UNSET


@dataclass(kw_only=True)
class Provenance(Part):
    """What ran where (provenance.describe); the backends' package versions are its `other` keys."""
    host: Optional[str] = UNSET
    platform: Optional[str] = UNSET
    python: Optional[str] = UNSET
    torch: Optional[str] = UNSET
    ale_py: Optional[str] = UNSET
    numpy: Optional[str] = UNSET
    cuda: Optional[str] = UNSET
    gpu: Optional[str] = UNSET  # the GPU the job ran on; None on the CPU
    gpu_models: Optional[list[str]] = UNSET  # the machine's GPUs, as its driver names them
    gpu_driver: Optional[str] = UNSET
    cpu_count: Optional[int] = UNSET
    cpu_model: Optional[str] = UNSET
    virtual_machine: Optional[bool] = UNSET
    cpuidle_driver: Optional[str] = UNSET
    git_commit: Optional[str] = UNSET
    git_dirty: Optional[bool] = UNSET
    argv: Optional[list[str]] = UNSET


@dataclass(kw_only=True)
class MachineState(Part):
    """The machine's 1-minute load and mean CPU clock, where readable (provenance.machine_state)."""
    load_1m: Optional[float] = UNSET
    cpu_mhz: Optional[float] = UNSET


@dataclass(kw_only=True)
class Scheduling(Part):
    """Where the CPU time of the job's process went over its loop's run (the timed repetitions, any
    probe between them and a profile's repetition, not the warm-up; a learning run whole), `wall_s`
    long (provenance.SchedClock): its
    threads' seconds on a CPU and runnable but waiting for one (the kernel's schedstat), the measuring
    thread's apart, and the share of all CPUs' time that the hypervisor took (steal, in /proc/stat).

    Two jobs of one config whose throughput differs say here why: a loop thread that waited longer
    for a CPU lost it to other threads, one with more seconds on a CPU for the same steps ran on a
    slower one (a busy SMT sibling, a clock, the hypervisor: steal). Threads that ended during the
    measurement are not counted; null where the kernel does not keep schedstat."""
    wall_s: float = UNSET
    threads: int = UNSET
    cpu_s: float = UNSET
    waited_s: float = UNSET
    loop_cpu_s: Optional[float] = UNSET
    loop_waited_s: Optional[float] = UNSET
    steal_share: Optional[float] = UNSET


@dataclass(kw_only=True)
class Machine(Part):
    """The machine just before and just after the measurement, and its job's scheduling in between."""
    before: Optional[MachineState] = UNSET
    after: Optional[MachineState] = UNSET
    scheduling: Optional[Scheduling] = UNSET


@dataclass(kw_only=True)
class EnvSteps(Part):
    """The env steps of the measurement: in all, and the fewest and most any one env took."""
    total: int = UNSET
    per_env_min: int = UNSET
    per_env_max: int = UNSET


@dataclass(kw_only=True)
class Inference(Part):
    """What ran the agent: its runtime, whether it compiled (once) and ran as CUDA graphs."""
    runtime: Optional[str] = UNSET
    compiled: bool = UNSET
    cudagraphs: bool = UNSET
    graphs: int = UNSET
    compile_s: Optional[float] = UNSET


PHASES = ("emulators", "upload", "inference", "action_download", "stores", "observe", "update")
"""The phases a driver and the loop tell (loop.phases), in the order a profile lists them: named here,
where the loop that clocks them and the collector that tables them both read them."""


@dataclass(kw_only=True)
class Phases(Part):
    """The profiled repetition's milliseconds per loop step by phase (loop.phases.PhaseClock.report)."""
    loop_steps: int = UNSET
    wall_s: Optional[float] = UNSET
    ms_per_loop_step: Optional[dict[str, float]] = UNSET


@dataclass(kw_only=True)
class Curve(Part):
    """A learning run's curve: one item per update in each list (learning.curve)."""
    env_steps: list[int] = UNSET
    wall_s: list[float] = UNSET
    episodes: list[int] = UNSET
    return_mean: list[Optional[float]] = UNSET
    return_std: list[Optional[float]] = UNSET
    REQUIRED = ("env_steps", "wall_s", "episodes", "return_mean", "return_std")

    def check(self, where: str) -> None:
        lengths = {k: len(getattr(self, k)) for k in CURVE_KEYS}
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{k} {n}" for k, n in lengths.items())
            raise BadResult(f"{where}: lists of unequal length ({shown})")
        for key in ("env_steps", "wall_s"):  # interpolated: in order
            values = getattr(self, key)
            if any(b < a for a, b in zip(values, values[1:])):
                raise BadResult(f"{inside(where, key)}: not in increasing order")

    def reached(self, window: int, target: Optional[float]) -> tuple[Optional[float], Optional[int]]:
        return to_target(self.to_json(), window, target)


CURVE_KEYS = Curve.REQUIRED


def to_target(curve: dict, window: int, target: Optional[float]) -> tuple[Optional[float], Optional[int]]:
    """(wall seconds, env steps) at a curve's first point whose running mean over a full window of
    episodes reached `target`; (None, None) if none did or there is no target. The job writes it
    into the record and the collector reads it off the curve with this same rule."""
    if target is None:
        return None, None
    for steps, wall, episodes, ret in zip(curve["env_steps"], curve["wall_s"], curve["episodes"],
                                          curve["return_mean"]):
        if ret is not None and episodes >= window and ret >= target:
            return wall, steps
    return None, None


@dataclass(kw_only=True)
class Learning(Part):
    """A learning run (schedule.total_env_steps): how far it ran, its returns and its curve."""
    total_env_steps: int = UNSET
    stopped_by: str = UNSET
    target_return: Optional[float] = UNSET
    window: int = UNSET
    setup_s: float = UNSET
    wall_s: float = UNSET
    env_steps_per_s: float = UNSET
    episodes: int = UNSET
    updates: int = UNSET
    final_return_mean: Optional[float] = UNSET
    final_return_std: Optional[float] = UNSET
    time_to_target_s: Optional[float] = UNSET
    env_steps_to_target: Optional[int] = UNSET
    returns: list[float] = UNSET
    curve: Curve = UNSET
    REQUIRED = ("total_env_steps", "target_return", "window", "setup_s", "wall_s", "env_steps_per_s", "episodes",
                "final_return_mean", "final_return_std", "time_to_target_s", "env_steps_to_target", "curve")


@dataclass(kw_only=True)
class LearningSoFar(Part):
    """A learning run that failed part-way: its curve up to the failure."""
    curve: Curve = UNSET
    REQUIRED = ("curve",)

    def as_learning(self, window: int, target: Optional[float], setup_s: Optional[float]) -> Learning:
        """As a finished run's learning record, its fields read off the curve; no env_steps_per_s
        (the run never finished its loop) and setup_s only where the set-up had finished."""
        c = self.curve
        returns = [(m, s) for m, s in zip(c.return_mean, c.return_std) if m is not None]
        wall, steps = c.reached(window, target)
        return Learning(total_env_steps=c.env_steps[-1] if c.env_steps else 0, target_return=target, window=window,
                        setup_s=setup_s, wall_s=c.wall_s[-1] if c.wall_s else 0.0, env_steps_per_s=None,
                        episodes=c.episodes[-1] if c.episodes else 0,
                        final_return_mean=returns[-1][0] if returns else None,
                        final_return_std=returns[-1][1] if returns else None,
                        time_to_target_s=wall, env_steps_to_target=steps, curve=c)


@dataclass(kw_only=True)
class MeasuredSoFar(Part):
    """A timed job that failed part-way: the repetitions it finished, each with its probe's after it."""
    reps: list[float] = UNSET
    interleaved: Optional[Interleaved] = UNSET
    REQUIRED = ("reps",)

    def check(self, where: str) -> None:
        _positive(self.reps, inside(where, "reps"))


@dataclass(kw_only=True)
class Measured(Part):
    """What a job that finished measured: the record's fields that only an ok record holds (they stand
    in the record's own object, see Record.FLAT)."""
    batch_size: int = UNSET
    num_threads: Optional[int] = UNSET
    throughput: Throughput = UNSET
    env_steps: Optional[EnvSteps] = UNSET
    inference: Inference = UNSET
    phases: Optional[Phases] = UNSET
    machine: Optional[Machine] = UNSET
    faults: list[dict] = UNSET
    learning: Optional[Learning] = UNSET
    interleaved: Optional[Interleaved] = UNSET

    def check(self, where: str) -> None:
        if self.num_threads is not None and self.num_threads < 1:
            raise BadResult(f"{inside(where, 'num_threads')}: {self.num_threads!r}, "
                            "expected a positive integer or null")
