"""The typed config schema and the value checks that run before anything is built.

Hydra refuses a wrong *type* through the dataclasses below (registered in its
ConfigStore); `validate` refuses wrong *values* and relations with one
`ValueError` that names the key, the value and what is allowed; a combination
that merely does not apply (a sweep crossing async with num_envs=1) raises its
subclass `NotApplicable`, which a sweep records as skipped. `warnings_for`
lists settings that are legal but weaken the measurement; the runner logs them
and stores them in the result.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Any, Callable, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from ppo_bench.env import memory
from ppo_bench.registry import ALGOS, BACKENDS, MODES, NETWORKS, RUNTIMES, Registry

DEVICES = ("auto", "cuda", "cpu")
UPLOADS = ("pinned", "pageable")
CLIP_AROUND = ("acting", "update_start")


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
class AgentConfig:
    name: str = "nature_cnn"
    """Network: nature_cnn (Mnih et al. 2015) or impala_cnn (Espeholt et al. 2018)."""
    runtime: str = RUNTIMES.reference.name
    """How the agent's work is launched: compiled (the reference's: torch.compile
    reduce-overhead inference, eager update) | graphed (the whole act step and the
    whole update each replayed as one CUDA graph; CUDA only) | eager."""
    compile_on_cpu: bool = False
    """runtime=compiled on CPU: compile anyway (slow to build, no CUDA graphs); off, CPU runs eager."""
    num_steps: int = 128
    """Loop steps between PPO-style updates (rollout length); >= 1."""
    update_epochs: int = 4
    """Passes over the rollout per update; >= 1."""
    num_minibatches: int = 4
    """Minibatches per epoch; >= 1 and must divide num_steps."""
    learning_rate: float = 2.5e-4
    """Adam step size; > 0."""
    algo: str = ALGOS.reference.name
    """What the update computes: reference (the reference's workload: argmax actions, the
    stored values as targets; it times a loop but does not learn) | ppo (sampled actions,
    GAE on the envs' rewards, clipped surrogate: CleanRL's ppo_atari_envpool)."""
    gamma: float = 0.99
    """ppo: discount; in (0, 1]."""
    gae_lambda: float = 0.95
    """ppo: GAE's lambda; in [0, 1]."""
    clip_coef: float = 0.1
    """ppo: surrogate and value clipping range; > 0."""
    vf_coef: float = 0.5
    """ppo: weight of the value loss; >= 0."""
    ent_coef: float = 0.01
    """ppo: weight of the entropy bonus; >= 0."""
    max_grad_norm: float = 0.5
    """ppo: gradients are clipped to this global norm; > 0."""
    anneal_lr: bool = True
    """ppo with schedule.total_env_steps: the step size falls linearly to 0 over the run."""
    normalize_obs: bool = False
    """ppo: frames are standardised per pixel by the running mean and variance of the frames
    trained on (merged at each update's start, clipped to +-5; rl_games' normalize_input);
    false: scaled to [0, 1] only, as the reference does."""
    cudnn_benchmark: bool = True
    """graphed: cuDNN times its conv algorithms for each shape at the capture's warm-up and the
    fastest is replayed; false: its heuristics' choice, 4.7 s sooner at a job's start on the H200."""
    overlap: bool = False
    """The update on rollout k runs on a CUDA stream of its own while the loop collects rollout k+1
    with the parameters from before that update (one update behind, always; Cleanba's overlap);
    false: the reference's, acting with the parameters the last update wrote."""
    clip_around: str = "acting"
    """ppo: what the policy ratio and the value are clipped around. acting: the parameters that
    acted (CleanRL's PPO; with agent.overlap those of one update before). update_start: the
    parameters the update starts from, their ratio to the acting ones weighting each sample
    (Hilton et al.'s decoupled PPO objective), so a lag does not use up the clip range before the
    update's first step; one forward pass over the rollout more an update."""


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
    """A probe without an agent (env_only) to time after each of a loop's timed reps, in the same
    process over the same emulators and batches (result's `interleaved`): between jobs the
    emulators' speed drifts far more than within one, so the loop's ratio to them is read rep by
    rep. The probes' own jobs ignore it (so one sweep can run them too); not part of a result's
    identity; timed repetitions only. null: none."""
    total_env_steps: Optional[int] = None
    """A learning run (schedule=learn): one repetition to this many env steps, with a
    learning curve in the result; needs agent.algo=ppo. null: timed repetitions."""
    target_return: Optional[float] = None
    """Learning runs: the result says when the running mean return first reached this."""
    return_window: int = 20
    """Learning runs: finished episodes in the running mean return; >= 1."""
    stop_at_target: bool = False
    """Learning runs: stop at the update whose running mean return first reaches target_return."""
    max_seconds: Optional[float] = None
    """Learning runs: stop at this much wall time from the job's start (set-up included), at
    the update in progress, whatever the env steps; null: no limit. > 0."""


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


def register_configs() -> None:
    """Put the schema into Hydra's ConfigStore; group YAMLs extend it with `@_here_`."""
    cs = ConfigStore.instance()
    cs.store(name="config_schema", node=Config)
    cs.store(group="schema/env", name="base", node=EnvConfig)
    cs.store(group="schema/agent", name="base", node=AgentConfig)
    cs.store(group="schema/schedule", name="base", node=ScheduleConfig)
    cs.store(group="schema/mode", name="base", node=ModeConfig)


class NotApplicable(ValueError):
    """A legal value in a combination that does not apply (async on one env, groups that do
    not divide num_envs, step in batches): a sweep records such a job as skipped, not failed."""


def _at_least(key: str, value: Any, low: int) -> None:
    if value < low:
        raise ValueError(f"{key}={value}: must be >= {low}")


def _finite(key: str, value: Any, allowed: str) -> None:
    """Refuse inf, -inf and nan before the range checks: a comparison with nan is always False, and
    inf would pass `> 0`, run the whole job and leave a record that JSON cannot hold."""
    if value is not None and not math.isfinite(value):
        raise ValueError(f"{key}={value}: must be a finite number {allowed}")


def _one_of(key: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{key}={value}: must be one of {', '.join(allowed)}")


def _entry(registry: Registry, value: Any):
    """The registry's entry for a config value; one line naming the key and the names it has."""
    _one_of(registry.key, value, registry.names())
    return registry[value]


def known_games() -> list[str]:
    from ale_py import roms

    return sorted(roms.get_all_rom_ids())


def validate(cfg: Any, machine: Callable[[], tuple[Optional[int], int]] = memory.machine) -> None:
    """Refuse a bad value with one ValueError naming key, value and what is allowed.

    Runs before any environment or model is built, so a typo costs nothing. The
    relations between values that a sweep crosses come last, as NotApplicable.
    `machine()` says the memory available and the slots sharing it (memory.machine reads them).
    """
    mode = _entry(MODES, cfg.mode.name)
    _entry(NETWORKS, cfg.agent.name)
    _one_of("device", cfg.device, DEVICES)
    _one_of("env.upload", cfg.env.upload, UPLOADS)
    backend = _entry(BACKENDS, cfg.env.backend)
    runtime = _entry(RUNTIMES, cfg.agent.runtime)
    algo = _entry(ALGOS, cfg.agent.algo)
    games = known_games()
    if cfg.env.game not in games:
        close = difflib.get_close_matches(cfg.env.game, games, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; ale-py has {len(games)} ROMs, e.g. pong, breakout"
        raise ValueError(f"env.game={cfg.env.game}: not a ROM that ale-py has{hint}")
    _at_least("env.num_envs", cfg.env.num_envs, 1)
    _at_least("env.frameskip", cfg.env.frameskip, 1)
    if cfg.env.num_threads is not None:
        _at_least("env.num_threads", cfg.env.num_threads, 1)
    _at_least("agent.num_steps", cfg.agent.num_steps, 1)
    _at_least("agent.update_epochs", cfg.agent.update_epochs, 1)
    _at_least("agent.num_minibatches", cfg.agent.num_minibatches, 1)
    if cfg.agent.num_steps % cfg.agent.num_minibatches:
        raise ValueError(
            f"agent.num_minibatches={cfg.agent.num_minibatches}: must divide "
            f"agent.num_steps={cfg.agent.num_steps}"
        )
    _one_of("agent.clip_around", cfg.agent.clip_around, CLIP_AROUND)
    _finite("agent.learning_rate", cfg.agent.learning_rate, "> 0")
    if not cfg.agent.learning_rate > 0:
        raise ValueError(f"agent.learning_rate={cfg.agent.learning_rate}: must be > 0")
    _check_ppo(cfg.agent)
    _at_least("schedule.reps", cfg.schedule.reps, 1)
    _at_least("schedule.bench_steps", cfg.schedule.bench_steps, 1)
    _at_least("schedule.warmup", cfg.schedule.warmup, 1)
    _at_least("schedule.return_window", cfg.schedule.return_window, 1)
    learning = cfg.schedule.total_env_steps is not None
    _finite("schedule.target_return", cfg.schedule.target_return, "or null")
    _finite("schedule.max_seconds", cfg.schedule.max_seconds, "> 0")
    if learning:
        _at_least("schedule.total_env_steps", cfg.schedule.total_env_steps, 1)
        if not algo.learns:
            raise ValueError(f"schedule.total_env_steps={cfg.schedule.total_env_steps}: a learning run "
                             f"needs agent.algo={' or '.join(ALGOS.names(learns=True))} "
                             f"(agent.algo={cfg.agent.algo} does not learn)")
    if cfg.schedule.stop_at_target and (not learning or cfg.schedule.target_return is None):
        raise ValueError("schedule.stop_at_target=true: needs a learning run (schedule.total_env_steps) "
                         "with schedule.target_return set")
    if cfg.schedule.interleave is not None:
        _one_of("schedule.interleave", cfg.schedule.interleave, MODES.names(kind="probe", agent=False))
        if learning:
            raise ValueError(f"schedule.interleave={cfg.schedule.interleave}: a learning run is one "
                             "repetition with nothing to interleave; use it with timed repetitions")
    if cfg.schedule.max_seconds is not None:
        if not cfg.schedule.max_seconds > 0:
            raise ValueError(f"schedule.max_seconds={cfg.schedule.max_seconds}: must be > 0")
        if not learning:
            raise ValueError(f"schedule.max_seconds={cfg.schedule.max_seconds}: only a learning run "
                             "(schedule.total_env_steps) stops on time; timed repetitions have a fixed length")
    _at_least("mode.groups", cfg.mode.groups, 1)
    _at_least("seed", cfg.seed, 0)
    _at_least("round", cfg.round, 0)
    _finite("stall_timeout_s", cfg.stall_timeout_s, "> 0")
    if not cfg.stall_timeout_s > 0:
        raise ValueError(f"stall_timeout_s={cfg.stall_timeout_s}: must be > 0")
    if runtime.needs_cuda and cfg.device == "cpu":
        raise ValueError(f"agent.runtime={runtime.name}: needs device=cuda or auto, not cpu")
    if cfg.device == "cuda" or runtime.needs_cuda:
        import torch

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
    # Relations last: a NotApplicable then means every value on its own was right.
    if cfg.mode.groups > 1 and mode.emulators and not backend.batches:
        # a sweep crossing backends with async skips these
        raise NotApplicable(f"mode.groups={cfg.mode.groups}: env.backend={backend.name} has no async batches "
                            f"({backend.no_batches_why}); use groups=1")
    if cfg.env.num_envs % cfg.mode.groups:
        raise NotApplicable(
            f"mode.groups={cfg.mode.groups}: must divide env.num_envs={cfg.env.num_envs}"
        )
    if cfg.mode.groups > 1 and not mode.groups:
        raise NotApplicable(f"mode.groups={cfg.mode.groups}: only {', '.join(MODES.names(groups=True))} "
                            "take groups > 1")
    if runtime.pinned_upload and cfg.env.upload != "pinned" and mode.agent:
        raise NotApplicable(f"env.upload={cfg.env.upload}: agent.runtime={runtime.name} uploads from its own "
                            "pinned buffer inside its graph; allowed: pinned")
    if mode.in_one_batch and cfg.mode.groups == 1:
        raise NotApplicable(f"mode.groups=1: {mode.name} in one batch is {mode.in_one_batch}; "
                            f"use mode={mode.in_one_batch} or groups >= 2")
    if cfg.agent.overlap and not mode.agent:  # a sweep crossing overlap with the probes runs this one once
        raise NotApplicable(f"agent.overlap=true: mode={mode.name} runs no agent, so its figure is agent.overlap="
                            "false's, which bounds both (the collector lends it); use agent.overlap=false")
    if cfg.agent.overlap and not algo.overlaps:
        raise NotApplicable(f"agent.overlap=true: agent.algo={algo.name}'s update reads the rollout slots the next "
                            f"rollout writes; allowed with agent.algo={' or '.join(ALGOS.names(overlaps=True))}")
    if cfg.agent.overlap and not runtime.overlaps:
        raise NotApplicable(f"agent.overlap=true: agent.runtime={runtime.name} does not run the update on a stream "
                            f"of its own; allowed with agent.runtime={' or '.join(RUNTIMES.names(overlaps=True))}")
    if cfg.agent.clip_around != "acting" and not algo.learns:
        raise NotApplicable(f"agent.clip_around={cfg.agent.clip_around}: agent.algo={algo.name} clips nothing; "
                            f"allowed with agent.algo={' or '.join(ALGOS.names(learns=True))}")
    if cfg.agent.normalize_obs and not algo.learns:
        raise NotApplicable(f"agent.normalize_obs=true: agent.algo={algo.name} does not train on its frames; "
                            f"allowed with agent.algo={' or '.join(ALGOS.names(learns=True))}")
    if learning and mode.kind != "loop":
        raise NotApplicable(f"mode.name={cfg.mode.name}: a learning run needs emulators and an agent; "
                            f"allowed: {', '.join(MODES.names(kind='loop'))}")


def _check_ppo(agent: Any) -> None:
    """PPO's hyperparameters (checked whatever the algo: a typo is a typo)."""
    for key, allowed in (("gamma", "in (0, 1]"), ("gae_lambda", "in [0, 1]"), ("clip_coef", "> 0"),
                         ("max_grad_norm", "> 0"), ("vf_coef", ">= 0"), ("ent_coef", ">= 0")):
        _finite(f"agent.{key}", getattr(agent, key), allowed)
    if not 0 < agent.gamma <= 1:
        raise ValueError(f"agent.gamma={agent.gamma}: must be in (0, 1]")
    if not 0 <= agent.gae_lambda <= 1:
        raise ValueError(f"agent.gae_lambda={agent.gae_lambda}: must be in [0, 1]")
    for key in ("clip_coef", "max_grad_norm"):
        if not getattr(agent, key) > 0:
            raise ValueError(f"agent.{key}={getattr(agent, key)}: must be > 0")
    for key in ("vf_coef", "ent_coef"):
        if not getattr(agent, key) >= 0:
            raise ValueError(f"agent.{key}={getattr(agent, key)}: must be >= 0")


def resolved_device(name: str) -> str:
    """The device a job runs on (as job.resolve_device): auto is cuda where torch sees CUDA, else cpu.
    Asks torch only for auto, so the check of a cpu or cuda config imports no torch."""
    if name != "auto":
        return name
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


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
    if MODES[cfg.mode.name].agent and cfg.schedule.bench_steps < cfg.agent.num_steps:
        notes.append(
            f"schedule.bench_steps={cfg.schedule.bench_steps} < agent.num_steps="
            f"{cfg.agent.num_steps}: no update falls inside the timed steps"
        )
    if cfg.schedule.reps == 1:
        notes.append("schedule.reps=1: this job alone gives no interval (pool rounds in the collector)")
    if cfg.schedule.warmup < 3 and RUNTIMES[cfg.agent.runtime].builds_in_warmup:
        notes.append(
            f"schedule.warmup={cfg.schedule.warmup}: CUDA-graph capture may fall inside the timed steps"
        )
    return notes
