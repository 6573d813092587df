"""Collect result files into tables, chart arrays and a plot.

collect() builds a collection (report: every section in order), prints its table.md and writes
the out dir: it is what the command line and the end of a multirun (sweep.py) call. Its last line on
stderr is the verdict: `wrote OUT`, and how many jobs have no record where some have none (in
integrity's words). A CollectError (a path it cannot use: --out, --baseline, a damaged archive, a file
given that is neither a result nor an archive) stops it before anything is written.

main() is the command line around it; its exit status (EXIT_STATUS, shown by --help) says how the
collection ended. The status is the command line's alone: the end of a sweep calls collect(), and the
sweep's status is its own (launch: from its jobs' notes), so a job without a record does not make its
collection fail.

A stop (Ctrl-C, SIGTERM, SIGHUP) is one line and its status wherever it lands: the summary is written
all or nothing (report), so the line says that the previous one is kept, that none was written, or,
where the stop came as the new one was swapped in, that it is whole. The command line's process holds
stops back from its first import (the package's __init__) until main takes them (signals.stops_noted),
and again once main has its outcome, so none lands where no line can be said. One that Python
discards (raised in a finalizer: a weakref callback of its import system, say) cannot stop the
collection where it came; main raises it as the collection ends, and the line says what was written.
One held back after main has its outcome is taken before the process exits (signals.pending_stop),
and said: the summary is whole.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from ppo_bench.config import plugins
from ppo_bench.signals import Terminated, exit_status, pending_stop, stops_noted, stopped_by
from . import integrity, report
from .load import CollectError, Collection
from .sources import is_archive, unpacked_name

PROG = "ppo_bench.collect"
EXIT_STATUS = """exit status:
  0    the summary was written from everything given: every result file usable, every job with a
       record (ok, failed or skipped: a failed job's record and error are in table.md)
  1    something given could not be used: a path that does not exist, a folder that could not be read,
       an unusable result file or note (one line each, with its reason; the rest is tabled), nothing
       usable; or nothing was written: a damaged archive, a file that is neither a result file nor an
       archive, an --out or --baseline it cannot use (one line naming the path)
  2    the command line itself is wrong
  3    the summary was written, but jobs have no record (killed, still running, or their record could
       not be written): its last line says how many, table.md names them (1 wins where both apply)
  130  stopped by Ctrl-C (143: SIGTERM, 129: SIGHUP): one line says whether the previous summary is kept
"""
UNRECORDED = "(killed, still running, or their record could not be written; listed in table.md)"


def collect(paths: list[Path], out_dir: Optional[Path] = None, baseline: Optional[Path] = None,
            plot: bool = True) -> Collection:
    """Collect, write table.csv/table.md (+ chart.json, chart.js, throughput.png per group), print the table.

    Raises CollectError for a --baseline, an output dir, an archive or a file given that it cannot use;
    each stops before anything is written.
    """
    paths = [Path(p) for p in paths]
    c = report.build(paths, baseline)
    c.markdown = report.markdown(c)
    for p in c.missing:
        print(f"{PROG}: {p}: no such file or directory", file=sys.stderr)
    for line in c.unreadable + [f"{b['path']}: {b['reason']}" for b in c.bad]:
        print(f"{PROG}: {line}", file=sys.stderr)
    out = out_for(paths, out_dir)
    if out is None or not (c.ok or c.failed or c.skipped or c.bad or c.no_result):
        found = [p for p in paths if p.exists()]
        if found:
            print(f"no result files under {', '.join(map(str, found))}", file=sys.stderr)
        return c
    c.out_dir = out
    print(c.markdown, end="")
    try:
        report.write(c, out, plot)
    except OSError as e:
        raise CollectError(e.filename or out, e.strerror or e) from None
    lost, jobs = len(integrity.unrecorded(c)), sum(n for n, _ in integrity.tally(c))
    if not c.ok:
        kept = f"; wrote {out} with what {len(c.stopped)} of them finished before they failed" if len(c.stopped) else ""
        print(f"{'no job finished' if kept else 'nothing usable'}: {len(c.failed)} failed jobs, "
              f"{len(c.skipped)} skipped, {len(c.bad)} unusable files, {lost} jobs {integrity.NO_RECORD}{kept}",
              file=sys.stderr)
    else:
        print(f"wrote {out}" + (f"; {lost} of {jobs} jobs {integrity.NO_RECORD} {UNRECORDED}" if lost else ""),
              file=sys.stderr)
    return c


def out_for(paths: list[Path], out_dir: Optional[Path]) -> Optional[Path]:
    """The out dir: --out, else the first existing path's default (`default_out`); None where none exists."""
    found = [p for p in map(Path, paths) if p.exists()]
    return Path(out_dir) if out_dir is not None else default_out(found[0]) if found else None


def default_out(first: Path) -> Path:
    """Where a summary goes without --out: `<folder>/summary` for a folder, beside a result file for a
    file, and for an archive where its folder's would go, `<archive's name without .tar.gz>/summary`
    beside it (a folder of several archives gets one summary per archive, not one for all)."""
    if first.is_dir():
        return first / "summary"
    if is_archive(first):
        return first.parent / unpacked_name(first) / "summary"
    return first.parent / "summary"


def status(c: Collection) -> int:
    """The exit status of a collection that ended (EXIT_STATUS)."""
    if not c.ok or c.missing or c.unreadable or c.bad:
        return 1
    return 3 if integrity.unrecorded(c) else 0


def main(argv: Optional[list[str]] = None) -> int:
    """The command line: the collection, its last line and its exit status (EXIT_STATUS). Its own
    process takes stops only inside (`stops_noted`): by then it knows what the out dir holds."""
    parser = argparse.ArgumentParser(prog="ppo-bench-collect", description=__doc__.split("\n\n")[0],
                                     epilog=EXIT_STATUS, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", type=Path,
                        help="result files, directories to search, or sweeps packed as .tar.gz, .tgz or .tar.xz")
    parser.add_argument("--out", type=Path, help="output dir (default: <first PATH>/summary)")
    parser.add_argument("--baseline", type=Path, help="earlier summary dir (table.csv) or dir of results")
    parser.add_argument("--no-plot", action="store_true", help="skip throughput.png")
    args = parser.parse_args(argv)
    try:  # the installed plugins: their algorithms' keys and defaults say which records are one job
        plugins.load()
    except plugins.PluginError as e:
        print(f"{PROG}: {e}; records of its algorithms are read as they are", file=sys.stderr)
    out = out_for(args.paths, args.out)
    before = _manifest(out)
    try:
        with stops_noted() as noted:
            c = collect(args.paths, args.out, args.baseline, plot=not args.no_plot)
            if noted:  # a stop Python discarded where it came (a finalizer): the collection ran on
                raise noted[0]
        late = pending_stop()  # one that came as the collection ended, held back since
        if late is not None:
            print(f"{PROG}: stopped by {stopped_by(late)} as the collection ended: "
                  f"{c.out_dir if c.out_dir is not None else 'nothing was written'}"
                  f"{' is whole' if c.out_dir is not None else ''}", file=sys.stderr)
            return exit_status(late)
        return status(c)
    except CollectError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, Terminated) as e:
        print(f"{PROG}: {_stopped(e, out, before)}", file=sys.stderr)
        return exit_status(e)


def _stopped(stop: BaseException, out: Optional[Path], before: Optional[tuple]) -> str:
    """What a stop left: the new summary whole (its manifest is another file now), the previous one, or none."""
    if out is not None and _manifest(out) != before:
        return f"stopped by {stopped_by(stop)} as the summary was written: {out} is whole"
    kept = f"; the previous summary in {out} is kept" if before is not None else ""
    return f"stopped by {stopped_by(stop)}: {'nothing' if kept else 'no summary'} was written{kept}"


def _manifest(out: Optional[Path]) -> Optional[tuple]:
    """The out dir's manifest as a file (inode, mtime), which every summary written replaces; None without."""
    try:
        st = (out / report.MANIFEST).stat()
    except (OSError, TypeError):
        return None
    return st.st_ino, st.st_mtime_ns
