"""The Protocols of agent.algos.base say what the loop's side calls: the drivers, the loop and the job
call nothing of the agent (`Agent`) or of its tracker (`EpisodeReturns`) that they do not declare,
and the package's runtimes and tracker have every member they declare.

So a driver, a runtime or a tracker written elsewhere can be written from the Protocols alone, and
a call added to the loop without its declaration fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import torch

from conftest import compose_config
from ppo_bench.agent.algos.base import Agent, EpisodeReturns
from ppo_bench.agent.algos.onpolicy.episodes import EpisodeTracker
from ppo_bench.agent.make import make_agent
from ppo_bench.agent.runtimes import Compiled, Eager, Graphed

PACKAGE = Path(__file__).resolve().parents[1] / "ppo_bench"
CALLERS = ["loop/drivers.py", "loop/run.py", "loop/phases.py", "loop/observers.py", "job/child.py"]


def declared(protocol: type) -> set[str]:
    return {name for name in vars(protocol) if not name.startswith("_")} | set(protocol.__annotations__)


def used(name: str) -> dict[str, set[str]]:
    """Per caller, the attributes read off `name` (a local `agent`, or `self.agent`, `driver.agent`,
    `other.agent`; not a config's `cfg.agent`)."""
    out = {}
    for caller in CALLERS:
        found = set()
        for node in ast.walk(ast.parse((PACKAGE / caller).read_text())):
            if not isinstance(node, ast.Attribute):
                continue
            held = node.value
            if (isinstance(held, ast.Name) and held.id == name) or (
                    isinstance(held, ast.Attribute) and held.attr == name and isinstance(held.value, ast.Name)
                    and held.value.id in ("self", "driver", "other")):
                found.add(node.attr)
        out[caller] = found
    return out


@pytest.mark.parametrize("protocol, name", [(Agent, "agent"), (EpisodeReturns, "tracker")])
def test_the_loop_s_side_calls_only_what_the_protocols_declare(protocol, name):
    calls = used(name)
    assert set().union(*calls.values()), f"no call on {name} found: the test reads the wrong names"
    undeclared = {caller: sorted(found - declared(protocol)) for caller, found in calls.items() if found - declared(protocol)}
    assert not undeclared, f"calls on the {name} not declared in {protocol.__name__}: {undeclared}"


@pytest.mark.parametrize("runtime", [Eager, Compiled, Graphed])
def test_every_runtime_has_what_agent_declares(runtime):
    assert not declared(Agent) - set(dir(runtime))


def test_the_package_s_agent_and_tracker_meet_the_protocols():
    agent = make_agent(compose_config("agent.algo=ppo", "agent.runtime=eager").agent, (4, 84, 84), 6, 2, torch.device("cpu"))
    assert isinstance(agent, Agent) and isinstance(agent.tracker, EpisodeReturns)
    assert isinstance(EpisodeTracker(2), EpisodeReturns)
