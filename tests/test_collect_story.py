"""One story in every table: each loop row held to one bound, named, and the same share of it in
table.md, table.csv and the page's headline; verdicts where a ratio's interval holds 1, not winners;
one mark per thing that weakens a figure (noisy, contended, overloaded), the same in the tables, the
headline and a job's log line; a baseline answered in figures and named by what it ran; every command
that ran into a sweep folder listed, none merged into one that would fail.

Small collections built from JSON records here, as tests/test_collect.py builds them.
"""

from __future__ import annotations

import html
import json
import re
import tarfile
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest

from ppo_bench.collect import about, collect, headline, view
from ppo_bench.record import results
from ppo_bench.record.parts import UNIT
from test_collect import T0, record, row, write

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


def _probed(root, n=1, rounds=(0,), step=100.0, sendrecv=120.0, env=400.0, agent=200.0):
    for rnd in rounds:
        for mode, thr in (("step", step), ("sendrecv", sendrecv), ("env_only", env), ("agent_only", agent)):
            write(root, f"{mode}{n}r{rnd}", mode=mode, n=n, round=rnd, reps=[thr * (1 + 0.01 * rnd), thr * 1.01])


def test_each_loop_row_is_held_to_one_bound_and_every_table_says_the_same_share(tmp_path):
    """table.md's main table said `eff` against the limit (50%) where the bound per design table said 75% of
    the chain: one row, two efficiencies. Now one: the share of the bound its design holds it to, named."""
    _probed(tmp_path, rounds=(0, 1))
    c = collect([tmp_path], plot=False)
    csv = pd.read_csv(tmp_path / "summary" / "table.csv")
    assert not [k for k in csv.columns if k.startswith("efficiency")], "a second efficiency, against the limit"
    assert {"limit", "chain", "bound", "bound_kind", "bound_why", "bound_efficiency", "bound_efficiency_paired",
            "bound_efficiency_lo", "bound_efficiency_hi"} <= set(csv.columns)
    s, r = row(c, "step", 1), row(c, "sendrecv", 1)
    assert s["bound_kind"] == r["bound_kind"] == "chain" and s["bound"] < s["limit"]
    header, rows = table_with(c.markdown, MAIN)
    assert not [h for h in header if h.startswith("limit")], header  # an input, in the detail table only
    main = rows[0]
    for mode, x in (("step", s), ("sendrecv", r)):
        share = f"{x['bound_efficiency']:.0%} of chain {x['bound']:.0f}"
        assert main[f"eff {mode}"].startswith(share + "; paired "), main
        assert f"{x['bound_efficiency'] * x['bound'] / x['limit']:.0%} " not in main[f"eff {mode}"]
    header, detail = table_with(c.markdown, "| num_envs | mode | num_threads |")
    assert header == ["num_envs", "mode", "num_threads", "limit: min(env_only, agent_only)", "chain", "bound", "why"]
    assert [(d["mode"], d["bound"]) for d in detail] == [("step", f"chain {s['bound']:.0f}"),
                                                         ("sendrecv", f"chain {r['bound']:.0f}")]
    assert detail[0]["limit: min(env_only, agent_only)"] == f"{s['limit']:.0f}"
    legend = next(line for line in c.markdown.splitlines() if line.startswith("env-steps/s, mean over"))
    assert "eff <mode> = the loop's share of the one bound its design holds it to" in legend
    assert "mean over limit" not in legend and "limit = min" not in legend

    page = headline.block(c, view.throughput(c.table))  # the page's headline: the same share of the same bound
    cells = re.findall(r'<td class="bound" data-value="([^"]+)">([^<]+)</td>', page)
    top = max((s, r), key=lambda x: x["mean"])
    assert [(float(v), html.unescape(t)) for v, t in cells] == [
        (pytest.approx(top["bound_efficiency"]), f"{top['bound_efficiency']:.0%} of chain {view.fmt(top['bound'])}")]


def test_a_loop_that_beats_its_bound_is_said_why_in_one_place(tmp_path):
    """Above the chain but within the limit: it overlaps what the chain counts in series; above the limit
    too: the probe that set the limit measured low. Once, under the table, never as two efficiencies."""
    _probed(tmp_path, step=150.0, sendrecv=230.0)  # chain 133, limit 200
    c = collect([tmp_path], plot=False)
    lines, limit = c.markdown.splitlines(), f"{row(c, 'step', 1)['limit']:.0f}"
    assert any(line.startswith("- step at num_envs 1 beat its chain bound") and f"within the limit ({limit})" in line
               for line in lines), lines
    assert any(line.startswith("- sendrecv at num_envs 1 beat its chain bound") and f"above the limit ({limit}" in line
               and "agent_only measured low" in line for line in lines), lines
    assert "eff over 100%" not in c.markdown and "(over 100%)" not in c.markdown
    assert "(beat its bound) = the loop ran faster than its bound" in c.markdown


def _weak_cells(root):
    write(root, "noisy", mode="step", n=1, reps=[100.0, 150.0, 70.0])  # CV 36%
    busy = write(root, "busy", mode="step", n=2, reps=[200.0, 201.0, 199.0], load=5.0, cpus=2)  # load 5, 2 CPUs
    rec = json.loads(busy.read_text())
    rec["warnings"] = ["busy machine: 1-minute load 5.0 > 2 CPUs around the measurement; other work took CPU time "
                       "from the emulators"]  # the job's own warning of it: the mark says it, once
    results.write_atomic(busy, rec)
    at = T0 + timedelta(days=1)  # two jobs measured at once on one host
    write(root, "a", mode="step", n=4, reps=[300.0, 301.0, 299.0], start=at)
    write(root, "b", mode="sendrecv", n=4, reps=[310.0, 311.0, 309.0], start=at + timedelta(seconds=1))


def test_noisy_contended_and_overloaded_each_have_their_own_mark(tmp_path):
    """(!) meant CV > 10% in table.md and "contended or overloaded" on the page; contended was a (wN)
    warning and overloaded no mark at all. Now one word each, the same everywhere."""
    _weak_cells(tmp_path)
    c = collect([tmp_path], plot=False)
    _, rows = table_with(c.markdown, MAIN)
    cell = {int(r["num_envs"]): r for r in rows}
    assert cell[1]["step"].endswith("] (noisy)") and cell[2]["step"].endswith("] (overloaded)")
    assert cell[4]["step"].endswith("] (contended)") and cell[4]["sendrecv"].endswith("] (contended)")
    assert "(!)" not in c.markdown and "(w1)" not in c.markdown
    legend = next(line for line in c.markdown.splitlines() if line.startswith("env-steps/s, mean over"))
    for said in ("(noisy) = CV above 10%", "(contended) = another job ran on this host",
                 "(overloaded) = the 1-minute load was above the CPU count"):
        assert said in legend, said

    page = headline.block(c, view.throughput(c.table))
    thr = dict(re.findall(r'data-num-envs="(\d+)".*?<td class="thr num"[^>]*>([^<]+)</td>', page))
    assert thr["1"].endswith("(noisy)") and thr["2"].endswith("(overloaded)") and thr["4"].endswith("(contended)")
    assert "(!)" not in page
    for said in ("(noisy) = CV above 10%", "(contended) = another job ran", "(overloaded) = the 1-minute load"):
        assert said in page, said
    box = about.warnings(c)
    for said in ("rows marked (noisy), CV above 10%", "jobs marked (contended), another job ran on their host: 2",
                 "rows marked (overloaded), the 1-minute load was above the CPU count while it measured: 1"):
        assert said in box, said


def _job_record(reps, **kw) -> dict:
    rec = record(mode="step", reps=reps, **kw)
    rec["throughput"]["mean"] = sum(reps) / len(reps)  # as the job writes it
    return rec


def test_the_job_log_line_marks_its_figure_as_the_tables_do():
    from ppo_bench.record.line import summarise_record

    line = summarise_record(_job_record([100.0, 150.0, 70.0], load=5.0, cpus=2))
    assert line.endswith(f"] (noisy, overloaded) {UNIT} over 3 reps"), line
    calm = summarise_record(_job_record([100.0, 101.0, 99.0], load=0.5, cpus=2))
    assert calm.endswith(f"] {UNIT} over 3 reps"), calm
    stolen = summarise_record(_job_record([100.0, 101.0, 99.0], load=0.5, cpus=2, steal=0.05))
    assert stolen.endswith(f"] (stolen) {UNIT} over 3 reps"), stolen


def _headline_rows(page: str) -> dict[int, dict]:
    """The headline's rows by num_envs: each cell's text by its class, and the row's attributes."""
    found = {}
    for attrs, body in re.findall(r'<tr (data-group=[^>]*)>(.*?)</tr>', page):
        n = int(re.search(r'data-num-envs="(\d+)"', attrs)[1])
        cells = {m[0] or "": html.unescape(re.sub("<[^>]+>", "", m[2]))
                 for m in re.findall(r'<td(?: class="([^"]*)")?( data-value="[^"]*")?>(.*?)</td>', body)}
        found[n] = {"attrs": html.unescape(attrs), **cells}
    return found


def test_at_a_glance_gives_a_verdict_where_the_interval_holds_one(tmp_path):
    """The page named a fastest mode at 1.02x [0.82, 1.26]; where the ratio's interval holds 1 it now says
    that the top mean is not shown faster, naming the loops it ties with."""
    write(tmp_path, "s1", mode="step", n=1, reps=[100.0, 104.0, 96.0])
    write(tmp_path, "r1", mode="sendrecv", n=1, reps=[103.0, 112.0, 95.0])  # a tie: 1.03x, interval holds 1
    write(tmp_path, "s8", mode="step", n=8, reps=[800.0, 810.0, 790.0])
    write(tmp_path, "r8", mode="sendrecv", n=8, reps=[1200.0, 1210.0, 1190.0])  # shown faster
    write(tmp_path, "s16", mode="step", n=16, reps=[1000.0, 1100.0, 900.0])
    write(tmp_path, "r16", mode="sendrecv", n=16, reps=[300.0, 900.0, 1500.0])  # step's mean higher, a tie
    c = collect([tmp_path], plot=False)
    assert row(c, "sendrecv", 1)["speedup_lo"] < 1 < row(c, "sendrecv", 1)["speedup_hi"]
    rows = _headline_rows(headline.block(c, view.throughput(c.table)))
    assert rows[1]["text"] == "sendrecv, not shown faster than step" and 'data-verdict="tie"' in rows[1]["attrs"]
    assert rows[1]["speedup"].endswith("(?)")
    assert rows[8]["text"] == "sendrecv" and 'data-verdict="faster"' in rows[8]["attrs"]
    assert rows[16]["text"] == "step, not shown faster than sendrecv" and "(?" in rows[16]["speedup"]


def _sweep_of(root, figures: dict, commit: str, commands: list[str]):
    for n, reps in figures.items():
        path = write(root, f"step{n}", mode="step", n=n, reps=reps)
        rec = json.loads(path.read_text())
        rec["provenance"]["git_commit"] = commit
        rec["provenance"]["git_dirty"] = False
        results.write_atomic(path, rec)
    lines = [{"at": "2026-01-01T00:00:00Z", "argv": [], "task": task.split(), "params": {},
              "hydra": [f"hydra.sweep.dir={root}", "hydra.mode=MULTIRUN"]} for task in commands]
    (root / ".commands.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_a_baseline_is_named_and_answered_in_figures(tmp_path):
    """The baseline was named by its path and only regressions were listed; now by its date, commit and
    command, with a ratio column, regressions and improvements listed and the rest counted."""
    old, new = tmp_path / "old", tmp_path / "new"
    _sweep_of(old, {1: [100.0, 101.0, 99.0], 8: [800.0, 801.0, 799.0], 64: [1000.0, 1010.0, 990.0]},
              "0123456789abcdef", ["env.num_envs=1,8,64 mode=step"])
    _sweep_of(new, {1: [80.0, 81.0, 79.0], 8: [1000.0, 1001.0, 999.0], 64: [1001.0, 1012.0, 985.0],
                    256: [2000.0, 2001.0, 1999.0]}, "fedcba9876543210", ["env.num_envs=1,8,64,256 mode=step"])
    c = collect([new], baseline=old, plot=False)
    md = c.markdown
    last = max(json.loads((old / f"step{n}" / "result.json").read_text())["timing"]["finished_at"]
               for n in (1, 8, 64))
    assert (f"**Against the baseline**: {old}: 3 jobs, the last finished {last[:16].replace('T', ' ')} UTC; "
            "commit: 0123456789ab; command: `python run.py -m env.num_envs=1,8,64 mode=step`") in md
    header, rows = table_with(md, "| mode | num_envs | baseline |")
    assert header == ["mode", "num_envs", "baseline", "now", "now/baseline", "verdict"]
    verdicts = {int(r["num_envs"]): (r["now/baseline"], r["verdict"]) for r in rows}
    assert set(verdicts) == {1, 8, 64}
    r1, r8, r64 = (row(c, "step", n) for n in (1, 8, 64))
    assert verdicts[1] == (f"{r1['baseline_ratio']:.2f}x [{r1['baseline_lo']:.2f}, {r1['baseline_hi']:.2f}]", "slower")
    assert verdicts[8][1] == "faster" and verdicts[64][1] == "no change shown" and verdicts[64][0].endswith("(?)")
    assert "**Regressions (1)**: whole interval below 1" in md and "**Improvements (1)**: whole interval above 1" in md
    assert "- all step n=1: 0.80x [" in md and "- all step n=8: 1.25x [" in md
    assert "No change shown: 1 of 3 rows compared (1 row not in the baseline)." in md
    csv = pd.read_csv(new / "summary" / "table.csv")
    assert list(csv["regression"]) == [True, False, False, False]
    assert list(csv["improvement"]) == [False, True, False, False]

    rows = _headline_rows(headline.block(c, view.throughput(c.table)))
    assert rows[1]["baseline"].startswith(f"{r1['baseline_ratio']:.2f}x [") and rows[1]["baseline"].endswith("slower")
    assert rows[64]["baseline"].endswith("no change shown") and rows[256]["baseline"] == "not in the baseline"


def test_a_baseline_summary_dir_is_named_by_its_chart_meta(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    _sweep_of(old, {1: [100.0, 101.0, 99.0]}, "0123456789abcdef", ["env.num_envs=1 mode=step"])
    collect([old], plot=False)  # its summary: table.csv and chart.json
    _sweep_of(new, {1: [100.0, 102.0, 98.0]}, "fedcba9876543210", ["env.num_envs=1 mode=step"])
    md = collect([new], baseline=old / "summary", plot=False).markdown
    assert f"**Against the baseline**: {old / 'summary'}: the last finished " in md
    assert "commit: 0123456789ab; command: `python run.py -m env.num_envs=1 mode=step`" in md
    assert "No change shown: 1 of 1 rows compared." in md


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


def test_start_up_is_one_statistic_named_in_the_learning_table(tmp_path):
    """`setup s` was the seeds' mean beside the start-up section's median of the same runs."""
    from test_collect_learning import learn

    for seed, setup in enumerate([5.0, 6.0, 10.0]):
        learn(tmp_path, f"s{seed}", [0.0, 5.0, 16.0], seed=seed, setup_s=setup)
    c = collect([tmp_path], plot=False)
    header, rows = table_with(c.markdown, "| mode | num_envs | seeds |")
    assert "setup s" not in header and rows[0]["start-up s: median"] == "6.0"
    assert np.isclose(c.learning["setup_s"].iloc[0], 6.0)


def test_a_precision_targets_cell_prints_its_records_interval_its_precision_and_a_cap(tmp_path):
    """A job timed to a precision target (schedule.precision) holds the two-stage interval of its reps:
    the table prints that one, not the narrower plain interval, with the half-width it reached; one
    whose reps stopped at a cap before the target says so with its mark, in the table and its log line."""
    from ppo_bench.record import stats
    from ppo_bench.record.line import summarise_record
    from ppo_bench.record.results import Record, read_result, write_atomic

    runs = {("step", "precision"): [100.0, 104.0, 99.0, 101.0, 103.0, 100.0],
            ("sendrecv", "max_reps"): [100.0, 130.0, 80.0, 120.0, 90.0, 110.0]}
    for (mode, stopped_by), reps in runs.items():
        path = write(tmp_path / "sweep", mode, mode=mode, n=8, reps=reps, sched_reps=3,
                     sched_extra={"precision": 0.03, "max_reps": 6})
        rec = read_result(path)
        s = stats.summary(reps, [reps[:3]])
        rec["throughput"].update(precision=0.03, pilot=3, needed=6 if stopped_by == "precision" else 40,
                                 stopped_by=stopped_by, interval="two_stage", lo=s["lo"], hi=s["hi"])
        write_atomic(path, rec)
    c = collect([tmp_path / "sweep"], out_dir=tmp_path / "out", plot=False)
    md = (tmp_path / "out" / "table.md").read_text()
    for (mode, stopped_by), reps in runs.items():
        r = row(c, mode, 8)
        s, plain = stats.summary(reps, [reps[:3]]), stats.summary(reps)
        assert (r["lo"], r["hi"]) == pytest.approx((s["lo"], s["hi"])) and s["lo"] < plain["lo"]  # wider, as recorded
        half = stats.relative_half_width(s["mean"], s["lo"], s["hi"])
        assert r["rel_half_width"] == pytest.approx(half) and r["precision"] == 0.03
        cell = f"{stats.interval_text(s['mean'], s['lo'], s['hi'])} ±{half:.1%}"
        assert (cell + " (noisy, at cap)" if stopped_by == "max_reps" else cell + " |") in md, md
        assert bool(r["at_cap"]) == (stopped_by == "max_reps")
        line = summarise_record(Record.read(tmp_path / "sweep" / mode / "result.json"))
        assert ("at cap" in line) == (stopped_by == "max_reps"), line
    assert "±x% = a precision target's cell" in md and "(at cap) = its precision target was not met" in md
    # the page says what the table says: the same interval (not one of its own from the reps), the same ±x%
    t = view.throughput(c.table)
    top = _headline_rows(headline.block(c, t))[8]["thr num"]
    best = max(runs, key=lambda k: np.mean(runs[k]))
    s = stats.summary(runs[best], [runs[best][:3]])
    shown = f"{view.fmt(s['mean'])} [{view.fmt(s['lo'])}, {view.fmt(s['hi'])}]"
    assert top.startswith(f"{shown} ±{stats.relative_half_width(s['mean'], s['lo'], s['hi']):.1%}"), top
    for mode, reps in ((m, r) for (m, _), r in runs.items()):
        drawn = t[t["mode"] == mode].iloc[0]
        s = stats.summary(reps, [reps[:3]])
        assert (drawn["lo"], drawn["hi"]) == pytest.approx((s["lo"], s["hi"]))
