"""The collector's learning pairs beyond mode: configurations that differ only in agent.overlap are
compared at equal env steps too, the table says which key differs; and time to target says its clock."""

from __future__ import annotations

from ppo_bench.collect import collect
from test_collect_learning import PPO, learn

OVERLAP = {**PPO, "overlap": True}


def test_configurations_differing_only_in_overlap_are_compared_at_equal_env_steps(tmp_path, capsys):
    for seed, (off, on) in enumerate([(10.0, 11.0), (12.0, 12.5), (14.0, 13.0)]):
        learn(tmp_path, f"off{seed}", [0.0, off / 2, off, off], seed=seed)  # no overlap key: an older file, false
        learn(tmp_path, f"on{seed}", [0.0, on / 2, on, on], seed=seed, agent=OVERLAP)
    learn(tmp_path, "on_async", [0.0, 1.0, 2.0, 3.0], mode="async", groups=2, agent=OVERLAP)  # mode and overlap differ
    learn(tmp_path, "on_lr", [0.0, 1.0, 2.0, 3.0], agent={**OVERLAP, "learning_rate": 1e-3})  # overlap and lr differ
    c = collect([tmp_path], plot=False)
    found = {(p["key"], p["a"], p["b"]): p for p in c.equal_steps}
    pair = found[("agent.overlap", "agent.overlap=false", "agent.overlap=true")]
    assert (pair["mode"], pair["num_envs"], pair["seeds_a"], pair["seeds_b"], pair["enough_seeds"]) == (
        "step", 8, 3, 3, True)
    assert pair["points"]["agree"].tolist() == [True, True, True, True]
    assert pair["points"]["iqm_a"].tolist() == [0.0, 6.0, 12.0, 12.0]
    # within the overlap group, step against async differ only in mode, as before
    assert {k for k, _, _ in found} == {"agent.overlap", "mode"}
    assert [(a, b) for k, a, b in found if k == "mode"] == [("step", "async")]
    assert len(found) == 2  # nothing paired across two differing keys
    out = capsys.readouterr().out
    assert ("*agent.overlap=true vs agent.overlap=false at equal env steps* (step, num_envs=8, "
            "agent.learning_rate=0.00025; 3 and 3 seeds), differing only in agent.overlap") in out
    assert "| env steps | agent.overlap=false: IQM [min, max] | agent.overlap=true: IQM [min, max] | agree |" in out
    assert "), differing only in mode" in out


def test_a_thread_count_may_differ_too_and_the_heading_says_so(tmp_path):
    """Runs side by side set env.num_threads to their share of the cores; against runs alone they
    still pair on agent.overlap, the thread count named. Another key differing still keeps them apart."""
    for seed in range(3):
        learn(tmp_path, f"alone{seed}", [0.0, 5.0, 10.0], seed=seed, agent=OVERLAP)
        learn(tmp_path, f"shared{seed}", [0.0, 4.0, 9.0], seed=seed, env_extra={"num_threads": 4})
        learn(tmp_path, f"lr{seed}", [0.0, 4.0, 9.0], seed=seed, env_extra={"num_threads": 4},
              agent={**PPO, "learning_rate": 1e-3})
    c = collect([tmp_path], plot=False)
    overlap = [p for p in c.equal_steps if p["key"] == "agent.overlap"]
    assert [(p["a"], p["b"], p["also"], p["seeds_a"], p["seeds_b"]) for p in overlap] == [
        ("agent.overlap=false", "agent.overlap=true", ["env.num_threads"], 3, 3)]
    assert overlap[0]["points"]["iqm_a"].tolist()[-1] == 9.0  # the 4-thread runs without overlap
    assert "env.num_threads=" not in overlap[0]["shared"]
    assert ("differing only in agent.overlap and in env.num_threads, which sets the speed, not what is "
            "learned per env step") in c.markdown
    assert len(c.equal_steps) == 1  # the lr runs differ in a key that changes learning: paired with none


def test_mode_pairs_say_the_key_that_differs(tmp_path):
    for seed in range(3):
        learn(tmp_path, f"s{seed}", [0.0, 5.0, 10.0], seed=seed)
        learn(tmp_path, f"a{seed}", [0.0, 5.0, 10.0], mode="async", groups=2, seed=seed)
    c = collect([tmp_path], plot=False)
    assert [(p["key"], p["a"], p["b"], p["mode"]) for p in c.equal_steps] == [("mode", "step", "async", None)]
    assert "*async vs step at equal env steps* (num_envs=8; 3 and 3 seeds), differing only in mode" in c.markdown


def test_time_to_target_says_it_counts_from_the_jobs_start(tmp_path):
    learn(tmp_path, "s0", [1.0, 16.0, 17.0], setup_s=5.0)
    md = collect([tmp_path], plot=False).markdown
    assert "| time to target s from job start: median (per seed) |" in md
    assert "| time to target s from job start |" in md  # the per-seed table too
    assert ("time to target = seconds on the job's monotonic clock from the job's start (when the runner began "
            "the job, before its process started)") in md
