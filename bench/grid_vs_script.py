"""A sweep against the reference script's step half, from the rounds of bench/alternate_trees.sh
whose trees are `script` (bench/reference_step_grid.py's log) and one or more sweeps (their records):
each round's wall seconds, and each cell's relative half-width beside the script's in that round.

    python bench/grid_vs_script.py OUT [...]      # alternate_trees.sh's folders, or .tar.gz of them

An archive may hold several such folders (sets): each round is named by its set and number.

The script's half-width is its own `±` over its mean, as it prints them (a t-interval over its 5
reps); a sweep's is its record's interval (the two-stage interval where the job had a precision
target), with why its repetitions stopped and how many it ran. The last table counts, per cell,
the rounds in which the sweep's interval was no wider than the script's, and each side's median.
"""

from __future__ import annotations

import csv
import io
import re
import statistics
import sys
import tarfile
from pathlib import Path

from ppo_bench.record import stats
from ppo_bench.record.results import Record

SCRIPT = "script"
SCRIPT_CELL = re.compile(r"n=(\d+) step: (\d+) env-steps/s ±(\d+)")
RUN = re.compile(r"(?:^|/)([A-Za-z0-9]+)_r(\d+)(?:\.log$|/)")


def round_name(rnd) -> str:
    """A round as the tables name it: its set's folder, its number."""
    return f"{rnd[0].rsplit('/', 1)[-1]} {rnd[1]}"


def files(root: Path):
    """(name, bytes) of the runs.tsv, the run logs and the result files under root (a folder or archive)."""
    wanted = lambda name: name.endswith(("runs.tsv", ".log", "/result.json"))  # noqa: E731
    if root.is_file():
        with tarfile.open(root) as tar:
            for m in tar.getmembers():
                if m.isfile() and wanted(m.name):
                    yield m.name, tar.extractfile(m).read()
        return
    for p in sorted(root.rglob("*")):
        if p.is_file() and wanted(str(p)):
            yield str(p), p.read_bytes()


def read(root: Path):
    """walls: {(tree, round): seconds}; widths: {(tree, round, num_envs): (width, stopped by, reps)}; a
    round is (its set's folder, its number)."""
    walls, widths = {}, {}
    for name, data in files(root):
        if name.endswith("runs.tsv"):
            folder = name[:-len("runs.tsv")].rstrip("/")
            for row in csv.DictReader(io.StringIO(data.decode()), delimiter="\t"):
                if row["rc"] == "0":
                    walls[(row["tree"], (folder, int(row["round"])))] = float(row["wall_s"])
            continue
        run = RUN.search(name)
        if not run:
            continue
        tree, rnd = run[1], (name[:run.start()].rstrip("/"), int(run[2]))
        if tree == SCRIPT and name.endswith(".log"):
            for n, mean, pm in SCRIPT_CELL.findall(data.decode(errors="replace")):
                widths[(tree, rnd, int(n))] = (int(pm) / int(mean), "5 reps", 5)
        elif name.endswith("/result.json"):
            r = Record.read(Path(name), data)
            if r.status != "ok" or r.mode != "step":
                continue
            t = r.measured.throughput
            widths[(tree, rnd, r.num_envs)] = (stats.relative_half_width(t.mean, t.lo, t.hi),
                                               t.stopped_by or "fixed reps", len(t.reps))
    return walls, widths


def main(roots: list[Path]) -> None:
    walls, widths = {}, {}
    for root in roots:
        w, c = read(root)
        walls |= {(t, (f"{root.name}:{s}", r)): x for (t, (s, r)), x in w.items()}
        widths |= {(t, (f"{root.name}:{s}", r), n): x for (t, (s, r), n), x in c.items()}
    trees = sorted({t for t, _ in walls} - {SCRIPT})
    rounds = sorted({r for t, r in walls if t == SCRIPT and all((s, r) in walls for s in trees)})
    print(f"| round | {SCRIPT} s | " + " | ".join(f"{t} s | {t} / {SCRIPT}" for t in trees) + " |")
    print("|---" * (2 + 2 * len(trees)) + "|")
    for r in rounds:
        print(f"| {round_name(r)} | {walls[(SCRIPT, r)]:.2f} | "
              + " | ".join(f"{walls[(t, r)]:.2f} | {walls[(t, r)] / walls[(SCRIPT, r)]:.3f}" for t in trees) + " |")
    total = sum(walls[(SCRIPT, r)] for r in rounds)
    print(f"| all | {total:.2f} | " + " | ".join(
        f"{sum(walls[(t, r)] for r in rounds):.2f} | {sum(walls[(t, r)] for r in rounds) / total:.3f}"
        for t in trees) + " |")

    counts = sorted({n for (_, _, n) in widths})
    print(f"\n| round | num_envs | {SCRIPT} | " + " | ".join(trees) + " |")
    print("|---" * (3 + len(trees)) + "|")
    said = lambda w: "" if w is None else f"{w[0]:.2%} ({w[1]}, {w[2]})"  # noqa: E731
    for r in rounds:
        for n in counts:
            print(f"| {round_name(r)} | {n} | {said(widths.get((SCRIPT, r, n)))} | "
                  + " | ".join(said(widths.get((t, r, n))) for t in trees) + " |")

    print(f"\n| num_envs | tree | rounds no wider than {SCRIPT} | median {SCRIPT} | median tree |")
    print("|---|---|---|---|---|")
    for n in counts:
        for t in trees:
            both = [(widths[(SCRIPT, r, n)][0], widths[(t, r, n)][0]) for r in rounds
                    if (SCRIPT, r, n) in widths and (t, r, n) in widths and widths[(t, r, n)][0] is not None]
            if both:
                print(f"| {n} | {t} | {sum(w <= s for s, w in both)} of {len(both)} | "
                      f"{statistics.median(s for s, _ in both):.2%} | {statistics.median(w for _, w in both):.2%} |")


if __name__ == "__main__":
    main([Path(p) for p in sys.argv[1:]])
