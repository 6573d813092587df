"""A plugin as a user installs it: the A2C package in tests/plugins/a2c, installed by pip into a folder of
its own (its entry point then found by every process), or named by its folder's path with the plugins key,
run from the command line: every mode with an agent and a learning run with overlap under the basic
launcher and, two at a time, under the node launcher, and in the fresh processes of SLURM's launcher. A PPO
sweep made before it was installed resumes without running a job, and collects into one group with one made
after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT
from ppo_bench.record.results import read_result

pytestmark = pytest.mark.slow

PACKAGE = ROOT / "tests" / "plugins" / "a2c"
TINY = ["device=cpu", "env.num_envs=2", "schedule.reps=2", "schedule.bench_steps=8", "schedule.warmup=2"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, str]:
    """The environment of a process in which the A2C package is installed: pip's own install (its
    dist-info and entry point) into a folder on PYTHONPATH, built from this repository offline."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(target), str(PACKAGE)], check=True, capture_output=True,
                   timeout=300, env={**os.environ, "PIP_NO_CACHE_DIR": "1"})
    assert (target / "ppo_bench_a2c").is_dir() and list(target.glob("ppo_bench_a2c-*.dist-info/entry_points.txt"))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}


def run_py(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "run.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env=env)


def records(sweep: Path) -> dict[str, dict]:
    return {p.parent.name: read_result(p) for p in sweep.glob("*/result.json")}


def test_an_installed_a2c_runs_every_mode_with_an_agent_under_the_basic_launcher(tmp_path, installed):
    out = run_py("-m", f"hydra.sweep.dir={tmp_path}", "agent.algo=a2c", "mode=step,sendrecv,async,agent_only",
                 *TINY, env=installed)
    assert out.returncode == 0, out.stderr[-3000:]
    got = records(tmp_path)
    assert sorted(r["mode"] for r in got.values()) == ["agent_only", "async", "sendrecv", "step"]
    for r in got.values():
        assert r["status"] == "ok" and r["algo"] == "a2c" and len(r["throughput"]["reps"]) == 2, r["error"]
        agent = r["config"]["agent"]
        assert (agent["num_steps"], agent["learning_rate"]) == (5, 7e-4)  # its own defaults
        assert not {"num_minibatches", "clip_coef", "update_epochs"} & set(agent)  # nor another's keys
    table = pd.read_csv(tmp_path / "summary" / "table.csv")
    assert sorted(table["mode"]) == ["agent_only", "async", "sendrecv", "step"] and set(table["algo"]) == {"a2c"}


def test_an_installed_a2c_makes_a_learning_run_with_overlap(tmp_path, installed):
    out = run_py(f"hydra.run.dir={tmp_path}", "agent.algo=a2c", "schedule=learn", "mode=async", "agent.overlap=true",
                 "agent.runtime=eager", "schedule.total_env_steps=60", "device=cpu", "env.num_envs=4", env=installed)
    assert out.returncode == 0, out.stderr[-3000:]
    r = read_result(tmp_path / "result.json")
    assert r["status"] == "ok" and r["config"]["agent"]["overlap"] is True
    learning = r["learning"]
    assert learning["total_env_steps"] >= 60 and learning["updates"] == len(learning["curve"]["env_steps"]) >= 2


NAMED = [f"plugins=[{PACKAGE / 'ppo_bench_a2c'}]", "agent.algo=a2c", "agent.num_steps=4"]
"""A2C not installed: the plugins key names its folder."""
NODE = ["hydra/launcher=node", "hydra.launcher.cpu_jobs=2"]


def test_a2c_named_by_its_folder_runs_every_mode_with_an_agent_two_at_once_under_the_node_launcher(tmp_path):
    """Each of the node launcher's workers, and each job's child, loads it from the job's config."""
    out = run_py("-m", f"hydra.sweep.dir={tmp_path}", *NAMED, "mode=step,sendrecv,async,agent_only", *NODE, *TINY)
    assert out.returncode == 0, out.stderr[-3000:]
    got = records(tmp_path)
    assert sorted(r["mode"] for r in got.values()) == ["agent_only", "async", "sendrecv", "step"]
    assert all(r["status"] == "ok" and r["config"]["agent"]["num_steps"] == 4 for r in got.values())
    assert all(r["placement"] is not None for r in got.values())  # each in a slot of the node launcher
    assert all("plugins" not in name for name in got)  # not in the folders' names, nor in the identity
    assert all("plugins" not in r["config"] for r in got.values())


def test_a2c_named_by_its_folder_makes_a_learning_run_with_overlap_under_the_node_launcher(tmp_path):
    out = run_py("-m", f"hydra.sweep.dir={tmp_path}", *NAMED, "schedule=learn", "mode=async", "agent.overlap=true",
                 "agent.runtime=eager", "schedule.total_env_steps=60", "device=cpu", "env.num_envs=4", *NODE)
    assert out.returncode == 0, out.stderr[-3000:]
    (r,) = records(tmp_path).values()
    assert r["status"] == "ok" and r["placement"] is not None and r["learning"]["updates"] >= 2


def test_a2c_named_by_its_folder_runs_in_the_fresh_processes_of_slurm_s_launcher(tmp_path):
    """hydra/launcher=slurm's code through submitit's local executor: each job in a fresh interpreter,
    as on a SLURM node, which loads the plugin from the job's config."""
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    local = ["hydra/launcher=submitit_local",
             "hydra.launcher._target_=hydra_plugins.ppo_bench_launcher.submitit_launchers.LocalLauncher"]
    out = run_py("-m", f"hydra.sweep.dir={tmp_path}", *local, *NAMED, "mode=step,sendrecv", *TINY)
    assert out.returncode == 0, out.stderr[-3000:]
    got = records(tmp_path)
    assert sorted(r["mode"] for r in got.values()) == ["sendrecv", "step"]
    assert all(r["status"] == "ok" and r["algo"] == "a2c" for r in got.values())


def test_a_ppo_sweep_made_before_the_plugin_resumes_and_collects_with_one_made_after(tmp_path, installed):
    ppo = ["agent.algo=ppo", "agent.num_steps=4", "agent.num_minibatches=2", "mode=step,sendrecv", *TINY]
    before = tmp_path / "before"
    assert run_py("-m", f"hydra.sweep.dir={before}", *ppo).returncode == 0
    written = {name: r["timing"]["finished_at"] for name, r in records(before).items()}
    assert len(written) == 2

    again = run_py("-m", f"hydra.sweep.dir={before}", *ppo, "resume=true", env=installed)
    assert again.returncode == 0, again.stderr[-3000:]
    assert {name: r["timing"]["finished_at"] for name, r in records(before).items()} == written  # none ran again
    assert again.stderr.count("already ok") + again.stdout.count("already ok") == 2, again.stderr[-3000:]

    after = tmp_path / "after"
    assert run_py("-m", f"hydra.sweep.dir={after}", *ppo, env=installed).returncode == 0
    both = subprocess.run([sys.executable, "-m", "ppo_bench.collect", str(before), str(after), "--out",
                           str(tmp_path / "both"), "--no-plot"], capture_output=True, text=True, timeout=300,
                          env=installed)
    assert both.returncode == 0, both.stderr
    table = pd.read_csv(tmp_path / "both" / "table.csv")
    assert len(table) == 2 and table["group"].nunique() == 1  # one configuration: each cell pools both sweeps
    assert sorted(table["n"]) == [4, 4] and all(len(json.loads(r)) == 4 for r in table["reps"])
