"""The collector's bound per design: the chain bound of loops whose envs each wait for their batch,
the limit of the others, which one a row is held to and why, and the efficiency against it.

Figures worked out here by hand from the probes (env_only E, agent_only A at the row's groups g):
chain = 1 / (1/E + 1/(g*A)), limit = min(E, A).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ppo_bench.record import results
from ppo_bench.collect import collect
from test_collect import paired_log, row, write


def job(root, name, mode, n, groups, reps, num_threads=..., **kw):
    """A result file with the record's own num_threads (the emulator threads the job used; None for
    agent_only); `...` leaves the field out, as files from before it was loaded."""
    path = write(root, name, mode=mode, n=n, groups=groups, reps=reps, **kw)
    if num_threads is not ...:
        rec = json.loads(path.read_text())
        rec["num_threads"] = num_threads
        results.write_atomic(path, rec)
    return path


def chain(e, a, g):
    return 1 / (1 / e + 1 / (g * a))


CELLS = [  # mode, num_envs, groups, throughput, num_threads
    ("env_only", 8, 1, 400.0, 8), ("agent_only", 8, 1, 200.0, None),
    ("step", 8, 1, 100.0, 8), ("sendrecv", 8, 1, 120.0, 8),
    # async, 8 envs on 8 threads: each env has a thread of its own and waits for its batch
    ("env_only", 8, 2, 400.0, 8), ("agent_only", 8, 2, 600.0, None), ("async", 8, 2, 240.0, 8),
    # async, 64 envs on 16 threads: the cores are the bottleneck and batches overlap
    ("env_only", 64, 4, 2000.0, 16), ("agent_only", 64, 4, 3000.0, None), ("async", 64, 4, 1800.0, 16),
    # a chain design whose chain is above the agent's own rate: the agent alone is slower
    ("env_only", 16, 4, 4000.0, 16), ("agent_only", 16, 4, 1000.0, None), ("async", 16, 4, 900.0, 16),
]


def test_chain_bound_and_which_bound_a_row_is_held_to(tmp_path):
    for mode, n, g, thr, threads in CELLS:
        job(tmp_path, f"{mode}{n}g{g}", mode, n, g, [thr, thr], num_threads=threads, cpus=16)
    c = collect([tmp_path], plot=False)

    step, sr = row(c, "step", 8), row(c, "sendrecv", 8)
    assert step["chain"] == pytest.approx(chain(400, 200, 1)) == pytest.approx(step["serial"])  # g=1: today's serial
    assert (step["bound"], step["bound_kind"]) == (pytest.approx(chain(400, 200, 1)), "chain")
    assert "one batch" in step["bound_why"]
    assert step["bound_efficiency"] == pytest.approx(100 / chain(400, 200, 1))
    assert sr["bound_efficiency"] == pytest.approx(120 / chain(400, 200, 1))
    assert step["limit"] == 200 and "efficiency" not in c.table  # the limit an input, no second efficiency

    a8 = row(c, "async[groups=2]", 8)
    assert a8["num_threads"] == 8
    assert (a8["chain"], a8["bound"], a8["bound_kind"]) == (pytest.approx(300.0), pytest.approx(300.0), "chain")
    assert "num_envs 8 <= num_threads 8" in a8["bound_why"]
    assert a8["bound_efficiency"] == pytest.approx(0.8)

    a64 = row(c, "async[groups=4]", 64)
    assert a64["chain"] == pytest.approx(chain(2000, 3000, 4))  # reported, but not the row's bound
    assert (a64["bound"], a64["bound_kind"], a64["bound_efficiency"]) == (2000, "limit", pytest.approx(0.9))
    assert "num_envs 64 > num_threads 16" in a64["bound_why"] and "overlap" in a64["bound_why"]

    a16 = row(c, "async[groups=4]", 16)  # chain 2000 over the limit 1000: the limit binds
    assert a16["chain"] == pytest.approx(2000.0)
    assert (a16["bound"], a16["bound_kind"], a16["bound_efficiency"]) == (1000, "limit", pytest.approx(0.9))
    assert "above the limit" in a16["bound_why"]

    probe = row(c, "env_only[groups=1]", 8)  # a probe is a bound, held to none
    assert np.isnan(probe["bound"]) and probe["bound_kind"] == "" and np.isnan(probe["bound_efficiency"])


def test_without_num_threads_or_probes_no_chain_claim(tmp_path):
    """An async row from a file without num_threads cannot say each env had a thread: the limit, said
    so; a row without its probes has no bound at all."""
    for mode, n, g, thr in [("env_only", 8, 2, 400.0), ("agent_only", 8, 2, 600.0), ("async", 8, 2, 240.0),
                            ("step", 16, 1, 100.0)]:
        job(tmp_path, f"{mode}{n}g{g}", mode, n, g, [thr])
    c = collect([tmp_path], plot=False)
    a = row(c, "async", 8)
    assert pd.isna(a["num_threads"])
    assert (a["bound"], a["bound_kind"]) == (400, "limit") and "num_threads not recorded" in a["bound_why"]
    s = row(c, "step", 16)
    assert np.isnan(s["chain"]) and np.isnan(s["bound"]) and s["bound_kind"] == ""


def test_more_envs_than_cores_is_no_chain_even_with_a_thread_each(tmp_path):
    """env.num_threads set above the cores: every env has a thread, but threads share cores, which are
    then the bottleneck: the limit."""
    for mode, thr, threads in [("env_only", 400.0, 8), ("agent_only", 600.0, None), ("async", 240.0, 8)]:
        job(tmp_path, mode, mode, 8, 2, [thr], num_threads=threads, cpus=4)
    a = row(collect([tmp_path], plot=False), "async", 8)
    assert a["bound_kind"] == "limit" and "num_envs 8 > 4 cores" in a["bound_why"]


def test_bound_efficiency_paired_by_round(tmp_path):
    """Per round the loop over that round's bound, computed from that round's probes."""
    env = {0: 400.0, 1: 240.0, 2: 320.0}
    agent = {0: 200.0, 1: 300.0, 2: 250.0}
    share = {0: 0.9, 1: 0.8, 2: 0.85}
    for r in env:
        bound = chain(env[r], agent[r], 1)
        job(tmp_path, f"e{r}", "env_only", 8, 1, [env[r]], num_threads=8, round=r)
        job(tmp_path, f"a{r}", "agent_only", 8, 1, [agent[r]], num_threads=None, round=r)
        job(tmp_path, f"s{r}", "step", 8, 1, [share[r] * bound], num_threads=8, round=r)
    s = row(collect([tmp_path], plot=False), "step", 8)
    p, lo, hi = paired_log(list(share.values()))
    assert (s["bound_efficiency_paired"], s["bound_efficiency_lo"], s["bound_efficiency_hi"]) == (
        pytest.approx(p), pytest.approx(lo), pytest.approx(hi))
    assert s["bound_efficiency_rounds"] == 3


def test_table_md_names_each_rows_bound_and_explains_the_two_ceilings(tmp_path, capsys):
    for mode, n, g, thr, threads in CELLS:
        job(tmp_path, f"{mode}{n}g{g}", mode, n, g, [thr, thr], num_threads=threads, cpus=16)
    c = collect([tmp_path], plot=False)
    out = capsys.readouterr().out
    assert "| num_envs | mode | num_threads | limit: min(env_only, agent_only) | chain | bound | why |" in out
    bound = chain(400, 200, 1)
    assert f"| 8 | step | 8 | 200 | {bound:.0f} | chain {bound:.0f} | one batch" in out
    assert "| 8 | async[groups=2] | 8 | 400 | 300 | chain 300 | " in out
    assert "| 64 | async[groups=4] | 16 | 2000 | 1714 | limit 2000 | " in out
    assert "| eff step | eff sendrecv | eff async[groups=2] | eff async[groups=4] |" in out  # the main table's
    assert f"| 75% of chain {bound:.0f} | 90% of chain {bound:.0f} | 80% of chain 300 |  |" in out
    assert "|  |  |  | 90% of limit 2000 |" in out  # 64 envs: async[groups=4] only
    assert ("two ceilings, one bound per loop: chain = 1 / (1/env_only + 1/(groups x agent_only)) where every env "
            "waits for its own batch") in out
    assert "else limit = min(env_only, agent_only)" in out
    header = (tmp_path / "summary" / "table.csv").read_text().splitlines()[0].split(",")
    assert [h for h in header if "efficiency" in h] == ["bound_efficiency", "bound_efficiency_paired",
                                                         "bound_efficiency_lo", "bound_efficiency_hi",
                                                         "bound_efficiency_rounds"]
    assert c.table.loc[c.table["mode"] == "step", "bound_kind"].item() == "chain"


def test_no_bounds_table_without_probes(tmp_path):
    write(tmp_path, "s", mode="step", reps=[100.0, 100.0])
    c = collect([tmp_path], plot=False)
    assert c.table["bound"].isna().all() and "chain" not in c.markdown


def test_a_loop_faster_than_its_bound_is_flagged(tmp_path, capsys):
    """Within its limit (100%) but beyond its chain bound: said so in its own words (the limit's flag
    stays the limit's)."""
    for mode, thr in (("step", 100.0), ("env_only", 100.0), ("agent_only", 400.0)):
        job(tmp_path, mode, mode, 8, 1, [thr, thr], num_threads=None if mode == "agent_only" else 8)
    s = row(collect([tmp_path], plot=False), "step", 8)
    assert (s["limit"], s["bound_kind"], s["bound_efficiency"]) == (100.0, "chain", pytest.approx(1.25))
    out = capsys.readouterr().out
    assert "| 125% of chain 80 (beat its bound) |" in out and "over 100%" not in out
    assert "- step at num_envs 8 beat its chain bound (80): within the limit (100)" in out


def test_the_emulators_alone_bound_the_overlap_group_too(tmp_path):
    """env_only runs no agent, so a sweep crossing agent.overlap runs it once (at false): its figure,
    round by round, bounds the loops of the overlap=true group as well; agent_only depends on the
    agent and is never lent. A group with env_only of its own keeps it."""
    agent = lambda overlap: {"name": "nature_cnn", "runtime": "graphed", "num_steps": 128, "algo": "ppo",  # noqa: E731
                             "overlap": overlap}
    env_only, async_ = {0: 1000.0, 1: 800.0}, {(False, 0): 850.0, (False, 1): 720.0, (True, 0): 960.0, (True, 1): 780.0}
    for rnd in (0, 1):
        job(tmp_path, f"e{rnd}", "env_only", 64, 2, [env_only[rnd]], num_threads=15, cpus=16, round=rnd,
            agent=agent(False))
        for ov in (False, True):
            job(tmp_path, f"a{ov}{rnd}", "agent_only", 64, 2, [5000.0], num_threads=None, cpus=16, round=rnd,
                agent=agent(ov))
            job(tmp_path, f"l{ov}{rnd}", "async", 64, 2, [async_[(ov, rnd)]], num_threads=15, cpus=16, round=rnd,
                agent=agent(ov))
    c = collect([tmp_path], plot=False)
    for ov in (False, True):
        r = row(c, "async", 64, group=f"agent.overlap={str(ov).lower()}")
        assert (r["limit"], r["bound_kind"]) == (pytest.approx(900.0), "limit")  # env_only's pooled mean
        ratios = [async_[(ov, rnd)] / env_only[rnd] for rnd in (0, 1)]
        assert r["bound_efficiency_paired"] == pytest.approx(paired_log(ratios)[0])
        assert r["bound_efficiency_rounds"] == 2
    assert len(c.table[c.table["mode"] == "env_only"]) == 1  # listed once, in its own group


def test_the_agent_alone_is_not_lent_across_overlap(tmp_path):
    agent = lambda overlap: {"name": "nature_cnn", "runtime": "graphed", "num_steps": 128, "algo": "ppo",  # noqa: E731
                             "overlap": overlap}
    job(tmp_path, "e", "env_only", 64, 2, [1000.0], num_threads=15, cpus=16, agent=agent(False))
    job(tmp_path, "a", "agent_only", 64, 2, [500.0], num_threads=None, cpus=16, agent=agent(False))
    job(tmp_path, "l0", "async", 64, 2, [400.0], num_threads=15, cpus=16, agent=agent(False))
    job(tmp_path, "l1", "async", 64, 2, [450.0], num_threads=15, cpus=16, agent=agent(True))
    c = collect([tmp_path], plot=False)
    assert row(c, "async", 64, group="agent.overlap=false")["limit"] == 500.0
    assert np.isnan(row(c, "async", 64, group="agent.overlap=true")["limit"])


def test_throughput_png_draws_the_chain_bound_the_collector_computed(tmp_path):
    """throughput.png draws the chain column as collected, a line per groups over the loop rows that
    have one (y checked against the hand-worked figures and the table), its markers filled where a row
    is held to it and open where the limit binds; probes get no chain line."""
    from ppo_bench.collect import throughput

    for mode, n, g, thr, threads in CELLS:
        job(tmp_path, f"{mode}{n}g{g}", mode, n, g, [thr, thr], num_threads=threads, cpus=16)
    c = collect([tmp_path], plot=False)
    top = throughput.throughput_plot(c.table, "t").axes[0]
    label = "chain bound = 1/(1/env_only + 1/(g·agent_only))"
    chains = {ln.get_label().removesuffix(" (filled: a loop held to it)"): ln for ln in top.get_lines()
              if ln.get_label().startswith(label)}
    assert sorted(chains) == [label, f"{label}, groups=2", f"{label}, groups=4"]
    hand = {1: ([8], [chain(400, 200, 1)]), 2: ([8], [300.0]), 4: ([16, 64], [2000.0, chain(2000, 3000, 4)])}
    held = {1: [8], 2: [8], 4: []}  # async at 16 and 64 envs, groups=4: the limit binds
    for g, (x, y) in hand.items():
        line = chains[label + ("" if g == 1 else f", groups={g}")]
        rows = c.table[(c.table["groups"] == g) & c.table["bound"].notna()].sort_values("num_envs")
        rows = rows.drop_duplicates("num_envs")  # step and sendrecv share g=1's chain at 8 envs
        assert list(line.get_xdata()) == x == list(rows["num_envs"])
        assert list(line.get_ydata()) == pytest.approx(y) == list(rows["chain"])
        filled = [ln for ln in top.get_lines() if ln.get_gid() == f"chain held, groups={g}"]
        assert [list(ln.get_xdata()) for ln in filled] == ([held[g]] if held[g] else [])
        assert all(list(ln.get_ydata()) == list(rows.loc[rows["bound_kind"] == "chain", "chain"]) for ln in filled)


def test_the_bound_per_design_rep_by_rep_from_the_env_probe_interleaved(tmp_path, capsys):
    """A chain loop that timed env_only after each rep is held to each rep's own chain bound (that rep's
    E, its round's agent_only A); a round without agent_only takes A over all rounds; a loop with more
    envs than threads is held to min(E, A) rep by rep; a cell without agent_only gets no bound."""
    from test_collect_interleaved import job as interleaved, log_t

    loop = {0: [300.0, 320.0, 310.0], 1: [250.0, 240.0, 260.0], 2: [280.0, 290.0, 285.0]}
    env = {0: [400.0, 440.0, 420.0], 1: [330.0, 310.0, 340.0], 2: [380.0, 390.0, 370.0]}
    agents = {0: [2000.0, 2200.0], 1: [1600.0, 1800.0]}  # none in round 2
    for r in (0, 1, 2):
        path = interleaved(tmp_path, f"sr{r}", loop[r], env[r], mode="sendrecv", groups=1, round=r, cpus=16)
        _threads(path, 8)
        if r in agents:
            job(tmp_path, f"a{r}", "agent_only", 8, 1, agents[r], num_threads=None, cpus=16, round=r)
    a64 = [900.0, 1000.0]
    _threads(interleaved(tmp_path, "as64", [1800.0, 1900.0, 1850.0], [2000.0, 2100.0, 1900.0], groups=2, n=64,
                         cpus=16), 16)
    job(tmp_path, "a64", "agent_only", 64, 2, a64, num_threads=None, cpus=16)
    _threads(interleaved(tmp_path, "alone", [500.0, 510.0, 505.0], [600.0, 610.0, 605.0], groups=4, n=32, cpus=16), 8)
    c = collect([tmp_path], plot=False)

    t = c.interleaved
    a = {0: 2100.0, 1: 1700.0, 2: float(np.mean(agents[0] + agents[1]))}  # round 2: all rounds' agent_only
    ratios = {r: [x / chain(e, a[r], 1) for x, e in zip(loop[r], env[r])] for r in (0, 1, 2)}
    jobs = t[(t["scope"] == "job") & (t["num_envs"] == 8)].sort_values("round")
    assert list(jobs["bound_kind"]) == ["chain"] * 3 and list(jobs["bound_agent"]) == pytest.approx(list(a.values()))
    for (_, got), r in zip(jobs.iterrows(), (0, 1, 2)):
        assert (got["bound_ratio"], got["bound_lo"], got["bound_hi"]) == tuple(map(pytest.approx, log_t(ratios[r])))
    cell = t[(t["scope"] == "pooled") & (t["num_envs"] == 8)].iloc[0]
    want = log_t(ratios[0] + ratios[1] + ratios[2])
    assert (cell["bound_ratio"], cell["bound_lo"], cell["bound_hi"]) == tuple(map(pytest.approx, want))
    assert (cell["bound_kind"], cell["bound_pairs"]) == ("chain", 9)
    # the loop over its chain bound is above its ratio to env_only alone: the agent's time is counted
    assert cell["bound_ratio"] > cell["ratio"]

    many = t[(t["scope"] == "pooled") & (t["num_envs"] == 64)].iloc[0]  # 64 envs on 16 threads: the limit
    limit = [x / min(e, np.mean(a64)) for x, e in zip([1800.0, 1900.0, 1850.0], [2000.0, 2100.0, 1900.0])]
    assert (many["bound_kind"], many["bound_ratio"]) == ("limit", pytest.approx(log_t(limit)[0]))
    assert t.loc[t["num_envs"] == 32, "bound_ratio"].isna().all()  # no agent_only at its groups

    out = capsys.readouterr().out
    assert "**Loop over its bound per design, env_only interleaved in one job**" in out
    assert f"| sendrecv | 1 | 8 | chain | {np.mean(list(a.values())):.0f} | {want[0]:.2f}x [{want[1]:.2f}, " in out
    assert "| async | 4 | 32 |" not in out.split("**Loop over its bound per design")[1]
    # the limit's note says where the env probe went, only where it went there for every probe missing
    ran = "not measured in a job of its own (it ran interleaved in the loop's jobs: see the loop over it below)"
    assert f"- no bound for sendrecv at num_envs 8: env_only groups=1 {ran}" in out
    assert "- no bound for async[groups=4] at num_envs 32: env_only groups=4 and agent_only groups=4 not measured\n" in out
    assert list(c.table["interleaved"]) == ["env_only"] * 5  # the agent probes' rows share their loops' cells
    csv = pd.read_csv(c.out_dir / "interleaved.csv")
    assert csv["bound_ratio"].notna().sum() == 6  # 3 jobs and their cell at 8 envs, 1 and 1 at 64


def _threads(path, n):
    rec = json.loads(path.read_text())
    rec["num_threads"] = n
    results.write_atomic(path, rec)


def test_no_bound_section_without_the_agent_probe(tmp_path, capsys):
    from test_collect_interleaved import job as interleaved

    _threads(interleaved(tmp_path, "sr", [300.0, 310.0], [400.0, 410.0], mode="sendrecv", groups=1), 8)
    c = collect([tmp_path], plot=False)
    assert c.interleaved["bound_ratio"].isna().all()
    assert "bound per design, env_only interleaved" not in capsys.readouterr().out
