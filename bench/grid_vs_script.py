"""A sweep against the reference script's step half, from the rounds of bench/alternate_trees.sh
whose trees are `script` (bench/reference_step_grid.py's log) and one or more sweeps (their records):
each round's wall seconds, and each cell's relative half-width beside the script's in that round.

    python bench/grid_vs_script.py OUT [...]      # alternate_trees.sh's folders, or .tar.gz of them

An archive may hold several such folders (sets): each round is named by its set and number.

The script's half-width is its own `±` over its mean, as it prints them (a t-interval over its 5
reps); a sweep's is its interval as the collector computes it from the record's reps (the two-stage
interval where the job had a precision target, widened for the reps' serial correlation since
2026-12-07: a record written before holds the narrower one), with why its repetitions stopped and
how many it ran; each sweep's "all" is over the rounds
it ran, against the script's seconds in those rounds. The last table counts, per cell,
the rounds in which the sweep's interval was no wider than the script's, and each side's median.

    python bench/grid_vs_script.py --replay max_measure_s=12 max_reps=30 OUT [...]

`--replay KEY=VALUE ...` (precision, reps, max_reps, max_measure_s) reads each sweep job as its
stopping rule (`record.precision.Stopping`) would have timed it with those schedule keys, the rest
its own: the reps it would have timed are the first of those it did, so where the replay stops
sooner its interval is that of the prefix and the sweep's wall seconds lose the dropped reps'
share of the job's timed seconds. A round where one job would have timed more reps than it did
cannot be replayed and is left out for that tree.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
import statistics
import sys
import tarfile
from pathlib import Path
from typing import Optional

from ppo_bench.record import stats
from ppo_bench.record.precision import Stopping
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


def width(reps: list[float], pilot) -> float:
    """The relative half-width of reps summarised as the collector summarises a record's throughput:
    the two-stage interval with the pilot's first reps, the t-interval on the log reps without one."""
    s = stats.summary(reps, [reps[:pilot]] if pilot else None)
    return stats.relative_half_width(s["mean"], s["lo"], s["hi"])


def replayed(r: Record, replay: dict):
    """(width, stopped by, reps, timed seconds dropped) of job r's reps as its stopping rule would
    have taken them with `replay`'s schedule keys over its own; None where it would have timed more."""
    t, schedule = r.measured.throughput, r.config["schedule"]
    keys = {k: schedule.get(k) for k in ("reps", "precision", "max_reps", "max_measure_s")} | replay
    stop = Stopping(int(keys["reps"]), keys["precision"], keys["max_reps"], keys["max_measure_s"])
    for k in range(1, len(t.seconds) + 1):
        stop.add(t.seconds[:k])
        if stop.stopped_by:
            dropped = r.timing.measure_s * sum(t.seconds[k:]) / sum(t.seconds)
            return width(t.reps[:k], stop.reps), stop.stopped_by, k, dropped
    return None


def read(root: Path, replay: Optional[dict] = None):
    """walls: {(tree, round): seconds}; widths: {(tree, round, num_envs): (width, stopped by, reps)}; a
    round is (its set's folder, its number). With `replay`, each sweep job as `replayed` reads it."""
    walls, widths, dropped, unreplayable = {}, {}, {}, set()
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
            if replay is None:
                widths[(tree, rnd, r.num_envs)] = (width(t.reps, t.pilot), t.stopped_by or "fixed reps", len(t.reps))
                continue
            again = replayed(r, replay)
            if again is None:
                unreplayable.add((tree, rnd))
                continue
            widths[(tree, rnd, r.num_envs)] = again[:3]
            dropped[(tree, rnd)] = dropped.get((tree, rnd), 0.0) + again[3]
    for key in unreplayable:
        walls.pop(key, None)
    for key, seconds in dropped.items():  # the sweep's wall less what its jobs would not have timed
        if key in walls:
            walls[key] -= seconds
    return walls, widths


def main(roots: list[Path], replay: Optional[dict] = None) -> None:
    walls, widths = {}, {}
    for root in roots:
        w, c = read(root, replay)
        walls |= {(t, (f"{root.name}:{s}", r)): x for (t, (s, r)), x in w.items()}
        widths |= {(t, (f"{root.name}:{s}", r), n): x for (t, (s, r), n), x in c.items()}
    trees = sorted({t for t, _ in walls} - {SCRIPT})
    rounds = sorted({r for t, r in walls if t == SCRIPT and any((s, r) in walls for s in trees)})
    print(f"| round | {SCRIPT} s | " + " | ".join(f"{t} s | {t} / {SCRIPT}" for t in trees) + " |")
    print("|---" * (2 + 2 * len(trees)) + "|")
    cell = lambda t, r: f"{walls[(t, r)]:.2f} | {walls[(t, r)] / walls[(SCRIPT, r)]:.3f}" if (t, r) in walls else " | "  # noqa: E731
    for r in rounds:
        print(f"| {round_name(r)} | {walls[(SCRIPT, r)]:.2f} | " + " | ".join(cell(t, r) for t in trees) + " |")
    paired = {t: [r for r in rounds if (t, r) in walls] for t in trees}  # each tree against the script's same rounds
    print(f"| all | {sum(walls[(SCRIPT, r)] for r in rounds):.2f} | " + " | ".join(
        f"{sum(walls[(t, r)] for r in paired[t]):.2f} | "
        f"{sum(walls[(t, r)] for r in paired[t]) / sum(walls[(SCRIPT, r)] for r in paired[t]):.3f}"
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


def parse(argv: list[str]) -> tuple[list[Path], Optional[dict]]:
    """The folders or archives, and --replay's keys (numbers) if given."""
    if not argv or argv[0] in ("-h", "--help"):
        raise SystemExit(__doc__)
    missing = [p for p in argv if not p.startswith("--") and "=" not in p and not Path(p).exists()]
    if missing:
        raise SystemExit(f"grid_vs_script: no such folder or archive: {', '.join(missing)}")
    if argv[:1] != ["--replay"]:
        return [Path(p) for p in argv], None
    keys = list(itertools.takewhile(lambda a: "=" in a, argv[1:]))  # KEY=VALUE until the first path
    replay = {k: (None if v == "null" else float(v) if k in ("precision", "max_measure_s") else int(v))
              for k, v in (a.split("=", 1) for a in keys)}
    if not set(replay) <= {"precision", "reps", "max_reps", "max_measure_s"}:
        raise SystemExit(f"--replay takes precision, reps, max_reps, max_measure_s; got {sorted(replay)}")
    return [Path(p) for p in argv[1 + len(keys):]], replay


if __name__ == "__main__":
    main(*parse(sys.argv[1:]))
