"""bench/rep_correlation.py's batch-means check on series with a known answer: independent reps read
a ratio near 1, AR(1) reps with coefficient 0.5 near (1 + 0.5) / (1 - 0.5) less the blocks' edges."""

import importlib.util

import numpy as np

from conftest import ROOT
from ppo_bench.record import stats

spec = importlib.util.spec_from_file_location("rep_correlation", ROOT / "bench" / "rep_correlation.py")
rep_correlation = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rep_correlation)


def ar1(rng, n: int, rho: float) -> np.ndarray:
    e = rng.normal(0, 0.05, n)
    s = np.empty(n)
    s[0] = e[0] / np.sqrt(1 - rho ** 2)
    for i in range(1, n):
        s[i] = rho * s[i - 1] + e[i]
    return s


def test_independent_reps_read_one_and_correlated_ones_more():
    rng = np.random.default_rng(7)
    independent = [rng.normal(0, 0.05, 40) for _ in range(400)]
    correlated = [ar1(rng, 40, 0.5) for _ in range(400)]
    assert 0.85 < rep_correlation.inflation(independent, 5) < 1.15
    # for AR(1), k x var(block mean) / var(rep) = 1 + 2 sum_{j<k} (1 - j/k) rho^j: 2.23 at k = 5
    assert 2.0 < rep_correlation.inflation(correlated, 5) < 2.6
    lag1 = lambda s: stats.lag1(s - s.mean())  # noqa: E731  the lag-1 column, as the tool reads it
    assert abs(np.mean([lag1(s) for s in independent])) < 0.05
    assert 0.35 < np.mean([lag1(s) for s in correlated]) < 0.55


def test_too_short_series_give_no_ratio():
    assert rep_correlation.inflation([np.zeros(14) + np.arange(14)], 5) is None
