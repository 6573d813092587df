"""`python run.py --help` is ppo_bench's own: its groups, presets with their `+`, the common keys
with their defaults, and the collector, not Hydra's generic text with the schema/... groups."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml
from omegaconf import OmegaConf

from conftest import CONF, ROOT, compose_config
from ppo_bench.config.agent import narrowed_agent

GROUPS = ("env", "agent", "schedule", "mode")


@pytest.fixture(scope="module")
def help_text() -> str:
    out = subprocess.run([sys.executable, "run.py", "--help"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _section(text: str, title: str) -> str:
    match = re.search(rf"^== {re.escape(title)}.*?==\n(.*?)(?=^== |\Z)", text, re.M | re.S)
    assert match, f"no '== {title}' section in --help:\n{text}"
    return match.group(1)


def test_help_lists_every_preset_with_its_plus(help_text):
    presets = sorted(p.stem for p in (CONF / "preset").glob("*.yaml"))
    assert "quick" in presets
    section = _section(help_text, "Presets")
    for name in presets:
        assert re.search(rf"^\s+\+preset={name}\s+\S", section, re.M), f"+preset={name} not listed:\n{section}"
    assert not re.search(r"(?<!\+)preset=", help_text), "a preset written without its +"


def test_help_lists_the_real_groups_and_their_options_not_the_schema(help_text):
    assert "schema/" not in help_text and "schema" not in help_text
    section = _section(help_text, "Groups")
    for group in GROUPS:
        options = sorted(p.stem for p in (CONF / group).glob("*.yaml"))
        match = re.search(rf"^\s+{group}=(\S+)", section, re.M)
        assert match, f"group {group} not listed:\n{section}"
        assert sorted(match.group(1).split("|")) == options


def test_help_lists_common_keys_with_their_true_defaults(help_text):
    section = _section(help_text, "Common keys")
    listed = dict(re.findall(r"^\s+([a-z_][a-z_.0-9]*)=(\S+)\s", section, re.M))
    for key in ("env.num_envs", "env.backend", "mode.groups", "agent.runtime", "agent.algo", "schedule.reps",
                "schedule.bench_steps", "schedule.profile", "device", "seed", "resume", "collect",
                "stall_timeout_s"):
        assert key in listed, f"{key} not listed:\n{section}"
    cfg = OmegaConf.to_container(compose_config(tiny=False))
    cfg["agent"] = narrowed_agent(cfg["agent"])  # an algorithm's keys at its defaults: the default algorithm's
    cfg = OmegaConf.create(cfg)
    for key, shown in listed.items():
        value = OmegaConf.select(cfg, key, default="<missing>")
        assert value != "<missing>", f"--help lists {key}, which is not a config key"
        assert yaml.safe_load(shown) == value, f"{key}: --help says {shown}, the default is {value}"


def test_help_names_the_collector_and_the_main_job(help_text):
    assert "python -m ppo_bench.collect outputs/multirun/<date>" in help_text
    assert "python run.py -m +preset=quick" in help_text
    assert "powered by Hydra" not in help_text


def test_help_says_when_each_learning_preset_stops(help_text):
    presets = {p.stem: yaml.safe_load(p.read_text()) for p in (CONF / "preset").glob("*.yaml")}
    learning = {name: cfg["schedule"] for name, cfg in presets.items() if "max_seconds" in cfg.get("schedule", {})}
    assert {"learn", "learn_fast"} <= set(learning)
    section = _section(help_text, "Presets")
    for name, schedule in learning.items():
        line = re.search(rf"^\s+\+preset={name}\s+(.*(?:\n\s{{20,}}\S.*)*)", section, re.M).group(1)
        assert f"{schedule['max_seconds'] // 60} minutes" in line, f"{name}: {line}"
        assert f"{schedule['total_env_steps'] // 1_000_000}M env steps" in line, f"{name}: {line}"
        if schedule.get("stop_at_target"):
            assert f"stops at +{schedule['target_return']}" in line, f"{name}: {line}"


def test_help_names_only_files_a_clone_has_and_the_reference_workload(help_text):
    named = set(re.findall(r"[\w./-]+\.(?:md|yaml|py)\b", help_text))
    assert "docs/reference-workload.md" in named, help_text
    assert all((ROOT / n).is_file() for n in named), named
