"""Uncertainty: Wilson intervals for rates, seeded bootstrap intervals for means and quantiles.

Intervals are computed over *items*, not item-attempts: an item's attempts are averaged first,
so repeated runs of one question do not pose as independent evidence (a cluster bootstrap).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "BOOTSTRAP_SEED",
    "PairedTest",
    "bootstrap_ci",
    "bootstrap_means",
    "mcnemar_exact",
    "paired_bootstrap",
    "quantile",
    "quantile_ci",
    "wilson_interval",
]

#: Fixed seed: the same inputs always give the same interval (SPEC §2).
BOOTSTRAP_SEED = 20240521
_Z95 = 1.959963984540054
_Values = Sequence[float] | np.ndarray


def wilson_interval(successes: float, n: int, z: float = _Z95) -> tuple[float, float]:
    """95% Wilson score interval for ``successes`` out of ``n`` (successes may be fractional
    when attempts of an item are averaged). ``n == 0`` is an error: there is no rate."""
    if n <= 0:
        raise ValueError("a Wilson interval needs n >= 1")
    p = min(max(successes / n, 0.0), 1.0)
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def quantile(values: Sequence[float] | np.ndarray, q: float) -> float:
    """Linear-interpolation quantile (numpy's default), ``q`` in [0, 1]."""
    return float(np.quantile(np.asarray(values, dtype=float), q))


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    resamples: int = 2000,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean of ``values`` (fixed seed).

    When the values take few distinct levels (rates averaged over 3 attempts take 4), a
    resample is drawn as multinomial counts over the levels, which is the same distribution as
    drawing items with replacement at a cost independent of the number of items. Otherwise
    items are resampled in chunks so memory stays bounded.
    """
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("a bootstrap interval needs at least one value")
    if data.size == 1 or np.all(data == data[0]):
        return float(data[0]), float(data[0])
    estimates = bootstrap_means(data, resamples, seed)
    low, high = np.quantile(estimates, [0.025, 0.975])
    return float(low), float(high)


def quantile_ci(values: Sequence[float] | np.ndarray, q: float) -> tuple[float, float]:
    """Distribution-free 95% interval for the ``q`` quantile from order statistics.

    The ranks come from the binomial(n, q) distribution (normal approximation with continuity
    correction), the standard non-parametric interval for a percentile such as p95 latency.
    """
    data = np.sort(np.asarray(values, dtype=float))
    n = data.size
    if n == 0:
        raise ValueError("a quantile interval needs at least one value")
    half = _Z95 * math.sqrt(n * q * (1 - q))
    low = max(0, math.floor(n * q - half) - 1)
    high = min(n - 1, math.ceil(n * q + half))
    return float(data[low]), float(data[high])


def mcnemar_exact(regressed: int, fixed: int) -> float:
    """Two-sided exact McNemar p-value: a binomial(n, 1/2) test on the discordant pairs."""
    n = regressed + fixed
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(regressed, fixed) + 1))
    return min(1.0, float(2 * tail / 2**n))  # int / int: exact, rounded once


@dataclass(frozen=True, slots=True)
class PairedTest:
    """Mean paired difference (current − baseline), its 95% bootstrap interval and p-value."""

    mean_difference: float
    ci: tuple[float, float]
    p_value: float
    n: int


def paired_bootstrap(
    baseline: _Values, current: _Values, *, resamples: int = 2000, seed: int = BOOTSTRAP_SEED
) -> PairedTest:
    """Paired bootstrap of the mean difference: items are resampled with both their values.

    95% percentile interval (the draws of :func:`bootstrap_ci` on the differences);
    two-sided p-value by inverting it: twice the smaller share of bootstrap means either side of
    zero, +1-corrected, and never below ``2**(1 - m)`` for ``m`` non-zero differences (the least
    an exact sign-flip test reaches: three items that all dropped are not p = 0.001).
    """
    d = np.asarray(current, dtype=float) - np.asarray(baseline, dtype=float)
    if d.size == 0:
        raise ValueError("a paired bootstrap needs at least one pair")
    means = np.full(resamples, d[0]) if np.all(d == d[0]) else bootstrap_means(d, resamples, seed)
    low, high = np.quantile(means, [0.025, 0.975])
    side = min(np.count_nonzero(means <= 0), np.count_nonzero(means >= 0))
    p = max(2 * (int(side) + 1) / (resamples + 1), 2.0 ** (1 - np.count_nonzero(d)))
    return PairedTest(float(d.mean()), (float(low), float(high)), min(1.0, p), int(d.size))


def bootstrap_means(data: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Means of ``resamples`` bootstrap resamples of ``data``: multinomial counts over the
    distinct values when there are few (the same distribution as drawing items, at a cost free
    of n), else items drawn in bounded chunks."""
    rng = np.random.default_rng(seed)
    levels, counts = np.unique(data, return_counts=True)
    if levels.size <= 256:
        draws = rng.multinomial(data.size, counts / data.size, size=resamples)
        return np.asarray(draws @ levels / data.size, dtype=float)
    # resamples drawn a chunk of rows at a time (the generator's stream, hence every draw, is
    # the same whatever the chunk); ~256k draws a chunk stays in cache and out of mmap churn
    means, step = np.empty(resamples), max(1, min(resamples, 262_144 // data.size))
    for start in range(0, resamples, step):
        picks = rng.integers(0, data.size, size=(min(step, resamples - start), data.size))
        means[start : start + step] = data[picks].mean(axis=1)
    return means
