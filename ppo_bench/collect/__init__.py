"""Collect result files into tables, chart arrays and a plot.

    python -m ppo_bench.collect PATH [PATH...] [--out DIR] [--baseline DIR] [--no-plot]

Every `**/result.json` under the paths is read (never written). What may be
compared or merged is decided by the configs, not by where the files lie:

- Results whose configs differ in anything but the mode subtree, `env.num_envs`,
  `round` and `schedule.profile` (which only adds a repetition after the timed
  ones) measure different things, so they are never merged: each distinct
  rest-of-config (plus the device the job really ran on; the config may say
  "auto") is a group, named by the keys in which the groups differ. A key that
  the schema gained after a file was written reads as its default there, and
  the old `agent.compile` reads as `agent.runtime` (true: compiled, false:
  eager). table.csv also has `backend` and `runtime` as plain columns.
- Jobs that differ only in `round` are repetitions of one measurement: their
  reps are pooled. Rounds run back to back also give a paired speed-up (per
  round, mode over step), which survives drift that an unpaired ratio does not.
- One measurement is counted once, however many files hold it: a duplicate is
  a file whose host, clock readings (job start and end, measurement start and
  end) and raw reps and seconds equal another's (`results.measurement_key`),
  as in a copied sweep folder collected with its original. The file still in
  the folder its job wrote it to is kept; the copies are listed.
- A measurement that overlaps another job's run on the same host (its set-up,
  warm-up or measurement; failed jobs too) was disturbed. One sweep runs its
  jobs one after another, so this means a second sweep writing into the
  folder, or a parallel launcher: such jobs are marked contended, never
  trusted silently. Jobs measured while the 1-minute load exceeded the CPU
  count are marked overloaded.
- Nothing is dropped silently: failed jobs, skipped ones (a combination that
  does not apply, never a failure), unusable files, job folders without a
  result and paths that do not exist are listed in table.md.

Jobs run with `schedule.profile=true` also give a table of where the loop
step's time goes (phases.csv, and a section of table.md), averaged over rounds.

Figures are rounded only when rendered (table.md, chart arrays); table.csv keeps
full precision and the raw reps, so a later collection can use it as a baseline.
A collection replaces the summary files an earlier one wrote into the out dir
(by the collector's own file names; nothing else there is touched). A path it
cannot use (--out, --baseline) ends it with one line naming the path, exit 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from .load import CollectError, Collection
from .render import render, write_summary
from .tables import build, compare_baseline, load_baseline

PROG = "ppo_bench.collect"


def collect(paths: list[Path], out_dir: Optional[Path] = None, baseline: Optional[Path] = None,
            plot: bool = True) -> Collection:
    """Collect, write table.csv/table.md (+ chart.json, chart.js, throughput.png per group), print the table.

    Raises CollectError for a --baseline or an output dir it cannot use; a bad baseline stops
    before anything is written.
    """
    paths = [Path(p) for p in paths]
    base = None if baseline is None else load_baseline(baseline)
    c = build(paths)
    if base is not None and c.ok:
        c.regressions = compare_baseline(c.table, base)
    c.markdown = render(c, baseline)
    for p in c.missing:
        print(f"{PROG}: {p}: no such file or directory", file=sys.stderr)
    found = [p for p in paths if p.exists()]
    if not (c.ok or c.failed or c.skipped or c.bad or c.no_result):
        if found:
            print(f"no result files under {', '.join(map(str, found))}", file=sys.stderr)
        return c
    first = found[0] if found[0].is_dir() else found[0].parent
    c.out_dir = out = Path(out_dir) if out_dir is not None else first / "summary"
    print(c.markdown, end="")
    try:
        write_summary(c, out, plot)
    except OSError as e:
        raise CollectError(e.filename or out, e.strerror or e) from None
    if not c.ok:
        print(f"nothing usable: {len(c.failed)} failed jobs, {len(c.skipped)} skipped, {len(c.bad)} unusable "
              f"files, {len(c.no_result)} job folders without a result", file=sys.stderr)
    else:
        print(f"wrote {out}", file=sys.stderr)
    return c


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="ppo-bench-collect", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="result files or directories to search")
    parser.add_argument("--out", type=Path, help="output dir (default: <first PATH>/summary)")
    parser.add_argument("--baseline", type=Path, help="earlier summary dir (table.csv) or dir of results")
    parser.add_argument("--no-plot", action="store_true", help="skip throughput.png")
    args = parser.parse_args(argv)
    try:
        c = collect(args.paths, args.out, args.baseline, plot=not args.no_plot)
    except CollectError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    return 0 if c.ok and not c.missing else 1
