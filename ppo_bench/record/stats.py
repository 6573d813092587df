"""Means and 95% intervals over repetitions, and intervals on speed-up ratios.

- One configuration: mean and Student-t half-width over its repetitions
  (`t_quantile`), as the reference reports them (`ci95`). One repetition gives
  no interval (None), never a zero-width one. Its bounds (`lo`, `hi`) are not
  mean -/+ that half-width, which runs below zero whenever 2-5 reps of a rate
  spread widely (4042 +- 6429 env-steps/s), but the t-interval on the log reps,
  exponentiated (`log_interval`): around the geometric mean, never below zero,
  the same scale the speed-ups use. The point stays the arithmetic mean, never
  below the geometric one; where very skewed reps put it above that interval
  (not possible with 4 reps or fewer) the upper bound is moved out to it, so
  lo <= mean <= hi always.
- A job whose reps a precision target counted (`precision`): its pilot fixed how many, and its
  interval is `two_stage_interval`, the wider of Stein's (on the pilot's spread, exact however many
  reps the pilot chose) and the t-interval on all its reps, widened for their serial correlation;
  `summary` takes the pilots.
- A speed-up of A over B from unpaired repetitions: a Welch t-interval on the
  difference of mean log throughputs, exponentiated. Throughput is a rate, its
  spread grows with its size, and a ratio is symmetric on the log scale; with
  3 to 10 repetitions this keeps close to nominal coverage where a percentile
  bootstrap of so few values under-covers. The point estimate is the ratio of
  geometric means, consistent with its interval.
- A paired speed-up: per round the ratio of two jobs run back to back, then a
  t-interval on the log ratios, exponentiated. Drift that hits both jobs of a
  round cancels in the ratio.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np
from scipy import special

LEVEL = 0.95


def t_quantile(df: float, level: float = LEVEL) -> float:
    """Student's t quantile for a two-sided `level` interval at `df` degrees of freedom (any df > 0,
    Welch's too): scipy.stats.t.ppf's own routine, from scipy.special, which imports in a fraction of
    scipy.stats' time (every job's process needs it; a sweep's first job waits for its server's imports)."""
    return float(special.stdtrit(df, 0.5 + level / 2))


def t_half_width(values: Sequence[float], level: float = LEVEL) -> Optional[float]:
    """Half-width of the t-interval on the mean; None for fewer than two values."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return None
    se = x.std(ddof=1) / math.sqrt(x.size)
    return t_quantile(x.size - 1, level) * float(se)


def log_interval(values: Sequence[float], level: float = LEVEL) -> tuple[Optional[float], Optional[float]]:
    """(lo, hi): exp(mean(log x) -/+ t * sd(log x) / sqrt(n)), the t-interval on the log values around
    their geometric mean; (None, None) for fewer than two values, or any not positive (no log)."""
    x = np.asarray(values, dtype=float)
    if x.size < 2 or not (x > 0).all():
        return None, None
    logs = np.log(x)
    mid, half = float(logs.mean()), t_half_width(logs, level)
    return math.exp(mid - half), math.exp(mid + half)


SERIAL_CAP = 0.6
"""The most lag-1 correlation `serial_correlation` reads: (1 + 0.6) / (1 - 0.6) = 4x the variance,
an interval at most twice as wide. Above it the estimate from 10-30 reps is mostly noise (its spread
over independent reps is 0.5 at 10, 0.2 at 30); on correlated series a cap of 0.8 covered no better."""


def serial_correlation(logs: Sequence[float]) -> float:
    """The lag-1 autocorrelation of a job's log reps' noise, corrected for its small-sample bias and
    clamped to [0, SERIAL_CAP]: how alike neighbouring reps read beyond the job's drift.

    From 10 reps on, the first rep is left out (its boost after the reset is the job's course, not
    noise) and a least-squares line is taken out of the rest: the drift is in the estimand (the mean
    at the positions timed), so only the noise around it may widen the interval. Of m residuals
    r1 = sum e_t e_t-1 / sum e_t^2 reads about rho - (2 + 5 rho) / m, so rho = (m r1 + 2) / (m - 5).
    With 6 to 9 reps the mean alone is taken out and rho = (n r1 + 1) / (n - 4) (Kendall's
    correction); with fewer, r1 + 1 / n: so few reps cannot spare a line and the first rep, and there
    a boost after the reset or a drift reads as correlation too, widening the interval the more.
    0 for fewer than 3 reps."""
    x = np.asarray(logs, dtype=float)
    n = x.size
    if n < 3:
        return 0.0
    if n >= 10:
        y, at = x[1:], np.arange(n - 1, dtype=float)
        m, r1 = n - 1, lag1(y - np.polyval(np.polyfit(at, y, 1), at))
        rho = (m * r1 + 2) / (m - 5)
    else:
        r1 = lag1(x - x.mean())
        rho = (n * r1 + 1) / (n - 4) if n > 5 else r1 + 1 / n
    return min(max(rho, 0.0), SERIAL_CAP)


def lag1(residuals: np.ndarray) -> float:
    """sum e_t e_t-1 / sum e_t^2 of residuals already centred (their mean or a line taken out): the
    raw lag-1 autocorrelation, biased low by about (1 + 4 rho) / n around a mean; 0 where all are 0."""
    e = np.asarray(residuals, dtype=float)
    ss = float((e * e).sum())
    return float((e[1:] * e[:-1]).sum()) / ss if ss > 0 else 0.0


def two_stage_interval(values: Sequence[float], pilots: Sequence[Sequence[float]],
                       level: float = LEVEL) -> tuple[Optional[float], Optional[float]]:
    """(lo, hi) around the geometric mean of reps whose count a pilot fixed (record.precision): on the
    log scale the half-width is the larger of Stein's, t at the pilots' degrees of freedom times their
    pooled spread over sqrt(n), and the t-interval's on all the reps, its variance of the mean times
    (1 + rho) / (1 - rho) for their lag-1 correlation rho (`serial_correlation`; 1 for independent
    reps): neighbouring reps that read alike make the mean vary more than independent ones would, and
    a job's reps do (docs/measuring.md, "Correlated reps"). `pilots`: the pilot reps of each job whose
    reps `values` pools (a job without a target: all its reps, then Stein's is its own t-interval).
    (None, None) as log_interval."""
    x = np.asarray(values, dtype=float)
    if x.size < 2 or not (x > 0).all():
        return None, None
    logs = np.log(x)
    groups = [np.log(np.asarray(p, dtype=float)) for p in pilots if len(p) >= 2]
    df = sum(g.size - 1 for g in groups)
    rho = serial_correlation(logs)
    half = t_half_width(logs, level) * math.sqrt((1 + rho) / (1 - rho))
    if df:
        spread = math.sqrt(sum(float(((g - g.mean()) ** 2).sum()) for g in groups) / df)
        half = max(half, t_quantile(df, level) * spread / math.sqrt(x.size))
    mid = float(logs.mean())
    return math.exp(mid - half), math.exp(mid + half)


def relative_half_width(mean: float, lo: Optional[float], hi: Optional[float]) -> Optional[float]:
    """Half the interval's width over the mean, (hi - lo) / (2 mean): what a precision target bounds."""
    return None if lo is None or hi is None or not mean else (hi - lo) / (2 * mean)


def decimals(x: float) -> int:
    """Decimals a throughput is shown with: fewer for larger figures, enough to keep a slow job's
    interval visible."""
    return 0 if x >= 100 else 1 if x >= 10 else 2


def interval_text(mean: float, lo: Optional[float], hi: Optional[float]) -> str:
    """A mean and its interval as the tables print them (`summary`'s log interval): 591 [497, 700]."""
    d = decimals(mean)
    return f"{mean:.{d}f}" if lo is None or hi is None else f"{mean:.{d}f} [{lo:.{d}f}, {hi:.{d}f}]"


def summary(values: Sequence[float], pilots: Optional[Sequence[Sequence[float]]] = None) -> dict:
    """mean, ci95 (t half-width or None), lo and hi (`log_interval`, or with `pilots` the
    `two_stage_interval`; hi reaching the mean where skew puts it above), median, cv (sample std /
    mean), n."""
    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    half = t_half_width(x)
    cv = float(x.std(ddof=1) / mean) if x.size > 1 and mean else None
    lo, hi = log_interval(x) if pilots is None else two_stage_interval(x, pilots)
    return {
        "n": int(x.size),
        "mean": mean,
        "ci95": half,
        "lo": None if lo is None else min(lo, mean),  # equal reps: exp(log x) may round above x
        "hi": None if hi is None else max(hi, mean),
        "median": float(np.median(x)),
        "cv": cv,
    }


def ratio_interval(a: Sequence[float], b: Sequence[float], level: float = LEVEL) -> dict:
    """Speed-up of a over b from unpaired repetitions: Welch t on log values, exponentiated."""
    la, lb = np.log(np.asarray(a, dtype=float)), np.log(np.asarray(b, dtype=float))
    diff = float(la.mean() - lb.mean())
    out = {"ratio": math.exp(diff), "lo": None, "hi": None}
    if la.size < 2 or lb.size < 2:
        return out
    va, vb = la.var(ddof=1) / la.size, lb.var(ddof=1) / lb.size
    se = math.sqrt(va + vb)
    if se == 0:
        out["lo"] = out["hi"] = out["ratio"]
        return out
    df = (va + vb) ** 2 / (va**2 / (la.size - 1) + vb**2 / (lb.size - 1))
    half = t_quantile(df, level) * se
    out["lo"], out["hi"] = math.exp(diff - half), math.exp(diff + half)
    return out


def paired_ratio_interval(ratios: Sequence[float], level: float = LEVEL) -> dict:
    """Speed-up from per-round ratios: t-interval on their logs, exponentiated."""
    logs = np.log(np.asarray(ratios, dtype=float))
    mean = float(logs.mean())
    half = t_half_width(logs, level)
    return {
        "ratio": math.exp(mean),
        "lo": None if half is None else math.exp(mean - half),
        "hi": None if half is None else math.exp(mean + half),
        "rounds": int(logs.size),
    }
