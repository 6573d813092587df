"""What the collector is given by mistake: it never loses or misstates a result.

A file that is neither a result file nor an archive is refused in one line and nothing is touched.
"""

from __future__ import annotations

import re

import pytest

from conftest import ROOT
from ppo_bench.collect import collect, main, report
from test_collect import record, write
from test_collect_archive import sweep
from test_summary_atomic import snapshot

from ppo_bench.collect.sources import ACCEPTS


# ---------------------------------------------------------------- a path given by mistake

@pytest.mark.parametrize("name,text", [("notes.json", '{"a": 1}'), ("notes.txt", "to do: rerun async\n"),
                                       (".jobs.jsonl", '{"job": "x"}\n')])
def test_a_file_that_is_neither_a_result_nor_an_archive_is_refused_and_nothing_touched(tmp_path, capsys, name, text):
    folder = sweep(tmp_path)
    collect([folder], plot=False)
    before, stray = snapshot(folder / "summary"), folder / name
    stray.write_text(text)
    capsys.readouterr()
    for given in ([stray], [folder, stray]):  # alone, or beside the sweep it lies in: nothing is collected
        assert main([str(p) for p in given]) == 1
        captured = capsys.readouterr()
        assert captured.out == "" and snapshot(folder / "summary") == before
        [line] = captured.err.splitlines()
        assert re.fullmatch(rf"ppo_bench\.collect: {re.escape(str(stray))}: not a result file \(.+\) nor an archive; "
                            rf"{ACCEPTS}; nothing was written", line), line


def test_a_result_file_named_by_its_path_is_collected_as_before(tmp_path, capsys):
    """A record under another name is a result; a result.json that cannot be read is listed as unusable
    (its name says it is a job's record), with the summary beside it, as when its folder is collected."""
    path = write(tmp_path, "job", mode="step", reps=[100.0, 101.0])
    copy = tmp_path / "kept.json"
    copy.write_bytes(path.read_bytes())
    assert main([str(copy), "--no-plot"]) == 0
    assert (tmp_path / "summary" / "table.csv").is_file()
    path.write_text(path.read_text()[:50])
    assert main([str(path), "--no-plot"]) == 1
    assert f"ppo_bench.collect: {path}: not valid JSON: truncated" in capsys.readouterr().err.splitlines()
    assert "1 unusable" in (path.parent / "summary" / "table.md").read_text()
