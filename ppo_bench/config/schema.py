"""The typed config schema and the value checks that run before anything is built.

Hydra refuses a wrong *type* through the dataclasses below (registered in its
ConfigStore); `validate` refuses wrong *values* and relations with one
`ValueError` that names the key, the value and what is allowed; a combination
that merely does not apply (a sweep crossing async with num_envs=1) raises its
subclass `NotApplicable`, which a sweep records as skipped. `warnings_for`
lists settings that are legal but weaken the measurement; the runner logs them
and stores them in the result.

The agent group is composed (config.agent): the keys every algorithm shares and
each registered algorithm's own, from its registry entry's config dataclass,
which also checks them (`AlgoConfig.check`); all stay flat under `agent.` as
users type them. An algorithm's key left unset takes the default of the
algorithm that runs, and a result's config keeps only that algorithm's keys.
"""

from __future__ import annotations

import dataclasses
import difflib
import typing
from dataclasses import dataclass
from typing import Any, Callable, List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from ppo_bench.config.checks import (NotApplicable, at_least, check_batches, check_precision, finite, one_of, positive,
                                     shown)
from ppo_bench.config import memory
from ppo_bench.config.agent import AgentConfig, agent_config, algorithm_defaults
from ppo_bench.registry import ALGOS, BACKENDS, MODES, NETWORKS, RUNTIMES, Registry
from ppo_bench.signals import importing

DEVICES = ("auto", "cuda", "cpu")
UPLOADS = ("pinned", "pageable")


@dataclass
class EnvConfig:
    game: str = "pong"
    """ALE ROM id in snake_case, e.g. pong, breakout, ms_pacman."""
    num_envs: int = 8
    """Number of emulators in the vector env; >= 1."""
    frameskip: int = 5
    """Emulator frames per env step; >= 1 (frames/s = env-steps/s x frameskip)."""
    num_threads: Optional[int] = None
    """Emulator worker threads; null = min(num_envs, 16)."""
    upload: str = "pinned"
    """Frames to the device: pinned (staged in our pinned buffer) | pageable (the reference's copy)."""
    backend: str = BACKENDS.reference.name
    """Vector env: ale (ale-py's AtariVectorEnv) | envpool | gymnasium (AsyncVectorEnv)."""


@dataclass
class ScheduleConfig:
    reps: int = 5
    """Timed repetitions; >= 1 (2 or more for an interval)."""
    bench_steps: int = 1000
    """Loop steps per timed repetition; >= 1."""
    warmup: int = 64
    """Untimed loop steps before the first repetition (compile, CUDA-graph capture); >= 1."""
    profile: bool = False
    """After the timed reps, one more with host clocks on each phase (result's `phases`)."""
    interleave: Optional[str] = None
    """Another mode timed in turn with a loop's timed reps (A B B A), in the same process over the
    same emulators (result's `interleaved`; `INTERLEAVES`). A probe without an agent (env_only): between
    jobs the emulators' speed drifts far more than within one, so the loop's ratio to them is read
    rep by rep; not part of what a result measured. Or the other of step and sendrecv, over the
    same emulators and compiled policy: one build serves both modes, and the other mode's record
    is written too (`<job folder>/<mode>/result.json`); such pairs are grouped apart from jobs of
    their own. The probes' jobs and the named mode's own ignore it (so one sweep can run them too);
    timed repetitions only. null: none."""
    total_env_steps: Optional[int] = None
    """A learning run (schedule=learn): one repetition to this many env steps, with a
    learning curve in the result; needs an algorithm that learns (registry.Algo.learns). null: timed repetitions."""
    target_return: Optional[float] = None
    """Learning runs: the result says when the running mean return first reached this."""
    return_window: int = 20
    """Learning runs: finished episodes in the running mean return; >= 1."""
    stop_at_target: bool = False
    """Learning runs: stop at the update whose running mean return first reaches target_return."""
    max_seconds: Optional[float] = None
    """Learning runs: stop at this much wall time from the job's start (set-up included), at
    the update in progress, whatever the env steps; null: no limit. > 0."""
    precision: Optional[float] = None
    """Timed reps until the 95% interval's relative half-width is this, in (0, 1) (0.03: +-3%): reps
    is then the pilot (>= 3) whose spread fixes the count (record/precision.py). null: reps reps."""
    max_reps: int = 20
    """With precision: the most timed reps, the pilot's included; >= reps."""
    max_measure_s: Optional[float] = None
    """With precision: the most seconds of timed reps (timing.measure_s: not a probe's beside
    them); a rep that would pass it at the slowest rep's pace does not start. > 0; null: no limit."""


@dataclass
class ModeConfig:
    name: str = MODES.reference.name
    """Driver: step | sendrecv | async | env_only | agent_only."""
    groups: int = 1
    """Batches per loop step (async, agent_only); >= 1 and must divide env.num_envs."""


@dataclass
class Config:
    env: EnvConfig = MISSING
    agent: AgentConfig = MISSING
    schedule: ScheduleConfig = MISSING
    mode: ModeConfig = MISSING
    device: str = "auto"
    """auto (CUDA when present, else CPU) | cuda | cpu."""
    seed: int = 0
    """Seeds torch and the emulators (env i gets seed + i); >= 0."""
    round: int = 0
    """Identity only: sweep it outermost to interleave compared modes in time; >= 0."""
    resume: bool = False
    """Skip this job when its output dir already holds an "ok" result for the same config."""
    set_aside: bool = False
    """Move earlier results out of the way (to <folder>/set_aside/<UTC time>/) instead of refusing to
    run over them: a sweep's all of them, with resume only those of another config."""
    collect: bool = True
    """At the end of a multirun, collect its results into <sweep dir>/summary."""
    stall_timeout_s: float = 600.0
    """A job whose loop makes no progress this long is killed and recorded as failed; > 0.
    Generous: creating 256 emulators takes ~30 s and the first compile ~60 s."""
    setup_batch: int = 1
    """Under the basic launcher, how many consecutive jobs of a sweep start together: each builds and
    compiles beside the others, then waits, parked, for its turn; the timed repetitions still run one
    job at a time (job.prepared); >= 0, where 0 fits it to the machine's CPUs (prepared.batch_size).
    Not part of a result's identity."""
    plugins: List[str] = dataclasses.field(default_factory=list)
    """Plugins to load in every process of the job (config.plugins): module names or .py paths that
    register algorithms, backends, networks, runtimes or modes; beside the installed packages' entry
    points and PPO_BENCH_PLUGINS. Read off the command line before the config is composed."""


SHARE_A_BUILD = tuple(MODES.names(kind="loop", groups=False))
"""Loop modes that can take turns over one set of emulators and one compiled policy (step, sendrecv)."""
INTERLEAVES = (*MODES.names(kind="probe", agent=False), *SHARE_A_BUILD)
"""What schedule.interleave may name."""


def interleaves(cfg: Any) -> bool:
    """Whether a job times schedule.interleave in turn with its reps: a loop's job, where it names
    another mode (a probe's job, or the named mode's own, ignores it)."""
    other = cfg.schedule.interleave
    return other is not None and MODES[cfg.mode.name].kind == "loop" and other != cfg.mode.name


def schema() -> type:
    """`Config` with the agent keys of every algorithm registered now: an algorithm added at run time
    (`registry.ALGOS.add`) brings its keys, once `register_configs` runs again."""
    agent = agent_config()
    return dataclasses.make_dataclass("Config", [("agent", agent, dataclasses.field(default=MISSING))],
                                      bases=(Config,))


def register_configs() -> None:
    """Put the schema into Hydra's ConfigStore; group YAMLs extend it with `@_here_`. Run again after
    adding an algorithm with keys of its own."""
    cs = ConfigStore.instance()
    config = schema()
    cs.store(name="config_schema", node=config)
    cs.store(group="schema/env", name="base", node=EnvConfig)
    cs.store(group="schema/agent", name="base", node=typing.get_type_hints(config)["agent"])
    cs.store(group="schema/schedule", name="base", node=ScheduleConfig)
    cs.store(group="schema/mode", name="base", node=ModeConfig)


def _entry(registry: Registry, value: Any):
    """The registry's entry for a config value; one line naming the key and the names it has."""
    one_of(registry.key, value, registry.names())
    return registry[value]


def known_games() -> list[str]:
    with importing():  # a stop as a job's check imports it waits for the import's end (signals.importing)
        from ale_py import roms

    return sorted(roms.get_all_rom_ids())


def algo_config(agent: Any) -> Any:
    """The chosen algorithm's own config (`agent.algos.config.AlgoConfig`), read off the agent node."""
    return ALGOS[agent.algo].config_class().of(agent)


def validate(cfg: Any, machine: Callable[[], tuple[Optional[int], int]] = memory.machine) -> None:
    """Refuse a bad value with one ValueError naming key, value and what is allowed.

    Runs before any environment or model is built, so a typo costs nothing. Each part checks its
    own keys: the names against the registries, the env, the chosen algorithm (its config's
    `check`), the schedule, the run; then what the machine has; the relations between values that
    a sweep crosses come last, as NotApplicable. `machine()` says the memory available and the
    slots sharing it (memory.machine reads them).
    """
    mode = _entry(MODES, cfg.mode.name)
    _entry(NETWORKS, cfg.agent.name)
    one_of("device", cfg.device, DEVICES)
    one_of("env.upload", cfg.env.upload, UPLOADS)
    backend = _entry(BACKENDS, cfg.env.backend)
    runtime = _entry(RUNTIMES, cfg.agent.runtime)
    algo = _entry(ALGOS, cfg.agent.algo)
    _check_env(cfg.env)
    algo_config(cfg.agent).check()
    _check_schedule(cfg.schedule, algo)
    at_least("mode.groups", cfg.mode.groups, 1)
    at_least("seed", cfg.seed, 0)
    at_least("round", cfg.round, 0)
    positive("stall_timeout_s", cfg.stall_timeout_s)
    at_least("setup_batch", cfg.get("setup_batch", 1), 0)
    _check_machine(cfg, backend, runtime, mode, machine)
    # Relations last: a NotApplicable then means every value on its own was right.
    relations(cfg)


def relations(cfg: Any) -> None:
    """The relations between values that a sweep crosses, each refused as NotApplicable (the last part of
    `validate`). Reads the registries and the config only, nothing of the machine, so that the collector
    can ask it of an older record's config (record.checks.not_applicable)."""
    mode, backend = _entry(MODES, cfg.mode.name), _entry(BACKENDS, cfg.env.backend)
    runtime, algo = _entry(RUNTIMES, cfg.agent.runtime), _entry(ALGOS, cfg.agent.algo)
    check_batches(backend, cfg.env.num_envs, cfg.mode.groups, emulators=mode.emulators)
    _check_mode(cfg, mode, runtime)
    _check_agent_relations(cfg.agent, mode, runtime, algo)
    if cfg.schedule.total_env_steps is not None and mode.kind != "loop":
        raise NotApplicable(f"mode.name={cfg.mode.name}: a learning run needs emulators and an agent; "
                            f"allowed: {', '.join(MODES.names(kind='loop'))}")


def _check_env(env: Any) -> None:
    games = known_games()
    if env.game not in games:
        close = difflib.get_close_matches(env.game, games, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; ale-py has {len(games)} ROMs, e.g. pong, breakout"
        raise ValueError(f"env.game={env.game}: not a ROM that ale-py has{hint}")
    at_least("env.num_envs", env.num_envs, 1)
    at_least("env.frameskip", env.frameskip, 1)
    if env.num_threads is not None:
        at_least("env.num_threads", env.num_threads, 1)


def _check_schedule(schedule: Any, algo: Any) -> None:
    at_least("schedule.reps", schedule.reps, 1)
    at_least("schedule.bench_steps", schedule.bench_steps, 1)
    at_least("schedule.warmup", schedule.warmup, 1)
    at_least("schedule.return_window", schedule.return_window, 1)
    learning = schedule.total_env_steps is not None
    finite("schedule.target_return", schedule.target_return, "or null")
    finite("schedule.max_seconds", schedule.max_seconds, "> 0")
    if learning:
        at_least("schedule.total_env_steps", schedule.total_env_steps, 1)
        if not algo.learns:
            raise ValueError(f"schedule.total_env_steps={schedule.total_env_steps}: a learning run "
                             f"needs agent.algo={' or '.join(ALGOS.names(learns=True))} "
                             f"(agent.algo={algo.name} does not learn)")
    if schedule.stop_at_target and (not learning or schedule.target_return is None):
        raise ValueError("schedule.stop_at_target=true: needs a learning run (schedule.total_env_steps) "
                         "with schedule.target_return set")
    if schedule.interleave is not None:
        one_of("schedule.interleave", schedule.interleave, INTERLEAVES)
        if learning:
            raise ValueError(f"schedule.interleave={schedule.interleave}: a learning run is one "
                             "repetition with nothing to interleave; use it with timed repetitions")
    if schedule.max_seconds is not None:
        positive("schedule.max_seconds", schedule.max_seconds)
        if not learning:
            raise ValueError(f"schedule.max_seconds={schedule.max_seconds}: only a learning run "
                             "(schedule.total_env_steps) stops on time; timed repetitions stop by count "
                             "(schedule.reps, or schedule.precision with schedule.max_measure_s)")
    check_precision(schedule, learning, ScheduleConfig)


def _check_machine(cfg: Any, backend: Any, runtime: Any, mode: Any,
                   machine: Callable[[], tuple[Optional[int], int]]) -> None:
    """What the job needs of this machine: CUDA where asked for, the backend's package, the memory
    its emulators take."""
    if runtime.needs_cuda and cfg.device == "cpu":
        raise ValueError(f"agent.runtime={runtime.name}: needs device=cuda or auto, not cpu")
    if cfg.device == "cuda" or runtime.needs_cuda:
        torch = _torch()
        if not torch.cuda.is_available():
            if cfg.device == "cuda":
                raise ValueError("device=cuda: no CUDA device is visible here; allowed: auto, cpu")
            raise ValueError(f"agent.runtime={runtime.name}: needs CUDA graphs and no CUDA device is "
                             f"visible here; allowed here: {', '.join(RUNTIMES.names(needs_cuda=False))}")
    problem = backend.missing()  # agent_only too: it reads the frame shape off a one-env copy
    if problem:
        raise ValueError(problem)
    problem = mode.emulators and memory.refusal(cfg.env.num_envs, backend, machine())
    if problem:
        raise ValueError(problem)


def _check_mode(cfg: Any, mode: Any, runtime: Any) -> None:
    other = cfg.schedule.interleave
    if interleaves(cfg) and MODES[other].agent and (mode.groups or cfg.mode.groups != 1):
        raise NotApplicable(f"schedule.interleave={other}: one build serves {' and '.join(SHARE_A_BUILD)} "
                            f"only, in one batch (mode.name={cfg.mode.name}, mode.groups={cfg.mode.groups})")
    if cfg.mode.groups > 1 and not mode.groups:
        raise NotApplicable(f"mode.groups={cfg.mode.groups}: only {', '.join(MODES.names(groups=True))} "
                            "take groups > 1")
    if runtime.pinned_upload and cfg.env.upload != "pinned" and mode.agent:
        raise NotApplicable(f"env.upload={cfg.env.upload}: agent.runtime={runtime.name} uploads from its own "
                            "pinned buffer inside its graph; allowed: pinned")
    if mode.in_one_batch and cfg.mode.groups == 1:
        raise NotApplicable(f"mode.groups=1: {mode.name} in one batch is {mode.in_one_batch}; "
                            f"use mode={mode.in_one_batch} or groups >= 2")


def _check_agent_relations(agent: Any, mode: Any, runtime: Any, algo: Any) -> None:
    """agent.overlap against the mode, the algorithm and the runtime; another algorithm's key set (the
    chosen one does not read it: a sweep crossing algorithms with it runs the others once)."""
    if agent.overlap and not mode.agent:  # a sweep crossing overlap with the probes runs this one once
        raise NotApplicable(f"agent.overlap=true: mode={mode.name} runs no agent, so its figure is agent.overlap="
                            "false's, which bounds both (the collector lends it); use agent.overlap=false")
    if agent.overlap and not algo.overlaps:
        raise NotApplicable(f"agent.overlap=true: agent.algo={algo.name}'s update reads the rollout slots the next "
                            f"rollout writes; allowed with agent.algo={' or '.join(ALGOS.names(overlaps=True))}")
    if agent.overlap and not runtime.overlaps:
        raise NotApplicable(f"agent.overlap=true: agent.runtime={runtime.name} does not run the update on a stream "
                            f"of its own; allowed with agent.runtime={' or '.join(RUNTIMES.names(overlaps=True))}")
    own = {a.name: algorithm_defaults(a.name) for a in ALGOS}
    for key in dict.fromkeys(k for keys in own.values() for k in keys):  # every algorithm's keys, in order
        value = getattr(agent, key, None)
        if key not in own[algo.name] and value is not None:
            users = [name for name, keys in own.items() if key in keys]
            raise NotApplicable(f"agent.{key}={shown(value)}: agent.algo={algo.name} does not read it; "
                                f"allowed with agent.algo={' or '.join(users)}")


def resolved_device(name: str) -> str:
    """The device a job runs on (as job.resolve_device): auto is cuda where torch sees CUDA, else cpu.
    Asks torch only for auto, so the check of a cpu or cuda config imports no torch."""
    if name != "auto":
        return name
    return "cuda" if _torch().cuda.is_available() else "cpu"


def _torch() -> Any:
    """torch, for a job's check; a stop that comes as it is imported waits for the import's end
    (signals.importing)."""
    with importing():
        import torch
    return torch


SHORT_OF_LOOP = 0.8
"""A repetition whose updates (counted from its start) are fewer than this share of a training
loop's in as many loop steps gets a warning: 200 loop steps of 128-step rollouts hold 1 update
for the loop's 1.56 (0.64), and an update of the reference's took as long as 11-48 loop steps at
64-1 envs in an H100's profiled jobs (2026-12-07; 12-39 on the H200, 2026-11-30), so such reps
read 1.03-1.18x the loop's pace (docs/measuring.md, "Whole rollouts"). The reference's own 1000
steps hold 7 for 7.81 (0.90): no warning on its schedule."""


def warnings_for(cfg: Any) -> list[str]:
    """Legal settings that make the figure less meaningful; stored in the result."""
    notes = []
    if cfg.agent.overlap and MODES[cfg.mode.name].agent and resolved_device(cfg.device) == "cpu":
        # not refused: the overlap's code path (acting one update behind) is the same on the CPU and
        # is tested there; on the GPU machine the same config overlaps
        notes.append("agent.overlap=true: on the CPU nothing overlaps (the update overlaps the next rollout on a "
                     "second CUDA stream), yet the loop still acts one update behind; use agent.overlap=false")
    backend, timeout = BACKENDS[cfg.env.backend], cfg.get("stall_timeout_s")
    if MODES[cfg.mode.name].emulators and backend.build_s and timeout and cfg.env.num_envs * backend.build_s > timeout:
        notes.append(f"env.num_envs={cfg.env.num_envs}: building its emulators takes about "
                     f"{cfg.env.num_envs * backend.build_s:.0f} s ({backend.build_s:g} s each, measured), more than "
                     f"stall_timeout_s={timeout:g}, which stops a set-up that takes longer; raise stall_timeout_s")
    if cfg.schedule.total_env_steps is not None:
        return notes  # one learning run: no repetitions, no bench_steps
    algo, steps = algo_config(cfg.agent), cfg.schedule.bench_steps
    every, held = algo.update_every(), algo.rep_updates(steps)
    if MODES[cfg.mode.name].agent and every is not None:
        if steps < every[1]:
            notes.append(f"schedule.bench_steps={steps} < agent.{every[0]}={every[1]}: "
                         "no update falls inside the timed steps")
        elif held is not None and held * every[1] < SHORT_OF_LOOP * steps:
            notes.append(f"schedule.bench_steps={steps} with agent.{every[0]}={every[1]}: a timed repetition "
                         f"holds {held} update(s), counted from its start as the reference does, where a training "
                         f"loop makes {steps / every[1]:.2f} in {steps} loop steps, so it reads faster than the "
                         f"loop trains; a multiple of {every[1]} times whole rollouts")
    if cfg.schedule.reps == 1:
        notes.append("schedule.reps=1: this job alone gives no interval (pool rounds in the collector)")
    if cfg.schedule.warmup < 3 and RUNTIMES[cfg.agent.runtime].builds_in_warmup:
        notes.append(
            f"schedule.warmup={cfg.schedule.warmup}: CUDA-graph capture may fall inside the timed steps"
        )
    return notes
