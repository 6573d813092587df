"""The collector's section on where each job's start-up went (collect/startup.py), from the records' clocks.

The expected medians and totals are worked out here from the clocks written into each record.
"""

from __future__ import annotations

import json

import pandas as pd

from ppo_bench.collect import collect
from ppo_bench.record import results
from test_collect import write

TITLE = "**Where start-up went**"


def with_clocks(path, *, check, forked, imports, startup, setup, first, warmup, began=0.1):
    """The record at `path` given the start-up clocks a job writes (child.py, parent.py)."""
    rec = json.loads(path.read_text())
    rec["timing"].update(check_s=check, forked_s=forked, imports={"began_s": began, "took_s": imports},
                         startup_s=startup, setup_s=sum(setup.values()), setup=setup,
                         first_step_s=first, warmup_s=warmup)
    results.write_atomic(path, rec)
    return path


# three rounds of one cell: the sweep's first job waits for the fork server's imports, the others barely
CLOCKS = [dict(check=4.0, forked=8.0, imports=7.5, startup=8.2, setup={"emulators": 6.0, "agent": 0.2, "driver": 0.5},
               first=1.0, warmup=3.0),
          dict(check=0.5, forked=0.3, imports=0.0, startup=0.4, setup={"emulators": 6.4, "agent": 0.3, "driver": 0.4},
               first=0.8, warmup=2.6),
          dict(check=0.6, forked=0.2, imports=0.0, startup=0.3, setup={"emulators": 7.0, "agent": 0.2, "driver": 0.6},
               first=0.9, warmup=2.9)]


def total(k):
    return k["startup"] + sum(k["setup"].values()) + k["warmup"]


def test_each_part_is_the_median_over_the_cells_jobs_with_the_totals_range(tmp_path):
    for r, clocks in enumerate(CLOCKS):
        with_clocks(write(tmp_path, f"step_r{r}", mode="step", reps=[100.0, 101.0], round=r), **clocks)
    c = collect([tmp_path], plot=False)
    assert len(c.startup) == 1
    row = c.startup.iloc[0]
    assert (row["mode"], row["num_envs"], row["jobs"]) == ("step", 8, 3)
    median = lambda f: float(pd.Series([f(k) for k in CLOCKS]).median())  # noqa: E731
    assert row["total"] == median(total)
    assert (row["total_min"], row["total_max"]) == (min(map(total, CLOCKS)), max(map(total, CLOCKS)))
    assert row["emulators"] == median(lambda k: k["setup"]["emulators"])
    assert row["before_child"] == median(lambda k: k["forked"])
    assert row["imports"] == median(lambda k: k["imports"])
    assert abs(row["provenance"] - median(lambda k: k["startup"] - k["forked"])) < 1e-12
    assert abs(row["warm_up"] - median(lambda k: k["warmup"] - k["first"])) < 1e-12
    # the same figures in table.md's section and in startup.csv
    md = (tmp_path / "summary" / "table.md").read_text()
    section = md[md.index(TITLE):]
    line = next(x for x in section.splitlines() if x.startswith("| step | 8 |"))
    assert f"| {median(total):.1f} [{min(map(total, CLOCKS)):.1f}, {max(map(total, CLOCKS)):.1f}] |" in line
    assert f"| {median(lambda k: k['setup']['emulators']):.1f} |" in line
    header = next(x for x in section.splitlines() if x.startswith("| mode |"))
    assert header.split("|")[4:-1] == [" total ", " check ", " before child ", " imports ", " provenance ",
                                       " emulators ", " agent ", " driver ", " first step ", " warm up "]
    csv = pd.read_csv(tmp_path / "summary" / "startup.csv")
    assert csv.loc[0, "emulators"] == row["emulators"] and csv.loc[0, "jobs"] == 3


def test_cells_stay_apart_and_a_part_one_record_lacks_is_left_empty(tmp_path):
    with_clocks(write(tmp_path, "s8", mode="step", reps=[100.0, 101.0]), **CLOCKS[0])
    sixty_four = {**CLOCKS[1], "setup": {"emulators": 30.0, "agent": 0.2}}  # a build without a driver part
    with_clocks(write(tmp_path, "s64", mode="step", n=64, reps=[400.0, 410.0]), **sixty_four)
    c = collect([tmp_path], plot=False)
    by_n = c.startup.set_index("num_envs")
    assert list(by_n.index) == [8, 64]
    assert by_n.loc[64, "emulators"] == 30.0 and by_n.loc[8, "emulators"] == 6.0
    assert pd.isna(by_n.loc[64, "driver"]) and by_n.loc[8, "driver"] == 0.5
    line = next(x for x in (tmp_path / "summary" / "table.md").read_text().splitlines()
                if x.startswith("| step | 64 |"))
    assert "| - |" in line


def test_a_single_runs_imports_count_from_the_jobs_start(tmp_path):
    """run.py starts a single run's imports with its process, before the job's start (began_s < 0):
    only what they took after it is what the job waited for, and that is all the column shows."""
    with_clocks(write(tmp_path, "s", mode="step", reps=[100.0, 101.0]), **{**CLOCKS[0], "forked": 2.2, "imports": 2.6},
                began=-0.5)
    row = collect([tmp_path], plot=False).startup.iloc[0]
    assert abs(row["imports"] - 2.1) < 1e-12 and row["imports"] <= row["before_child"]


def test_records_without_the_start_up_clocks_give_no_section_and_no_file(tmp_path):
    write(tmp_path, "s", mode="step", reps=[100.0, 101.0])  # timing: its start and end only
    c = collect([tmp_path], plot=False)
    assert c.startup.empty
    assert TITLE not in (tmp_path / "summary" / "table.md").read_text()
    assert not (tmp_path / "summary" / "startup.csv").exists()
