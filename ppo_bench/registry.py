"""One registry per axis of a job: backends, runtimes, modes and algorithms (and the networks).

Every name a config may give (`env.backend`, `agent.runtime`, `mode.name`,
`agent.algo`, `agent.name`) is written here once, beside what the rest of the tool asks
about it: config validation reads what an entry allows, the job builds the
entry's class, the collector reads its kind and chart name. Nothing else lists
the names, so adding a backend, runtime, mode or algorithm is one entry here
and one class (plus a YAML for a mode, and for an algorithm its config
dataclass, whose keys the config's schema takes in): see docs/code-map.md.

An entry names its class by import path ("module:attr") and loads it only
when a job builds it, so config checks and the collector import no torch and
no emulator. An entry added at run time (`Registry.add`, e.g. a user's own
backend) travels to the job's process with the job (`added`/`install`).
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Generic, Iterator, Optional, TypeVar


@dataclass(frozen=True)
class Entry:
    name: str
    target: str
    """The class (or factory) that the job builds, as "module:attr"."""

    def load(self):
        return _load(self.target)


def _load(path: str):
    """The object a "module:attr" path names, its module imported."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class Backend(Entry):
    """A vector env adapter: `target(env_cfg, groups, clip_rewards)` gives a `backends.VectorEnv`."""

    package: Optional[str] = None
    """A module that must be importable for this backend (checked without importing it)."""
    needs: str = ""
    """Words for that module in the refusal line."""
    extra: Optional[str] = None
    """The pip extra that installs it."""
    versions: tuple[str, ...] = ()
    """Distributions whose installed versions a result's provenance keeps."""
    batches: bool = True
    """Async batches of num_envs // groups (mode.groups > 1); False refuses groups > 1."""
    no_batches_why: str = ""
    memory_mib: Optional[float] = None
    """MiB of host memory one more env holds once reset and stepped (its emulator and buffers; with
    gymnasium its worker process), with a margin: validate refuses a num_envs whose emulators need
    more than the machine has available (see memory). None: unknown, nothing refused."""
    build_s: Optional[float] = None
    """CPU seconds one more env costs to construct and reset: a large build logs its estimate
    (ale-py builds every emulator in one call that says nothing). None: no estimate."""

    def missing(self) -> Optional[str]:
        """The one-line refusal when this backend's package is not installed, else None. Imports nothing."""
        if self.package is None or importlib.util.find_spec(self.package) is not None:
            return None
        return f'env.backend={self.name}: {self.needs} is not installed; pip install -e ".[{self.extra}]"'


@dataclass(frozen=True)
class Runtime(Entry):
    """How the agent's work reaches the device: `target(algorithm, agent_cfg)` wraps an algorithm
    (`agent.algos.base.Algorithm`), reading its own keys of the agent config (overlap, ...)."""

    needs_cuda: bool = False
    """CUDA graphs by hand: refused on a machine without CUDA, and with device=cpu."""
    pinned_upload: bool = False
    """Uploads frames from its own pinned buffer: env.upload must be pinned."""
    builds_in_warmup: bool = False
    """Compiles or captures in its first loop steps: a short warm-up lets that into the timed steps."""
    old_compile_flag: Optional[bool] = None
    """What `agent.compile` (true or false), the key before agent.runtime, meant in old result files."""
    overlaps: bool = False
    """Can run the update on a stream of its own beside the next rollout (agent.overlap)."""


@dataclass(frozen=True)
class Mode(Entry):
    """A driver: `target(...)` does one loop step's interaction (see drivers)."""

    kind: str = "loop"
    """loop: emulators and agent together (can learn); probe: one side alone, a bound on the loops."""
    emulators: bool = True
    agent: bool = True
    groups: bool = False
    """Takes mode.groups > 1 (batches per loop step)."""
    in_one_batch: Optional[str] = None
    """The mode this one is with groups=1 (async in one batch is sendrecv): groups must then be >= 2."""
    chart: str = ""
    """Name of its array in chart.json (the reference's stepRaw and recvRaw, and their kin)."""


@dataclass(frozen=True)
class Algo(Entry):
    """What the agent computes: `target(config, spec)` gives an `agent.algos.base.Algorithm`, from its
    own config (an instance of `config`) and what it is built for (`agent.algos.base.Spec`)."""

    config: str = "ppo_bench.agent.algos.config:AlgoConfig"
    """Its config dataclass, as "module:attr" (`agent.algos.config.AlgoConfig`): its keys, flat under
    agent. in the config's schema, and their checks. A torch-free module: the config check loads it."""
    learns: bool = False
    """Can make a learning run (schedule.total_env_steps)."""
    clips_rewards_itself: bool = False
    """Wants the emulators' unclipped rewards (it sums them into episode returns and clips for training)."""
    overlaps: bool = False
    """Keeps the rollout an update trains on apart from the one being collected, so the update can
    run beside the next rollout, acting one update behind (agent.overlap)."""

    def config_class(self) -> type:
        return _load(self.config)


@dataclass(frozen=True)
class Network(Entry):
    """An encoder an actor-critic is built on: `target(obs_shape)` gives a torch module."""

    label: str = ""
    """Its name in words, as the report's panels write it (Nature-CNN)."""


E = TypeVar("E", bound=Entry)


class Registry(Generic[E]):
    """The entries of one axis, in order; the first is the reference the others are compared with."""

    def __init__(self, key: str, *entries: E):
        self.key = key
        self._entries: dict[str, E] = {}
        self._builtin = {e.name for e in entries}
        for entry in entries:
            self.add(entry)

    def add(self, entry: E) -> E:
        """Register an entry (a new name, or replace one): a toy backend in a test, a user's own mode."""
        self._entries[entry.name] = entry
        return entry

    def remove(self, name: str) -> None:
        self._entries.pop(name, None)

    def __getitem__(self, name: str) -> E:
        try:
            return self._entries[name]
        except KeyError:
            raise ValueError(f"{self.key}={name}: must be one of {', '.join(self.names())}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[E]:
        return iter(self._entries.values())

    def names(self, **where) -> tuple[str, ...]:
        """Names in order, those whose fields equal `where` (e.g. kind="loop")."""
        return tuple(e.name for e in self if all(getattr(e, k) == v for k, v in where.items()))

    @property
    def reference(self) -> E:
        return next(iter(self._entries.values()))

    def added(self) -> list[E]:
        """Entries added or replaced since the package's own were registered."""
        return [e for e in self if e.name not in self._builtin or e is not self._defaults().get(e.name)]

    def _defaults(self) -> dict:
        return _BUILTIN[self.key]


# memory_mib and build_s: measured 2026-12-02 on a 2-core, 23 GiB machine (ale-py 0.12.1, envpool 1.2.5,
# gymnasium 1.4.0, Pong) with `python bench/emulator_memory.py --backend B --num-envs 64 256` (gymnasium:
# 16 64), docs/results/2026-12-02-cpu/emulator_memory.txt. memory_mib: the growth of the process tree's
# memory (Pss) per env between the two counts, after reset and 50 steps, at most ale 1.65 MiB, envpool
# 1.20, gymnasium 9.18 over the runs there, with a fifth to a quarter more. build_s: CPU seconds per env
# to construct and reset (the wall time there was two to three times that: the machine was loaded).
BACKENDS: Registry[Backend] = Registry(
    "env.backend",
    Backend("ale", "ppo_bench.env.backends:make_ale", memory_mib=2.0, build_s=0.27),
    Backend("envpool", "ppo_bench.env.backends:EnvpoolVectorEnv", package="envpool", needs="the envpool package",
            extra="envpool", versions=("envpool",), memory_mib=1.5, build_s=0.15),
    Backend("gymnasium", "ppo_bench.env.backends:GymnasiumVectorEnv", package="cv2",
            needs="the opencv package (cv2, which gymnasium's AtariPreprocessing needs)", extra="gymnasium",
            versions=("gymnasium", "opencv-python-headless"),
            batches=False, no_batches_why="AsyncVectorEnv steps every env on each call: no batch_size, no env_id",
            memory_mib=11.5, build_s=0.28),
)

RUNTIMES: Registry[Runtime] = Registry(
    "agent.runtime",
    Runtime("compiled", "ppo_bench.agent.runtimes:Compiled", builds_in_warmup=True, old_compile_flag=True),
    Runtime("graphed", "ppo_bench.agent.runtimes:Graphed", needs_cuda=True, pinned_upload=True, builds_in_warmup=True,
            overlaps=True),
    Runtime("eager", "ppo_bench.agent.runtimes:Eager", old_compile_flag=False, overlaps=True),
)

MODES: Registry[Mode] = Registry(
    "mode.name",
    Mode("step", "ppo_bench.loop.drivers:StepDriver", chart="stepRaw"),
    Mode("sendrecv", "ppo_bench.loop.drivers:SendRecvDriver", chart="recvRaw"),
    Mode("async", "ppo_bench.loop.drivers:SendRecvDriver", groups=True, in_one_batch="sendrecv", chart="asyncRaw"),
    Mode("env_only", "ppo_bench.loop.drivers:EnvOnlyDriver", kind="probe", agent=False, groups=True,
         chart="envOnlyRaw"),
    Mode("agent_only", "ppo_bench.loop.drivers:AgentOnlyDriver", kind="probe", emulators=False, groups=True,
         chart="agentOnlyRaw"),
)

ALGOS: Registry[Algo] = Registry(
    "agent.algo",
    Algo("reference", "ppo_bench.agent.algos.reference.algorithm:Reference",
         config="ppo_bench.agent.algos.reference.config:ReferenceConfig"),
    Algo("ppo", "ppo_bench.agent.algos.ppo.algorithm:PPO", config="ppo_bench.agent.algos.ppo.config:PPOConfig",
         learns=True, clips_rewards_itself=True, overlaps=True),
)

NETWORKS: Registry[Network] = Registry(
    "agent.name",
    Network("nature_cnn", "ppo_bench.agent.networks:NatureCNN", label="Nature-CNN"),  # Mnih et al. 2015
    Network("impala_cnn", "ppo_bench.agent.networks:ImpalaCNN", label="IMPALA-CNN"),  # Espeholt et al. 2018
)
"""The encoders an actor-critic is built on (`target(obs_shape)`); here, not in networks, so that
the config's check of `agent.name` imports no torch."""

AXES = (BACKENDS, RUNTIMES, MODES, ALGOS, NETWORKS)
_BUILTIN = {r.key: dict(r._entries) for r in AXES}


def added() -> list[Entry]:
    """Every entry added at run time, on any axis: what a job's process must `install`."""
    return [e for r in AXES for e in r.added()]


def install(entries: list[Entry]) -> None:
    """Register entries another process added (the job's process gets its parent's)."""
    kinds = ((Backend, BACKENDS), (Runtime, RUNTIMES), (Mode, MODES), (Algo, ALGOS), (Network, NETWORKS))
    for entry in entries:
        next(registry for kind, registry in kinds if isinstance(entry, kind)).add(entry)
