"""Interval code checked against scipy on fixtures."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from ragcard.stats import bootstrap_ci, quantile, quantile_ci, wilson_interval


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (57, 120), (1, 1)])
def test_wilson_matches_scipy(k: int, n: int) -> None:
    expected = scipy_stats.binomtest(k, n).proportion_ci(method="wilson")
    assert wilson_interval(k, n) == pytest.approx((expected.low, expected.high), abs=1e-9)


def test_wilson_needs_n() -> None:
    with pytest.raises(ValueError):
        wilson_interval(0, 0)


def test_bootstrap_matches_scipy_percentile() -> None:
    data = np.random.default_rng(7).integers(0, 4, 300) / 3
    ours = bootstrap_ci(data, resamples=4000)
    ref = scipy_stats.bootstrap(
        (data,), np.mean, n_resamples=4000, method="percentile", random_state=1
    ).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), abs=0.02)
    assert bootstrap_ci(data) == bootstrap_ci(data)  # seeded


def test_bootstrap_continuous_path_and_constant() -> None:
    data = np.random.default_rng(3).normal(10, 2, 500)
    low, high = bootstrap_ci(data)
    assert low < data.mean() < high and high - low < 1
    assert bootstrap_ci([1.0, 1.0]) == (1.0, 1.0)


def test_quantile_interval_covers() -> None:
    data = np.arange(1, 1001, dtype=float)
    assert quantile(data, 0.5) == pytest.approx(500.5)
    low, high = quantile_ci(data, 0.95)
    assert low < 950 < high and high - low < 40
