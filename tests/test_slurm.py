"""hydra/launcher=slurm against a real SLURM cluster of one node started on this machine
(tests/slurm_cluster.py: munged, slurmctld and slurmd on 127.0.0.1, no accounting): real sbatch jobs,
scancel, a time limit, Ctrl-C of the sweep, a node set DOWN, a second sweep into the same folder."""

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
from ppo_bench.record import provenance
import slurm_cluster

pytestmark = pytest.mark.slow
pytest.importorskip("hydra_plugins.hydra_submitit_launcher")

TINY = ["device=cpu", "env.num_envs=2", "schedule.reps=2", "schedule.bench_steps=8", "schedule.warmup=2",
        "agent.num_steps=4", "agent.num_minibatches=2"]
SLURM = ["hydra/launcher=slurm", f"hydra.launcher.partition={slurm_cluster.PARTITION}", "hydra.launcher.gpus_per_node=0",
         "hydra.launcher.cpus_per_task=1", "hydra.launcher.mem_gb=1", "hydra.launcher.timeout_min=10",
         "~hydra.launcher.additional_parameters.exclusive"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    why = slurm_cluster.missing()
    if why:
        pytest.skip(why)
    with slurm_cluster.cluster(tmp_path_factory.mktemp("slurm")) as c:
        yield c


@pytest.fixture(autouse=True)
def queue_left_empty(cluster):
    """Whatever a test leaves in the queue (a sweep it killed leaves its SLURM jobs) is cancelled after
    it, and the node resumed: the node has one core per job, and a job left running would hold the next
    test's jobs pending (on a busy machine a timed-out test so failed the one after it)."""
    yield
    left = cluster.queue()
    if left:
        cluster.run("scancel", "--full", *[line.split()[0] for line in left])
        until(lambda: cluster.queue() == [], timeout=120)
    cluster.run("scontrol", "update", f"nodename={cluster.node}", "state=resume")  # where down; refused where up


def command(sweep_dir: Path, *overrides: str) -> list[str]:
    return [sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", *SLURM, *TINY, *overrides]


def sweep(cluster, sweep_dir: Path, *overrides: str) -> subprocess.CompletedProcess:
    return subprocess.run(command(sweep_dir, *overrides), cwd=ROOT, env=cluster.env, capture_output=True, text=True,
                          timeout=600)


def started(cluster, sweep_dir: Path, *overrides: str) -> subprocess.Popen:
    return started_sweep(command(sweep_dir, *overrides), env=cluster.env)


def running_note(sweep_dir: Path, part: str) -> dict:
    """The start note of the job whose overrides hold `part`, once it runs and has measured (its record
    not yet written)."""
    def note():
        ended = {n["job"] for n in notes(sweep_dir) if n.get("ended")}
        return next((n for n in notes(sweep_dir) if n.get("overrides") and part in n["overrides"]
                     and n["job"] not in ended and (sweep_dir / n["job"] / ".hydra").exists()), None)
    return until(note)


def test_a_sweep_of_four_jobs_runs_as_sbatch_jobs_records_its_grants_and_is_collected(cluster, tmp_path):
    out = sweep(cluster, tmp_path, "mode=step,sendrecv", "seed=1,2")
    assert out.returncode == 0, out.stderr[-3000:]
    got = records(tmp_path)
    assert len(got) == 4 and all(r["status"] == "ok" for r in got.values())
    grants = [r["placement"]["grant"] for r in got.values()]
    assert {(g["scheduler"], g["partition"], g["node"], g["cpus"]) for g in grants} == {
        ("slurm", slurm_cluster.PARTITION, cluster.node, 1)}
    assert len({g["job_id"] for g in grants}) == 4 and all(r["placement"]["cores"] for r in got.values())
    assert all(len(r["placement"]["cores"]) == 1 for r in got.values())  # its one CPU, as SLURM pinned it
    assert (tmp_path / "summary" / "table.csv").exists()  # the sweep collected itself
    script = next((tmp_path / ".submitit").rglob("*_submission.sh")).read_text()
    assert "#SBATCH --signal=TERM@" in script  # the stop every job records, before its time limit
    assert "Bypassing sacct error" not in out.stderr  # no accounting on this cluster: squeue is asked
    assert cluster.queue() == []


def test_a_job_cancelled_records_it_the_others_keep_theirs_and_resume_finishes(cluster, tmp_path):
    proc = started(cluster, tmp_path, "schedule.max_measure_s=1,60", *LONG)
    note = running_note(tmp_path, "schedule.max_measure_s=60")
    time.sleep(3)
    assert cluster.run("scancel", note["slurm_job"]).returncode == 0
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, err[-3000:]
    got = records(tmp_path)
    cancelled = got[note["job"]]
    assert cancelled["status"] == "failed" and "(SLURM: cancelled)" in cancelled["error"], cancelled["error"]
    (other,) = [r for name, r in got.items() if name != note["job"]]
    assert other["status"] == "ok"
    assert "1 of 2 jobs failed" in (out + err)
    finished = sweep(cluster, tmp_path, "schedule.max_measure_s=1,60", *LONG, "resume=true")
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert all(r["status"] == "ok" for r in records(tmp_path).values())


def test_a_job_past_its_time_limit_records_why_and_is_not_a_success(cluster, tmp_path):
    """The limit is cut once the job measures (its start, sbatch to its first rep, took most of a
    one-minute limit on a loaded machine, and the signal then came before the job could record it),
    to a whole minute that leaves it 45-105 s: the signal, 30 s before, comes while it measures."""
    proc = started(cluster, tmp_path, "hydra.launcher.signal_delay_s=30", "schedule.max_measure_s=600", *LONG)
    note = running_note(tmp_path, "schedule.max_measure_s=600")
    ran = provenance._seconds(cluster.run("squeue", "-h", "-j", note["slurm_job"], "-o", "%M").stdout.strip())
    limit = (ran + 45) // 60 + 1
    assert cluster.run("scontrol", "update", f"jobid={note['slurm_job']}", f"timelimit={limit}").returncode == 0
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, err[-3000:]
    (record,) = records(tmp_path).values()
    assert record["status"] == "failed"
    assert record["error"].startswith(f"Terminated: SIGTERM (SLURM: its time limit of 00:{limit:02d}:00 reached"), \
        record["error"]
    assert "1 of 1 job failed" in out + err


def test_ctrl_c_of_the_sweep_records_the_jobs_in_progress_and_leaves_none_queued(cluster, tmp_path):
    proc = started(cluster, tmp_path, "schedule.max_measure_s=60", "seed=1,2,3,4", *LONG)
    until(lambda: len([n for n in notes(tmp_path) if n.get("overrides")]) >= 2)
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 130, err[-3000:]
    stopped = [r for r in records(tmp_path).values()]
    assert len(stopped) == 2 and all(r["status"] == "failed" and r["error"].startswith("KeyboardInterrupt")
                                     for r in stopped), [r["error"] for r in stopped]
    until(lambda: cluster.queue() == [], timeout=60)


def test_a_node_set_down_mid_sweep_loses_no_finished_record_and_its_job_is_requeued(cluster, tmp_path):
    """SLURM ends the node's jobs (a SIGTERM first, whose stop the job records where it can) and requeues
    them, to start two minutes later (its requeue delay, cut short here); the sweep waits for the
    requeued job, which finishes in the same folder; resume then finds nothing to run."""
    proc = started(cluster, tmp_path, "schedule.max_measure_s=1,20", *LONG)
    note = running_note(tmp_path, "schedule.max_measure_s=20")
    until(lambda: [r for r in records(tmp_path).values() if r["status"] == "ok"])
    (short,) = [p for p in tmp_path.glob("*/result.json")]
    kept = short.read_bytes()
    assert cluster.run("scontrol", "update", f"nodename={cluster.node}", "state=down", "reason=test").returncode == 0
    job = note["slurm_job"]
    until(lambda: f"{job} PENDING" in " ".join(cluster.queue()), timeout=60)  # requeued
    assert "Restarts=1" in cluster.run("scontrol", "-o", "show", "job", job).stdout
    # the node's processes live on here (a node truly lost takes them with it): the requeued job is
    # started once its first run has ended, its stop recorded, as SLURM's requeue delay (2 min) allows
    until(lambda: any(n["job"] == note["job"] and n.get("ended") for n in notes(tmp_path)), timeout=60)
    assert "(SLURM: requeued, to run again)" in records(tmp_path)[note["job"]]["error"]
    until(lambda: not cluster.run("squeue", "-h", "-s", "-j", job).stdout.strip(), timeout=60)  # its steps gone
    time.sleep(2)
    cluster.run("scontrol", "update", f"nodename={cluster.node}", "state=resume")  # where not back already
    assert cluster.run("scontrol", "update", f"jobid={job}", "starttime=now").returncode == 0
    out, err = proc.communicate(timeout=600)  # a fresh interpreter's start, 20 s of reps, on a busy machine
    assert proc.returncode == 0, err[-3000:]
    assert short.read_bytes() == kept
    assert [r["status"] for r in records(tmp_path).values()] == ["ok", "ok"]
    done = {p: p.read_bytes() for p in tmp_path.glob("*/result.json")}
    again = sweep(cluster, tmp_path, "schedule.max_measure_s=1,20", *LONG, "resume=true")
    assert again.returncode == 0, again.stderr[-3000:]
    assert {p: p.read_bytes() for p in tmp_path.glob("*/result.json")} == done  # nothing ran again


def test_a_second_sweep_into_the_same_folder_is_refused(cluster, tmp_path):
    first = started(cluster, tmp_path, "schedule.max_measure_s=30", *LONG)
    running_note(tmp_path, "schedule.max_measure_s=30")
    second = sweep(cluster, tmp_path, "schedule.max_measure_s=30", *LONG)
    first.communicate(timeout=300)
    assert second.returncode == 1
    lines = [line for line in second.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "is in use by the sweep of" in lines[0], second.stderr[-2000:]
    assert first.returncode == 0
