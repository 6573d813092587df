"""The collector on synthetic learning runs: returns over seeds, time to target, equal env steps, files.

Expected figures are worked out here (the IQM by hand, the bootstrap by calling
scipy.stats.bootstrap directly, interpolation by hand), not by calling the learning module.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ppo_bench.record import results
from ppo_bench.collect import collect
from ppo_bench.collect.equal_steps import at_equal_steps, curve_on
from test_collect import write

PPO = {"name": "nature_cnn", "runtime": "eager", "num_steps": 128, "algo": "ppo", "gamma": 0.99}
LEARN = {"total_env_steps": 4000, "target_return": 15.0, "return_window": 20}
PNG = b"\x89PNG\r\n\x1a\n"


def curve(returns, steps=1000, per_update_s=2.0, setup_s=5.0, episodes=10):
    """One point per update: env steps, job wall seconds, episodes so far, running mean and std."""
    k = len(returns)
    return {"env_steps": [steps * (i + 1) for i in range(k)],
            "wall_s": [setup_s + per_update_s * (i + 1) for i in range(k)],
            "episodes": [episodes * (i + 1) for i in range(k)], "return_mean": list(returns),
            "return_std": [None if r is None else 1.0 for r in returns]}


def reached(c, target, window):
    for wall, steps, eps, r in zip(c["wall_s"], c["env_steps"], c["episodes"], c["return_mean"]):
        if r is not None and eps >= window and r >= target:
            return wall, steps
    return None, None


def learn(root, name, returns, *, mode="step", seed=0, target=15.0, window=20, setup_s=5.0, per_update_s=2.0,
          stated_time=..., num_envs=8, groups=1, agent=None, stops=None, **kw):
    """A learning run's result file: an ordinary record (one rep: the loop's env-steps/s) plus
    `algo` and `learning`, consistent with its curve unless `stated_time` says otherwise."""
    c = curve(returns, setup_s=setup_s, per_update_s=per_update_s)
    eps = 1000 / per_update_s
    path = write(root, name, mode=mode, n=num_envs, groups=groups, seed=seed, reps=[eps], agent=agent or PPO,
                 sched_extra={**LEARN, "target_return": target, "return_window": window, **(stops or {})}, **kw)
    rec = json.loads(path.read_text())
    wall, steps = reached(c, target, window) if target is not None else (None, None)
    rec["algo"] = "ppo"
    rec["learning"] = {
        "total_env_steps": c["env_steps"][-1], "target_return": target, "window": window, "setup_s": setup_s,
        "wall_s": c["wall_s"][-1], "env_steps_per_s": eps, "episodes": c["episodes"][-1],
        "final_return_mean": returns[-1], "final_return_std": None if returns[-1] is None else 1.0,
        "time_to_target_s": wall if stated_time is ... else stated_time, "env_steps_to_target": steps, "curve": c}
    results.write_atomic(path, rec)
    return path


def learning_row(c, mode, n=8):
    t = c.learning
    sel = t[(t["mode"] == mode) & (t["num_envs"] == n)]
    assert len(sel) == 1, sel
    return sel.iloc[0]


def bootstrap(x):
    ci = stats.bootstrap((np.asarray(x, dtype=float),), lambda s, axis: stats.trim_mean(s, 0.25, axis=axis),
                         n_resamples=9999, confidence_level=0.95, method="percentile",
                         random_state=np.random.default_rng(0)).confidence_interval
    return ci.low, ci.high


def test_final_return_iqm_bootstrap_and_seeds_pooled(tmp_path, capsys):
    for seed, final in enumerate([10.0, 30.0, 12.0, 14.0]):  # IQM: mean of the middle two, 12 and 14
        learn(tmp_path, f"step{seed}", [0.0, 5.0, final], seed=seed)
    for seed, final in enumerate([8.0, 9.0]):
        learn(tmp_path, f"async{seed}", [0.0, 4.0, final], mode="async", groups=2, seed=seed)
    learn(tmp_path, "sendrecv0", [0.0, 1.0, 7.0], mode="sendrecv")
    c = collect([tmp_path], plot=False)

    s = learning_row(c, "step")
    lo, hi = bootstrap([10.0, 30.0, 12.0, 14.0])
    assert (s["seeds"], s["final_iqm"]) == (4, 13.0)
    assert (s["final_lo"], s["final_hi"]) == (pytest.approx(lo), pytest.approx(hi))
    assert lo <= 13.0 <= hi
    assert (s["env_steps_per_s"], s["setup_s"], s["total_env_steps"]) == (500.0, 5.0, 3000)
    assert json.loads(s["final_per_seed"]) == [10.0, 30.0, 12.0, 14.0]
    a = learning_row(c, "async")
    assert (a["seeds"], a["final_iqm"]) == (2, 8.5)  # two seeds: trim_mean trims nothing
    assert (a["final_lo"], a["final_hi"]) == tuple(pytest.approx(v) for v in bootstrap([8.0, 9.0]))
    r = learning_row(c, "sendrecv")
    assert r["seeds"] == 1 and np.isnan(r["final_lo"]) and np.isnan(r["final_hi"])

    out = capsys.readouterr().out
    learning = out[out.index("**Learning**"):]
    assert f"| step | 8 | 4 | 13.0 [{lo:.1f}, {hi:.1f}] | 15.0 |" in learning
    assert "| async | 8 | 2 | 8.5 [" in learning and "(2 seeds: wide)" in learning
    assert "| sendrecv | 8 | 1 | 7.0 (1 seed: no interval) |" in learning
    assert "*Per seed*" in learning and "| step | 8 | 3 | 14.0 ± 1.0 | 30 | 3000 |" in learning
    # throughput: one row per configuration, its seeds pooled like rounds; table.csv says algo
    assert sorted(c.table["mode"]) == ["async", "sendrecv", "step"]
    assert c.table.set_index("mode").loc["step", ["n", "algo"]].tolist() == [4, "ppo"]
    assert c.table["group"].unique().tolist() == ["all"]
    csv = pd.read_csv(tmp_path / "summary" / "returns.csv")
    assert csv.set_index("mode").loc["step", "final_iqm"] == 13.0 and len(csv) == 3


def test_seeds_of_different_configurations_stay_apart(tmp_path):
    learn(tmp_path, "a0", [1.0, 2.0], seed=0)
    learn(tmp_path, "a1", [1.0, 4.0], seed=1)
    learn(tmp_path, "b0", [1.0, 9.0], seed=0, agent={**PPO, "learning_rate": 1e-3})
    learn(tmp_path, "c0", [1.0, 7.0], seed=0, num_envs=16)
    c = collect([tmp_path], plot=False)
    rows = c.learning.set_index(["group", "num_envs"])
    assert rows.loc[("agent.learning_rate=0.00025", 8), "seeds"] == 2  # the schema's default
    assert rows.loc[("agent.learning_rate=0.00025", 8), "final_iqm"] == 3.0
    assert rows.loc[("agent.learning_rate=0.001", 8), "seeds"] == 1
    assert rows.loc[("agent.learning_rate=0.00025", 16), "final_iqm"] == 7.0
    assert "| configuration | mode | num_envs |" in c.markdown


def test_where_a_run_stops_does_not_part_its_seeds(tmp_path):
    """schedule.max_seconds and schedule.stop_at_target cut a curve short without changing it: seeds
    that differ only there pool."""
    learn(tmp_path, "a0", [1.0, 2.0], seed=0, stops={"max_seconds": 240.0, "stop_at_target": True})
    learn(tmp_path, "a1", [1.0, 4.0], seed=1, stops={"max_seconds": 120.0})
    c = collect([tmp_path], plot=False)
    assert c.learning["seeds"].tolist() == [2]


def test_time_to_target_is_read_off_the_curve(tmp_path, capsys):
    # update 1 is above target but has only 10 episodes (window 20): it does not count
    learn(tmp_path, "s0", [16.0, 12.0, 15.0, 18.0], seed=0)  # reached at update 3: 5 + 3 * 2 = 11 s, 3000 steps
    learn(tmp_path, "s1", [1.0, 16.0, 17.0, 17.0], seed=1)   # update 2: 9 s, 2000 steps
    learn(tmp_path, "s2", [1.0, 2.0, 3.0, 4.0], seed=2)      # never
    learn(tmp_path, "a0", [1.0, 2.0, 3.0, 4.0], mode="async", groups=2, seed=0)
    learn(tmp_path, "a1", [1.0, 2.0, 16.0, 4.0], mode="async", groups=2, seed=1, stated_time=99.0)  # record wrong
    c = collect([tmp_path], plot=False)
    seeds = c.seeds.set_index(["mode", "seed"])
    assert seeds.loc[("step", 0), ["time_to_target_s", "env_steps_to_target"]].tolist() == [11.0, 3000]
    assert seeds.loc[("step", 1), ["time_to_target_s", "env_steps_to_target"]].tolist() == [9.0, 2000]
    assert pd.isna(seeds.loc[("step", 2), "time_to_target_s"])
    s = learning_row(c, "step")
    assert (s["reached"], s["time_to_target_median"], s["env_steps_to_target_median"]) == (2, 11.0, 3000.0)
    a = learning_row(c, "async")  # one of two reached: the median is never
    assert a["reached"] == 1 and a["time_to_target_median"] == np.inf
    assert seeds.loc[("async", 1), "time_to_target_s"] == 11.0  # the curve's, not the record's 99
    out = capsys.readouterr().out
    assert "| 11.0 (11.0, 9.0, never) | 3000 (3000, 2000, never) |" in out
    assert "| never (never, 11.0) | never (never, 3000) |" in out
    assert f"{seeds.loc[('async', 1), 'path']}: time_to_target_s=99.0 but the curve says 11.0" in out


def test_no_target_reads_no_target(tmp_path):
    learn(tmp_path, "s0", [1.0, 20.0], target=None)
    c = collect([tmp_path], plot=False)
    assert learning_row(c, "step")["reached"] == 0
    assert "| none | no target | no target |" in c.markdown


def test_interpolation_onto_env_steps():
    lr = {"curve": curve([None, 10.0, 20.0, 40.0])}  # env steps 1000..4000; no episode before 2000
    got = curve_on(lr, "env_steps", np.array([1500.0, 2000.0, 2500.0, 3750.0, 4000.0, 4500.0]))
    assert np.isnan(got[0]) and np.isnan(got[-1])  # before the first return, past the last update
    assert got[1:-1].tolist() == [10.0, 15.0, 35.0, 40.0]
    assert curve_on(lr, "wall_s", np.array([10.0]))[0] == 15.0  # wall 7, 9, 11, 13 s: 10 s is between 9 and 11


def _rows(curves, mode="step"):
    return pd.DataFrame({"learning": [{"curve": curve(c)} for c in curves], "mode": mode})


def test_equal_env_steps_iqm_spread_and_agreement():
    a = _rows([[0.0, 10.0], [2.0, 12.0], [4.0, 20.0]])
    b = _rows([[1.0, 11.0], [3.0, 13.0], [5.0, 15.0]])
    pts = at_equal_steps(a, b, [1000, 1500, 2000])
    assert pts["iqm_a"].tolist() == [2.0, 8.0, 14.0]  # at 1500: seeds 5, 7, 12
    assert (pts["min_a"].tolist(), pts["max_a"].tolist()) == ([0.0, 5.0, 10.0], [4.0, 12.0, 20.0])
    assert pts["iqm_b"].tolist() == [3.0, 8.0, 13.0]  # at 1500: seeds 6, 8, 10
    assert pts["agree"].tolist() == [True, True, True]
    far = _rows([[50.0, 60.0], [51.0, 61.0], [52.0, 62.0]])
    assert at_equal_steps(a, far, [1000, 2000])["agree"].tolist() == [False, False]
    # three seeds close together on one side: the modes agree while they differ no more than seeds do
    tight, loose = _rows([[-19.6, 0.0], [-19.2, 0.1], [-19.4, 0.2]]), _rows([[-19.6, 1.0], [-18.8, 1.1], [-17.6, 1.2]])
    pts = at_equal_steps(tight, loose, [1000, 2000])
    assert pts["iqm_b"][0] > pts["max_a"][0]  # outside the tight side's range, within the loose side's spread
    assert pts["agree"].tolist() == [True, False]  # at 2000: 1.0 apart, each side's seeds within 0.2
    # one side's wide range does not excuse the other's seeds lying beyond all of it (the H200's 5 seeds
    # with overlap against 3 without, at 0.46M env steps): the IQMs 10 apart within a spread of 14
    wide, above = _rows([[0.0, -4.0], [0.0, 6.0], [0.0, 10.0]]), _rows([[0.0, 14.0], [0.0, 16.0], [0.0, 17.0]])
    assert at_equal_steps(wide, above, [1000, 2000])["agree"].tolist() == [True, False]
    alone = at_equal_steps(_rows([[0.0, 10.0]]), b, [1000, 2000])  # one seed: no spread, no verdict
    assert alone["iqm_a"].tolist() == [0.0, 10.0] and alone["agree"].isna().all()
    early = _rows([[None, 10.0], [2.0, 12.0], [4.0, 20.0]])  # a seed with no episode yet: no figure there
    pts = at_equal_steps(early, b, [1000, 2000])
    assert np.isnan(pts["iqm_a"][0]) and pd.isna(pts["agree"][0]) and bool(pts["agree"][1])


def test_pairs_differing_only_in_mode_are_compared_in_table_md(tmp_path, capsys):
    for seed, (s, a, far) in enumerate([(10.0, 11.0, 40.0), (12.0, 12.5, 42.0), (14.0, 13.0, 44.0)]):
        learn(tmp_path, f"s{seed}", [0.0, s / 2, s, s], seed=seed)
        learn(tmp_path, f"a{seed}", [0.0, a / 2, a, a], mode="async", groups=2, seed=seed)
        learn(tmp_path, f"r{seed}", [0.0, far / 2, far, far + 1], mode="sendrecv", seed=seed)
    learn(tmp_path, "other_n", [0.0, 1.0, 2.0, 3.0], num_envs=16)  # another num_envs: never paired with these
    c = collect([tmp_path], plot=False)
    pairs = {(p["a"], p["b"], p["num_envs"]): p for p in c.equal_steps}
    assert sorted(pairs) == [("sendrecv", "async", 8), ("step", "async", 8), ("step", "sendrecv", 8)]
    sa = pairs[("step", "async", 8)]
    assert sa["enough_seeds"] and sa["points"]["env_steps"].tolist() == [1000, 2000, 3000, 4000]
    assert sa["points"]["agree"].tolist() == [True, True, True, True]
    assert sa["points"]["iqm_a"].tolist() == [0.0, 6.0, 12.0, 12.0]
    assert pairs[("step", "sendrecv", 8)]["points"]["agree"].tolist() == [True, False, False, False]
    out = capsys.readouterr().out
    assert "*async vs step at equal env steps* (num_envs=8; 3 and 3 seeds)" in out
    assert "| env steps | step: IQM [min, max] | async: IQM [min, max] | agree |" in out
    assert "| 3000 | 12.0 [10.0, 14.0] | 12.2 [11.0, 13.0] | yes |" in out
    assert "| 3000 | 12.0 [10.0, 14.0] | 42.0 [40.0, 44.0] | no |" in out


def test_too_few_seeds_are_said_to_be_too_few(tmp_path):
    learn(tmp_path, "s0", [0.0, 10.0])
    learn(tmp_path, "a0", [0.0, 10.0], mode="async", groups=2)
    c = collect([tmp_path], plot=False)
    assert not c.equal_steps[0]["enough_seeds"]
    assert "(num_envs=8; 1 and 1 seeds; fewer than 3 seeds a side: not the acceptance test)" in c.markdown


def test_plots_and_returns_json(tmp_path):
    pytest.importorskip("matplotlib")
    for seed in range(3):
        learn(tmp_path / "runs", f"s{seed}", [None, 1.0 + seed, 5.0 + seed], seed=seed)
        learn(tmp_path / "runs", f"a{seed}", [None, 2.0 + seed, 6.0 + seed], mode="async", groups=2, seed=seed,
              per_update_s=1.0)
    out = tmp_path / "summary"
    collect([tmp_path / "runs"], out_dir=out)
    for name in ("returns_vs_env_steps.png", "returns_vs_wall_s.png"):
        png = (out / name).read_bytes()
        assert png[:8] == PNG and len(png) > 10_000
    chart = json.loads((out / "returns.json").read_text())
    confs = {c["mode"]: c for c in chart["configurations"]}
    assert sorted(confs) == ["async", "step"]
    step = confs["step"]
    assert step["target_return"] == 15.0
    assert [s["seed"] for s in step["seeds"]] == [0, 1, 2]
    assert step["seeds"][2]["return_mean"] == [None, 3.0, 7.0] and step["seeds"][0]["wall_s"] == [7.0, 9.0, 11.0]
    x, iqm = step["iqm_vs_env_steps"]["env_steps"], step["iqm_vs_env_steps"]["return"]
    assert x[0] == 0 and x[-1] == 3000 and len(x) == len(iqm)
    assert iqm[0] is None and iqm[-1] == 6.0  # no return before 2000 steps; at 3000 the mean of 5, 6, 7
    assert confs["async"]["iqm_vs_wall_s"]["wall_s"][-1] == 8.0 and confs["async"]["iqm_vs_wall_s"]["return"][-1] == 7.0


def test_no_learning_runs_no_learning_files_and_earlier_ones_removed(tmp_path):
    learn(tmp_path / "ppo", "s0", [0.0, 10.0])
    write(tmp_path / "ref", "s", mode="step", reps=[100.0, 101.0])
    out = tmp_path / "summary"
    collect([tmp_path / "ppo"], out_dir=out, plot=False)
    assert (out / "returns.csv").exists() and (out / "returns.json").exists()
    c = collect([tmp_path / "ref"], out_dir=out, plot=False)
    assert c.learning.empty and "Learning" not in c.markdown and "Learning" not in (out / "table.md").read_text()
    assert not any((out / n).exists() for n in ("returns.csv", "returns.json", "returns_vs_env_steps.png",
                                                "returns_vs_wall_s.png"))


def test_old_files_without_algo_collect_as_reference(tmp_path, capsys):
    write(tmp_path, "old", mode="step", reps=[100.0, 110.0])  # before agent.algo: no algo anywhere
    new = write(tmp_path, "new", mode="sendrecv", reps=[150.0, 160.0],
                agent={"name": "nature_cnn", "compile": True, "num_steps": 128, "algo": "reference"},
                sched_extra={"total_env_steps": None, "target_return": None, "return_window": 20})
    rec = json.loads(new.read_text())
    rec["algo"], rec["learning"] = "reference", None
    results.write_atomic(new, rec)
    c = collect([tmp_path], plot=False)
    assert c.table["group"].unique().tolist() == ["all"]  # old and new are one configuration
    assert c.table["algo"].tolist() == ["reference", "reference"]
    assert not pd.isna(c.table.set_index("mode").loc["sendrecv", "speedup"])
    assert c.learning.empty and "Learning" not in capsys.readouterr().out
    csv = pd.read_csv(tmp_path / "summary" / "table.csv")
    assert csv["algo"].tolist() == ["reference", "reference"]


def test_reference_and_learning_runs_stay_apart_and_reference_seeds_do_not_pool(tmp_path):
    write(tmp_path, "ref0", mode="step", reps=[100.0], seed=0)
    write(tmp_path, "ref1", mode="step", reps=[200.0], seed=1)
    learn(tmp_path, "ppo0", [0.0, 10.0], seed=0)
    learn(tmp_path, "ppo1", [0.0, 12.0], seed=1)
    c = collect([tmp_path], plot=False)
    by_algo = c.table.groupby("algo")["n"].apply(list).to_dict()
    assert by_algo == {"ppo": [2], "reference": [1, 1]}  # ppo's seeds pooled, the reference's kept apart
    names = c.table.groupby("algo")["group"].apply(sorted).to_dict()
    assert names["ppo"] == ["agent.algo=ppo, agent.runtime=eager, schedule.target_return=15.0, "
                            "schedule.total_env_steps=4000"]  # no seed in its name: pooled, not null
    assert [n.split(", ")[-1] for n in names["reference"]] == ["seed=0", "seed=1"]
    assert len(c.learning) == 1 and c.learning.iloc[0]["seeds"] == 2


def test_a_malformed_learning_record_is_one_unusable_file(tmp_path, capsys):
    good = learn(tmp_path, "good", [0.0, 10.0])
    bad = learn(tmp_path, "bad", [0.0, 10.0, 12.0], seed=1)
    rec = json.loads(bad.read_text())
    rec["learning"]["curve"]["return_mean"].pop()
    results.write_atomic(bad, rec)
    typed = learn(tmp_path, "typed", [0.0, 10.0], seed=2)
    rec = json.loads(typed.read_text())
    rec["learning"]["episodes"] = "many"
    results.write_atomic(typed, rec)
    c = collect([tmp_path], plot=False)
    reasons = {b["path"]: b["reason"] for b in c.bad}
    assert reasons == {
        str(bad): "learning.curve: lists of unequal length "
                  "(env_steps 3, wall_s 3, episodes 3, return_mean 2, return_std 3)",
        str(typed): "learning.episodes: string, expected integer"}
    assert c.jobs["path"].tolist() == [str(good)] and learning_row(c, "step")["seeds"] == 1
    out = capsys.readouterr().out
    assert f"- {bad}: learning.curve: lists of unequal length" in out


def failed_learn(root, name, returns, *, mode="async", seed=0, groups=2, error="DuplicateEnvError: env 3"):
    """A learning run that failed after len(returns) updates: a failed record with the curve so far."""
    path = write(root, name, mode=mode, n=8, groups=groups, seed=seed, agent=PPO, status="failed", error=error,
                 sched_extra=LEARN)
    rec = json.loads(path.read_text())
    rec["algo"] = "ppo"
    rec["learning_so_far"] = {"curve": curve(returns)}
    results.write_atomic(path, rec)
    return path


def test_a_learning_run_that_failed_counts_up_to_where_its_curve_reaches(tmp_path, capsys):
    for seed, s in enumerate([10.0, 12.0, 14.0]):
        learn(tmp_path, f"s{seed}", [0.0, s / 2, s, s], seed=seed)
    for seed, a in enumerate([11.0, 13.0]):
        learn(tmp_path, f"a{seed}", [0.0, a / 2, a, a], mode="async", groups=2, seed=seed)
    failed_learn(tmp_path, "a2", [0.0, 8.0, 16.0], seed=2)  # failed after 3 of 4 updates
    write(tmp_path, "a3", mode="async", groups=2, seed=3, agent=PPO, status="failed", error="no curve",
          sched_extra=LEARN)  # failed before its first update: nothing to count
    c = collect([tmp_path], plot=False)

    assert len(c.stopped) == 1 and c.stopped.iloc[0]["stopped"] == "DuplicateEnvError: env 3"
    a = learning_row(c, "async")  # final return, time and throughput: the finished seeds only
    assert (a["seeds"], a["stopped_seeds"], a["final_iqm"], a["env_steps_per_s"]) == (2, 1, 12.0, 500.0)
    assert c.table.set_index("mode").loc["async", "n"] == 2  # not a throughput
    pair = c.equal_steps[0]  # at equal env steps all three async seeds count, up to 3000 (the stopped one's end)
    assert (pair["seeds_a"], pair["seeds_b"], pair["enough_seeds"]) == (3, 3, True)
    assert pair["points"]["env_steps"].tolist() == [750, 1500, 2250, 3000]
    assert pair["points"]["iqm_b"].iloc[-1] == pytest.approx((11.0 + 13.0 + 16.0) / 3)
    iqm = json.loads((tmp_path / "summary" / "returns.json").read_text())["configurations"]
    iqm = {conf["mode"]: conf["iqm_vs_env_steps"] for conf in iqm}["async"]  # past the failure, over the 2 left
    assert iqm["env_steps"][-1] == 4000 and iqm["return"][-1] == 12.0 == a["final_iqm"]
    counts = {x: k for x, k in zip(iqm["env_steps"], iqm["seeds"]) if k is not None}  # none before 1000: no return
    assert {counts[x] for x in counts if x <= 3000} == {3} and {counts[x] for x in counts if x > 3000} == {2}
    stopped = c.seeds[c.seeds["stopped"].notna()].iloc[0]
    assert (stopped["seed"], stopped["total_env_steps"], stopped["final_return_mean"]) == (2, 3000, 16.0)
    assert stopped["time_to_target_s"] == 11.0  # its curve reached 15 at update 3 with a full window (30 episodes)
    out = capsys.readouterr().out
    assert "| async | 8 | 2 (+1 stopped early) | 12.0 [" in out
    assert "| async | 8 | 2 | 16.0 ± 1.0 (stopped early: job failed) | 30 | 3000 | 11.0 | 3000 | n/a |" in out
    assert "a2/result.json (async, num_envs=8): DuplicateEnvError: env 3" in out  # still listed as failed


def stopped_at_target(root, name, returns, **kw):
    """A learning run that stopped because it reached its target (schedule.stop_at_target)."""
    path = learn(root, name, returns, stops={"stop_at_target": True}, **kw)
    rec = json.loads(path.read_text())
    rec["learning"]["stopped_by"] = "target_return"
    results.write_atomic(path, rec)
    return path


def test_a_seed_stopped_at_the_target_is_carried_at_its_last_return(tmp_path):
    """It reached the target, by definition: past its last point it counts at its last return, in the IQM
    curve (returns.json) and at equal env steps, so the aggregate runs over every seed to where the last
    one stopped and ends at the final IQM. A seed that ran to its budget is not carried."""
    for seed, returns in enumerate([[0.0, 8.0, 16.0], [0.0, 6.0, 12.0, 15.5], [0.0, 4.0, 8.0, 12.0, 15.0]]):
        stopped_at_target(tmp_path, f"s{seed}", returns, seed=seed)
    for seed, top in enumerate([12.0, 14.0, 13.0]):
        learn(tmp_path, f"a{seed}", [0.0, 5.0, 10.0, top - 1, top], mode="async", groups=2, seed=seed)
    c = collect([tmp_path], plot=False)
    confs = {conf["mode"]: conf for conf in json.loads((tmp_path / "summary" / "returns.json").read_text())[
        "configurations"]}
    step = confs["step"]["iqm_vs_env_steps"]
    assert step["env_steps"][-1] == 5000 and step["return"][-1] == 15.5 == learning_row(c, "step")["final_iqm"]
    assert {k for k, r in zip(step["seeds"], step["return"]) if r is not None} == {3}
    drawn = [r for r in step["return"] if r is not None]
    assert all(b >= a for a, b in zip(drawn, drawn[1:]))  # every seed rising: so is the IQM
    pair = c.equal_steps[0]
    assert pair["points"]["env_steps"].tolist() == [1250, 2500, 3750, 5000]
    assert pair["points"]["iqm_a"][2] == pytest.approx((16.0 + (12.0 + 0.75 * 3.5) + (8.0 + 0.75 * 4.0)) / 3)
    assert pair["points"]["iqm_a"][3] == pytest.approx(15.5) and pair["points"]["iqm_b"][3] == pytest.approx(13.0)
    learn(tmp_path / "budget", "a0", [0.0, 16.0], seed=0)  # at the target on its last point, but its budget ended it
    learn(tmp_path / "budget", "a1", [0.0, 5.0, 10.0], seed=1)
    c = collect([tmp_path / "budget"], plot=False)
    assert [conf["env_steps"]["x"][-1] for conf in c.curves] == [2000]  # the aggregate ends where it ended
