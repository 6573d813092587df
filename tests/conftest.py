"""Compose the real config tree with Hydra's compose API, shrunk to a CPU-sized job."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import DictConfig

from ppo_bench.config.schema import register_configs
from ppo_bench.registry import ALGOS, BACKENDS, Algo, Backend

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
FAULTS = Path(__file__).resolve().parent / "fault_injection"

# Two envs, two reps of 8 loop steps, an update every 4: seconds on a 2-core CPU.
TINY = [
    "device=cpu",
    "env.num_envs=2",
    "schedule.reps=2",
    "schedule.bench_steps=8",
    "schedule.warmup=3",
    "agent.num_steps=4",
    "agent.num_minibatches=2",
    "collect=false",
]

register_configs()


def merge_overrides(*lists: list[str]) -> list[str]:
    """Later overrides of the same key replace earlier ones (compose refuses duplicates)."""
    merged: dict[str, str] = {}
    for override in (o for lst in lists for o in lst):
        merged[override.split("=", 1)[0].lstrip("+~")] = override
    return list(merged.values())


def compose_config(*overrides: str, tiny: bool = True) -> DictConfig:
    with initialize_config_dir(str(CONF), version_base="1.3"):  # clears GlobalHydra on exit
        return compose("config", overrides=merge_overrides(TINY if tiny else [], list(overrides)),
                       return_hydra_config=True)


@contextmanager
def registered(algo: Algo, backend: Optional[Backend] = None) -> Iterator[None]:
    """`algo` (and `backend`) in the registries, and the algorithm's keys in the schema, while it lasts:
    an algorithm added from outside the package, as a plugin adds one (no module of ppo_bench names it)."""
    if backend is not None:
        BACKENDS.add(backend)
    ALGOS.add(algo)
    register_configs()
    try:
        yield
    finally:
        ALGOS.remove(algo.name)
        if backend is not None:
            BACKENDS.remove(backend.name)
        register_configs()


@pytest.fixture
def tiny_cfg():
    """compose_config with the tiny CPU schedule; call it with extra overrides."""
    return compose_config


def fault_env(*faults: str) -> dict[str, str]:
    """Environment variables that make Python processes started with them inject `faults`
    (see tests/fault_injection/sitecustomize.py); this process is not affected."""
    path = os.pathsep.join(p for p in (str(FAULTS), os.environ.get("PYTHONPATH")) if p)
    return {"PYTHONPATH": path, "PPO_BENCH_FAULT": ";".join(faults)}


@pytest.fixture
def inject(monkeypatch):
    """inject(*faults): the job processes this test starts from now on get the faults."""
    def inject(*faults: str) -> None:
        for key, value in fault_env(*faults).items():
            monkeypatch.setenv(key, value)
    return inject


STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def as_a_terminal_s() -> None:
    """A subprocess's preexec_fn: Ctrl-C, SIGTERM and SIGHUP as a terminal's process gets them (their
    default actions, none blocked), whatever the tests inherited: a shell that starts them in the
    background (`cmd &`) makes them ignore SIGINT, nohup SIGHUP, and a sweep keeps an ignored signal
    ignored (Python then never raises KeyboardInterrupt)."""
    for s in STOPS:
        signal.signal(s, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
