"""hydra/launcher=ray against a real Ray cluster that the test starts on this machine (a head and a
second node on 127.0.0.1, each with its own CPU, as Ray's own tests do with ray.cluster_utils.Cluster):
a sweep across both nodes, a raylet killed mid-sweep, Ctrl-C of the sweep."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cluster_sweeps import LONG, no_sweep_left, notes, records, until  # noqa: F401 - a fixture
from cluster_sweeps import started as started_sweep
from conftest import ROOT

pytestmark = pytest.mark.slow
ray = pytest.importorskip("ray")

TINY = ["device=cpu", "env.num_envs=2", "schedule.reps=2", "schedule.bench_steps=8", "schedule.warmup=2",
        "agent.num_steps=4", "agent.num_minibatches=2"]


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    worker = c.add_node(num_cpus=1)
    c.wait_for_nodes()
    try:
        yield {"cluster": c, "worker": worker}
    finally:
        c.shutdown()


def command(address: str, sweep_dir: Path, *overrides: str) -> list[str]:
    return [sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", "hydra/launcher=ray",
            f"hydra.launcher.address={address}", "hydra.launcher.cpus_per_job=1", *TINY, *overrides]


def started(address: str, sweep_dir: Path, *overrides: str) -> subprocess.Popen:
    return started_sweep(command(address, sweep_dir, *overrides))


def test_a_sweep_runs_across_both_nodes_and_records_each_grant(cluster, tmp_path):
    c = cluster["cluster"]
    out = subprocess.run(command(c.address, tmp_path, "mode=step,sendrecv", "seed=1,2", "schedule.max_measure_s=3",
                                 *LONG), cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    got = records(tmp_path)
    assert len(got) == 4 and all(r["status"] == "ok" for r in got.values())
    grants = [r["placement"]["grant"] for r in got.values()]
    assert {(g["scheduler"], g["cpus"], g["nice"]) for g in grants} == {("ray", 1, 0)}  # Ray's 15 undone
    assert len({g["node"] for g in grants}) == 2  # both nodes ran jobs
    assert (tmp_path / "summary" / "table.csv").exists()


def test_a_raylet_killed_mid_sweep_loses_no_finished_record_and_resume_finishes(cluster, tmp_path):
    c = cluster["cluster"]
    proc = started(c.address, tmp_path, "schedule.max_measure_s=1,40,41", *LONG)  # a short job, two long
    until(lambda: len([r for r in records(tmp_path).values() if r["status"] == "ok"]) >= 1
          and sum(1 for n in notes(tmp_path) if n.get("overrides")) == 3)
    time.sleep(3)  # both long jobs run, one on each node
    done = {p: p.read_bytes() for p in tmp_path.glob("*/result.json")}
    assert all(n.get("ray_task") for n in notes(tmp_path) if n.get("overrides"))  # each names its task
    c.remove_node(cluster.pop("worker"))  # its raylet and workers killed
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, err[-3000:]
    assert all(p.read_bytes() == b for p, b in done.items())  # no finished record lost
    assert err.count("its Ray task died before it returned") == 1, err[-3000:]
    assert "1 of 3 jobs failed" in err
    cluster["worker"] = c.add_node(num_cpus=1)  # for resume, and the next test
    c.wait_for_nodes()
    again = subprocess.run(command(c.address, tmp_path, "schedule.max_measure_s=1,40,41", *LONG, "resume=true"),
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert len(records(tmp_path)) == 3 and all(r["status"] == "ok" for r in records(tmp_path).values())


def test_ctrl_c_ends_every_job_and_each_in_progress_records_it(cluster, tmp_path):
    c = cluster["cluster"]
    proc = started(c.address, tmp_path, "schedule.max_measure_s=60", "seed=1,2,3,4", *LONG)
    until(lambda: sum(1 for n in notes(tmp_path) if n.get("overrides")) >= 2)
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 130, err[-3000:]
    started_jobs = {n["job"] for n in notes(tmp_path) if n.get("overrides")}
    assert all(any(n["job"] == j and n.get("ended") for n in notes(tmp_path)) for j in started_jobs)
    stopped = records(tmp_path)
    assert len(stopped) == len(started_jobs) and all(r["error"].startswith("KeyboardInterrupt") for r in stopped.values())
    time.sleep(5)
    assert {n["job"] for n in notes(tmp_path) if n.get("overrides")} == started_jobs  # none started after
