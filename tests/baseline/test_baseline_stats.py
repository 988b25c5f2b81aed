"""The paired tests behind the gate, checked against scipy (a test-only dependency)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import stats as scipy_stats  # type: ignore[import-untyped]

from ragcard.aggregation.stats import bootstrap_ci, mcnemar_exact, paired_bootstrap

DISCORDANT = [(0, 0), (1, 0), (0, 1), (3, 3), (5, 0), (0, 7), (2, 9), (12, 4), (17, 30),
              (38, 0), (100, 80), (250, 310), (1, 1000), (308, 309), (4, 5), (480, 520),
              (0, 2000), (4500, 5500), (4950, 5050), (22500, 27500), (24900, 25100),
              (450_000, 550_000)]  # fmt: skip


@pytest.mark.parametrize(("regressed", "fixed"), DISCORDANT)
def test_mcnemar_exact_matches_scipy_binomtest(regressed: int, fixed: int) -> None:
    n = regressed + fixed
    expected = 1.0 if n == 0 else scipy_stats.binomtest(regressed, n, 0.5).pvalue
    assert mcnemar_exact(regressed, fixed) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_mcnemar_exact_is_milliseconds_where_the_integer_sum_took_minutes() -> None:
    # 50,000 discordant pairs took 413 s as an exact integer sum; no timing is asserted here
    # (benchmarks/bench_compare.py measures it), only that the answer is scipy's
    expected = scipy_stats.binomtest(22_500, 50_000, 0.5).pvalue
    assert mcnemar_exact(27_500, 22_500) == pytest.approx(expected, rel=1e-9)
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def test_mcnemar_exact_is_symmetric_and_at_most_one() -> None:
    assert mcnemar_exact(4, 9) == mcnemar_exact(9, 4)
    assert mcnemar_exact(6, 6) == 1.0
    assert mcnemar_exact(5, 0) == pytest.approx(2 / 32)


def _scipy_paired(x: np.ndarray, y: np.ndarray) -> Any:
    def mean_difference(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.asarray(np.mean(b - a, axis=axis))

    return scipy_stats.bootstrap(
        (x, y), mean_difference, paired=True, vectorized=True, n_resamples=20000,
        method="percentile", random_state=np.random.default_rng(7),
    )  # fmt: skip


def _fixtures() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(11)
    binary_x = (rng.random(150) < 0.8).astype(float)
    binary_y = np.where(rng.random(150) < 0.1, 1 - binary_x, binary_x)
    graded_x = rng.random(400)
    graded_y = np.clip(graded_x - 0.03 + rng.normal(0, 0.15, 400), 0, 1)
    thirds_x = rng.integers(0, 4, 90) / 3  # rates averaged over 3 attempts
    thirds_y = np.clip(thirds_x + rng.integers(-1, 2, 90) / 3, 0, 1)
    return [("binary", binary_x, binary_y), ("graded", graded_x, graded_y),
            ("thirds", thirds_x, thirds_y)]  # fmt: skip


@pytest.mark.parametrize(("label", "x", "y"), _fixtures())
def test_paired_bootstrap_matches_scipy(label: str, x: np.ndarray, y: np.ndarray) -> None:
    ours = paired_bootstrap(x, y, resamples=20000)
    theirs = _scipy_paired(x, y)
    # Monte Carlo noise of 20,000 resamples, plus one step of the grid a discrete mean lives on.
    slack = 0.1 * theirs.standard_error + 1 / len(x)
    assert ours.mean_difference == pytest.approx(float(np.mean(y - x)))
    assert ours.ci[0] == pytest.approx(theirs.confidence_interval.low, abs=slack)
    assert ours.ci[1] == pytest.approx(theirs.confidence_interval.high, abs=slack)
    distribution = theirs.bootstrap_distribution
    side = min(np.mean(distribution <= 0), np.mean(distribution >= 0))
    assert ours.p_value == pytest.approx(min(1.0, 2 * side), abs=0.02), label


def test_paired_bootstrap_interval_is_the_bootstrap_ci_of_the_differences() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 2, 120).astype(float), rng.integers(0, 2, 120).astype(float)
    assert paired_bootstrap(x, y).ci == bootstrap_ci(y - x)  # few levels: multinomial draws
    x, y = rng.random(700), rng.random(700)
    assert paired_bootstrap(x, y).ci == bootstrap_ci(y - x)  # many levels: items drawn


def test_paired_bootstrap_is_seeded() -> None:
    rng = np.random.default_rng(5)
    x, y = rng.random(60), rng.random(60)
    assert paired_bootstrap(x, y) == paired_bootstrap(x, y)
    assert paired_bootstrap(x, y, seed=1) != paired_bootstrap(x, y, seed=2)


def test_no_difference_is_p_one() -> None:
    test = paired_bootstrap([0.2, 0.5, 1.0], [0.2, 0.5, 1.0])
    assert (test.mean_difference, test.ci, test.p_value) == (0.0, (0.0, 0.0), 1.0)


def test_a_few_consistent_drops_are_not_called_significant() -> None:
    # Three items all dropping by 1: every resample agrees, but an exact sign-flip test cannot
    # go below 2 / 2**3 = 0.25, and neither does the bootstrap p-value.
    assert paired_bootstrap([1, 1, 1], [0, 0, 0]).p_value == pytest.approx(0.25)
    many = paired_bootstrap([1.0] * 40, [0.0] * 40)
    assert many.p_value < 0.001 and many.ci == (-1.0, -1.0)


def test_paired_bootstrap_needs_pairs() -> None:
    with pytest.raises(ValueError, match="at least one pair"):
        paired_bootstrap([], [])
