"""Per-query values of each trec_eval measure, for all queries at once.

The rank-based formulas live in :mod:`ragcard.metrics.ranking` (shared with the kit's per-item
metrics); this module adds what only trec_eval needs: relevance levels, unjudged documents,
bpref, interpolated precision, and the registry that maps a measure name to its computation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import numpy.typing as npt

from ragcard.metrics.ranking import (
    FloatArray,
    IntArray,
    RankedBatch,
    divide_or_zero,
    offsets_from_lengths,
)
from ragcard.trec.measures import Measure
from ragcard.trec.ranking import JudgedRun

__all__ = ["COMPUTATIONS", "Scoring", "compute"]

Column = tuple[str, FloatArray]


# Not slotted, for the same reason as RankedBatch: derived arrays are computed once, on demand.
@dataclass(frozen=True, eq=False)
class Scoring:
    """A ranked, judged run plus the relevance level: everything a measure needs."""

    run: JudgedRun
    relevance_level: int = 1

    @cached_property
    def judged_query(self) -> IntArray:
        """The query index of each judged grade in ``run.judged``."""
        lengths = np.diff(self.run.judged_offsets)
        return np.repeat(np.arange(self.run.n_queries, dtype=np.int64), lengths)

    @cached_property
    def num_nonrelevant(self) -> IntArray:
        """Judged documents below the relevance level, per query (bpref's N)."""
        below = self.run.judged < self.relevance_level
        return np.bincount(self.judged_query[below], minlength=self.run.n_queries).astype(np.int64)

    @cached_property
    def nonrelevant_positions(self) -> IntArray:
        """Ranked positions holding a judged document below the relevance level."""
        grades = self.run.grades
        return np.flatnonzero((grades >= 0) & (grades < self.relevance_level)).astype(np.int64)

    @cached_property
    def batch(self) -> RankedBatch:
        """The run as a :class:`RankedBatch`: binary hits at the level, gains = grades."""
        run = self.run
        relevant = run.judged >= self.relevance_level
        ideal_offsets, ideal_gains = _ideal(_gains(run.judged, {}), self.judged_query, run)
        return RankedBatch(
            offsets=run.offsets,
            hits=run.grades >= self.relevance_level,
            gains=_gains(run.grades, {}),
            num_relevant=np.bincount(self.judged_query[relevant], minlength=run.n_queries).astype(
                np.int64
            ),
            ideal_offsets=ideal_offsets,
            ideal_gains=ideal_gains,
        )

    def batch_with_gains(self, gain_map: dict[int, float]) -> RankedBatch:
        """The same ranking with grades remapped to gains by ``gain_map`` (``ndcg.1=3,2=9``)."""
        if not gain_map:
            return self.batch
        run = self.run
        ideal_offsets, ideal_gains = _ideal(_gains(run.judged, gain_map), self.judged_query, run)
        return replace(
            self.batch,
            gains=_gains(run.grades, gain_map),
            ideal_offsets=ideal_offsets,
            ideal_gains=ideal_gains,
        )


def _gains(grades: IntArray, gain_map: dict[int, float]) -> FloatArray:
    # Unjudged and not-in-pool codes are negative: they gain nothing.
    gains = np.maximum(grades, 0).astype(np.float64)
    for level, gain in gain_map.items():
        if level >= 0:
            gains[grades == level] = gain
    return gains


def _ideal(
    judged_gains: FloatArray, judged_query: IntArray, run: JudgedRun
) -> tuple[IntArray, FloatArray]:
    """The ideal ranking: each query's positive judged gains, best first, and its offsets."""
    order = np.lexsort((-judged_gains, judged_query))
    gains, query = judged_gains[order], judged_query[order]
    positive = gains > 0
    counts = np.bincount(query[positive], minlength=run.n_queries)
    return offsets_from_lengths(counts), gains[positive]


# --------------------------------------------------------------------------- trec-only measures


def bpref(scoring: Scoring) -> FloatArray:
    """trec_eval ``bpref``: for each relevant retrieved document, the share of the top-R judged
    non-relevant documents ranked below it; unjudged and unpooled documents are skipped."""
    batch = scoring.batch
    queries = batch.hit_queries
    nonrelevant = scoring.nonrelevant_positions
    above = np.searchsorted(nonrelevant, batch.hit_positions) - np.searchsorted(
        nonrelevant, batch.starts[queries]
    )
    relevant = batch.num_relevant[queries]
    denominator = np.minimum(scoring.num_nonrelevant[queries], relevant)
    penalty = np.zeros(len(queries), dtype=np.float64)
    np.divide(np.minimum(above, relevant), denominator, out=penalty, where=above > 0)
    total = np.bincount(queries, weights=1.0 - penalty, minlength=batch.n_queries)
    return divide_or_zero(total, batch.num_relevant)


def interpolated_precision(scoring: Scoring, recall_levels: tuple[float, ...]) -> list[FloatArray]:
    """trec_eval ``iprec_at_recall``: the best precision at or after each recall level.

    A level ``p`` means the ``round(p * R)``-th relevant document (half away from zero, C's
    ``lround``, as trec_eval 10 does; 9.x rounded differently). Levels beyond the relevant
    documents retrieved score 0.
    """
    batch = scoring.batch
    queries, first = batch.hit_queries, batch.first_hit
    found = np.arange(1, len(queries) + 1) - first[queries]
    precision = found / batch.hit_ranks
    # Max over this and every later relevant rank of the same query: a reverse running max,
    # kept inside each query by lifting earlier queries above later ones (precision <= 1).
    # The lift costs about 1e-16 * 2 * n_queries of rounding: nothing at 4 decimals.
    lift = 2.0 * (batch.n_queries - queries)
    best_after = np.maximum.accumulate((precision + lift)[::-1])[::-1] - lift
    retrieved = batch.relevant_retrieved_at()
    columns = []
    for level in recall_levels:
        needed = _round_half_away(level * batch.num_relevant)
        ok = (needed <= retrieved) & (retrieved > 0)
        index = np.clip(first + np.maximum(needed, 1) - 1, 0, max(len(queries) - 1, 0))
        values = best_after[index] if len(queries) else np.zeros(batch.n_queries)
        columns.append(np.where(ok, values, 0.0))
    return columns


def _round_half_away(values: npt.ArrayLike) -> IntArray:
    """C's ``lround``: to the nearest integer, halves away from zero."""
    magnitude = np.abs(np.asarray(values, dtype=np.float64))
    whole = np.floor(magnitude)
    # magnitude - whole is exact, so .5 is judged on the true value, not on magnitude + 0.5.
    rounded = whole + (magnitude - whole >= 0.5)
    signed: IntArray = (np.sign(values) * rounded).astype(np.int64)
    return signed


# --------------------------------------------------------------------------- registry


def _cutoffs(measure: Measure, per_cutoff: Callable[[int], FloatArray]) -> list[Column]:
    names = measure.printed_names()
    return [(name, per_cutoff(int(k))) for name, k in zip(names, measure.params, strict=True)]


def _one(measure: Measure, values: npt.ArrayLike) -> list[Column]:
    return [(measure.printed_names()[0], np.asarray(values, dtype=np.float64))]


def _eleven_point(scoring: Scoring, measure: Measure) -> list[Column]:
    columns = interpolated_precision(scoring, measure.params)
    return _one(measure, np.mean(columns, axis=0))


def _ndcg(scoring: Scoring, measure: Measure) -> list[Column]:
    batch = scoring.batch_with_gains(measure.gain_map) if measure.params else scoring.batch
    return _one(measure, batch.ndcg_at(None))


def _nonrelevant_retrieved(scoring: Scoring) -> IntArray:
    batch = scoring.batch
    owners = batch.queries_of(scoring.nonrelevant_positions)
    return np.bincount(owners, minlength=batch.n_queries).astype(np.int64)


Computation = Callable[[Scoring, Measure], list[Column]]

COMPUTATIONS: dict[str, Computation] = {
    "num_ret": lambda s, m: _one(m, s.batch.lengths),
    "num_rel": lambda s, m: _one(m, s.batch.num_relevant),
    "num_rel_ret": lambda s, m: _one(m, s.batch.relevant_retrieved_at()),
    "map": lambda s, m: _one(m, s.batch.average_precision()),
    "gm_map": lambda s, m: _one(m, s.batch.average_precision()),
    "Rprec": lambda s, m: _one(m, s.batch.r_precision()),
    "bpref": lambda s, m: _one(m, bpref(s)),
    "recip_rank": lambda s, m: _one(m, s.batch.reciprocal_rank()),
    "iprec_at_recall": lambda s, m: list(
        zip(m.printed_names(), interpolated_precision(s, m.params), strict=True)
    ),
    "P": lambda s, m: _cutoffs(m, s.batch.precision_at),
    "recall": lambda s, m: _cutoffs(m, s.batch.recall_at),
    "11pt_avg": _eleven_point,
    "ndcg": _ndcg,
    "ndcg_cut": lambda s, m: _cutoffs(m, s.batch.ndcg_at),
    "map_cut": lambda s, m: _cutoffs(m, s.batch.average_precision),
    "relative_P": lambda s, m: _cutoffs(m, s.batch.relative_precision_at),
    "success": lambda s, m: _cutoffs(m, s.batch.success_at),
    "set_P": lambda s, m: _one(
        m, divide_or_zero(s.batch.relevant_retrieved_at().astype(np.float64), s.batch.lengths)
    ),
    "set_recall": lambda s, m: _one(m, s.batch.recall_at(None)),
    "num_nonrel_judged_ret": lambda s, m: _one(m, _nonrelevant_retrieved(s)),
}
"""Measure name → computation of its per-query values (``runid``/``num_q`` have none)."""


def compute(scoring: Scoring, measure: Measure) -> list[Column]:
    """The per-query values of ``measure``: one ``(printed name, values)`` column per name."""
    return COMPUTATIONS[measure.name](scoring, measure)
