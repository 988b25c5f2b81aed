"""Uncertainty: Wilson intervals for rates, seeded bootstrap intervals for means and quantiles.

Intervals are computed over *items*, not item-attempts: an item's attempts are averaged first,
so repeated runs of one question do not pose as independent evidence (a cluster bootstrap).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["BOOTSTRAP_SEED", "bootstrap_ci", "quantile", "quantile_ci", "wilson_interval"]

#: Fixed seed: the same inputs always give the same interval (SPEC §2).
BOOTSTRAP_SEED = 20240521
_Z95 = 1.959963984540054


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
    rng = np.random.default_rng(seed)
    levels, counts = np.unique(data, return_counts=True)
    if levels.size <= 256:
        draws = rng.multinomial(data.size, counts / data.size, size=resamples)
        estimates = draws @ levels / data.size
    else:
        estimates = np.empty(resamples)
        chunk = max(1, min(resamples, 4_000_000 // data.size))
        for start in range(0, resamples, chunk):
            stop = min(resamples, start + chunk)
            picks = rng.integers(0, data.size, size=(stop - start, data.size))
            estimates[start:stop] = data[picks].mean(axis=1)
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
