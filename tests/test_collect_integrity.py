"""Nothing lost, nothing counted twice: copies, skipped jobs, folders without a result, missing paths."""

from __future__ import annotations

import shutil

from ppo_bench.collect import collect, main
from test_collect import row, write


def _sweep(root):
    write(root, "s", mode="step", reps=[100.0, 104.0, 96.0])
    write(root, "r", mode="sendrecv", reps=[150.0, 160.0, 140.0])
    write(root, "f", mode="async", groups=2, status="failed", error="RuntimeError: boom")


def test_a_copied_sweep_is_counted_once_and_the_copies_listed(tmp_path, capsys):
    _sweep(tmp_path / "sweep")
    shutil.copytree(tmp_path / "sweep", tmp_path / "a_copy")  # sorts first: the original is kept anyway
    c = collect([tmp_path / "sweep", tmp_path / "a_copy"], plot=False)
    assert (row(c, "step", 8)["n"], row(c, "step", 8)["jobs"], row(c, "sendrecv", 8)["n"]) == (3, 1, 3)
    assert sorted(c.jobs["path"]) == [str(tmp_path / "sweep" / m / "result.json") for m in "rs"]
    assert c.duplicates == [{"path": str(tmp_path / "a_copy" / m / "result.json"),
                             "kept": str(tmp_path / "sweep" / m / "result.json")} for m in "frs"]
    assert [f["path"] for f in c.failed] == [str(tmp_path / "sweep" / "f" / "result.json")]
    assert c.contended == [] and not c.table["contended"].any(), "a copy is not a second job"
    out = capsys.readouterr().out
    assert (f"- {tmp_path / 'a_copy' / 's' / 'result.json'}: same measurement as "
            f"{tmp_path / 'sweep' / 's' / 'result.json'}") in out


def test_equal_figures_of_two_real_jobs_are_both_kept(tmp_path):
    write(tmp_path, "a", mode="step", round=0, reps=[100.0, 100.0])
    write(tmp_path, "b", mode="step", round=1, reps=[100.0, 100.0])  # other window: another measurement
    c = collect([tmp_path], plot=False)
    assert (row(c, "step", 8)["n"], c.duplicates) == (4, [])


def test_skipped_jobs_are_listed_apart_and_are_not_failures(tmp_path, capsys):
    write(tmp_path, "s1", mode="step", n=1, reps=[100.0, 101.0])
    skipped = write(tmp_path, "a1", mode="async", n=1, groups=2, status="skipped",
                    error="mode.groups=2 does not divide env.num_envs=1")
    assert main([str(tmp_path), "--no-plot"]) == 0
    c = collect([tmp_path], plot=False)
    assert c.failed == [] and c.bad == []
    assert c.skipped == [{"path": str(skipped), "mode": "async", "num_envs": 1,
                          "error": "mode.groups=2 does not divide env.num_envs=1"}]
    md = c.markdown
    assert "Failed jobs" not in md and "**Skipped jobs" in md
    assert f"- {skipped} (async, num_envs=1): mode.groups=2 does not divide env.num_envs=1" in md


def test_job_folders_without_a_result_are_listed(tmp_path):
    write(tmp_path, "done", mode="step", reps=[100.0, 101.0])
    (tmp_path / "done" / ".hydra").mkdir()
    (tmp_path / "killed" / ".hydra").mkdir(parents=True)
    (tmp_path / "killed" / ".hydra" / "config.yaml").write_text("mode: step\n")
    (tmp_path / "running").mkdir()
    (tmp_path / "running" / "run.log").write_text("[INFO] step pong nature_cnn n=64\n")
    (tmp_path / "notes").mkdir()  # no marker: not a job folder
    (tmp_path / "notes" / "todo.txt").write_text("x")
    c = collect([tmp_path], plot=False)
    assert c.no_result == [str(tmp_path / "killed"), str(tmp_path / "running")]
    assert f"**No result" in c.markdown and f"- {tmp_path / 'killed'}\n" in c.markdown


def test_a_missing_path_is_reported_and_the_good_ones_still_collected(tmp_path, capsys):
    write(tmp_path / "good", "s", mode="step", reps=[100.0, 101.0])
    gone = tmp_path / "gone"
    assert main([str(gone), str(tmp_path / "good"), "--no-plot"]) == 1
    err = capsys.readouterr().err
    assert f"ppo_bench.collect: {gone}: no such file or directory\n" in err and "Traceback" not in err
    md = (tmp_path / "good" / "summary" / "table.md").read_text()
    assert "| 8 | 100 ± " in md and f"**Paths not found**\n\n- {gone}\n" in md
    assert main([str(gone)]) == 1
    assert capsys.readouterr().err == f"ppo_bench.collect: {gone}: no such file or directory\n"
