"""The collector's section on a loop over the probe interleaved in its own job (schedule.interleave).

Each rep of the loop is paired with its partner, the probe's rep of the same index in the same process; the
ratios of all pairs of a configuration's jobs are pooled, and each job's own is listed. Expected
figures are worked out here from the reps (logs, scipy's t quantile), not by ppo_bench.record.stats.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as student_t

from ppo_bench.record import results
from ppo_bench.collect import collect
from test_collect import row, welch_log, write

TITLE = "**Loop over env_only, interleaved in one job** (same process, same emulators)"


def job(root, name, reps, probe_reps, *, mode="async", groups=2, probe="env_only", **kw):
    """A loop job's result file with its interleaved probe, as the job writes it (None: no `interleaved`)."""
    path = write(root, name, mode=mode, groups=groups, reps=reps, sched_reps=len(reps),
                 sched_extra={"interleave": None if probe_reps is None else probe}, **kw)
    if probe_reps is not None:
        rec = json.loads(path.read_text())
        rec["interleaved"] = {"mode": probe, "reps": list(probe_reps), "seconds": [1000 / x for x in probe_reps],
                              "env_steps_per_rep": 1000}
        results.write_atomic(path, rec)
    return path


def log_t(ratios):
    """Geometric mean of the ratios and its 95% t-interval on their logs, written out."""
    logs = np.log(ratios)
    k, m = len(logs), float(np.mean(logs))
    half = student_t.ppf(0.975, k - 1) * float(np.std(logs, ddof=1)) / math.sqrt(k)
    return math.exp(m), math.exp(m - half), math.exp(m + half)


def rows(c, scope):
    return c.interleaved[c.interleaved["scope"] == scope].reset_index(drop=True)


# two jobs (rounds) of one configuration: the emulators 20% slower in the second process, the loop
# about 0.9 of them in both
LOOP = {0: [900.0, 925.0, 880.0, 910.0], 1: [725.0, 700.0, 735.0, 712.0]}
PROBE = {0: [1000.0, 1010.0, 990.0, 1005.0], 1: [800.0, 790.0, 805.0, 798.0]}


def _two_rounds(root):
    for r in (0, 1):
        job(root, f"async_r{r}", LOOP[r], PROBE[r], round=r)


def test_pairs_pooled_over_jobs_and_each_jobs_own(tmp_path, capsys):
    _two_rounds(tmp_path)
    c = collect([tmp_path], plot=False)

    pooled = rows(c, "pooled")
    assert len(pooled) == 1
    p = pooled.iloc[0]
    ratios = [a / b for r in (0, 1) for a, b in zip(LOOP[r], PROBE[r])]
    ratio, lo, hi = log_t(ratios)
    assert (p["mode"], p["groups"], p["num_envs"], p["probe"]) == ("async", 2, 8, "env_only")
    assert (p["ratio"], p["lo"], p["hi"]) == (pytest.approx(ratio), pytest.approx(lo), pytest.approx(hi))
    assert (p["pairs"], p["jobs"]) == (8, 2)
    assert p["loop_mean"] == pytest.approx(np.mean(LOOP[0] + LOOP[1]))
    assert p["probe_mean"] == pytest.approx(np.mean(PROBE[0] + PROBE[1]))
    # the unpaired quotient of the pooled means is not what is reported
    assert abs(p["loop_mean"] / p["probe_mean"] - ratio) > 1e-4

    per_job = rows(c, "job")
    assert list(per_job["round"]) == [0, 1] and list(per_job["pairs"]) == [4, 4]
    assert list(per_job["jobs"]) == [1, 1]
    for r, got in per_job.iterrows():
        want = log_t([a / b for a, b in zip(LOOP[r], PROBE[r])])
        assert (got["ratio"], got["lo"], got["hi"]) == tuple(map(pytest.approx, want))
        assert got["path"].endswith(f"async_r{r}/result.json")
        assert json.loads(got["loop_reps"]) == LOOP[r] and json.loads(got["probe_reps"]) == PROBE[r]

    out = capsys.readouterr().out
    assert TITLE in out
    cells = lambda *xs: f"{xs[0]:.2f}x [{xs[1]:.2f}, {xs[2]:.2f}]"  # noqa: E731
    r0, r1 = (log_t([a / b for a, b in zip(LOOP[r], PROBE[r])]) for r in (0, 1))
    assert (f"| async | 2 | 8 | {p['loop_mean']:.0f} | {p['probe_mean']:.0f} | {cells(ratio, lo, hi)} | 8 | 2 | "
            f"r0 {cells(*r0)}; r1 {cells(*r1)} |") in out
    assert "| mode | groups | num_envs | loop | env_only | loop/env_only paired | pairs | jobs |" in out
    assert "the loop's rep over its env_only partner in the same job (turns A B B A)" in out
    assert "t-interval on the log ratios" in out
    assert "differ in length" not in out

    csv = pd.read_csv(c.out_dir / "interleaved.csv")
    assert len(csv) == 3 and list(csv["scope"]) == ["pooled", "job", "job"]
    assert csv.loc[0, "ratio"] == pytest.approx(ratio, rel=1e-12)  # full precision, not table.md's
    assert json.loads(csv.loc[0, "loop_reps"]) == LOOP[0] + LOOP[1]
    manifest = json.loads((c.out_dir / ".collect.json").read_text())
    assert "interleaved.csv" in manifest["files"]


def test_no_section_and_no_file_without_interleaved_data(tmp_path, capsys):
    for r in (0, 1):
        job(tmp_path, f"async_r{r}", LOOP[r], None, round=r)
        write(tmp_path, f"env_r{r}", mode="env_only", groups=2, round=r, reps=PROBE[r])
    c = collect([tmp_path], plot=False)
    assert c.interleaved.empty and c.interleaved_notes == []
    assert "interleaved in one job" not in c.markdown and "nterleaved" not in capsys.readouterr().out
    assert not (c.out_dir / "interleaved.csv").exists()


def test_a_length_mismatch_pairs_the_common_prefix_and_is_said(tmp_path, capsys):
    loop, probe = [900.0, 880.0, 910.0], [1000.0, 990.0]  # the last rep's probe missing
    path = job(tmp_path, "short", loop, probe)
    c = collect([tmp_path], plot=False)
    p = rows(c, "pooled").iloc[0]
    want = log_t([900 / 1000, 880 / 990])
    assert (p["ratio"], p["lo"], p["hi"]) == tuple(map(pytest.approx, want))
    assert (p["pairs"], p["jobs"]) == (2, 1)
    assert p["loop_mean"] == pytest.approx(890.0)  # over the paired reps, as the ratio
    assert c.interleaved_notes == [f"- {path}: 3 loop reps but 2 env_only reps interleaved: only the first 2 "
                                   "are paired"]
    out = capsys.readouterr().out
    assert "differ in length" in out and c.interleaved_notes[0] in out
    assert c.table.iloc[0]["n"] == 3  # the throughput table keeps all the loop's reps


def stopped(path, so_far):
    """The job's file as the runner writes a job that failed part-way: no measurement, its reps so far."""
    rec = json.loads(path.read_text())
    for key in ("throughput", "env_steps", "inference", "phases", "machine", "faults", "interleaved"):
        rec.pop(key, None)
    rec.update(status="failed", error="Terminated: SIGTERM", measured_so_far=so_far)
    results.write_atomic(path, rec)


def test_a_failed_job_s_finished_pairs_are_pooled_and_its_throughput_is_not(tmp_path, capsys):
    """A job killed part-way (a `timeout`, say) keeps the reps it finished (`measured_so_far`, as the
    runner writes it): each of its pairs is as good as a finished job's, so the pooled ratio counts them
    and the notes say so; the throughput table has the finished job alone."""
    job(tmp_path, "async_r0", LOOP[0], PROBE[0], round=0)
    path = job(tmp_path, "async_r1", LOOP[1], PROBE[1], round=1)  # the same schedule, 4 reps
    stopped(path, {"reps": LOOP[1][:3], "interleaved": {"mode": "env_only", "reps": PROBE[1][:2]}})
    c = collect([tmp_path], plot=False)
    p = rows(c, "pooled").iloc[0]
    want = log_t([a / b for a, b in zip(LOOP[0] + LOOP[1][:2], PROBE[0] + PROBE[1][:2])])
    assert (p["ratio"], p["lo"], p["hi"]) == tuple(map(pytest.approx, want))
    assert (p["pairs"], p["jobs"]) == (6, 2)
    assert list(rows(c, "job")["pairs"]) == [4, 2]
    assert c.interleaved_notes == [f"- {path}: failed after 3 loop reps (Terminated: SIGTERM): its 2 finished "
                                   "pairs are pooled"]
    assert c.interleaved_notes[0] in capsys.readouterr().out
    assert len(c.table) == 1 and c.table.iloc[0]["n"] == 4  # the finished job's reps only
    assert [f["path"] for f in c.failed] == [str(path)]  # and it is still listed as failed


def test_pairs_of_failed_jobs_are_written_when_no_job_finished(tmp_path, capsys):
    """A sweep whose every job was killed part-way still gets its pairs (as a learning sweep its curves),
    and the line at the end says that no job finished."""
    path = job(tmp_path, "async_r1", LOOP[1], PROBE[1], round=1)
    stopped(path, {"reps": LOOP[1][:2], "interleaved": {"mode": "env_only", "reps": PROBE[1][:2]}})
    c = collect([tmp_path], plot=False)
    assert not c.ok and list(rows(c, "pooled")["pairs"]) == [2]
    assert (c.out_dir / "interleaved.csv").exists() and TITLE in (c.out_dir / "table.md").read_text()
    assert (f"no job finished: 1 failed jobs, 0 skipped, 0 unusable files, 0 jobs with no record; "
            f"wrote {c.out_dir} with what 1 of them finished before they failed") in capsys.readouterr().err


def test_a_failed_job_s_malformed_reps_make_its_file_unusable(tmp_path):
    path = job(tmp_path, "async_r1", LOOP[1], PROBE[1], round=1)
    stopped(path, {"reps": [700.0, -1.0], "interleaved": None})
    c = collect([tmp_path], plot=False)
    assert c.interleaved.empty
    assert c.bad == [{"path": str(path), "reason": "measured_so_far.reps: "
                      "[700.0, -1.0], expected a list of positive numbers"}]


def test_configurations_stay_apart_and_plain_jobs_stay_out(tmp_path, capsys):
    job(tmp_path, "fs5_n8", [900.0, 910.0], [1000.0, 1000.0])
    job(tmp_path, "fs5_n16", [1800.0, 1790.0], [1900.0, 1950.0], n=16)
    job(tmp_path, "fs4_n8", [800.0, 790.0], [1000.0, 980.0], frameskip=4)
    job(tmp_path, "step", [500.0, 505.0], [1000.0, 1010.0], mode="step", groups=1)
    job(tmp_path, "plain", [850.0, 860.0], None)  # no interleaved probe: not in the section
    c = collect([tmp_path], plot=False)
    pooled = rows(c, "pooled")
    got = {(r.group, r.mode, r.num_envs): r.ratio for r in pooled.itertuples()}
    # the group's name, whether or not schedule.interleave is part of what a job measured
    fs5, fs4 = (next(g for g in c.table["group"] if f"env.frameskip={f}" in g and "interleave=null" not in g)
                for f in (5, 4))
    assert got == {(fs5, "step", 8): pytest.approx(log_t([0.5, 505 / 1010])[0]),
                   (fs5, "async", 8): pytest.approx(log_t([0.9, 0.91])[0]),
                   (fs5, "async", 16): pytest.approx(log_t([1800 / 1900, 1790 / 1950])[0]),
                   (fs4, "async", 8): pytest.approx(log_t([0.8, 790 / 980])[0])}
    assert list(pooled["mode"]) == ["async", "step", "async", "async"]  # by group, then mode order, num_envs
    assert (pooled["jobs"] == 1).all()
    out = capsys.readouterr().out
    assert f"*{fs5}*" in out and f"*{fs4}*" in out


def test_one_pair_has_a_ratio_and_no_interval(tmp_path, capsys):
    job(tmp_path, "one", [900.0], [1000.0])
    c = collect([tmp_path], plot=False)
    p = rows(c, "pooled").iloc[0]
    assert p["ratio"] == pytest.approx(0.9) and np.isnan(p["lo"]) and np.isnan(p["hi"])
    assert "| 0.90x | 1 | 1 | r0 0.90x |" in capsys.readouterr().out


def test_round_0_of_two_sweeps_names_the_sweep(tmp_path, capsys):
    for sweep, f in (("sweep_a", 1.0), ("sweep_b", 0.8)):
        job(tmp_path / sweep, "async", [900.0 * f, 910.0 * f], [1000.0 * f, 1005.0 * f])
    c = collect([tmp_path], plot=False)
    assert rows(c, "pooled").iloc[0]["jobs"] == 2
    assert "sweep_a r0 " in capsys.readouterr().out


def test_failed_jobs_are_left_out_and_a_bad_record_makes_the_file_unusable(tmp_path, capsys):
    job(tmp_path, "ok", [900.0, 910.0], [1000.0, 1000.0])
    failed = write(tmp_path, "failed", mode="async", groups=2, status="failed", error="boom",
                   sched_extra={"interleave": "env_only"})
    rec = json.loads(failed.read_text())
    rec["interleaved"] = {"mode": "env_only", "reps": [1.0], "seconds": [1.0], "env_steps_per_rep": 1}
    results.write_atomic(failed, rec)
    bad = job(tmp_path, "bad", [900.0, 910.0], [1000.0, -5.0])  # passes the schema's types, not a rate
    c = collect([tmp_path], plot=False)
    assert rows(c, "pooled").iloc[0]["jobs"] == 1 and len(rows(c, "job")) == 1
    assert [b["path"] for b in c.bad] == [str(bad)]
    assert "interleaved.reps" in c.bad[0]["reason"]


def test_the_probe_interleaved_is_set_against_the_probe_in_jobs_of_its_own(tmp_path, capsys):
    """Where env_only also ran in jobs of its own at the cell, the section gives their mean and the
    interleaved reps over theirs (Welch t on the logs, written out here): the limit divides by those
    jobs, so a ratio off 1 says by how much it is off. A cell without such jobs leaves it empty."""
    _two_rounds(tmp_path)  # async, 2 groups, 8 envs
    own = [880.0, 860.0, 900.0, 870.0]  # the emulators alone in their own job read lower
    write(tmp_path, "env_only", mode="env_only", groups=2, reps=own, sched_reps=4,
          sched_extra={"interleave": None})
    job(tmp_path, "n16", [1800.0, 1790.0, 1810.0, 1795.0], [1900.0, 1950.0, 1920.0, 1930.0], n=16)
    c = collect([tmp_path], plot=False)

    cells = rows(c, "pooled").set_index("num_envs")
    interleaved = PROBE[0] + PROBE[1]
    logs_a, logs_b = np.log(interleaved), np.log(own)
    va, vb = np.var(logs_a, ddof=1) / len(logs_a), np.var(logs_b, ddof=1) / len(logs_b)
    df = (va + vb) ** 2 / (va**2 / (len(logs_a) - 1) + vb**2 / (len(logs_b) - 1))
    diff, half = logs_a.mean() - logs_b.mean(), student_t.ppf(0.975, df) * math.sqrt(va + vb)
    assert cells.loc[8, "own_mean"] == pytest.approx(np.mean(own))
    assert (cells.loc[8, "own_ratio"], cells.loc[8, "own_lo"], cells.loc[8, "own_hi"]) == (
        pytest.approx(math.exp(diff)), pytest.approx(math.exp(diff - half)), pytest.approx(math.exp(diff + half)))
    assert cells.loc[16, ["own_mean", "own_ratio"]].isna().all()  # no env_only job at 16 envs
    assert rows(c, "job")["own_mean"].isna().all()  # a cell's figure, not a job's

    out = capsys.readouterr().out
    assert "| loop | env_only | env_only in jobs of its own | loop/env_only paired |" in out
    assert f"| {np.mean(own):.0f}; {math.exp(diff):.2f}x [{math.exp(diff - half):.2f}, " in out
    assert "the two timings of the same emulators disagree" in out


def test_no_column_for_the_probe_in_jobs_of_its_own_where_none_ran(tmp_path, capsys):
    _two_rounds(tmp_path)
    c = collect([tmp_path], plot=False)
    assert rows(c, "pooled")["own_mean"].isna().all()
    out = capsys.readouterr().out
    assert "in jobs of its own" not in out and TITLE in out


def test_a_pair_of_loop_modes_over_one_build_is_grouped_apart_and_set_against_jobs_of_their_own(tmp_path, capsys):
    """step with sendrecv taking turns over its build (the job's record with the pairs, sendrecv's own
    record in a folder inside it), beside step and sendrecv in jobs of their own: the pair's rows stand
    in a group of their own, the section pairs step over sendrecv rep by rep, and sets the turns'
    sendrecv reps against sendrecv in its own jobs, never against the pair's own record of them."""
    step, recv, own = [900.0, 910.0, 905.0, 895.0], [1000.0, 1020.0, 1010.0, 990.0], [950.0, 970.0, 960.0, 940.0]
    from datetime import timedelta

    from test_collect import T0

    at = T0 - timedelta(days=1)  # apart from the other jobs' windows
    job(tmp_path, "sweep/paired", step, recv, mode="step", groups=1, probe="sendrecv", start=at)
    write(tmp_path, "sweep/paired/sendrecv", mode="sendrecv", groups=1, reps=recv, sched_reps=4,
          sched_extra={"interleave": "step"}, start=at)  # one process: the same clocks
    write(tmp_path, "step", mode="step", groups=1, reps=[880.0, 890.0, 870.0, 885.0], sched_reps=4,
          sched_extra={"interleave": None})
    write(tmp_path, "sendrecv", mode="sendrecv", groups=1, reps=own, sched_reps=4, sched_extra={"interleave": None})
    c = collect([tmp_path], plot=False)

    groups = c.table.groupby("group")["mode"].apply(sorted).to_dict()
    assert len(groups) == 2 and all(m == ["sendrecv", "step"] for m in groups.values())
    paired = next(g for g in groups if "sendrecv+step" in g)
    assert row(c, "sendrecv", 8, paired)["mean"] == pytest.approx(np.mean(recv))
    cell = rows(c, "pooled").iloc[0]
    assert len(rows(c, "pooled")) == 1 and (cell["mode"], cell["probe"]) == ("step", "sendrecv")
    assert cell["ratio"] == pytest.approx(log_t([a / b for a, b in zip(step, recv)])[0])
    assert cell["own_mean"] == pytest.approx(np.mean(own))
    assert cell["own_ratio"] == pytest.approx(welch_log(recv, own)[0])
    pair = c.jobs[c.jobs["group"] == paired]
    assert not c.jobs["contended"].any()  # the pair's two records are one run, not two beside each other
    assert set(pair["sweep"]) == {str(tmp_path / "sweep")}  # the other mode's record is of its job's sweep
