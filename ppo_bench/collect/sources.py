"""Where the result files lie: folders walked on disk, and sweeps packed as compressed archives, read in memory.

A sweep shared as one file (`tar czf sweep.tar.gz -C outputs/multirun <date>`: .tar.gz, .tgz or
.tar.xz) is collected as its folder is. Its members are read in one pass, in memory, never extracted
to disk, and each is named by the archive's path and its own (sweep.tar.gz/<date>/<job>/result.json),
so listings name it as a file of the folder would be named, rounds pair within its sweep, and a folder
collected with its archive counts each measurement once (load keeps the folder's file, the one in
the folder its job wrote it to). The same rules as for a folder, met on disk or inside an archive:
a file named result.json under no `set_aside` folder (a sweep's earlier results, moved out) is a result
file, and so is a folder of that name, which reads as unusable, not as a job without a result; a job
folder (Hydra's `.hydra`, or a run log, in it) without one is a job without a record; `.jobs.jsonl` is
the sweep's notes of the jobs it launched (folder.JOB_NOTES), `multirun.yaml` Hydra's record of its (last)
command and `.commands.jsonl` the folder's history, every command that ran a sweep into it (folder.COMMANDS).

An archive is read whole or not at all. tarfile alone does not say when it is not: it ends its listing
without a word at the first block after the first member that is no tar header (a header damaged in
the middle read as the archive's end), and it never reads the compressed stream's end, where gzip
keeps its CRC and length, so an archive whose bytes were altered read as whole. Here the stream is read
on to its end after the last member: what follows it must be the end-of-archive blocks (zeros), and the
decompressor checks the checksum as it reaches it. An archive that fails (cut short, damaged, not an
archive, unreadable) is in `Found.damaged` with its reason and the result files read before the damage;
load refuses the collection for it (see load_jobs): the records before the damage read as the whole
sweep otherwise, the rest silently missing.

A file given by its path that is not an archive is a result file; one not named result.json that does
not read as a record is `Found.named` for load to refuse (a stray notes.json given by mistake would
otherwise become a summary of "1 unusable" over the sweep's own).
"""

from __future__ import annotations

import errno
import gzip
import json
import lzma
import os
import tarfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Optional, Union

from ppo_bench.record.checks import why_unreadable
from ppo_bench.record.folder import COMMANDS, JOB_NOTES, MULTIRUN, RESULT, SET_ASIDE

ARCHIVES = (".tar.gz", ".tgz", ".tar.xz")
ARCHIVE_NAMES = f"{', '.join(ARCHIVES[:-1])} or {ARCHIVES[-1]}"
ACCEPTS = f"the collector reads sweep folders, result files and {ARCHIVE_NAMES} archives"
RUN_MARKERS = (".hydra", "run.log")  # what a job of run.py leaves in its folder besides result.json
KILLED = "killed, or still running"
REFUSED = "refused by this sweep"  # a job whose folder keeps an earlier run's ok record (job.parent.Kept)
UNWRITTEN = "no record written: the job ended without one (its folder or the disk refused it)"


def is_archive(path: Path) -> bool:
    """Whether a file is read as a packed sweep, by its name (ARCHIVES)."""
    return path.name.lower().endswith(ARCHIVES)


def unpacked_name(archive: Path) -> str:
    """The archive's name without its suffix (sweep.tar.gz -> sweep): the folder it was packed from."""
    return next(archive.name[:-len(a)] for a in ARCHIVES if archive.name.lower().endswith(a))


@dataclass
class Found:
    """What lies under the paths given; `held` keeps what was read from archives, by member path."""
    results: list[Path] = field(default_factory=list)   # result files (and folders named like one), each once
    unfinished: list[str] = field(default_factory=list)  # job folders without a result file
    unreadable: list[str] = field(default_factory=list)  # folders that could not be read: "path: why"
    damaged: list[tuple[Path, str]] = field(default_factory=list)  # archives not read whole: path, why (load refuses)
    named: set[Path] = field(default_factory=set)        # files given by path, not named result.json (load checks)
    notes: list[Path] = field(default_factory=list)      # sweeps' JOB_NOTES files
    sweeps: list[Path] = field(default_factory=list)     # sweeps' MULTIRUN files
    histories: list[Path] = field(default_factory=list)  # sweeps' COMMANDS files
    held: dict[Path, Union[bytes, OSError]] = field(default_factory=dict)  # archive members read, or why not
    members: set[Path] = field(default_factory=set)      # every path inside the archives read

    def read(self, path: Path) -> Optional[bytes]:
        """An archive member's bytes (raising its OSError where it is no file); None for a file on disk."""
        data = self.held.get(path)
        if isinstance(data, OSError):
            raise data
        return data

    def read_bytes(self, path: Path) -> bytes:
        data = self.read(path)
        return path.read_bytes() if data is None else data

    def lexists(self, path: Path) -> bool:
        return path in self.members or os.path.lexists(path)


def walk(paths: list[Path]) -> Found:
    """Every result file, job folder without one, sweep note, multirun.yaml and history under the paths: folders
    walked (symbolic links to folders not followed, as Path.rglob did), archives read (`read_archive`),
    a file given by its path taken as a result file. Each result file once, named as found, so reports
    show the paths users gave; folders that could not be listed are reported, never skipped silently."""
    found, seen, unfinished = Found(), {}, set()
    failed = lambda e: found.unreadable.append(f"{e.filename}: {e.strerror or e}")  # noqa: E731
    for p in map(Path, paths):
        if p.is_file() and is_archive(p):
            read_archive(p, found)
            continue
        if p.is_file():
            seen.setdefault(p.resolve(), p)
            found.named |= {p} if p.name != RESULT else set()
            continue
        for folder, dirs, files in os.walk(p, onerror=failed):
            here = Path(folder)
            dirs[:] = [d for d in dirs if d != SET_ASIDE]
            if RESULT in files or RESULT in dirs:  # a folder in its place: Record.read says so
                f = here / RESULT
                seen.setdefault(f.resolve(), f)
                if RESULT in dirs:
                    dirs.remove(RESULT)
            elif any(m in dirs or m in files for m in RUN_MARKERS):
                unfinished.add(str(here))
            found.notes += [here / JOB_NOTES] if JOB_NOTES in files else []
            found.sweeps += [here / MULTIRUN] if MULTIRUN in files else []
            found.histories += [here / COMMANDS] if COMMANDS in files else []
            for name in sorted(f for f in files if is_archive(Path(f))):
                read_archive(here / name, found)
    found.results = sorted([*seen.values(), *found.results])
    found.unfinished = sorted(unfinished | set(found.unfinished))
    found.unreadable.sort()
    found.notes.sort()
    found.sweeps.sort()
    found.histories.sort()
    return found


def read_archive(archive: Path, found: Found) -> None:
    """An archive's result files, notes, multirun.yaml and history read into `found.held`, in one pass and in
    memory; its job folders without a result among `found.unfinished`. A member that is no file (a
    folder named result.json, a link) is held as the OSError that says why; an archive that cannot be
    read to its end (`to_the_end`) is in `found.damaged`, with the count of result files read before."""
    marked, done, read = set(), set(), 0
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                parts = [p for p in PurePosixPath(member.name).parts if p not in ("/", ".")]
                if not parts or SET_ASIDE in parts:
                    continue
                path = archive.joinpath(*parts)
                found.members.add(path)
                marked |= {archive.joinpath(*parts[:i]) for i, p in enumerate(parts) if p in RUN_MARKERS}
                kept = {RESULT: found.results, JOB_NOTES: found.notes, MULTIRUN: found.sweeps,
                        COMMANDS: found.histories}
                if parts[-1] not in kept:
                    continue
                if path not in found.held:  # a name added twice (tar rf) is one file, its last copy read
                    kept[parts[-1]].append(path)
                if member.isfile():
                    found.held[path] = tar.extractfile(member).read()
                elif member.isdir():
                    found.held[path] = IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
                else:
                    found.held[path] = OSError(errno.EINVAL, "a link in the archive, not a file", str(path))
                if parts[-1] == RESULT:
                    done.add(path.parent)
                    read += 1
            to_the_end(tar)
    except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, OSError) as e:
        found.damaged.append((archive, _why(e, archive, read)))
    found.unfinished += [str(d) for d in sorted(marked - done)]


def to_the_end(tar: tarfile.TarFile) -> None:
    """Read an archive on from where tarfile stopped to the end of its compressed stream: raises where
    that is not the end-of-archive blocks (a damaged header, or none), or where the decompressor finds
    the stream cut short or its checksum wrong, which it checks only as it reaches the stream's end."""
    tar.fileobj.seek(tar.offset)
    size = 0
    while chunk := tar.fileobj.read(1 << 16):
        if chunk.count(0) != len(chunk):
            raise tarfile.HeaderError(f"no tar header at byte {tar.offset}")
        size += len(chunk)
    if size < tarfile.BLOCKSIZE:
        raise EOFError("no end-of-archive block")


COMPRESSED = (b"\x1f\x8b", b"\xfd7zXZ\x00")  # how gzip and xz streams begin


def _why(e: Exception, archive: Path, read: int) -> str:
    """One line for an archive that could not be read to its end (CollectError adds its path): not an
    archive at all, unreadable, or damaged (cut short, a wrong checksum, a damaged header or stream)."""
    if isinstance(e, tarfile.ReadError) and "could not be opened" in str(e):  # no opener took it
        with archive.open("rb") as f:
            start = f.read(6)
        if not start.startswith(COMPRESSED):
            return f"not a {ARCHIVE_NAMES} archive"
        e = tarfile.HeaderError("nothing readable from its start")
    if isinstance(e, OSError) and not isinstance(e, gzip.BadGzipFile):
        return why_unreadable(e, None)
    if isinstance(e, EOFError) or "unexpected end of data" in str(e):
        what = "cut short"
    else:
        what = str(e).splitlines()[0].removeprefix("zlib error: ") or type(e).__name__
    return f"damaged archive ({what}): {read} result file{'s' * (read != 1)} read before the damage"


def launched(found: Found, bad: list[dict]) -> dict[str, str]:
    """The jobs the sweeps' notes (JOB_NOTES) say were launched that left no result file: their folder and
    why, from their last line (a resumed sweep launches a job again): one that ended wrote no record,
    one that never said it ended was killed or still runs; one refused for an earlier ok record (which
its folder keeps, and the tables count) is named too, with its line. Such a job may have no folder at all (its
    folder could not be made), so a job folder is not what counts it. A note with a line that is not
    a job's is unusable (in `bad`, for its first such line); its other lines still count."""
    last: dict[Path, dict] = {}
    for note in found.notes:
        try:
            lines = found.read_bytes(note).decode().splitlines()
        except (OSError, UnicodeDecodeError) as e:
            bad.append({"path": str(note), "reason": why_unreadable(e, None)})
            continue
        for i, line in enumerate(lines, 1):
            try:
                entry = json.loads(line)
                name = entry["job"]
                if not isinstance(name, str) or Path(name).name != name or name in ("", ".", ".."):
                    raise ValueError(f"job {name!r} is not a folder's name")
            except (ValueError, KeyError, TypeError) as e:
                bad.append({"path": str(note), "reason": f"line {i}: not a job's line: {e}"})
                break
            last[note.parent / name] = entry
    return {str(job): f"{REFUSED}: {entry['kept']}" if entry.get("kept") else
            UNWRITTEN if entry.get("ended") else KILLED for job, entry in last.items()
            if entry.get("kept") or not found.lexists(job / RESULT)}
