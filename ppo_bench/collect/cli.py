"""Collect result files into tables, chart arrays and a plot.

collect() builds a collection (report: every section in order), prints its table.md and writes
the out dir: it is what the command line and the end of a multirun (sweep.py) call.
main() is the command line around it: a CollectError (an --out or --baseline it cannot
use) becomes one line naming the path, exit 1; exit 0 only when something usable was
collected, every path given exists, every folder under them could be read and every result file
found could be used (each one that could not is one line on stderr with its reason, and listed in
table.md; the usable ones are still tabled). Failed and skipped jobs, and job folders without a
result, are the jobs' outcome, not unusable input: listed, exit 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from . import report
from .load import CollectError, Collection
from .sources import is_archive, unpacked_name

PROG = "ppo_bench.collect"


def collect(paths: list[Path], out_dir: Optional[Path] = None, baseline: Optional[Path] = None,
            plot: bool = True) -> Collection:
    """Collect, write table.csv/table.md (+ chart.json, chart.js, throughput.png per group), print the table.

    Raises CollectError for a --baseline or an output dir it cannot use; a bad baseline stops
    before anything is written.
    """
    paths = [Path(p) for p in paths]
    c = report.build(paths, baseline)
    c.markdown = report.markdown(c)
    for p in c.missing:
        print(f"{PROG}: {p}: no such file or directory", file=sys.stderr)
    for line in c.unreadable + [f"{b['path']}: {b['reason']}" for b in c.bad]:
        print(f"{PROG}: {line}", file=sys.stderr)
    found = [p for p in paths if p.exists()]
    if not (c.ok or c.failed or c.skipped or c.bad or c.no_result):
        if found:
            print(f"no result files under {', '.join(map(str, found))}", file=sys.stderr)
        return c
    c.out_dir = out = Path(out_dir) if out_dir is not None else default_out(found[0])
    print(c.markdown, end="")
    try:
        report.write(c, out, plot)
    except OSError as e:
        raise CollectError(e.filename or out, e.strerror or e) from None
    if not c.ok:
        kept = f"; wrote {out} with what {len(c.stopped)} of them finished before they failed" if len(c.stopped) else ""
        print(f"{'no job finished' if kept else 'nothing usable'}: {len(c.failed)} failed jobs, "
              f"{len(c.skipped)} skipped, {len(c.bad)} unusable files, {len(c.no_result)} jobs "
              f"without a record{kept}", file=sys.stderr)
    else:
        print(f"wrote {out}", file=sys.stderr)
    return c


def default_out(first: Path) -> Path:
    """Where a summary goes without --out: `<folder>/summary` for a folder, beside a result file for a
    file, and for an archive where its folder's would go, `<archive's name without .tar.gz>/summary`
    beside it (a folder of several archives gets one summary per archive, not one for all)."""
    if first.is_dir():
        return first / "summary"
    if is_archive(first):
        return first.parent / unpacked_name(first) / "summary"
    return first.parent / "summary"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="ppo-bench-collect", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path,
                        help="result files, directories to search, or sweeps packed as .tar.gz, .tgz or .tar.xz")
    parser.add_argument("--out", type=Path, help="output dir (default: <first PATH>/summary)")
    parser.add_argument("--baseline", type=Path, help="earlier summary dir (table.csv) or dir of results")
    parser.add_argument("--no-plot", action="store_true", help="skip throughput.png")
    args = parser.parse_args(argv)
    try:
        c = collect(args.paths, args.out, args.baseline, plot=not args.no_plot)
    except CollectError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    return 0 if c.ok and not (c.missing or c.unreadable or c.bad) else 1
