"""One story in every table: one mark per thing that weakens a figure (noisy, overloaded), the same in
a job's log line as in the tables; every command that ran into a sweep folder listed, none merged into
one that would fail; a refusal an older runner recorded as failed counted as skipped; a probe without
an agent spared the check of the agent's graphs; start-up one statistic.

Small collections built from JSON records here, as tests/test_collect.py builds them.
"""

from __future__ import annotations

import json
import tarfile

import numpy as np

from ppo_bench.collect import about, collect
from ppo_bench.record import results
from ppo_bench.record.parts import UNIT
from test_collect import record, row, write

MAIN = "| num_envs | step |"  # how a throughput table's header begins


def tables(md: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every table of table.md: its header and its rows, as cells."""
    found, lines = [], md.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("|") and lines[i + 1].startswith("|---"):
            rows = []
            for body in lines[i + 2:]:
                if not body.startswith("|"):
                    break
                rows.append([x.strip() for x in body.strip().strip("|").split("|")])
            found.append(([x.strip() for x in line.strip().strip("|").split("|")], rows))
    return found


def table_with(md: str, first: str) -> tuple[list[str], list[dict]]:
    """The table whose header begins `first`, its rows as dicts by header."""
    header, rows = next((h, r) for h, r in tables(md) if "| " + " | ".join(h) + " |" == first
                        or ("| " + " | ".join(h)).startswith(first))
    return header, [dict(zip(header, r)) for r in rows]


def _job_record(reps, **kw) -> dict:
    rec = record(mode="step", reps=reps, **kw)
    rec["throughput"]["mean"] = sum(reps) / len(reps)  # as the job writes it
    return rec


def test_the_job_log_line_marks_its_figure_as_the_tables_do():
    from ppo_bench.job.parent import summarise_record

    line = summarise_record(_job_record([100.0, 150.0, 70.0], load=5.0, cpus=2))
    assert line.endswith(f"] (noisy, overloaded) {UNIT} over 3 reps"), line
    calm = summarise_record(_job_record([100.0, 101.0, 99.0], load=0.5, cpus=2))
    assert calm.endswith(f"] {UNIT} over 3 reps"), calm


def _with_overrides(root, name, overrides, **kw):
    path = write(root, name, **kw)
    rec = json.loads(path.read_text())
    rec["overrides"] = overrides
    results.write_atomic(path, rec)


def test_commands_rebuilt_from_the_jobs_are_never_merged_into_one_that_would_fail(tmp_path):
    """Jobs of two commands in one folder, without a history or multirun.yaml: the old rebuild gave
    `mode=step,sendrecv,async mode.groups=2`, which refuses step and sendrecv in batches."""
    for n in (1, 8):
        for mode in ("step", "sendrecv"):
            _with_overrides(tmp_path, f"{mode}{n}", [f"env.num_envs={n}", f"mode={mode}"], mode=mode, n=n,
                            reps=[100.0, 101.0])
    for n in (8, 16):
        _with_overrides(tmp_path, f"async{n}", [f"env.num_envs={n}", "mode=async", "mode.groups=2"], mode="async",
                        n=n, groups=2, reps=[100.0, 101.0])
    c = collect([tmp_path], plot=False)
    said = next(line for line in c.markdown.splitlines() if line.startswith("- command"))
    assert said == ("- command: `python run.py -m env.num_envs=1,8 mode=step,sendrecv` (rebuilt from the jobs' "
                    "overrides); `python run.py -m env.num_envs=8,16 mode=async mode.groups=2` (rebuilt from the "
                    "jobs' overrides)"), said


def test_jobs_that_are_no_cross_product_are_split_until_each_command_is_one(tmp_path):
    """step at 1 and 8 envs, sendrecv at 8 only: one command would also run sendrecv at 1 env."""
    for mode, n in (("step", 1), ("step", 8), ("sendrecv", 8)):
        _with_overrides(tmp_path, f"{mode}{n}", [f"env.num_envs={n}", f"mode={mode}"], mode=mode, n=n,
                        reps=[100.0, 101.0])
    said = next(line for line in collect([tmp_path], plot=False).markdown.splitlines() if line.startswith("- command"))
    assert "`python run.py -m env.num_envs=1,8 mode=step,sendrecv`" not in said
    assert "`python run.py env.num_envs=1 mode=step`" in said, said
    assert "`python run.py -m env.num_envs=8 mode=step,sendrecv`" in said, said


def test_commands_of_every_sweep_into_a_folder_are_listed(tmp_path):
    """.commands.jsonl keeps each command that ran into the folder; Hydra's multirun.yaml only the last."""
    sweep = tmp_path / "2026-01-01"
    for n in (1, 8):
        _with_overrides(sweep, f"step{n}", [f"env.num_envs={n}", "mode=step"], mode="step", n=n, reps=[100.0, 101.0])
    _with_overrides(sweep, "async8", ["env.num_envs=8", "mode=async", "mode.groups=2"], mode="async", n=8, groups=2,
                    reps=[100.0, 101.0])
    first = {"at": "2026-01-01T00:00:00Z", "argv": [], "params": {}, "task": ["env.num_envs=1,8", "mode=step"],
             "hydra": [f"hydra.sweep.dir={sweep}", "hydra.mode=MULTIRUN", "hydra/launcher=basic"]}
    second = {**first, "at": "2026-01-01T01:00:00Z", "task": ["env.num_envs=8", "mode=async", "mode.groups=2"]}
    (sweep / ".commands.jsonl").write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    (sweep / "multirun.yaml").write_text("hydra:\n  overrides:\n    hydra: []\n    task:\n"
                                         "    - env.num_envs=8\n    - mode=async\n    - mode.groups=2\n")
    both = ("- command: `python run.py -m hydra/launcher=basic env.num_envs=1,8 mode=step`; "
            "`python run.py -m hydra/launcher=basic env.num_envs=8 mode=async mode.groups=2`")
    assert both in collect([sweep], out_dir=tmp_path / "a", plot=False).markdown
    with tarfile.open(tmp_path / "sweep.tar.gz", "w:gz") as tar:
        tar.add(sweep, arcname=sweep.name)
    c = collect([tmp_path / "sweep.tar.gz"], out_dir=tmp_path / "b", plot=False)
    assert both in c.markdown
    meta = json.loads((tmp_path / "b" / "chart.json").read_text())["meta"]["measured"]
    assert meta["command"] == [both.split("`")[1], both.split("`")[3]]


def test_a_refusal_an_older_runner_recorded_as_failed_counts_as_skipped(tmp_path):
    write(tmp_path, "s1", mode="step", n=1, reps=[100.0, 101.0])
    old = write(tmp_path, "a1", mode="async", n=1, groups=2, status="failed",
                error="ValueError: mode.groups=2: must divide env.num_envs=1")  # NotApplicable today
    named = write(tmp_path, "a3", mode="async", n=3, groups=2, status="failed",
                  error="NotApplicable: mode.groups=2: must divide env.num_envs=3")
    real = write(tmp_path, "s8", mode="step", n=8, status="failed", error="ValueError: something else went wrong")
    c = collect([tmp_path], plot=False)
    assert [f["path"] for f in c.failed] == [str(real)]
    assert sorted(f["path"] for f in c.skipped) == sorted([str(old), str(named)])
    assert "**Jobs: 4**: 1 ok, 1 failed, 2 skipped" in c.markdown
    box = about.warnings(c)
    assert "failed jobs: 1, by reason" in box and "skipped jobs (do not apply): 2, by reason" in box
    assert "recorded as failed by an older runner" in box


INFERENCE = "the inference compiled 0 graphs, expected 1: it recompiled"


def test_the_inference_check_does_not_weaken_a_probe_without_an_agent(tmp_path):
    for mode in ("step", "env_only", "agent_only"):
        path = write(tmp_path, mode, mode=mode, n=1, reps=[100.0, 101.0])
        rec = json.loads(path.read_text())
        rec["warnings"] = [INFERENCE]
        results.write_atomic(path, rec)
    c = collect([tmp_path], plot=False)
    _, rows = table_with(c.markdown, MAIN)
    assert rows[0]["step"].endswith("(w1)") and rows[0]["agent_only"].endswith("(w1)")
    assert "(w" not in rows[0]["env_only"]
    assert json.loads(row(c, "env_only", 1)["warnings"]) == []


def test_start_up_is_one_statistic_named_in_the_learning_table(tmp_path):
    """`setup s` was the seeds' mean beside the start-up section's median of the same runs."""
    from test_collect_learning import learn

    for seed, setup in enumerate([5.0, 6.0, 10.0]):
        learn(tmp_path, f"s{seed}", [0.0, 5.0, 16.0], seed=seed, setup_s=setup)
    c = collect([tmp_path], plot=False)
    header, rows = table_with(c.markdown, "| mode | num_envs | seeds |")
    assert "setup s" not in header and rows[0]["start-up s: median"] == "6.0"
    assert np.isclose(c.learning["setup_s"].iloc[0], 6.0)
