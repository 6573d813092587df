"""setup_batch=N: a basic-launcher sweep sets N jobs up side by side and times them one at a time
(ppo_bench.job.prepared). What must hold: no job's timed repetitions run while another job of the sweep
builds, compiles or measures (each record's own clocks show it); each job still writes its own record,
a failure in one job's set-up fails that job alone, and the collector reads a job's wait for its turn
as running nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from conftest import ROOT, TINY, fault_env, merge_overrides
from test_collect import T0, write

from ppo_bench.collect import collect
from ppo_bench.job import prepared

SMALL = [o for o in TINY if o != "collect=false"] + ["schedule.bench_steps=16", "schedule.reps=3"]


def sweep(sweep_dir: Path, *overrides: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}",
                           *merge_overrides(SMALL, list(overrides))],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


def records(sweep_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(sweep_dir.glob("*/result.json"))]


def seconds(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def active(rec: dict) -> list[tuple[float, float]]:
    """The job's run less its wait for its turn, by its own record."""
    t = rec["timing"]
    run = (seconds(t["started_at"]), seconds(t["finished_at"]))
    if "parked_at" not in t:
        return [run]
    return [(run[0], seconds(t["parked_at"])), (seconds(t["unparked_at"]), run[1])]


@pytest.mark.slow
def test_jobs_set_up_side_by_side_are_timed_alone_each_with_its_record(tmp_path):
    out = sweep(tmp_path, "env.num_envs=2,4", "mode=step,sendrecv", "setup_batch=3")
    assert out.returncode == 0, out.stderr[-3000:]
    recs = records(tmp_path)
    assert len(recs) == 4 and {r["status"] for r in recs} == {"ok"}
    assert all(len(r["throughput"]["reps"]) == 3 for r in recs)
    by_start = sorted(recs, key=lambda r: seconds(r["timing"]["measure_started_at"]))
    first_batch, second_batch = by_start[:3], by_start[3:]
    # each job of the first batch parked after its first step, and waited for its turn
    assert all("parked_at" in r["timing"] and "unparked_at" in r["timing"] for r in recs)
    # the batch's jobs started together: each began before any of them was timed
    first_timed = seconds(by_start[0]["timing"]["measure_started_at"])
    assert all(seconds(r["timing"]["started_at"]) < first_timed for r in first_batch)
    # the next batch begins once the first batch's last job has ended
    assert seconds(second_batch[0]["timing"]["started_at"]) >= max(seconds(r["timing"]["finished_at"])
                                                                    for r in first_batch)
    # no job's measurement overlaps any other job's run outside its wait
    for r in recs:
        m0, m1 = seconds(r["timing"]["measure_started_at"]), seconds(r["timing"]["measure_finished_at"])
        for other in recs:
            if other is not r:
                assert all(b <= m0 or a >= m1 for a, b in active(other)), (r["job"], other["job"])
    # and the collector agrees: nothing contended; the start-up table says how long each waited
    c = collect([tmp_path], plot=False)
    assert c.contended == [] and not c.table["contended"].any()
    assert "parked" in c.startup.columns and (c.startup["parked"] >= 0).all()
    assert "| parked |" in (tmp_path / "summary" / "table.md").read_text()
    log = "".join(p.read_text() for p in tmp_path.glob("*/*.log"))
    assert log.count("set up ahead of its turn (setup_batch)") == 4  # each job's line in its own log


@pytest.mark.parametrize("asked, cpus, batch", [(0, 1, 1), (0, 2, 1), (0, 7, 1), (0, 8, 2), (0, 15, 3), (0, 16, 4),
                                                 (0, 128, 4), (1, 128, 1), (3, 2, 3), (6, 16, 6)])
def test_setup_batch_0_sets_up_one_job_per_4_cpus_at_most_4_and_a_number_is_taken_as_given(asked, cpus, batch):
    assert prepared.batch_size(asked, cpus) == batch


@pytest.mark.slow
def test_a_job_whose_set_up_fails_in_a_batch_fails_alone_in_its_turn(tmp_path):
    """Every job's build fails (a fault in each child's first build): each job's record says why, in its
    turn, the sweep counts them, and nothing waits for a child that will never park."""
    out = sweep(tmp_path, "env.num_envs=2,4,6", "setup_batch=2", env=fault_env("ppo_bench.job.child:make_envs:1:raise"))
    assert out.returncode != 0
    recs = records(tmp_path)
    assert len(recs) == 3 and {r["status"] for r in recs} == {"failed"}
    assert all("injected fault in make_envs" in r["error"] and "parked_at" not in r["timing"] for r in recs)
    assert "3 of 3 jobs failed" in out.stderr


@pytest.mark.slow
def test_a_refused_job_in_a_batch_is_not_started_ahead_and_the_others_run(tmp_path):
    out = sweep(tmp_path, "env.num_envs=2,4", "schedule.warmup=3,-1", "setup_batch=4")
    assert out.returncode != 0
    recs = records(tmp_path)
    oks = [r for r in recs if r["status"] == "ok"]
    refused = [r for r in recs if r["status"] == "failed"]
    assert len(oks) == 2 and all("parked_at" in r["timing"] for r in oks)
    assert len(refused) == 2 and all("schedule.warmup" in r["error"] and "parked_at" not in r["timing"]
                                     for r in refused)


def test_a_wait_for_its_turn_overlaps_no_measurement_but_its_run_outside_it_does(tmp_path):
    """Job b was started ahead: it built before job a's measurement and waited, parked, through it; so a
    is not contended. Job c's wait ends before a's measurement does: the rest of its run overlaps."""
    a = write(tmp_path, "a", mode="step", start=T0 + timedelta(seconds=10))  # measured 10-15 s, run from 8 s
    paths = {}
    for name, parked, unparked in (("b", 9, 16), ("c", 9, 12)):
        paths[name] = write(tmp_path, name, mode="sendrecv", start=T0 + timedelta(seconds=20))
        rec = json.loads(paths[name].read_text())
        rec["timing"]["started_at"] = (T0 + timedelta(seconds=7)).isoformat()
        rec["timing"].update(parked_at=(T0 + timedelta(seconds=parked)).isoformat(),
                             unparked_at=(T0 + timedelta(seconds=unparked)).isoformat())
        paths[name].write_text(json.dumps(rec))
        c = collect([tmp_path], plot=False)
        assert [x["path"] for x in c.contended] == ([] if name == "b" else [str(a)])
        if name == "b":
            paths[name].unlink()


@pytest.mark.slow
@pytest.mark.parametrize("when", ["settling", "timing"])
def test_ctrl_c_ends_every_child_started_ahead_and_records_the_job_in_progress(tmp_path, when):
    """Ctrl-C to the terminal's group while the batch's children set up (no job has begun: nothing is
    recorded) or while the first job is timed (its record says so; the parked one, never taken, has
    none): the sweep ends, and no process of it is left."""
    import signal
    import time

    from conftest import as_a_terminal_s
    from test_sweep import kill_session, none_left, session_processes

    sweep_dir, log = tmp_path / "sweep", tmp_path / "output"
    long = merge_overrides(SMALL, ["schedule.reps=2000", "env.num_envs=1,2", "setup_batch=2", "collect=false"])
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", *long], cwd=ROOT,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=as_a_terminal_s, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    try:
        deadline = time.time() + 300
        while True:
            assert proc.poll() is None and time.time() < deadline, log.read_text()[-3000:]
            started = (sweep_dir / ".jobs.jsonl").exists()
            children = len(session_processes(proc.pid)) > 3  # the sweep, the fork server, its tracker, a job's child
            if (when == "timing" and started) or (when == "settling" and children and not started):
                break
            time.sleep(0.05)
        if when == "timing":
            time.sleep(1.0)  # into its repetitions
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=120)
        none_left(proc.pid)
    finally:
        kill_session(proc.pid)
    output = log.read_text()
    recs = records(sweep_dir)
    assert proc.returncode == 128 + signal.SIGINT and "Traceback" not in output, output[-3000:]
    if when == "timing":
        assert [(r["num_envs"], r["status"], r["error"]) for r in recs] == [(1, "failed", "KeyboardInterrupt")]
    else:
        assert recs == [], output[-3000:]


def cpu_seconds(pid: int) -> float:
    """User and system time of a process and all its threads so far, from /proc (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.slow
def test_a_parked_job_uses_no_cpu_while_another_is_timed(tmp_path):
    """A job waiting for its turn must block, never spin: a spinning thread slowed ale-py's step 9x.
    While the first job is timed, every process of the sweep but that job's uses (almost) no CPU: its
    parked sibling, the fork server, the sweep's own process."""
    import signal
    import time

    from test_sweep import kill_session, session_processes

    sweep_dir, log = tmp_path / "sweep", tmp_path / "output"
    long = merge_overrides(SMALL, ["schedule.reps=2000", "env.num_envs=8,16", "setup_batch=2", "collect=false"])
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "run.py", "-m", f"hydra.sweep.dir={sweep_dir}", *long], cwd=ROOT,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    try:
        deadline = time.time() + 300
        while "rep 1/2000" not in log.read_text():  # the first job is timed: its sibling parked before
            assert proc.poll() is None and time.time() < deadline, log.read_text()[-3000:]
            time.sleep(0.1)
        assert log.read_text().count("rep 1/2000") == 1
        pids = session_processes(proc.pid)
        before = {pid: cpu_seconds(pid) for pid in pids}
        time.sleep(3.0)
        used = sorted((cpu_seconds(pid) - before[pid], pid) for pid in pids)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        kill_session(proc.pid)
    busy, rest = used[-1], used[:-1]
    assert busy[0] > 0.5, used  # the job being timed
    assert len(rest) >= 3 and all(seconds < 0.3 for seconds, _ in rest), used  # 10% of a core at most


def test_a_collection_that_mixes_jobs_set_up_ahead_with_others_says_so(tmp_path):
    """Jobs set up ahead are not yet shown to read as jobs run one after another: where a collection holds
    both, table.md names the cells set up ahead, per group; where all were, it says nothing."""
    def set_up_ahead(path: Path) -> None:
        rec = json.loads(path.read_text())
        started = datetime.fromisoformat(rec["timing"]["started_at"])
        rec["timing"].update(parked_at=(started + timedelta(seconds=0.5)).isoformat(),
                             unparked_at=(started + timedelta(seconds=1)).isoformat())
        path.write_text(json.dumps(rec))

    for name, mode, n in (("a", "step", 8), ("b", "sendrecv", 8)):
        set_up_ahead(write(tmp_path, name, mode=mode, n=n))
    c = collect([tmp_path], plot=False)
    assert c.set_up_ahead == [] and "Set up ahead" not in c.markdown
    write(tmp_path, "c", mode="step", n=64)
    c = collect([tmp_path], plot=False)
    group = c.table["group"].iloc[0]
    assert c.set_up_ahead == [f"{group}: 2 of 3 jobs were set up ahead (setup_batch): step n=8, sendrecv n=8"]
    assert "**Set up ahead and one after another, compared:" in c.markdown


@pytest.mark.slow
def test_setup_batch_under_another_launcher_says_it_is_ignored(tmp_path):
    from test_launcher import NO_GPU, NODE

    out = subprocess.run([sys.executable, "run.py", "-m", f"hydra.sweep.dir={tmp_path}", *NODE,
                          *merge_overrides(SMALL, ["env.num_envs=2,4", "setup_batch=2", "collect=false"])],
                         cwd=ROOT, capture_output=True, text=True, timeout=600, env=NO_GPU)
    assert out.returncode == 0, out.stderr[-3000:]
    assert ("setup_batch=2: only the basic launcher sets jobs up side by side; NodeLauncher runs each job as ever"
            in out.stderr + out.stdout)
    recs = records(tmp_path)
    assert len(recs) == 2 and all(r["status"] == "ok" and "parked_at" not in r["timing"] for r in recs)
