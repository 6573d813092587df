"""The collector on a busy machine and on files it should not trust.

A non-finite number makes a file unusable (never a crash, never `Infinity` in a JSON file it
writes); an unreadable folder is reported; a second collector into one --out waits for the first
or is refused in one line; a baseline with nothing comparable says so; an efficiency over 1 is
flagged with the probe that set the limit; a collection deletes only what an earlier collection
wrote there (its manifest), never an earlier summary's charts nor a file a user put there.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import threading
import time

import pytest

from ppo_bench.record import results
from ppo_bench.collect import collect, main, report
from test_collect import row, write
from test_collect_learning import learn


def _strict(text: str):
    """json.loads that refuses NaN and Infinity (which strict JSON readers, JavaScript's among them, do)."""
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def _with(path, change):
    """Rewrite a result file with `change` applied (json writes inf as Infinity, as a foreign writer would)."""
    rec = json.loads(path.read_text())
    change(rec)
    path.write_text(json.dumps(rec))
    return path


NON_FINITE = {  # where the number is -> the field the reason names
    "reps": (lambda r: r["throughput"].update(reps=[100.0, float("inf")]), "throughput.reps"),
    "curve": (lambda r: r["learning"]["curve"]["return_mean"].__setitem__(1, float("inf")),
              "learning.curve.return_mean"),
    "final_return": (lambda r: r["learning"].update(final_return_mean=float("nan")), "learning.final_return_mean"),
}


@pytest.mark.parametrize("where", sorted(NON_FINITE))
def test_a_non_finite_number_makes_the_file_unusable(tmp_path, capsys, where):
    """Needs results.read_result to refuse NaN/Infinity (the reason naming the field); the collector
    lists such a file as unusable like any other bad file, collects the rest and exits 1."""
    change, field = NON_FINITE[where]
    learn(tmp_path, "good", [0.0, 5.0, 10.0], seed=0)
    bad = _with(learn(tmp_path, "bad", [0.0, 5.0, 10.0], seed=1), change)
    assert main([str(tmp_path), "--no-plot"]) == 1  # unusable input: said, and the rest collected
    out = capsys.readouterr().out
    c = collect([tmp_path], plot=False)
    assert [b["path"] for b in c.bad] == [str(bad)] and field in c.bad[0]["reason"]
    assert f"- {bad}: " in out.split("**Unusable files**")[1]
    assert len(c.jobs) == 1
    for name in ("returns.json", "chart.json"):
        _strict((tmp_path / "summary" / name).read_text())


def test_the_json_files_written_are_strict_even_if_a_non_finite_figure_gets_through(tmp_path, monkeypatch):
    """The collector's own side: a figure that is not finite is written as null, never as Infinity/NaN."""
    learn(tmp_path, "a", [0.0, 5.0, 10.0], seed=0)
    _with(learn(tmp_path, "b", [0.0, 5.0, 10.0], seed=1),
          lambda r: r["learning"]["curve"]["return_mean"].__setitem__(1, float("inf")))
    monkeypatch.setattr(results, "non_finite", lambda value, where="": [])  # lets it in
    c = collect([tmp_path], plot=False)
    data = _strict((c.out_dir / "returns.json").read_text())
    seeds = data["configurations"][0]["seeds"]
    assert [s["return_mean"][1] for s in seeds] == [5.0, None]


def test_an_unreadable_folder_is_reported_not_skipped(tmp_path, capsys, monkeypatch):
    write(tmp_path, "ok", mode="step", reps=[100.0, 101.0])
    write(tmp_path / "locked", "job", mode="sendrecv", reps=[150.0, 151.0])
    locked = tmp_path / "locked"
    real = os.scandir

    def scandir(path="."):  # root reads a mode-000 folder: refuse it as the kernel would anyone else
        if not isinstance(path, int) and os.fspath(path) == str(locked):  # (shutil.rmtree passes fds)
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real(path)

    locked.chmod(0)
    try:
        if os.geteuid() == 0:
            monkeypatch.setattr(os, "scandir", scandir)
        assert main([str(tmp_path), "--no-plot"]) == 1
    finally:
        locked.chmod(0o755)
    captured = capsys.readouterr()
    assert f"ppo_bench.collect: {locked}: Permission denied" in captured.err.splitlines()
    assert "Traceback" not in captured.err
    md = (tmp_path / "summary" / "table.md").read_text()
    assert f"- {locked}: Permission denied" in md.split("**Unreadable folders")[1]
    assert "| num_envs | step |" in md  # what could be read is still collected


def _hold(out):
    """Take the --out lock as another collector would: an exclusive flock on the folder."""
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def test_a_second_collector_into_one_out_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    write(tmp_path / "runs", "s", mode="step", reps=[100.0, 101.0])
    out = tmp_path / "out"
    monkeypatch.setattr(report, "LOCK_WAIT_S", 0.5, raising=False)
    fd = _hold(out)
    try:
        assert main([str(tmp_path / "runs"), "--no-plot", "--out", str(out)]) == 1
    finally:
        os.close(fd)
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (f"ppo_bench.collect: {out}: another collector (pid {os.getpid()}) is writing "
                                    "here; gave up after 0.5 s")
    assert "Traceback" not in err and list(out.iterdir()) == []  # nothing of a second collection mixed in
    assert main([str(tmp_path / "runs"), "--no-plot", "--out", str(out)]) == 0  # the lock went with its holder


def test_a_second_collector_waits_for_the_first(tmp_path, capsys, monkeypatch):
    write(tmp_path / "runs", "s", mode="step", reps=[100.0, 101.0])
    out = tmp_path / "out"
    monkeypatch.setattr(report, "LOCK_WAIT_S", 60, raising=False)
    fd = _hold(out)
    released = []

    def release():
        time.sleep(0.5)
        released.append(time.monotonic())
        os.close(fd)

    threading.Thread(target=release, daemon=True).start()
    assert main([str(tmp_path / "runs"), "--no-plot", "--out", str(out)]) == 0
    assert released and (out / "table.csv").stat().st_mtime >= released[0] - 1
    err = capsys.readouterr().err
    assert f"waiting for another collector (pid {os.getpid()}) writing {out}" in err


def test_a_baseline_with_nothing_comparable_says_so(tmp_path, capsys):
    write(tmp_path / "old", "s", mode="step", frameskip=4, reps=[100.0, 101.0])
    write(tmp_path / "new", "s", mode="step", frameskip=5, reps=[50.0, 51.0])
    c = collect([tmp_path / "new"], baseline=tmp_path / "old", plot=False)
    assert c.table["baseline_ratio"].isna().all()
    out = capsys.readouterr().out
    assert "No regressions" not in out
    assert f"**Against the baseline**: {tmp_path / 'old'}: 1 jobs, the last finished " in out
    assert ("Nothing comparable: no configuration, mode and num_envs is in both, so nothing was checked for "
            "regressions or improvements.") in out


def test_a_loop_above_its_limit_is_flagged_with_the_probe_that_set_the_limit(tmp_path, capsys):
    for mode, thr in (("step", 110.0), ("env_only", 100.0), ("agent_only", 400.0)):  # env_only measured low
        write(tmp_path, mode, mode=mode, reps=[thr, thr])
    c = collect([tmp_path], plot=False)
    r = row(c, "step", 8)  # held to its chain, 1 / (1/100 + 1/400) = 80, and above the limit too
    assert r["bound_efficiency"] == pytest.approx(110 / 80) and r["limit_probe"] == "env_only"
    out = capsys.readouterr().out
    assert "| 138% of chain 80 (beat its bound) |" in out
    assert ("- step at num_envs 8 beat its chain bound (80): above the limit (100, env_only's mean) too: env_only "
            "measured low (noisy or disturbed), so this share is no real one") in out


def test_a_loop_within_its_bound_is_not_flagged(tmp_path, capsys):
    for mode, thr in (("step", 70.0), ("env_only", 100.0), ("agent_only", 400.0)):
        write(tmp_path, mode, mode=mode, reps=[thr, thr])
    c = collect([tmp_path], plot=False)
    assert row(c, "step", 8)["limit_probe"] == "env_only"
    out = capsys.readouterr().out
    assert "| 88% of chain 80 |" in out and "beat its bound" not in out and "over 100%" not in out


def test_collecting_a_sweep_into_itself_keeps_its_summary(tmp_path):
    """`collect SWEEP --out SWEEP`: the earlier summary (SWEEP/summary) is not this out dir's, so it stays."""
    sweep = tmp_path / "sweep"
    write(sweep, "0", mode="step", reps=[100.0, 101.0])
    collect([sweep], plot=False)
    summary = {p: p.read_bytes() for p in (sweep / "summary").rglob("*")}
    assert {p.name for p in summary} >= {"chart.json", "chart.js", "table.csv", "table.md"}
    collect([sweep], out_dir=sweep, plot=False)
    assert {p: p.read_bytes() for p in (sweep / "summary").rglob("*")} == summary
    assert (sweep / "chart.json").is_file()


def test_a_recollection_deletes_only_what_it_wrote_and_left_unchanged(tmp_path):
    for fs in (4, 5):
        write(tmp_path / "runs", f"s{fs}", mode="step", frameskip=fs, reps=[100.0, 101.0])
    out = tmp_path / "out"
    (out / "mine").mkdir(parents=True)
    (out / "mine" / "chart.json").write_text("a user's chart, named as the collector names its own")
    collect([tmp_path / "runs"], out_dir=out, plot=False)
    (out / "env.frameskip=4" / "chart.js").write_text("edited by hand since")  # no longer what it wrote
    (tmp_path / "runs" / "s4" / "result.json").unlink()
    collect([tmp_path / "runs"], out_dir=out, plot=False)
    assert (out / "mine" / "chart.json").read_text() == "a user's chart, named as the collector names its own"
    assert (out / "env.frameskip=4" / "chart.js").read_text() == "edited by hand since"
    assert not (out / "env.frameskip=4" / "chart.json").exists() and not (out / "env.frameskip=5").exists()
    manifest = json.loads((out / report.MANIFEST).read_text())
    assert sorted(manifest["files"]) == ["chart.js", "chart.json", "table.csv", "table.md"]


def test_a_manifest_never_reaches_outside_its_out_dir(tmp_path):
    write(tmp_path / "runs", "s", mode="step", reps=[100.0, 101.0])
    out = tmp_path / "out"
    collect([tmp_path / "runs"], out_dir=out, plot=False)
    (tmp_path / "precious.txt").write_text("keep")
    manifest = json.loads((out / report.MANIFEST).read_text())
    sha = report.digest(tmp_path / "precious.txt")
    manifest["files"].update({"../precious.txt": sha, str(tmp_path / "precious.txt"): sha})
    (out / report.MANIFEST).write_text(json.dumps(manifest))
    collect([tmp_path / "runs"], out_dir=out, plot=False)
    assert (tmp_path / "precious.txt").read_text() == "keep"
