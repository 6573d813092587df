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
the sweep's notes of the jobs it launched (folder.JOB_NOTES), `multirun.yaml` Hydra's record of its command. An
archive that cannot be read to its end (cut short, damaged, not an archive) is one line with its
reason, among the folders that could not be read, and what it held before the damage still counts.
"""

from __future__ import annotations

import errno
import json
import lzma
import os
import tarfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Optional, Union

from ppo_bench.record.checks import why_unreadable
from ppo_bench.record.folder import JOB_NOTES, MULTIRUN, RESULT, SET_ASIDE

ARCHIVES = (".tar.gz", ".tgz", ".tar.xz")
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
    unreadable: list[str] = field(default_factory=list)  # folders and archives that could not be read: "path: why"
    notes: list[Path] = field(default_factory=list)      # sweeps' JOB_NOTES files
    sweeps: list[Path] = field(default_factory=list)     # sweeps' MULTIRUN files
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
    """Every result file, job folder without one, sweep note and multirun.yaml under the paths: folders
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
            for name in sorted(f for f in files if is_archive(Path(f))):
                read_archive(here / name, found)
    found.results = sorted([*seen.values(), *found.results])
    found.unfinished = sorted(unfinished | set(found.unfinished))
    found.unreadable.sort()
    found.notes.sort()
    found.sweeps.sort()
    return found


def read_archive(archive: Path, found: Found) -> None:
    """An archive's result files, notes and multirun.yaml read into `found.held`, in one pass and in
    memory; its job folders without a result among `found.unfinished`. A member that is no file (a
    folder named result.json, a link) is held as the OSError that says why; an archive that cannot be
    read to its end is one line in `found.unreadable` (what came before the damage is kept)."""
    marked, done = set(), set()
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                parts = [p for p in PurePosixPath(member.name).parts if p not in ("/", ".")]
                if not parts or SET_ASIDE in parts:
                    continue
                path = archive.joinpath(*parts)
                found.members.add(path)
                marked |= {archive.joinpath(*parts[:i]) for i, p in enumerate(parts) if p in RUN_MARKERS}
                if parts[-1] not in (RESULT, JOB_NOTES, MULTIRUN):
                    continue
                if path not in found.held:  # a name added twice (tar rf) is one file, its last copy read
                    {RESULT: found.results, JOB_NOTES: found.notes, MULTIRUN: found.sweeps}[parts[-1]].append(path)
                if member.isfile():
                    found.held[path] = tar.extractfile(member).read()
                elif member.isdir():
                    found.held[path] = IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
                else:
                    found.held[path] = OSError(errno.EINVAL, "a link in the archive, not a file", str(path))
                if parts[-1] == RESULT:
                    done.add(path.parent)
    except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, OSError) as e:
        found.unreadable.append(f"{archive}: {_why(e)}")
    found.unfinished += [str(d) for d in sorted(marked - done)]


def _why(e: Exception) -> str:
    """One line for an archive that could not be read to its end."""
    if isinstance(e, OSError) and not isinstance(e, tarfile.TarError):
        return why_unreadable(e, None)
    if isinstance(e, EOFError) or "unexpected end of data" in str(e):
        return "not a readable archive: cut short"
    if "could not be opened" in str(e):
        return f"not a readable archive: not a {', '.join(ARCHIVES)} file"
    return f"not a readable archive: damaged ({str(e).splitlines()[0]})"


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
