"""Paths the collector cannot use give one line naming them and exit 1; a re-collection leaves nothing stale."""

from __future__ import annotations

import errno
import os

import pandas as pd
import pytest

from ppo_bench.collect import collect, main
from test_collect import write

PHASES = {"emulators": 1.0, "upload": 0.1, "inference": 0.4, "action_download": 0.05, "stores": 0.02,
          "update": 0.3, "drain": 0.0, "other": 0.03}


def _fails_with(capsys, argv, line):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"ppo_bench.collect: {line}" and "Traceback" not in err


@pytest.fixture
def good(tmp_path):
    write(tmp_path / "sweep", "s", mode="step", reps=[100.0, 101.0])
    return str(tmp_path / "sweep")


def test_out_that_names_a_file(tmp_path, capsys, good):
    (tmp_path / "file").write_text("not a folder")
    _fails_with(capsys, [good, "--no-plot", "--out", str(tmp_path / "file")], f"{tmp_path / 'file'}: not a directory")
    _fails_with(capsys, [good, "--no-plot", "--out", str(tmp_path / "file" / "sub")],
                f"{tmp_path / 'file' / 'sub'}: Not a directory")
    assert (tmp_path / "file").read_text() == "not a folder"


def test_out_that_cannot_be_written(tmp_path, capsys, good, monkeypatch):
    def denied(self, path, *args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(pd.DataFrame, "to_csv", denied)
    _fails_with(capsys, [good, "--no-plot", "--out", str(tmp_path / "o")],
                f"{tmp_path / 'o' / 'table.csv'}: Permission denied")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_out_that_is_read_only(tmp_path, capsys, good):
    (tmp_path / "ro").mkdir(mode=0o555)
    _fails_with(capsys, [good, "--no-plot", "--out", str(tmp_path / "ro")],
                f"{tmp_path / 'ro' / 'table.csv'}: Permission denied")


BASELINES = {  # name: table.csv text, reason
    "empty": ("", "not a table.csv: No columns to parse from file"),
    "header_only": ("identity,mode,num_envs,mean,reps\n", "no rows"),
    "columns": ("identity,mode,mean\nall,step,100\n", "no column num_envs, reps"),
    "num_envs": ('identity,mode,num_envs,mean,reps\n{},step,8,100.0,"[100.0]"\n{},step,eight,100.0,"[100.0]"\n',
                 "line 3: num_envs='eight' is not an integer"),
    "reps": ("identity,mode,num_envs,mean,reps\n{},step,8,100.0,oops\n",
             "line 2: reps='oops' is not a JSON list of positive numbers"),
    "mean": ('identity,mode,num_envs,mean,reps\n{},step,8,,"[100.0]"\n', "line 2: mean='' is not a positive number"),
}


@pytest.mark.parametrize("name", BASELINES)
def test_a_bad_baseline_table_stops_before_anything_is_written(tmp_path, capsys, good, name):
    text, reason = BASELINES[name]
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "table.csv").write_text(text)
    _fails_with(capsys, [good, "--no-plot", "--baseline", str(tmp_path / "base")],
                f"{tmp_path / 'base' / 'table.csv'}: {reason}")
    assert not (tmp_path / "sweep" / "summary").exists()


def test_a_missing_or_empty_baseline_dir(tmp_path, capsys, good):
    _fails_with(capsys, [good, "--baseline", str(tmp_path / "nope")], f"{tmp_path / 'nope'}: no such file or directory")
    (tmp_path / "empty").mkdir()
    _fails_with(capsys, [good, "--baseline", str(tmp_path / "empty")],
                f"{tmp_path / 'empty'}: no table.csv and no usable result files")


def test_a_recollection_removes_what_the_last_one_wrote_and_nothing_else(tmp_path):
    for fs in (4, 5):
        write(tmp_path, f"s{fs}", mode="step", frameskip=fs, reps=[100.0, 101.0], sched_extra={"profile": True},
              phases=PHASES)
    out = tmp_path / "summary"
    collect([tmp_path], plot=False)
    assert {p.name for p in out.iterdir()} == {"table.csv", "table.md", "phases.csv", "env.frameskip=4",
                                               "env.frameskip=5", "side_by_side.json", "side_by_side.js",
                                               ".collect.json"}  # the manifest: what a re-collection may delete
    (out / "notes.txt").write_text("mine")
    (out / "env.frameskip=4" / "notes.txt").write_text("mine too")
    (tmp_path / "s4" / "result.json").unlink()
    write(tmp_path, "s5", mode="step", reps=[100.0, 101.0])  # re-run without the profile: one group now
    collect([tmp_path], plot=False)
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == [
        ".collect.json", "chart.js", "chart.json", "env.frameskip=4", "env.frameskip=4/notes.txt", "notes.txt",
        "table.csv", "table.md"]
    assert (out / "notes.txt").read_text() == "mine"


def test_a_long_group_name_becomes_a_short_folder_that_stays_apart():
    from ppo_bench.collect.throughput import SLUG_MAX, slug
    a, b = "x=" + "a" * 300 + ", y=1", "x=" + "a" * 300 + ", y=2"
    assert len(slug(a).encode()) <= SLUG_MAX and slug(a) != slug(b) and slug(a).startswith("x=aaa")
    assert slug("env.backend=envpool") == "env.backend=envpool"  # short names as before
