"""One collection from the result files to the out dir: the sections in order, table.md, the cleanup.

Each section computes its part into the Collection, gives its part of table.md and writes its
own files; this module decides only the order. The sections build in the order their columns
appear in table.csv (throughput's rows, then the side-by-side tables, the probes' limit and the bound
per design, the integrity flags; phases and learning apart), and table.md reads what was measured
(measured), throughput (with the limit and the bound per design in its tables), side by side, the
loops over a probe interleaved in their jobs (interleaved), phases, learning, integrity, then the
baseline. Where the figures are drawn, html
writes report.html (every section's charts and table.md on one offline page) and table.md links to
it in its first line. Each section's write returns the
files it wrote; they go into the out dir's manifest (MANIFEST), and a later collection into that
dir deletes those files (as written, unchanged) and nothing else (`remove_earlier`). Writing
holds a lock on the out dir (`locked`), so two collections never leave a mix of both, and is all or
nothing (`write`): the files are written aside, then swapped in (`commit`). A collection killed
outright (SIGKILL) leaves its staging folder; the next one into that dir removes it (`remove_killed`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

from ppo_bench.record.folder import MANIFEST
from ppo_bench.record.locks import Holder
from ppo_bench.signals import signals_deferred
from . import (baseline, bound_per_design, html, integrity, interleaved, learning, measured, phases, probe_limit,
               side_by_side, startup, throughput)
from .common import can_plot
from .load import CollectError, Collection, load_jobs

# the sections with files; table.csv is written first
WRITERS = (throughput, side_by_side, interleaved, phases, startup, learning)
TABLE_MD = "table.md"
ASIDE = ".collect-"  # in the out dir: `.collect-<pid>-*`, the folder a collection is written into first (write)
LOCK_WAIT_S = 60.0  # how long a second collector into one out dir waits for the first (see locked)
LOCK_POLL_S = 0.1


def build(paths: list[Path], compare_with: Optional[Path] = None) -> Collection:
    """Read and analyse, in memory; nothing is written. A baseline (`compare_with`) is read first, so
    that a bad one raises CollectError before anything else is done."""
    base, named = (None, "") if compare_with is None else baseline.load(compare_with)
    c, records = load_jobs(paths)
    c.baseline = compare_with
    if c.ok:
        throughput.build(c)
        side_by_side.build(c)
        probe_limit.build(c)
        bound_per_design.build(c)
        integrity.build(c, records)
        phases.build(c)
        startup.build(c)
    # a learning run, or timed reps interleaved with a probe, that stopped part-way count even when
    # nothing finished
    interleaved.build(c)
    learning.build(c)
    if base is not None and c.ok:
        baseline.compare(c, base, named)
    return c


def markdown(c: Collection) -> str:
    lines = (measured.markdown(c) + throughput.markdown(c) + side_by_side.markdown(c) + interleaved.markdown(c)
             + phases.markdown(c) + startup.markdown(c) + learning.markdown(c)
             + integrity.markdown(c) + baseline.markdown(c))
    return "\n".join(lines).rstrip() + "\n"


def write(c: Collection, out: Path, plot: bool) -> None:
    """Every section's files and table.md into `out`, all or nothing, under its lock (`locked`).

    They are written first into a folder of their own inside `out` (ASIDE), then swapped in (`commit`).
    Whatever stops the writing (Ctrl-C, a full disk, a section's error) leaves `out` as it was, with
    no half-written file and no manifest of one, and that folder is removed (so is `out` itself where
    this collection made it and left it empty). Inside `out`, not beside it: its parent may be a
    folder this collection may not write in."""
    if out.exists() and not out.is_dir():
        raise CollectError(out, "not a directory")
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        with locked(out) as held:
            if held:
                remove_killed(out)
            aside = None
            try:
                with signals_deferred():  # a stop as the folder is made is raised once it is named here
                    aside = Path(tempfile.mkdtemp(prefix=f"{ASIDE}{os.getpid()}-", dir=out))
                commit(aside, out, _write_sections(c, aside, plot))
            except OSError as e:  # named where the file was to go, not where it was written first
                if aside is not None and e.filename and Path(e.filename).is_relative_to(aside):
                    e.filename = str(out / Path(e.filename).relative_to(aside))
                raise
            finally:
                with signals_deferred():  # a second Ctrl-C must not leave the folder behind
                    if aside is not None:
                        shutil.rmtree(aside, ignore_errors=True)
    except BaseException:
        if made:
            with contextlib.suppress(OSError):
                out.rmdir()  # only when empty
        raise


def remove_killed(out: Path) -> None:
    """Remove the staging folders (ASIDE) that collections killed outright (SIGKILL, a machine's crash)
    left in `out`, saying so in one line. Called under the out dir's lock, which every collection
    holds for as long as its staging folder exists: one found then is no live collection's. Its name
    holds its writer's pid, and a folder whose process still runs is kept all the same (a pid reused,
    or a host whose locks this one does not see): only one whose process is gone is removed."""
    gone = []
    for folder in sorted(out.glob(f"{ASIDE}*")):
        pid = folder.name[len(ASIDE):].split("-")[0]
        if folder.is_dir() and not folder.is_symlink() and not (pid.isdigit() and Holder(int(pid), Holder.me().host).alive()):
            shutil.rmtree(folder, ignore_errors=True)
            gone += [folder.name] if not folder.exists() else []
    if gone:
        what = "folders of collections killed while they" if len(gone) > 1 else "folder of a collection killed while it"
        print(f"ppo_bench.collect: removed {', '.join(gone)} from {out}: the staging {what} wrote", file=sys.stderr)


def _write_sections(c: Collection, aside: Path, plot: bool) -> list[Path]:
    """Every section's files, the page and table.md into `aside`; the files written."""
    draw = plot and c.ok and can_plot()
    if plot and c.ok and not draw:
        print("plot skipped: matplotlib is not importable (pip install 'ppo-bench[plot]')", file=sys.stderr)
    written = []
    for section in WRITERS:
        written += section.write(c, aside, draw)
    page = html.write(c, aside, draw)
    written += page
    (aside / TABLE_MD).write_text(html.link(c.markdown) if page else c.markdown)
    return written + [aside / TABLE_MD]


def commit(aside: Path, out: Path, written: list[Path]) -> None:
    """Swap the collection written in `aside` into `out`: what the earlier collection wrote there goes
    (`remove_earlier`), each new file is renamed into its place, the manifest last.

    Everything that can fail for want of room or a clear way is done first: the manifest is written in
    `aside`, and a folder where a file goes (or a file where a folder goes) stops it before anything
    changed. What is left are renames and deletions on one file system, done with Ctrl-C and SIGTERM
    held back (signals_deferred), so no interruption leaves a mix of two summaries."""
    files = sorted({f.relative_to(aside) for f in written if f.is_file()})
    folders = {d for f in files for d in f.parents if d.parts}
    in_the_way = [out / f for f in files if (out / f).is_dir()] + [
        out / d for d in folders if (out / d).exists() and not (out / d).is_dir()]
    if in_the_way:
        raise CollectError(in_the_way[0], "in the way of the summary's own file or folder of that name")
    earlier = read_manifest(out)
    created = {str(d) for d in folders if not (out / d).exists()}
    kept = {d for d in earlier[1] if isinstance(d, str) and (out / d).is_dir()}  # still the collector's
    save_manifest(aside, files, created | kept)
    with signals_deferred():
        remove_earlier(out, *earlier)
        for f in [*files, Path(MANIFEST)]:
            (out / f).parent.mkdir(parents=True, exist_ok=True)
            os.replace(aside / f, out / f)


@contextlib.contextmanager
def locked(out: Path):
    """Hold an exclusive lock on the out dir while writing into it, so that two collections never mix.

    The lock is flock(2) on the folder itself: it needs no write permission and leaves no lock file
    behind (nothing to clean up, nothing stale after a crash: the kernel drops it with its holder).
    A second collector waits for it, saying so in one line, up to LOCK_WAIT_S; then it gives up
    with a CollectError naming the holder's pid (read from /proc/locks; "another collector" where
    that cannot say). A file system that cannot lock (ENOLCK, some network mounts) is written
    without a lock, with a warning. Yields whether the lock is held.
    """
    fd = os.open(out, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        deadline = None
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = lock_holder(fd)
                if deadline is None:
                    deadline = time.monotonic() + LOCK_WAIT_S
                    print(f"waiting for {holder} writing {out} (up to {LOCK_WAIT_S:g} s)", file=sys.stderr)
                if time.monotonic() >= deadline:
                    raise CollectError(out, f"{holder} is writing here; gave up after {LOCK_WAIT_S:g} s") from None
                time.sleep(LOCK_POLL_S)
            except OSError as e:
                print(f"ppo_bench.collect: {out}: cannot lock ({e.strerror or e}); writing without a lock",
                      file=sys.stderr)
                yield False
                return
        yield True
    finally:
        os.close(fd)  # releases the lock


def lock_holder(fd: int) -> str:
    """Who holds the flock on the open folder `fd`, as the refusal names it: its pid from /proc/locks
    (Linux: "1: FLOCK ADVISORY WRITE <pid> <major>:<minor>:<inode> 0 EOF"), else no pid."""
    st = os.fstat(fd)
    want = (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        lines = []
    for fields in map(str.split, lines):
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[3] == "WRITE":  # "->" lines are waiters
            try:
                major, minor, inode = fields[5].split(":")
                if (int(major, 16), int(minor, 16), int(inode)) == want:
                    return f"another collector (pid {int(fields[4])})"
            except ValueError:
                continue
    return "another collector"


def digest(path: Path) -> str:
    """sha256 of a file's bytes: what the manifest records, so that a file changed since is not deleted."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _own(out: Path, rel: str) -> Optional[Path]:
    """`out / rel` where `rel` is a manifest entry naming a place inside `out` (relative, no "..", no
    link on the way out of it), else None: a manifest edited by hand reaches nothing outside."""
    p = Path(rel)
    if not isinstance(rel, str) or p.is_absolute() or ".." in p.parts or not p.parts:
        return None
    path = out / p
    if path.is_symlink() or not path.resolve().is_relative_to(out.resolve()):
        return None
    return path


def read_manifest(out: Path) -> tuple[dict, list]:
    """The files (path in `out` -> sha256) and folders that the earlier collection's MANIFEST lists;
    none where there is none, or where it is not one (said in one line: then nothing is removed)."""
    try:
        manifest = json.loads((out / MANIFEST).read_text())
        return dict(manifest["files"]), list(manifest["dirs"])
    except FileNotFoundError:
        return {}, []
    except (OSError, ValueError, TypeError, KeyError) as e:
        print(f"ppo_bench.collect: {out / MANIFEST}: not a manifest ({e}); nothing earlier is removed",
              file=sys.stderr)
        return {}, []


def remove_earlier(out: Path, files: dict, dirs: list) -> None:
    """Delete what an earlier collection wrote into `out`, as its manifest (`read_manifest`) lists it.

    Only a listed file still as it was written (same sha256) is deleted, and only a listed folder left
    empty is removed: a file a user put there or changed since, an earlier summary in a folder below
    (`collect SWEEP --out SWEEP`), a folder without a manifest are never touched (a listed folder that
    stays, holding something else now, stays listed as the collector's). Otherwise charts of
    configurations no longer present, or a phase table when nothing is profiled now, would survive as
    if current; a file of the collector's own names that it did not list is replaced when written again.
    """
    for rel, sha in files.items():
        path = _own(out, rel)
        if path is not None and path.is_file() and digest(path) == sha:
            path.unlink()
    for path in sorted(filter(None, (_own(out, rel) for rel in dirs)), key=lambda d: len(d.parts), reverse=True):
        if path.is_dir() and path != out and not any(path.iterdir()):
            path.rmdir()


def save_manifest(folder: Path, files: list[Path], dirs: set[str]) -> None:
    """MANIFEST in `folder`: the files a collection wrote (paths relative to it, sha256) and the folders it
    created in the out dir (a later collection removes them only when empty)."""
    manifest = {"written_by": "ppo_bench.collect: what a later collection into this folder may delete",
                "files": {str(f): digest(folder / f) for f in files}, "dirs": sorted(dirs)}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
