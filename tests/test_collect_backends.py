"""Backends (runtimes) side by side: configurations that differ only in env.backend (agent.runtime), ratios to ale-py (compiled).

Expected figures are worked out here (welch_log, paired_log: scipy.stats.t.ppf on hand-computed
logs), not by calling ppo_bench.record.stats.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from ppo_bench.collect import collect
from test_collect import paired_log, welch_log, write

ALE = {0: [100.0, 104.0], 1: [90.0, 94.0]}      # round -> reps of the async[groups=2] job
ENVPOOL = {0: [150.0, 154.0], 1: [120.0, 126.0]}


def agent(runtime):
    return {"name": "nature_cnn", "runtime": runtime, "num_steps": 128}


def run(root, backend, mode="async", n=8, reps=(100.0, 100.0), rnd=0, runtime="compiled", **kw):
    write(root, f"{backend}-{runtime}-{mode}-{n}-r{rnd}", mode=mode, n=n, groups=2 if mode == "async" else 1,
          round=rnd, reps=reps, sched_reps=len(reps), env_extra={"backend": backend}, agent=agent(runtime), **kw)


def test_two_backends_two_rounds_paired_is_the_geometric_mean_of_round_ratios(tmp_path, capsys):
    for backend, by_round in (("ale", ALE), ("envpool", ENVPOOL)):
        for rnd, reps in by_round.items():
            run(tmp_path / "runs", backend, reps=reps, rnd=rnd)
            run(tmp_path / "runs", backend, mode="step", reps=[r / 2 for r in reps], rnd=rnd)
    out = tmp_path / "summary"
    c = collect([tmp_path / "runs"], out_dir=out, plot=False)
    assert sorted(c.table["group"].unique()) == ["env.backend=ale", "env.backend=envpool"]  # still apart
    b = c.backends
    assert list(zip(b["configuration"], b["mode"], b["num_envs"])) == [
        ("all", "step", 8), ("all", "async[groups=2]", 8), ("all", "best loop", 8)]
    a = b.iloc[1]
    best = b.iloc[2]  # both backends' fastest loop is async: the same figures as its row
    assert (best["ale_loop"], best["envpool_loop"]) == ("async[groups=2]", "async[groups=2]")
    assert best[a.index.drop(["mode", "ale_loop", "envpool_loop"])].equals(a[a.index.drop(["mode", "ale_loop", "envpool_loop"])])
    assert (a["ale_mean"], a["envpool_mean"]) == (97.0, 137.5)
    ratio, lo, hi = welch_log(ENVPOOL[0] + ENVPOOL[1], ALE[0] + ALE[1])
    assert (a["envpool_ratio"], a["envpool_lo"], a["envpool_hi"]) == (
        pytest.approx(ratio), pytest.approx(lo), pytest.approx(hi))
    per_round = [152 / 102, 123 / 92]  # ratio of the jobs' mean reps, per round
    p, plo, phi = paired_log(per_round)
    assert a["envpool_paired"] == pytest.approx(math.sqrt(per_round[0] * per_round[1]))
    assert (a["envpool_paired"], a["envpool_paired_lo"], a["envpool_paired_hi"], a["envpool_rounds"]) == (
        pytest.approx(p), pytest.approx(plo), pytest.approx(phi), 2)
    assert b.iloc[0]["envpool_paired"] == pytest.approx(math.sqrt(per_round[0] * per_round[1]))  # step: halves

    md = capsys.readouterr().out
    section = md.split("**Backends side by side**")[1]
    assert "| mode | num_envs | ale | envpool | envpool/ale | envpool/ale paired |" in section
    mark = " (?, wide)" if phi > 4 * plo else " (?)"  # the paired interval holds 1; the unpaired one does not
    assert (f"| async[groups=2] | 8 | 97.0 | 138 | {ratio:.2f}x [{lo:.2f}, {hi:.2f}] | "
            f"{p:.2f}x [{plo:.2f}, {phi:.2f}]{mark} |") in section
    assert plo <= 1 <= phi and not (lo <= 1 <= hi or hi > 4 * lo)
    assert "<backend>/ale = ratio to ale:" in section and "configuration |" not in section  # one configuration: no column
    csv = pd.read_csv(out / "backends.csv")
    assert csv.loc[1, "envpool_paired"] == pytest.approx(p, rel=1e-12)  # full precision
    ch = json.loads((out / "side_by_side.json").read_text())
    assert ch["envpoolOverAleAsyncGroups2"] == [{"n": 8, "ratio": round(ratio, 3), "lo": round(lo, 3),
                                                 "hi": round(hi, 3), "paired": round(p, 3),
                                                 "paired_lo": round(plo, 3), "paired_hi": round(phi, 3)}]
    assert ch["meta"]["ratios"]["backend"]["arrays"] == [
        "envpoolOverAleStep", "envpoolOverAleAsyncGroups2", "envpoolOverAleBestLoop"]
    assert "const envpoolOverAleAsyncGroups2 = [\n  { n: 8, ratio: " in (out / "side_by_side.js").read_text()


def test_best_loop_puts_each_backends_fastest_loop_beside_ales_paired_on_those_loops(tmp_path, capsys):
    """ale runs fastest in async, gymnasium (no batches) in sendrecv; envpool ran one loop only. The best
    loop row pairs each round's gymnasium sendrecv with that round's ale async; probes are no loop."""
    by_round = {  # round -> {(backend, mode): reps}
        0: {("ale", "step"): [50.0], ("ale", "async"): [100.0], ("ale", "env_only"): [400.0],
            ("gymnasium", "step"): [30.0], ("gymnasium", "sendrecv"): [40.0], ("gymnasium", "env_only"): [900.0],
            ("envpool", "step"): [45.0]},
        1: {("ale", "step"): [60.0], ("ale", "async"): [80.0], ("ale", "env_only"): [400.0],
            ("gymnasium", "step"): [20.0], ("gymnasium", "sendrecv"): [36.0], ("gymnasium", "env_only"): [900.0],
            ("envpool", "step"): [66.0]},
    }
    for rnd, jobs in by_round.items():
        for (backend, mode), reps in jobs.items():
            run(tmp_path, backend, mode=mode, reps=reps, rnd=rnd)
    out = tmp_path / "summary"
    b = collect([tmp_path], out_dir=out, plot=False).backends
    assert list(b["mode"]) == ["step", "env_only", "best loop"]  # a loop only one backend ran has no row of its own
    best = b.iloc[-1]
    assert (best["ale_loop"], best["gymnasium_loop"], best["envpool_loop"]) == ("async[groups=2]", "sendrecv", "step")
    assert (best["ale_mean"], best["gymnasium_mean"], best["envpool_mean"]) == (90.0, 38.0, 55.5)
    assert best["gymnasium_paired"] == pytest.approx(math.sqrt(40 / 100 * 36 / 80))
    assert best["envpool_paired"] == pytest.approx(math.sqrt(45 / 100 * 66 / 80))  # its only loop against ale's best
    assert best["gymnasium_rounds"] == 2
    section = capsys.readouterr().out.split("**Backends side by side**")[1]
    assert "| best loop | 8 | 90.0 (async[groups=2]) | 55.5 (step) | 38.0 (sendrecv) |" in section
    assert "best loop = each backend's fastest loop mode" in section
    ch = json.loads((out / "side_by_side.json").read_text())
    assert [(p["loop"], p["over_loop"]) for p in ch["gymnasiumOverAleBestLoop"]] == [("sendrecv", "async[groups=2]")]
    assert "loop" not in ch["gymnasiumOverAleStep"][0]


def test_no_best_loop_row_where_every_backend_ran_one_loop(tmp_path):
    for backend, reps in (("ale", (100.0, 100.0)), ("envpool", (90.0, 90.0))):
        run(tmp_path, backend, reps=reps)
        run(tmp_path, backend, mode="env_only", reps=reps)  # a probe is no second loop
    c = collect([tmp_path], plot=False)
    b = c.backends
    assert list(b["mode"]) == ["async[groups=2]", "env_only"] and list(b["ale_loop"]) == ["async[groups=2]", "env_only"]
    assert "best loop" not in c.markdown  # nor in the footer


def test_the_best_loop_row_does_not_warn_again_about_jobs_its_mode_row_warned_about(tmp_path):
    for rnd in (0, 1):
        for backend in ("ale", "envpool"):
            run(tmp_path, backend, mode="step", rnd=rnd, reps=(50.0, 50.0))
        run(tmp_path, "ale", rnd=rnd)
        run(tmp_path, "envpool", rnd=rnd, reps=(150.0, 150.0), load=4.0 if rnd == 1 else 0.5)
    c = collect([tmp_path], plot=False)
    assert c.backends.iloc[-1]["mode"] == "best loop" and c.backends.iloc[-1]["envpool_loop"] == "async[groups=2]"
    between_backends = [w for w in c.machine_warnings if ": envpool vs ale: " in w]
    assert len(between_backends) == 1 and between_backends[0].startswith("all async[groups=2] n=8 round 1:")


def test_a_backend_compared_on_another_machine_state_is_warned(tmp_path):
    for rnd in (0, 1):
        run(tmp_path, "ale", rnd=rnd)
        run(tmp_path, "envpool", rnd=rnd, reps=(150.0, 150.0), load=4.0 if rnd == 1 else 0.5)
    c = collect([tmp_path], plot=False)
    assert len(c.machine_warnings) == 1
    assert c.machine_warnings[0].startswith("all async[groups=2] n=8 round 1: envpool vs ale: load 4.00 vs 0.50 (")
    assert c.backends.iloc[0]["envpool_paired"] == pytest.approx(1.5)


def test_a_cell_where_one_backend_ran_gets_no_row_and_a_missing_backend_no_ratio(tmp_path, capsys):
    run(tmp_path, "ale", n=8, reps=(100.0, 100.0))
    run(tmp_path, "ale", n=16, reps=(200.0, 200.0))
    run(tmp_path, "envpool", n=8, reps=(300.0, 300.0))
    run(tmp_path, "gymnasium", n=16, reps=(100.0, 100.0))
    run(tmp_path, "envpool", n=32, reps=(500.0, 500.0))  # ale did not run at 32: nothing to compare with
    b = collect([tmp_path], plot=False).backends.set_index("num_envs")
    assert list(b.index) == [8, 16]
    assert (b.loc[8, "envpool_ratio"], b.loc[16, "gymnasium_ratio"]) == (pytest.approx(3.0), pytest.approx(0.5))
    assert np.isnan(b.loc[8, "gymnasium_ratio"]) and np.isnan(b.loc[8, "gymnasium_mean"])
    assert np.isnan(b.loc[16, "envpool_ratio"]) and (b.loc[16, "envpool_rounds"], b.loc[8, "envpool_rounds"]) == (0, 1)
    assert np.isnan(b.loc[8, "envpool_paired"])  # one round: no paired figure
    section = capsys.readouterr().out.split("**Backends side by side**")[1]
    assert "| mode | num_envs | ale | envpool | gymnasium | envpool/ale | gymnasium/ale |" in section
    assert "| async[groups=2] | 16 | 200 |  | 100 |  | 0.50x [0.50, 0.50] |" in section


def test_only_ale_or_no_ale_gives_no_backends_section_and_removes_an_earlier_one(tmp_path):
    run(tmp_path / "both", "ale")
    run(tmp_path / "both", "envpool", reps=(150.0, 150.0))
    out = tmp_path / "summary"
    collect([tmp_path / "both"], out_dir=out, plot=False)
    assert (out / "backends.csv").is_file()
    run(tmp_path / "ale", "ale", n=16)
    run(tmp_path / "ale", "ale", mode="step", n=16)
    c = collect([tmp_path / "ale"], out_dir=out, plot=False)
    assert c.backends.empty and not (out / "backends.csv").exists()
    assert "Backends side by side" not in (out / "table.md").read_text()
    run(tmp_path / "no_ale", "envpool")
    run(tmp_path / "no_ale", "gymnasium")
    c = collect([tmp_path / "no_ale"], out_dir=out, plot=False)
    assert c.table["group"].nunique() == 2 and c.backends.empty and not (out / "backends.csv").exists()
    assert "Backends side by side" not in c.markdown


def test_configurations_that_differ_in_more_than_the_backend_are_not_merged(tmp_path, capsys):
    run(tmp_path / "apart", "ale", runtime="compiled")
    run(tmp_path / "apart", "envpool", runtime="eager", reps=(150.0, 150.0))
    assert collect([tmp_path / "apart"], plot=False).backends.empty
    for runtime, ale, pool in (("compiled", 100.0, 150.0), ("eager", 40.0, 80.0)):
        run(tmp_path / "both", "ale", runtime=runtime, reps=(ale, ale))
        run(tmp_path / "both", "envpool", runtime=runtime, reps=(pool, pool))
    b = collect([tmp_path / "both"], plot=False).backends
    assert list(zip(b["configuration"], b["ale_mean"], b["envpool_ratio"])) == [
        ("agent.runtime=compiled", 100.0, pytest.approx(1.5)), ("agent.runtime=eager", 40.0, pytest.approx(2.0))]
    section = capsys.readouterr().out.split("**Backends side by side**")[1]
    assert "| configuration | mode | num_envs | ale | envpool | envpool/ale |" in section
    assert "| agent.runtime=eager | async[groups=2] | 8 | 40.0 | 80.0 | 2.00x [2.00, 2.00] |" in section


def test_runtimes_side_by_side_paired_by_round(tmp_path, capsys):
    """The graphed agent against the compiled one in the same loop, per round, as a claim
    such as "graphed step >= 1.8x compiled (paired)" is read; the backend is the same, so no backends table."""
    compiled, graphed = {0: [500.0], 1: [520.0], 2: [480.0]}, {0: [1100.0], 1: [900.0], 2: [1000.0]}
    for rnd in compiled:
        run(tmp_path / "runs", "ale", mode="step", n=1, reps=compiled[rnd], rnd=rnd, runtime="compiled")
        run(tmp_path / "runs", "ale", mode="step", n=1, reps=graphed[rnd], rnd=rnd, runtime="graphed")
    out = tmp_path / "summary"
    c = collect([tmp_path / "runs"], out_dir=out, plot=False)
    assert c.backends.empty and not (out / "backends.csv").exists()
    r = c.runtimes.iloc[0]
    per_round = [graphed[k][0] / compiled[k][0] for k in compiled]
    p, plo, phi = paired_log(per_round)
    assert (r["mode"], r["num_envs"], r["compiled_mean"], r["graphed_mean"]) == ("step", 1, 500.0, 1000.0)
    assert (r["graphed_paired"], r["graphed_paired_lo"], r["graphed_paired_hi"], r["graphed_rounds"]) == (
        pytest.approx(p), pytest.approx(plo), pytest.approx(phi), 3)
    assert p == pytest.approx(float(np.prod(per_round)) ** (1 / 3))
    section = capsys.readouterr().out.split("**Runtimes side by side**")[1]
    assert "| mode | num_envs | compiled | graphed | graphed/compiled | graphed/compiled paired |" in section
    assert "| step | 1 | 500 | 1000 | " in section and f"{p:.2f}x [{plo:.2f}, {phi:.2f}] |" in section
    assert "differ only in agent.runtime" in section
    assert pd.read_csv(out / "runtimes.csv").loc[0, "graphed_paired"] == pytest.approx(p, rel=1e-12)
    ch = json.loads((out / "side_by_side.json").read_text())
    assert ch["meta"]["ratios"]["runtime"]["over"] == "compiled"
    assert ch["graphedOverCompiledStep"][0]["paired"] == round(p, 3)


def test_a_probe_the_key_cannot_change_is_not_compared(tmp_path):
    """env_only runs no agent and agent_only no env: their ratio across runtimes (backends) is
    drift between jobs, not an effect, so neither table shows it."""
    for backend, runtime, env, agent_thr in (("ale", "compiled", 100.0, 500.0), ("envpool", "compiled", 90.0, 650.0),
                                             ("ale", "graphed", 80.0, 900.0)):
        run(tmp_path, backend, mode="env_only", runtime=runtime, reps=(env, env))
        run(tmp_path, backend, mode="agent_only", runtime=runtime, reps=(agent_thr, agent_thr))
    c = collect([tmp_path], plot=False)
    b, r = c.backends, c.runtimes
    assert list(b["mode"].str.split("[").str[0]) == ["env_only"] and b.iloc[0]["envpool_ratio"] == pytest.approx(0.9)
    assert list(r["mode"].str.split("[").str[0]) == ["agent_only"] and r.iloc[0]["graphed_ratio"] == pytest.approx(1.8)
    assert "agent_only, which backend cannot change, is left out" in c.markdown


def test_rounds_pair_only_within_one_sweep(tmp_path):
    """Round 0 of two sweeps is two rounds; sides that ran in different sweeps are never a pair."""
    run(tmp_path / "a", "ale", reps=(100.0,))
    run(tmp_path / "b", "envpool", reps=(150.0,))  # the only envpool job: another sweep than ale's
    c = collect([tmp_path / "a", tmp_path / "b"], plot=False)
    row = c.backends.iloc[0]
    assert row["envpool_ratio"] == pytest.approx(1.5) and row["envpool_rounds"] == 0  # unpaired only
    run(tmp_path / "a", "envpool", reps=(120.0,))
    run(tmp_path / "b", "ale", reps=(100.0,))
    row = collect([tmp_path / "a", tmp_path / "b"], plot=False).backends.iloc[0]
    p, _, _ = paired_log([1.2, 1.5])
    assert (row["envpool_rounds"], row["envpool_paired"]) == (2, pytest.approx(p))


def test_side_by_side_png_keeps_its_axis_when_group_names_are_long():
    """A group's name lists every key that differs (a learning sweep beside a timed one names a dozen): the
    legend goes below the axis with its labels wrapped, and the axis keeps most of the figure (a legend
    inside it that wide squeezed it to nothing, and matplotlib warned that the layout collapsed)."""
    import warnings

    from ppo_bench.collect.side_by_side import groups_plot

    names = [", ".join(f"agent.key_{k}={g}{k}" for k in range(14)) for g in "abc"]  # about 230 characters each
    t = pd.DataFrame([{"group": g, "mode": m, "num_envs": n, "mean": 100.0 * n, "lo": 90.0 * n, "hi": 110.0 * n}
                      for g in names for m in ("step", "async") for n in (8, 64)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the collapsed layout's UserWarning fails the test
        fig = groups_plot(t, "title")
        fig.canvas.draw()
    box = fig.axes[0].get_position()
    assert box.width > 0.8 and box.height > 0.5, box
    legend = fig.legends[0]
    lines = [line for text in legend.get_texts() for line in text.get_text().split("\n")]
    assert len(legend.get_texts()) == 6 and max(map(len, lines)) <= 120
    assert "\n".join(text.get_text() for text in legend.get_texts()).replace("\n    ", " ").count("agent.key_13") == 6
