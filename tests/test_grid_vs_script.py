"""bench/grid_vs_script.py's replay of a sweep's stopping rule under other schedule keys, on a
committed archive of H100 rounds: a replay with the jobs' own keys reads as the jobs did, and a
tighter cap keeps a prefix of each job's reps, never more than the cap, and takes the dropped reps'
share of the job's timed seconds off the sweep's wall."""

import importlib.util
import statistics

import pytest

from conftest import ROOT
from ppo_bench.record import stats

spec = importlib.util.spec_from_file_location("grid_vs_script", ROOT / "bench" / "grid_vs_script.py")
grid_vs_script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(grid_vs_script)

ARCHIVE = ROOT / "docs" / "results" / "2026-12-07-h100" / "server_preload" / "grid_i.tar.gz"


def jobs():
    """(tree, round, num_envs) -> the sweep's Record, from the archive."""
    out = {}
    for name, data in grid_vs_script.files(ARCHIVE):
        run = grid_vs_script.RUN.search(name)
        if run and name.endswith("/result.json"):
            r = grid_vs_script.Record.read(grid_vs_script.Path(name), data)
            out[(run[1], int(run[2]), r.num_envs)] = r
    return out


def test_a_replay_with_the_jobs_own_keys_reads_as_they_did():
    walls, widths = grid_vs_script.read(ARCHIVE)
    again_walls, again = grid_vs_script.read(ARCHIVE, {"max_reps": 40})  # the preset's own cap then
    assert widths and again.keys() == widths.keys()
    for key, (width, stopped, n) in widths.items():
        assert again[key][1:] == (stopped, n)
        assert again[key][0] == pytest.approx(width, rel=1e-9)
    assert again_walls == pytest.approx(walls)


def test_a_tighter_cap_keeps_a_prefix_and_takes_its_time_off_the_wall():
    walls, _ = grid_vs_script.read(ARCHIVE)
    capped_walls, capped = grid_vs_script.read(ARCHIVE, {"max_reps": 12, "max_measure_s": 8.0})
    records = jobs()
    assert records
    shorter = 0
    for (tree, rnd, n), r in records.items():
        t = r.measured.throughput
        width, stopped, k = capped[(tree, round_key(capped, tree, rnd), n)]
        assert 10 <= k <= min(12, len(t.reps))  # the pilot of 10 runs whole; no rep past the cap
        lo, hi = stats.two_stage_interval(t.reps[:k], [t.reps[:10]])
        assert width == pytest.approx(stats.relative_half_width(statistics.fmean(t.reps[:k]), lo, hi))
        if k < len(t.reps):
            assert stopped in ("max_reps", "max_measure_s")
            shorter += 1
    assert shorter
    for key, wall in walls.items():
        if key[0] == grid_vs_script.SCRIPT:
            assert capped_walls[key] == wall  # the script's own rounds are as they ran
        else:
            assert capped_walls[key] < wall


def round_key(widths, tree, rnd):
    """The round key `read` gave (its set's folder, its number) for this tree's round rnd."""
    (found,) = {r for (t, r, _) in widths if t == tree and r[1] == rnd}
    return found
