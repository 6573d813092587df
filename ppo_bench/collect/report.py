"""One collection from the result files to the out dir: the sections in order, table.md, the cleanup.

Each section computes its part into the Collection, gives its part of table.md and writes its
own files; this module decides only the order. The sections build in the order their columns
appear in table.csv (throughput's rows, then the side-by-side tables, the limits, the integrity
flags; phases and learning apart), and table.md reads throughput (with the limits in its tables),
side by side, phases, learning, integrity, then the baseline. Writing replaces the files an
earlier collection wrote into the out dir, by the sections' own file names (FILES); nothing
else there is touched.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

from . import baseline, integrity, learning, limits, phases, side_by_side, throughput
from .common import can_plot
from .load import CollectError, Collection, load_jobs

WRITERS = (throughput, side_by_side, phases, learning)  # the sections with files; table.csv is written first
TABLE_MD = "table.md"


def build(paths: list[Path], compare_with: Optional[Path] = None) -> Collection:
    """Read and analyse, in memory; nothing is written. A baseline (`compare_with`) is read first, so
    that a bad one raises CollectError before anything else is done."""
    base = None if compare_with is None else baseline.load(compare_with)
    c, records = load_jobs(paths)
    c.baseline = compare_with
    if c.ok:
        throughput.build(c)
        side_by_side.build(c)
        limits.build(c)
        integrity.build(c, records)
        phases.build(c)
    learning.build(c)  # a learning run that stopped part-way counts even when nothing finished
    if base is not None and c.ok:
        baseline.compare(c, base)
    return c


def markdown(c: Collection) -> str:
    lines = (throughput.markdown(c) + side_by_side.markdown(c) + phases.markdown(c) + learning.markdown(c)
             + integrity.markdown(c) + baseline.markdown(c))
    return "\n".join(lines).rstrip() + "\n"


def write(c: Collection, out: Path, plot: bool) -> None:
    """Every section's files and table.md into `out`, replacing what an earlier collection wrote there."""
    if out.exists() and not out.is_dir():
        raise CollectError(out, "not a directory")
    out.mkdir(parents=True, exist_ok=True)
    remove_earlier(out)
    draw = plot and c.ok and can_plot()
    if plot and c.ok and not draw:
        print("plot skipped: matplotlib is not importable (pip install 'ppo-bench[plot]')", file=sys.stderr)
    for section in WRITERS:
        section.write(c, out, draw)
    (out / TABLE_MD).write_text(c.markdown)


def remove_earlier(out: Path) -> None:
    """Delete what an earlier collection wrote into `out`, by the sections' own file names only.

    Otherwise charts of configurations no longer present, or a phase table when nothing is
    profiled now, would survive as if current. Looks at `out` and the chart folders one level
    down; a folder goes only when removing the collector's files left it empty.
    """
    for name in (TABLE_MD, *(name for section in WRITERS for name in section.FILES)):
        (out / name).unlink(missing_ok=True)
    for folder in [d for d in out.iterdir() if d.is_dir()]:
        own = [folder / n for n in throughput.GROUP_FILES if (folder / n).is_file()]
        for f in own:
            f.unlink()
        if own and not any(folder.iterdir()):
            folder.rmdir()
