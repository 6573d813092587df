"""A sweep packed as a compressed archive is collected as its folder is, read in memory.

tar.gz, .tgz and .tar.xz; its members named `*/result.json` are the result files, its `.jobs.jsonl`
and `multirun.yaml` read as in a folder; what cannot be used is named with its reason; nothing is
extracted to disk; a folder and an archive can be collected together.
"""

from __future__ import annotations

import gzip
import io
import json
import lzma
import random
import re
import tarfile
import zlib
from datetime import timedelta

import pytest

from ppo_bench.collect import collect, main
from test_collect import T0, write

MULTIRUN = """hydra:
  overrides:
    hydra:
    - hydra.sweep.dir=/somewhere/2026-01-01
    - hydra.mode=MULTIRUN
    task:
    - env.num_envs=8,16
    - mode=step,sendrecv
    - round=0,1
"""


def sweep(root):
    """A small sweep folder: two modes at two num_envs in two rounds, its multirun.yaml and notes."""
    folder = root / "2026-01-01"
    k = 0
    for rnd in (0, 1):
        for n in (8, 16):
            for mode, thr in (("step", 100.0), ("sendrecv", 150.0)):
                k += 1
                mean = thr * n / 8
                write(folder, f"env.num_envs={n},mode={mode},round={rnd}", mode=mode, n=n, round=rnd,
                      reps=[mean + k, mean - k, mean + 2 * k], start=T0 + timedelta(seconds=20 * k))
    (folder / "multirun.yaml").write_text(MULTIRUN)
    (folder / "env.num_envs=8,mode=async,round=0" / ".hydra").mkdir(parents=True)  # a job killed before its record
    note = {"job": "env.num_envs=16,mode=async,round=0", "overrides": []}  # launched, no folder made
    (folder / ".jobs.jsonl").write_text(json.dumps(note) + "\n")
    return folder


def pack(folder, archive, mode="w:gz"):
    with tarfile.open(archive, mode) as tar:
        tar.add(folder, arcname=folder.name)
    return archive


def listing(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("suffix,mode", [(".tar.gz", "w:gz"), (".tgz", "w:gz"), (".tar.xz", "w:xz")])
def test_an_archive_collects_to_the_same_table_as_its_folder(tmp_path, suffix, mode):
    folder = sweep(tmp_path / "runs")
    archive = pack(folder, tmp_path / f"sweep{suffix}", mode)
    from_folder = collect([folder], out_dir=tmp_path / "a", plot=False)
    before = listing(tmp_path / "runs")
    from_archive = collect([archive], out_dir=tmp_path / "b", plot=False)
    assert (tmp_path / "a" / "table.csv").read_bytes() == (tmp_path / "b" / "table.csv").read_bytes()
    assert len(from_archive.jobs) == len(from_folder.jobs) == 8
    assert from_archive.table["paired_rounds"].max() == 2  # rounds pair within the archive's sweep
    assert sorted(p.removeprefix(str(archive)) for p in from_archive.jobs["path"]) == sorted(
        p.removeprefix(str(folder.parent)) for p in from_folder.jobs["path"])
    assert [n["reason"] for n in from_archive.no_result] == [n["reason"] for n in from_folder.no_result]
    assert [n["path"] for n in from_archive.no_result] == [
        str(archive / "2026-01-01" / "env.num_envs=16,mode=async,round=0"),
        str(archive / "2026-01-01" / "env.num_envs=8,mode=async,round=0")]
    assert listing(tmp_path / "runs") == before and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["runs", archive.name, "a", "b"])  # nothing extracted


def test_an_archive_s_summary_goes_where_its_folder_s_would(tmp_path, capsys):
    archive = pack(sweep(tmp_path / "runs"), tmp_path / "sweep.tar.gz")
    assert main([str(archive), "--no-plot"]) == 3  # two of its jobs have no record
    assert (tmp_path / "sweep" / "summary" / "table.csv").is_file()
    assert capsys.readouterr().err.startswith(f"wrote {tmp_path / 'sweep' / 'summary'}; 2 of 10 jobs with no record")


def test_a_folder_and_its_archive_together_count_each_measurement_once(tmp_path):
    folder = sweep(tmp_path / "runs")
    archive = pack(folder, tmp_path / "sweep.tar.gz")
    c = collect([folder, archive], out_dir=tmp_path / "out", plot=False)
    assert len(c.jobs) == 8 and len(c.duplicates) == 8
    assert all(d["kept"].startswith(str(folder)) for d in c.duplicates)  # the one its job wrote is kept


def test_an_unusable_member_is_named_with_its_reason_and_the_others_tabled(tmp_path, capsys):
    folder = sweep(tmp_path / "runs")
    bad = folder / "env.num_envs=8,mode=step,round=0" / "result.json"
    bad.write_text(bad.read_text()[:100])
    (folder / "x" / "result.json").mkdir(parents=True)  # a folder named like a result file
    archive = pack(folder, tmp_path / "sweep.tar.gz")
    assert main([str(archive), "--out", str(tmp_path / "out"), "--no-plot"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert f"ppo_bench.collect: {archive / bad.relative_to(folder.parent)}: not valid JSON: truncated" in err
    assert f"ppo_bench.collect: {archive / '2026-01-01' / 'x' / 'result.json'}: a folder, not a file" in err
    assert "| 8 | " in (tmp_path / "out" / "table.md").read_text()


def _damaged(folder, tmp_path, how):
    """The sweep packed, then damaged for real at a known place; the result files read before it (the first
    job's run.log lies between, longer than a decompressor reads ahead)."""
    (sorted(folder.glob("*/result.json"))[0].parent / "run.log").write_bytes(random.Random(0).randbytes(300_000))
    plain = pack(folder, tmp_path / "plain.tar", "w").read_bytes()
    with tarfile.open(tmp_path / "plain.tar") as tar:
        at = [m for m in tar.getmembers() if m.name.endswith("result.json")][1].offset  # one result before it
    if how == "a header in the middle":  # a tar header overwritten, the gzip stream itself whole
        return gzip.compress(plain[:at] + b"\xff" * 512 + plain[at + 512:]), 1, f"no tar header at byte {at}"
    if how == "bytes flipped in the middle":  # the compressed stream, from where the second result begins
        z = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing
        head, tail = z.compress(plain[:at]) + z.flush(zlib.Z_FULL_FLUSH), z.compress(plain[at:]) + z.flush()
        return head + bytes(b ^ 0x5A for b in tail[:64]) + tail[64:], 1, "Error -3 while decompressing data: "
    whole = gzip.compress(plain)
    if how == "its CRC altered":  # gzip's trailer: CRC-32 then the length, 4 bytes each
        return whole[:-8] + bytes(b ^ 0xFF for b in whole[-8:-4]) + whole[-4:], 8, "CRC check failed"
    if how == "its length altered":
        return whole[:-4] + bytes(b ^ 0xFF for b in whole[-4:]), 8, "Incorrect length"
    if how == "cut short":
        return whole[: len(whole) * 2 // 3], None, "cut short"
    xz = lzma.compress(plain, format=lzma.FORMAT_XZ)
    return xz[: len(xz) // 2] + bytes([xz[len(xz) // 2] ^ 0xFF]) + xz[len(xz) // 2 + 1:], None, "Corrupt input data"


DAMAGE = ["a header in the middle", "bytes flipped in the middle", "its CRC altered", "its length altered",
          "cut short", "xz bytes flipped"]


@pytest.mark.parametrize("how", DAMAGE)
def test_a_damaged_archive_is_named_in_one_line_and_never_tabled_as_the_whole(tmp_path, capsys, how):
    """Records read before the damage are not written as if they were the sweep: one line naming the archive,
    what is wrong and how many result files were read before it; nothing written, the previous summary kept."""
    from test_summary_atomic import snapshot

    folder = sweep(tmp_path / "runs")
    data, read, what = _damaged(folder, tmp_path, how)
    archive = tmp_path / ("sweep.tar.xz" if how.startswith("xz") else "sweep.tar.gz")
    archive.write_bytes(data)
    out = tmp_path / "out"
    collect([folder], out_dir=out, plot=False)  # an earlier summary where this one goes
    before = snapshot(out)
    capsys.readouterr()
    assert main([str(archive), "--out", str(out), "--no-plot"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and snapshot(out) == before
    [line] = captured.err.splitlines()
    found = re.fullmatch(rf"ppo_bench\.collect: {re.escape(str(archive))}: damaged archive \((.+)\): "
                         r"(\d+) result files? read before the damage; nothing was written", line)
    assert found and what in found[1] and (read is None or int(found[2]) == read), line


def test_a_damaged_archive_in_a_folder_or_as_a_baseline_stops_the_collection(tmp_path, capsys):
    folder = sweep(tmp_path / "runs")
    whole = pack(folder, tmp_path / "sweep.tar.gz").read_bytes()
    (tmp_path / "sweep.tar.gz").write_bytes(whole[:-8] + bytes(b ^ 0xFF for b in whole[-8:-4]) + whole[-4:])
    assert main([str(tmp_path), "--no-plot"]) == 1  # met in a folder: the folder's summary would miss it
    assert not (tmp_path / "summary").exists()
    assert main([str(folder), "--baseline", str(tmp_path / "sweep.tar.gz"), "--no-plot"]) == 1
    assert not (folder / "summary").exists()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith(f"ppo_bench.collect: {tmp_path / 'sweep.tar.gz'}: damaged archive (")
                                 for line in err), err


def test_a_file_named_like_an_archive_that_is_none_is_refused_in_one_line(tmp_path, capsys):
    not_an_archive = tmp_path / "other.tar.gz"
    not_an_archive.write_bytes(b"plain text, no archive")
    assert main([str(not_an_archive), "--out", str(tmp_path / "out"), "--no-plot"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"ppo_bench.collect: {not_an_archive}: not a .tar.gz, .tgz or .tar.xz archive; nothing was written"]
    assert not (tmp_path / "out").exists()


def test_an_archive_of_a_sweep_packed_from_inside_reads_the_same(tmp_path):
    folder = sweep(tmp_path / "runs")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(folder, arcname=".")
    (tmp_path / "inside.tgz").write_bytes(buf.getvalue())
    collect([folder], out_dir=tmp_path / "a", plot=False)
    collect([tmp_path / "inside.tgz"], out_dir=tmp_path / "b", plot=False)
    assert (tmp_path / "a" / "table.csv").read_bytes() == (tmp_path / "b" / "table.csv").read_bytes()


def test_an_archive_serves_as_a_baseline(tmp_path):
    folder = sweep(tmp_path / "runs")
    archive = pack(folder, tmp_path / "sweep.tar.gz")
    c = collect([folder], out_dir=tmp_path / "out", baseline=archive, plot=False)
    assert c.baseline_rows == len(c.table) and c.regressions == []
    assert (c.table["baseline_ratio"] == 1.0).all()


def test_a_result_added_twice_to_an_archive_is_one_file_its_last_copy(tmp_path):
    folder = sweep(tmp_path / "runs")
    archive = pack(folder, tmp_path / "sweep.tar", "w")  # plain tar, so that a member can be appended
    job = folder / "env.num_envs=8,mode=step,round=0" / "result.json"
    rec = json.loads(job.read_text())
    rec["throughput"] = {"unit": rec["throughput"]["unit"], "reps": [500.0, 510.0]}
    job.write_text(json.dumps(rec))
    with tarfile.open(archive, "a") as tar:
        tar.add(job, arcname=str(job.relative_to(folder.parent)))
    packed = tmp_path / "sweep.tar.gz"
    packed.write_bytes(__import__("gzip").compress(archive.read_bytes()))
    c = collect([packed], out_dir=tmp_path / "out", plot=False)
    assert len(c.jobs) == 8 and c.duplicates == [] and c.bad == []
    assert sorted(c.jobs.loc[c.jobs["path"].str.endswith(str(job.relative_to(folder.parent))), "reps"].iloc[0]) == [
        500.0, 510.0]


def test_the_page_s_provenance_of_an_archive_is_its_records(tmp_path):
    """The provenance panel is read from the collection, not from files a packed record does not have."""
    from ppo_bench.collect import about

    folder = sweep(tmp_path / "runs")
    from_folder = about.provenance(collect([folder], out_dir=tmp_path / "a", plot=False))
    from_archive = about.provenance(collect([pack(folder, tmp_path / "s.tar.gz")], out_dir=tmp_path / "b", plot=False))
    assert "8 result files used" in from_archive and from_archive == from_folder
