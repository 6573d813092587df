"""What more than one section of a collection needs: mode order, pooled reps, round pairing, cells.

The sections (throughput, probe_limit, bound_per_design, interleaved, side_by_side, phases,
learning, integrity) each compute and show their own part; they share how modes are ordered (the
registry's order, a name it does not know after them), how the reps of several jobs are pooled
and paired round by round, and how a ratio, a table or a long list is written in table.md.
Nothing here reads or writes a file.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from ppo_bench.record import marks as figure_marks, stats
from ppo_bench.registry import MODES

MAX_LISTED = 20  # lines of a warning list in table.md; the rest is counted
WIDE = 4.0  # a ratio's interval whose upper bound is over 4 times its lower: known to a factor of 2 either way
INCONCLUSIVE, WIDE_MARK = "?", "wide"
MARKS_LEGEND = {
    INCONCLUSIVE: "(?) = the ratio's 95% interval contains 1: it is not shown to differ from 1 (no speed-up or "
                  "slow-down shown)",
    WIDE_MARK: f"(wide) = the interval's upper bound is over {WIDE:g} times its lower: the figure is known only to "
               f"within a factor of {WIDE ** 0.5:g} either way; more reps or rounds narrow it",
}
ROUND = ["sweep", "round"]  # one round of one sweep: the jobs that ran back to back


def mode_order(label: str) -> tuple:
    """Sort key of a mode label (async[groups=4]): the registry's order, a mode it does not know
    (an old result file's) after the known ones."""
    name, names = label.split("[")[0], MODES.names()
    return (names.index(name) if name in names else len(names), label)


def probes() -> tuple[str, ...]:
    """The modes that measure one side alone (a bound on the loops, not a way to run them)."""
    return MODES.names(kind="probe")


def sort_modes(table: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Rows sorted by `by`, where "mode" sorts in mode order."""
    table = table.assign(_o=table["mode"].map(mode_order))
    return table.sort_values([("_o" if k == "mode" else k) for k in by]).drop(columns="_o").reset_index(drop=True)


def pooled(reps: pd.Series) -> list[float]:
    """The repetitions of several jobs (rounds) as one sample."""
    return [x for job_reps in reps for x in job_reps]


def pooled_mean(jobs: pd.DataFrame) -> float:
    """The mean of several jobs' (rounds') repetitions pooled: the figure every comparison divides."""
    return np.mean(pooled(jobs["reps"]))


def interval(d: dict) -> tuple:
    """(ratio, lo, hi) of a `stats` interval as columns take them: NaN for what it lacks (none was
    computed, or too few samples for a width)."""
    return tuple(np.nan if d.get(k) is None else d[k] for k in ("ratio", "lo", "hi"))


def paired(ratios: list[float]) -> dict:
    """The paired interval over per-round ratios; none under 2 rounds."""
    return stats.paired_ratio_interval(ratios) if len(ratios) >= 2 else {}


def round_ratios(a: pd.DataFrame, b: pd.DataFrame, where: str, what: str) -> tuple[list[float], list[str]]:
    """Per round with both, a over b (each side's jobs pooled), and a machine warning per pair of
    compared jobs that saw a different machine ("<where> round <r>: <what>: ...").

    A round is one round of one sweep folder: round 0 of two sweeps run an hour apart is two
    rounds, never one whose sides came from different sweeps.
    """
    mine, base = dict(list(a.groupby(ROUND))), dict(list(b.groupby(ROUND)))
    ratios, warnings = [], []
    for key in sorted(mine.keys() & base.keys()):
        x, y, rnd = mine[key], base[key], key[1]
        ratios.append(pooled_mean(x) / pooled_mean(y))
        warnings += [f"{where} round {rnd}: {what}: {why} ({ja.path}, {jb.path})"
                     for ja in x.itertuples() for jb in y.itertuples() if (why := machine_warning(ja, jb))]
    return ratios, warnings


def machine_warning(a, b) -> Optional[str]:
    """What differed in the machine two compared jobs saw (None: nothing): their ratio is suspect.

    Load: the 1-minute load averages differ by more than a quarter of the cores (1.0 when the
    core count is unknown) and by more than 50% of the lower; clock: the mean CPU MHz differ by
    more than 10% of the lower. The load average trails by a minute, so it also carries the
    previous job's own emulator threads: only a difference of several cores means much.
    """
    why = []
    cores = 0.25 * a.cpus if pd.notna(a.cpus) and a.cpus else 1.0
    if pd.notna(a.load) and pd.notna(b.load) and abs(a.load - b.load) > max(cores, 0.5 * min(a.load, b.load)):
        why.append(f"load {a.load:.2f} vs {b.load:.2f}")
    if pd.notna(a.mhz) and pd.notna(b.mhz) and abs(a.mhz - b.mhz) > 0.10 * min(a.mhz, b.mhz):
        why.append(f"cpu MHz {a.mhz:.0f} vs {b.mhz:.0f}")
    return "; ".join(why) or None


decimals = stats.decimals  # the tables' and the job log's decimals, said once


def marks(lo: float, hi: float, about_one: bool = True) -> str:
    """What a ratio's interval does not say, as table.md marks it after the interval: " (?)" where it
    contains 1 (`about_one`: a ratio read against 1, as a speed-up is, not an efficiency), " (wide)" where
    its upper bound is more than WIDE times its lower, both " (?, wide)"; "" for neither or no interval."""
    if lo is None or hi is None or pd.isna(lo) or pd.isna(hi):
        return ""
    said = [m for m, on in ((INCONCLUSIVE, about_one and lo <= 1 <= hi), (WIDE_MARK, hi > WIDE * lo)) if on]
    return f" ({', '.join(said)})" if said else ""


FLAG_COLUMNS = {figure_marks.NOISY: "noisy", figure_marks.CONTENDED: "contended",
                figure_marks.OVERLOADED: "overloaded", figure_marks.STOLEN: "stolen",
                figure_marks.SHARED_NODE: "shared_node",
                figure_marks.AT_CAP: "at_cap"}  # table.csv's


def weakened(r) -> list[str]:
    """The marks (record.marks) a row of table.csv carries: its flag columns that are true (integrity's
    are bools where that section ran)."""
    return [m for m, col in FLAG_COLUMNS.items() if isinstance(v := getattr(r, col, False), (bool, np.bool_)) and v]


def precision_text(r) -> str:
    """What a precision target's cell reached, as every table and the page carry it after its interval:
    " ±9.1%" (its two-stage interval's half-width over its mean); "" for a cell without a target."""
    target, reached = getattr(r, "precision", np.nan), getattr(r, "rel_half_width", np.nan)
    return "" if pd.isna(target) or pd.isna(reached) else f" ±{reached:.1%}"


def any_precision(t: pd.DataFrame) -> bool:
    """Whether a row of `t` (table.csv's) was timed to a precision target: what its captions then say."""
    return "precision" in t and bool(t["precision"].notna().any())


def weakened_text(r) -> str:
    """A row's marks as a figure carries them: " (noisy, contended)"; "" for none."""
    return figure_marks.text(weakened(r))


def weakened_legend(lines: list[str]) -> list[str]:
    """The legend's items for the figure marks that `lines` show, and only those."""
    shown = "\n".join(lines)
    return figure_marks.legend(m for m in figure_marks.ORDER
                               if re.search(rf"\((?:[a-z ]+, )*{m}(?:, [a-z ]+)*\)", shown))


def marks_legend(lines: list[str]) -> list[str]:
    """The legend's items for the marks (`marks`) that `lines` show, and only those."""
    shown = "\n".join(lines)
    return [MARKS_LEGEND[m] for m in (INCONCLUSIVE, WIDE_MARK)
            if f"({m})" in shown or f"({INCONCLUSIVE}, {WIDE_MARK})" in shown]


def ratio_cell(x: float, lo: float, hi: float, mark: bool = True) -> str:
    """A ratio as table.md shows it: 1.23x [1.10, 1.37], marked where its interval says little (`marks`;
    `mark=False`: unmarked), no interval where it has none, empty for none."""
    if x is None or pd.isna(x):
        return ""
    return f"{x:.2f}x" if pd.isna(lo) else f"{x:.2f}x [{lo:.2f}, {hi:.2f}]" + (marks(lo, hi) if mark else "")


def csv_of(table: pd.DataFrame, path: Path) -> list[Path]:
    """`table` written to `path` as CSV where it has rows (a section's one file); the files written."""
    if table.empty:
        return []
    table.to_csv(path, index=False)
    return [path]


def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|",
            *("| " + " | ".join(row) + " |" for row in rows)]


def bounded(items: list[str], limit: int = MAX_LISTED) -> list[str]:
    """Lists that can grow with the pairs or rounds of a collection show a few, then a count."""
    return items if len(items) <= limit else items[:limit] + [f"... and {len(items) - limit} more"]


def camel(text: str) -> str:
    """A label as a JavaScript name (env.backend=envpool -> envBackendEnvpool)."""
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", text) if p]
    return parts[0].lower() + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def json_default(v):
    """json's fallback for numpy scalars."""
    return v.item()


def finite(value):
    """`value` (dicts, lists, numbers) with every number that is not finite (NaN, +-inf, numpy's
    too) as None: JSON has no such numbers, and a strict reader (JavaScript's) refuses the
    `NaN`/`Infinity` that Python's json writes by default."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    return None if isinstance(value, float) and not math.isfinite(value) else value


def to_json(value, **kwargs) -> str:
    """Strict JSON of `value`: a figure that is not finite is written as null (`finite`), never as
    NaN or Infinity; what the collector writes to a .json or .js file goes through here."""
    return json.dumps(finite(value), allow_nan=False, default=json_default, **kwargs)


def can_plot() -> bool:
    """Whether matplotlib (optional: the `plot` extra) can draw, asked before any figure so that a
    collection without it still writes everything else."""
    try:
        import matplotlib  # noqa: F401
        import matplotlib.backends.backend_agg  # noqa: F401
    except ImportError:
        return False
    return True
