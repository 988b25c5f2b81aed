"""Ranking measures over ranked lists, with trec_eval's definitions.

Two ways in, one implementation:

* **One query** — :func:`success_at`, :func:`reciprocal_rank`, :func:`precision_at`,
  :func:`recall_at`, :func:`average_precision`, :func:`r_precision`, :func:`ndcg_at` take a ranked
  list of passage ids and the relevant ids (or graded gains) and return a float, in one
  pure-Python pass (the kit's per-item retrieval metrics call them once per item-attempt).
* **Many queries at once** — :class:`RankedBatch` holds any number of ranked lists flattened into
  numpy arrays and computes each measure for all of them in a few vectorised passes. ``ragcard
  trec`` uses it. Both paths give bit-identical floats: the one-query functions add terms in
  rank order from 0.0, as ``bincount`` does, and take nDCG's discounts from ``np.log2``.

Definitions follow trec_eval (``m_P.c``, ``m_recall.c``, ``m_success.c``, ``m_recip_rank.c``,
``m_map.c``, ``m_Rprec.c``, ``m_ndcg_cut.c``):

* precision at k divides by k even when fewer than k passages were retrieved (the missing ranks
  count as non-relevant);
* recall, average precision and R-precision divide by the number of relevant passages in the
  *judgements*, retrieved or not, and are 0 when there is none;
* nDCG uses the grade itself as the gain and a ``log2(rank + 1)`` discount; the ideal ranking is
  built from every judged grade of the query (not only the retrieved ones) and is cut at the
  same k; nDCG is 0 when the ideal is 0;
* an empty ranked list scores 0 everywhere.

Duplicates: trec_eval refuses a run that lists a document twice for one query (``form_res_rels.c``
stops with "duplicate docs"). The kit is more forgiving with agents' retrieved lists: a passage id
repeated in one list counts once, at its first rank, and later copies are dropped before ranking
(so ``[a, a, b]`` ranks ``b`` second). :func:`first_occurrences` applies that rule.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

__all__ = [
    "RankedBatch",
    "average_precision",
    "divide_or_zero",
    "first_occurrences",
    "ndcg_at",
    "offsets_from_lengths",
    "precision_at",
    "r_precision",
    "recall_at",
    "reciprocal_rank",
    "success_at",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def first_occurrences(ranked: Iterable[str]) -> list[str]:
    """Return ``ranked`` with every repeated id dropped after its first (best) rank."""
    return list(dict.fromkeys(ranked))


def _check_cutoff(k: int | None, name: str) -> None:
    if k is not None and k < 1:
        raise ValueError(f"{name} must be a positive number of ranks, got {k}")


# --------------------------------------------------------------------------- one query

_DISCOUNTS: list[float] = []  # _DISCOUNTS[r - 1] = np.log2(r + 1), filled as ranks are needed


def _cover_discounts(ranks: int) -> None:
    """Extend the table of nDCG's discounts, ``log2(rank + 1)`` exactly as numpy computes it,
    to cover ranks 1..``ranks``."""
    if ranks > len(_DISCOUNTS):
        size = max(ranks, 2 * len(_DISCOUNTS), 64)
        new = np.arange(len(_DISCOUNTS) + 1, size + 1, dtype=np.float64)
        _DISCOUNTS.extend(np.log2(new + 1.0).tolist())


def _hit_ranks(ranked: Sequence[str], relevant: Collection[str]) -> list[int]:
    """1-based ranks of the relevant ids, a repeated id counted at its first rank only."""
    if not isinstance(relevant, (set, frozenset, dict)):
        relevant = set(relevant)
    return [rank for rank, pid in enumerate(first_occurrences(ranked), 1) if pid in relevant]


def _relevant_count(relevant: Collection[str]) -> int:
    return len(relevant if isinstance(relevant, (set, frozenset, dict)) else set(relevant))


def success_at(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """1.0 if any relevant id is among the first ``k`` ranks, else 0.0 (trec_eval ``success_k``)."""
    _check_cutoff(k, "k")
    hits = _hit_ranks(ranked, relevant)
    return 1.0 if hits and hits[0] <= k else 0.0


def reciprocal_rank(
    ranked: Sequence[str], relevant: Collection[str], cutoff: int | None = None
) -> float:
    """1/rank of the first relevant id, 0.0 if none within ``cutoff`` ranks (``recip_rank``)."""
    _check_cutoff(cutoff, "cutoff")
    hits = _hit_ranks(ranked, relevant)
    return 1.0 / hits[0] if hits and (cutoff is None or hits[0] <= cutoff) else 0.0


def precision_at(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Relevant ids among the first ``k`` ranks, divided by ``k`` (trec_eval ``P_k``)."""
    _check_cutoff(k, "k")
    return sum(1 for rank in _hit_ranks(ranked, relevant) if rank <= k) / float(k)


def recall_at(ranked: Sequence[str], relevant: Collection[str], k: int | None = None) -> float:
    """Share of the relevant ids found in the first ``k`` ranks (all ranks when ``k`` is None).

    0.0 when ``relevant`` is empty, as trec_eval's ``recall_k``; callers with another convention
    for "nothing to find" must check for it first.
    """
    _check_cutoff(k, "k")
    found = sum(1 for rank in _hit_ranks(ranked, relevant) if k is None or rank <= k)
    size = _relevant_count(relevant)
    return found / size if size else 0.0


def average_precision(
    ranked: Sequence[str], relevant: Collection[str], cutoff: int | None = None
) -> float:
    """Mean of the precision at each relevant rank, over all relevant ids (``map``, ``map_cut``)."""
    _check_cutoff(cutoff, "cutoff")
    total = 0.0
    for found, rank in enumerate(_hit_ranks(ranked, relevant), 1):
        if cutoff is None or rank <= cutoff:
            total += found / rank
    size = _relevant_count(relevant)
    return total / size if size else 0.0


def r_precision(ranked: Sequence[str], relevant: Collection[str]) -> float:
    """Precision after R ranks, R being the number of relevant ids (trec_eval ``Rprec``)."""
    size = _relevant_count(relevant)
    found = sum(1 for rank in _hit_ranks(ranked, relevant) if rank <= size)
    return found / size if size else 0.0


def _dcg(gains: list[float]) -> float:
    """Discounted gains of a ranking, summed in rank order from 0.0 (zero gains add nothing)."""
    _cover_discounts(len(gains))
    total = 0.0
    for rank, gain in enumerate(gains):
        if gain != 0.0:
            total += gain / _DISCOUNTS[rank]
    return total


def ndcg_at(ranked: Sequence[str], gains: Mapping[str, float], k: int | None) -> float:
    """Graded nDCG of the first ``k`` ranks (whole list when ``k`` is None), as ``ndcg_cut_k``.

    ``gains`` maps each judged id to its grade; ids not in it gain 0. A negative grade gains 0
    (in TREC qrels it marks a pooled but unjudged document).
    """
    _check_cutoff(k, "k")
    ideal = sorted((float(g) for g in gains.values() if g > 0), reverse=True)
    best = _dcg(ideal if k is None else ideal[:k])
    if best <= 0.0:
        return 0.0
    top = first_occurrences(ranked)
    got = [max(float(gains.get(pid, 0.0)), 0.0) for pid in (top if k is None else top[:k])]
    return _dcg(got) / best


# --------------------------------------------------------------------------- many queries


# Not slotted: ``cached_property`` keeps derived arrays in the instance ``__dict__``, so a
# measure asked for at nine cutoffs pays for one pass over the data, not nine.
@dataclass(frozen=True, eq=False)
class RankedBatch:
    """Ranked lists of many queries, flattened so every measure is a few numpy passes.

    Query ``i`` owns positions ``offsets[i]:offsets[i + 1]`` of ``hits`` and ``gains``, in rank
    order. Build one with :meth:`from_judgments`, or directly from arrays (``ragcard trec`` does,
    after ranking a run the way trec_eval does). Every measure returns one value per query.

    Attributes:
        offsets: ``n_queries + 1`` non-decreasing positions, starting at 0.
        hits: whether the passage at each position is relevant (binary measures).
        gains: the gain of the passage at each position (nDCG); non-relevant passages gain 0.
        num_relevant: relevant passages judged for each query, retrieved or not.
        ideal_offsets: like ``offsets``, for ``ideal_gains``.
        ideal_gains: each query's positive judged gains, best first (the ideal ranking).
    """

    offsets: IntArray
    hits: BoolArray
    gains: FloatArray
    num_relevant: IntArray
    ideal_offsets: IntArray
    ideal_gains: FloatArray

    @classmethod
    def from_judgments(
        cls,
        rankings: Sequence[Sequence[str]],
        judgments: Sequence[Mapping[str, float]],
        relevance_level: float = 1.0,
    ) -> RankedBatch:
        """Build a batch from ranked id lists and each query's graded judgements.

        An id is relevant when its grade is at least ``relevance_level``; its gain is its grade
        (negative grades gain 0). Repeated ids in a ranking count once, at their first rank.
        """
        if relevance_level <= 0:
            # An id missing from the judgements has grade 0; it must never count as relevant.
            raise ValueError(f"relevance_level must be positive, got {relevance_level}")
        if len(rankings) != len(judgments):
            raise ValueError(
                f"{len(rankings)} rankings but {len(judgments)} judgement maps; need one each"
            )
        grades: list[float] = []
        lengths: list[int] = []
        ideal: list[float] = []
        ideal_lengths: list[int] = []
        num_relevant: list[int] = []
        for ranked, judged in zip(rankings, judgments, strict=True):
            unique = first_occurrences(ranked)
            grades.extend(float(judged.get(pid, 0.0)) for pid in unique)
            lengths.append(len(unique))
            positive = sorted((g for g in judged.values() if g > 0), reverse=True)
            ideal.extend(positive)
            ideal_lengths.append(len(positive))
            num_relevant.append(sum(1 for g in judged.values() if g >= relevance_level))
        grade_array = np.asarray(grades, dtype=np.float64)
        return cls(
            offsets=offsets_from_lengths(lengths),
            hits=grade_array >= relevance_level,
            gains=np.maximum(grade_array, 0.0),
            num_relevant=np.asarray(num_relevant, dtype=np.int64),
            ideal_offsets=offsets_from_lengths(ideal_lengths),
            ideal_gains=np.asarray(ideal, dtype=np.float64),
        )

    # ---- shape

    @property
    def n_queries(self) -> int:
        """Number of queries (ranked lists) in the batch."""
        return len(self.offsets) - 1

    @cached_property
    def starts(self) -> IntArray:
        """First position of each query."""
        return self.offsets[:-1]

    @cached_property
    def lengths(self) -> IntArray:
        """Number of ranked passages of each query."""
        return np.diff(self.offsets)

    def queries_of(self, positions: IntArray) -> IntArray:
        """The query index owning each of ``positions`` (sorted or not)."""
        owner: IntArray = np.searchsorted(self.offsets, positions, side="right") - 1
        return owner

    # ---- relevant and gaining positions
    #
    # Relevant passages are a few per query among tens or thousands retrieved, so every measure
    # works on those positions only: a cutoff is a mask over them and a per-query sum is a
    # bincount, which adds each query's terms in rank order, exactly as trec_eval's loops do.

    @cached_property
    def hit_positions(self) -> IntArray:
        """Positions of relevant passages, in increasing order."""
        return np.flatnonzero(self.hits).astype(np.int64)

    @cached_property
    def hit_queries(self) -> IntArray:
        """Query of each relevant position."""
        return self.queries_of(self.hit_positions)

    @cached_property
    def hit_ranks(self) -> IntArray:
        """1-based rank of each relevant position within its query."""
        ranks: IntArray = self.hit_positions - self.starts[self.hit_queries] + 1
        return ranks

    @cached_property
    def first_hit(self) -> IntArray:
        """Index into ``hit_positions`` of each query's first relevant passage (if any)."""
        first: IntArray = np.searchsorted(self.hit_positions, self.starts)
        return first

    @cached_property
    def _dcg_terms(self) -> tuple[IntArray, IntArray, FloatArray]:
        """Query, rank and discounted gain of every position with a non-zero gain."""
        positions = np.flatnonzero(self.gains).astype(np.int64)
        queries = self.queries_of(positions)
        ranks = positions - self.starts[queries] + 1
        return queries, ranks, self.gains[positions] / np.log2(ranks + 1.0)

    @cached_property
    def _ideal_terms(self) -> tuple[IntArray, IntArray, FloatArray]:
        lengths = np.diff(self.ideal_offsets)
        queries = np.repeat(np.arange(self.n_queries, dtype=np.int64), lengths)
        ranks = np.arange(len(self.ideal_gains), dtype=np.int64) - self.ideal_offsets[queries] + 1
        return queries, ranks, self.ideal_gains / np.log2(ranks + 1.0)

    def _per_query(
        self, queries: IntArray, weights: FloatArray | None = None, mask: BoolArray | None = None
    ) -> FloatArray:
        if mask is not None:
            queries = queries[mask]
            weights = None if weights is None else weights[mask]
        total = np.bincount(queries, weights=weights, minlength=self.n_queries)
        return total.astype(np.float64)

    # ---- measures (one value per query)

    def relevant_retrieved_at(self, k: int | None = None) -> IntArray:
        """Relevant passages among the first ``k`` ranks (all ranks when ``k`` is None)."""
        mask = None if k is None else self.hit_ranks <= k
        return self._per_query(self.hit_queries, mask=mask).astype(np.int64)

    def precision_at(self, k: int) -> FloatArray:
        """trec_eval ``P_k``: relevant in the first ``k`` ranks over ``k``."""
        return self.relevant_retrieved_at(k) / float(k)

    def relative_precision_at(self, k: int) -> FloatArray:
        """trec_eval ``relative_P_k``: relevant in the first ``k`` over ``min(k, R)``."""
        denominator = np.minimum(self.num_relevant, k)
        return divide_or_zero(self.relevant_retrieved_at(k), denominator)

    def recall_at(self, k: int | None = None) -> FloatArray:
        """trec_eval ``recall_k``: relevant in the first ``k`` over all relevant (0 if none)."""
        return divide_or_zero(self.relevant_retrieved_at(k), self.num_relevant)

    def success_at(self, k: int) -> FloatArray:
        """trec_eval ``success_k``: 1.0 when a relevant passage is in the first ``k`` ranks."""
        return (self.relevant_retrieved_at(k) > 0).astype(np.float64)

    def r_precision(self) -> FloatArray:
        """trec_eval ``Rprec``: relevant in the first R ranks over R."""
        mask = self.hit_ranks <= self.num_relevant[self.hit_queries]
        return divide_or_zero(self._per_query(self.hit_queries, mask=mask), self.num_relevant)

    def first_relevant_rank(self) -> IntArray:
        """Rank of each query's first relevant passage, 0 when none was retrieved."""
        count = len(self.hit_positions)
        if count == 0:
            return np.zeros(self.n_queries, dtype=np.int64)
        index = np.minimum(self.first_hit, count - 1)
        found = (self.first_hit < count) & (self.hit_queries[index] == np.arange(self.n_queries))
        rank: IntArray = np.where(found, self.hit_ranks[index], 0)
        return rank

    def reciprocal_rank(self, cutoff: int | None = None) -> FloatArray:
        """trec_eval ``recip_rank``: 1/rank of the first relevant passage within ``cutoff``."""
        rank = self.first_relevant_rank()
        found = (rank > 0) if cutoff is None else (rank > 0) & (rank <= cutoff)
        return np.where(found, 1.0 / np.maximum(rank, 1), 0.0)

    def average_precision(self, cutoff: int | None = None) -> FloatArray:
        """trec_eval ``map`` (``map_cut_k`` with a cutoff): mean precision at relevant ranks."""
        queries, ranks = self.hit_queries, self.hit_ranks
        found_so_far = np.arange(1, len(queries) + 1) - self.first_hit[queries]
        mask = None if cutoff is None else ranks <= cutoff
        total = self._per_query(queries, found_so_far / ranks, mask)
        return divide_or_zero(total, self.num_relevant)

    def ndcg_at(self, k: int | None = None) -> FloatArray:
        """trec_eval ``ndcg_cut_k`` (``ndcg`` when ``k`` is None); 0 when the ideal is 0."""
        queries, ranks, terms = self._dcg_terms
        dcg = self._per_query(queries, terms, None if k is None else ranks <= k)
        queries, ranks, terms = self._ideal_terms
        ideal = self._per_query(queries, terms, None if k is None else ranks <= k)
        return divide_or_zero(dcg, ideal)


def offsets_from_lengths(lengths: npt.ArrayLike) -> IntArray:
    """The ``offsets`` of a batch whose queries have these many positions: 0, then running sums."""
    counts = np.asarray(lengths, dtype=np.int64)
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def divide_or_zero(numerator: npt.ArrayLike, denominator: npt.ArrayLike) -> FloatArray:
    """``numerator / denominator`` per query, 0 where the denominator is not positive.

    trec_eval's convention: a measure over no relevant documents (or none retrieved) is 0.
    """
    top = np.asarray(numerator, dtype=np.float64)
    bottom = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast_shapes(top.shape, bottom.shape), dtype=np.float64)
    np.divide(top, bottom, out=out, where=bottom > 0)
    return out
