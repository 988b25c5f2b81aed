"""Agreement between a judge and human labels: binary metrics, bootstrap intervals, thresholds.

Conventions, fixed so every figure reads the same way:

* ``human`` and ``judge`` are boolean arrays, ``True`` = *supported* (the claim is entailed /
  the response attributable / the summary consistent).
* ``scores`` are the judge's belief that the claim is supported; a threshold ``t`` predicts
  *supported* when ``score >= t``.
* F1 is reported for both classes: ``f1_unsupported`` (the class a grounding gate must catch)
  and ``f1_supported`` (what WiCE's authors report). AUROC, κ and balanced accuracy do not
  depend on which class is called positive.
* A metric that is undefined on the data (AUROC with one class, κ when both raters are
  constant) is ``None``, never NaN and never 0.

Intervals are 95% percentile bootstraps over examples with a fixed seed
(:data:`ragcard.aggregation.stats.BOOTSTRAP_SEED`); a resample on which the metric is undefined is
left out. Numpy only: scikit-learn is used by the tests to check these numbers, never here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ragcard.aggregation.stats import BOOTSTRAP_SEED

__all__ = [
    "METRIC_NAMES",
    "MetricEstimate",
    "accuracy",
    "auroc",
    "balanced_accuracy",
    "cohen_kappa",
    "confusion",
    "estimate_all",
    "f1",
    "tune_threshold",
]

#: Canonical metric names, in the order they are printed.
METRIC_NAMES = (
    "balanced_accuracy",
    "f1_unsupported",
    "f1_supported",
    "accuracy",
    "auroc",
    "kappa",
)
_RESAMPLES = 1000
_CHUNK_CELLS = 4_000_000  # resamples × examples held in memory at once

Bools = NDArray[np.bool_]
Floats = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class MetricEstimate:
    """One metric on ``n`` examples: the value and its 95% bootstrap interval (``None`` when
    undefined on the data)."""

    name: str
    value: float | None
    ci: tuple[float, float] | None
    n: int

    def to_json(self) -> dict[str, object]:
        return {"value": self.value, "ci": list(self.ci) if self.ci else None, "n": self.n}


def _bools(values: ArrayLike) -> Bools:
    return np.asarray(values, dtype=bool)


def confusion(human: ArrayLike, judge: ArrayLike) -> dict[str, int]:
    """Counts with *supported* as the positive class: ``tp`` both say supported, ``fp`` the
    judge says supported and the humans do not, ``fn`` the reverse, ``tn`` both say not."""
    h, j = _bools(human), _bools(judge)
    return {
        "tp": int(np.sum(h & j)),
        "fp": int(np.sum(~h & j)),
        "fn": int(np.sum(h & ~j)),
        "tn": int(np.sum(~h & ~j)),
    }


# The metrics below work on count arrays so the bootstrap can compute all resamples at once.
def _accuracy(tp: Floats, fp: Floats, fn: Floats, tn: Floats) -> Floats:
    return (tp + tn) / (tp + fp + fn + tn)


def _balanced_accuracy(tp: Floats, fp: Floats, fn: Floats, tn: Floats) -> Floats:
    with np.errstate(invalid="ignore", divide="ignore"):
        return (tp / (tp + fn) + tn / (tn + fp)) / 2


def _f1(tp: Floats, fp: Floats, fn: Floats) -> Floats:
    with np.errstate(invalid="ignore", divide="ignore"):
        return 2 * tp / (2 * tp + fp + fn)


def _kappa(tp: Floats, fp: Floats, fn: Floats, tn: Floats) -> Floats:
    n = tp + fp + fn + tn
    observed = (tp + tn) / n
    expected = ((tp + fp) * (tp + fn) + (tn + fn) * (tn + fp)) / (n * n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected < 1, (observed - expected) / (1 - expected), np.nan)


def _scalar(value: Floats) -> float | None:
    number = float(value)
    return None if np.isnan(number) else number


def _counts(human: ArrayLike, judge: ArrayLike) -> tuple[Floats, Floats, Floats, Floats]:
    c = confusion(human, judge)
    tp, fp, fn, tn = (np.asarray(float(c[k])) for k in ("tp", "fp", "fn", "tn"))
    return tp, fp, fn, tn


def accuracy(human: ArrayLike, judge: ArrayLike) -> float | None:
    """Share of examples where the judge agrees with the humans."""
    return _scalar(_accuracy(*_counts(human, judge))) if _bools(human).size else None


def balanced_accuracy(human: ArrayLike, judge: ArrayLike) -> float | None:
    """Mean of the recall of each class; ``None`` unless both classes occur in ``human``."""
    return _scalar(_balanced_accuracy(*_counts(human, judge)))


def f1(human: ArrayLike, judge: ArrayLike, positive: bool = False) -> float | None:
    """F1 of one class: ``positive=False`` (default) is the *unsupported* class."""
    h, j = _bools(human), _bools(judge)
    if not positive:
        h, j = ~h, ~j
    tp, fp, fn, _ = _counts(h, j)
    return _scalar(_f1(tp, fp, fn))


def cohen_kappa(human: ArrayLike, judge: ArrayLike) -> float | None:
    """Cohen's κ between the humans and the judge; ``None`` when chance agreement is 1."""
    return _scalar(_kappa(*_counts(human, judge))) if _bools(human).size else None


def _auroc_weighted(levels: NDArray[np.intp], positive: Bools, counts: Floats) -> Floats:
    """AUROC for each row of ``counts`` (how often each example is drawn), by score level.

    With scores grouped into ordered levels, a positive beats every negative on a lower level
    and ties count half, which is the Mann–Whitney statistic with average ranks.
    """
    rows, size = counts.shape
    n_levels = int(levels.max()) + 1 if size else 0
    flat = (np.arange(rows)[:, None] * n_levels + levels[None, :]).ravel()
    pos = np.bincount(flat, (counts * positive).ravel(), rows * n_levels).reshape(rows, -1)
    neg = np.bincount(flat, (counts * ~positive).ravel(), rows * n_levels).reshape(rows, -1)
    below = np.cumsum(neg, axis=1) - neg
    wins = np.sum(pos * (below + 0.5 * neg), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(wins / (pos.sum(axis=1) * neg.sum(axis=1)), dtype=float)


def auroc(human: ArrayLike, scores: ArrayLike) -> float | None:
    """Area under the ROC curve of ``scores`` for *supported*, ties counted half; ``None``
    unless both classes occur."""
    h, s = _bools(human), np.asarray(scores, dtype=float)
    if h.size == 0:
        return None
    levels = np.unique(s, return_inverse=True)[1].ravel()
    return _scalar(_auroc_weighted(levels, h, np.ones((1, h.size)))[0])


def _resample_counts(n: int, resamples: int, seed: int) -> Iterator[Floats]:
    """How often each example is drawn, one row per resample, in memory-bounded chunks."""
    rng = np.random.default_rng(seed)
    chunk = max(1, min(resamples, _CHUNK_CELLS // max(n, 1)))
    for start in range(0, resamples, chunk):
        rows = min(chunk, resamples - start)
        picks = rng.integers(0, n, size=(rows, n))
        offsets = (np.arange(rows)[:, None] * n + picks).ravel()
        yield np.bincount(offsets, minlength=rows * n).reshape(rows, n).astype(float)


def _interval(values: Floats) -> tuple[float, float] | None:
    kept = values[~np.isnan(values)]
    # An interval resting on a small minority of resamples would look more certain than it is.
    if kept.size < 0.9 * values.size or kept.size == 0:
        return None
    low, high = np.quantile(kept, [0.025, 0.975])
    return float(low), float(high)


def estimate_all(
    human: ArrayLike,
    judge: ArrayLike,
    scores: ArrayLike | None = None,
    resamples: int = _RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, MetricEstimate]:
    """Every metric of :data:`METRIC_NAMES` with its bootstrap interval, on the same
    resamples. AUROC is left out when ``scores`` is ``None``."""
    h, j = _bools(human), _bools(judge)
    n = int(h.size)
    s = np.asarray(scores, dtype=float) if scores is not None else None
    levels = np.unique(s, return_inverse=True)[1].ravel() if s is not None else None

    def compute(counts: Floats) -> dict[str, Floats]:
        tp, fp = counts @ (h & j).astype(float), counts @ (~h & j).astype(float)
        fn, tn = counts @ (h & ~j).astype(float), counts @ (~h & ~j).astype(float)
        values = {
            "balanced_accuracy": _balanced_accuracy(tp, fp, fn, tn),
            "f1_unsupported": _f1(tn, fn, fp),
            "f1_supported": _f1(tp, fp, fn),
            "accuracy": _accuracy(tp, fp, fn, tn),
            "kappa": _kappa(tp, fp, fn, tn),
        }
        if levels is not None:
            values["auroc"] = _auroc_weighted(levels, h, counts)
        return values

    if n == 0:
        return {}
    point = {k: _scalar(v[0]) for k, v in compute(np.ones((1, n))).items()}
    draws: dict[str, list[Floats]] = {name: [] for name in point}
    for counts in _resample_counts(n, resamples, seed):
        for name, values in compute(counts).items():
            draws[name].append(values)
    return {
        name: MetricEstimate(
            name,
            point[name],
            _interval(np.concatenate(draws[name])) if point[name] is not None else None,
            n,
        )
        for name in METRIC_NAMES
        if name in point
    }


def tune_threshold(
    scores: ArrayLike,
    human: ArrayLike,
    objective: Callable[[Bools, Bools], float | None] = balanced_accuracy,
) -> float:
    """The threshold that maximises ``objective`` (default balanced accuracy) on these
    examples: predict supported when ``score >= threshold``.

    Candidates are the midpoints between consecutive distinct scores, so the result does not
    sit on a score seen in tuning, plus the lowest score (all supported) and the next float
    above the highest (none supported). Among equally
    good candidates the middle one is taken, to stay away from both ends of the plateau.
    Tune on one part of the data and report on another: figures on the part used here are
    optimistic by construction. Raises ``ValueError`` when there is nothing to tune on, or the
    objective is undefined at every candidate (balanced accuracy with one class only).
    """
    s, h = np.asarray(scores, dtype=float), _bools(human)
    if s.size == 0:
        raise ValueError("cannot tune a threshold on no examples")
    distinct = np.unique(s)
    candidates = np.concatenate(
        ([distinct[0]], (distinct[:-1] + distinct[1:]) / 2, [np.nextafter(distinct[-1], np.inf)])
    )
    results = [objective(h, s >= t) for t in candidates]
    if all(r is None for r in results):
        raise ValueError("cannot tune a threshold: the objective is undefined (one class only?)")
    values = np.array([-np.inf if r is None else r for r in results])
    best = np.flatnonzero(values == values.max())
    return float(candidates[best[len(best) // 2]])
