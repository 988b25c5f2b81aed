"""Rank a run as trec_eval does and attach each retrieved document's judgement.

trec_eval (``form_res_rels.c``) ignores the run's rank column: it sorts each query's documents
by score, highest first, breaks equal scores by document id in *descending* ``strcmp`` order,
keeps the first ``-M`` documents, and looks every document up in the qrels. A document missing
from the qrels is "not in the pool" (``RELVALUE_NONPOOL``); one whose grade is negative is "in
the pool but unjudged" (``RELVALUE_UNJUDGED``). Neither is ever relevant, and only judged grades
(>= 0) count towards the number of relevant documents and the ideal nDCG ranking.

The work is done for all queries at once: one pass in Python to look documents up (unavoidable
with dictionaries as input), then numpy sorts. Equal scores are rare, so only the tied runs are
re-ordered by document id, in Python, fetching document ids only for the queries that need them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from ragcard.errors import InputError, Problem
from ragcard.metrics.ranking import FloatArray, IntArray, offsets_from_lengths

__all__ = ["NOT_IN_POOL", "UNJUDGED", "JudgedRun", "rank_run"]

NOT_IN_POOL = -1
"""Grade code of a retrieved document absent from the qrels (trec_eval RELVALUE_NONPOOL)."""

UNJUDGED = -2
"""Grade code of a retrieved document with a negative qrels grade (RELVALUE_UNJUDGED)."""


@dataclass(frozen=True, slots=True, eq=False)
class JudgedRun:
    """A run ranked the trec_eval way, one segment per query, with each document's grade.

    Attributes:
        query_ids: the evaluated queries, in ``strcmp`` order (trec_eval's print order).
        offsets: query ``i`` owns positions ``offsets[i]:offsets[i + 1]`` of ``grades``.
        grades: the grade of the document at each rank, or :data:`NOT_IN_POOL` /
            :data:`UNJUDGED`.
        judged_offsets: query ``i``'s judged grades are ``judged[judged_offsets[i]:…[i + 1]]``.
        judged: every non-negative qrels grade of each query (the pool of the ideal ranking).
    """

    query_ids: tuple[str, ...]
    offsets: IntArray
    grades: IntArray
    judged_offsets: IntArray
    judged: IntArray

    @property
    def n_queries(self) -> int:
        """Number of evaluated queries."""
        return len(self.query_ids)


def rank_run(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    query_ids: Sequence[str],
    max_results: int | None = None,
) -> JudgedRun:
    """Rank ``run`` for each of ``query_ids`` and look every document up in ``qrels``.

    Every id in ``query_ids`` must be in ``qrels``; one missing from ``run`` gets an empty list
    (trec_eval's ``-c``).

    Raises:
        InputError: a score is NaN (it has no place in a ranking).
    """
    scores: list[float] = []
    grades: list[int] = []
    lengths: list[int] = []
    judged: list[int] = []
    judged_lengths: list[int] = []
    empty: Mapping[str, float] = {}
    for qid in query_ids:
        judgements = qrels[qid]
        retrieved = run.get(qid, empty)
        grades_judged = [grade for grade in judgements.values() if grade >= 0]
        if len(grades_judged) < len(judgements):
            # A negative grade is "pooled but unjudged", which must not read as "not in pool".
            judgements = {d: grade if grade >= 0 else UNJUDGED for d, grade in judgements.items()}
        scores.extend(retrieved.values())
        # map(dict.get, keys, repeat(default)) runs the per-document lookup at C speed.
        grades.extend(map(judgements.get, retrieved, repeat(NOT_IN_POOL)))
        lengths.append(len(retrieved))
        judged.extend(grades_judged)
        judged_lengths.append(len(grades_judged))

    offsets = offsets_from_lengths(lengths)
    score_array = np.asarray(scores, dtype=np.float64)
    _reject_nan(score_array, offsets, query_ids)
    grade_array = np.asarray(grades, dtype=np.int64)
    order = _by_score(score_array, offsets)
    _break_ties(order, score_array, offsets, [run.get(qid, empty) for qid in query_ids])
    grade_array = grade_array[order]
    if max_results is not None:
        grade_array, offsets = _truncate(grade_array, offsets, max_results)
    return JudgedRun(
        query_ids=tuple(query_ids),
        offsets=offsets,
        grades=grade_array,
        judged_offsets=offsets_from_lengths(judged_lengths),
        judged=np.asarray(judged, dtype=np.int64),
    )


def _reject_nan(scores: FloatArray, offsets: IntArray, query_ids: Sequence[str]) -> None:
    bad = np.flatnonzero(np.isnan(scores))
    if len(bad) == 0:
        return
    queries = sorted({query_ids[i] for i in np.searchsorted(offsets, bad, side="right") - 1})
    raise InputError(
        Problem(
            "run",
            None,
            "score",
            f"{len(bad)} score(s) are NaN, in queries {', '.join(queries[:5])}",
            fix="give every retrieved document a number as its score",
        )
    )


def _by_score(scores: FloatArray, offsets: IntArray) -> IntArray:
    """Positions ordered by query, then score descending (stable: ties keep input order)."""
    lengths = np.diff(offsets)
    n_queries, total = len(lengths), len(scores)
    longest = int(lengths.max()) if n_queries else 0
    starts = offsets[:-1]
    if n_queries and (lengths == longest).all():
        # Every query retrieved the same number: sort the rows of a matrix, no padding needed.
        rows = np.argsort(-scores.reshape(n_queries, longest), axis=1, kind="stable")
        order: IntArray = (rows + starts[:, None]).ravel()
        return order
    if n_queries * longest <= 4 * total + 1024:
        # Ragged but dense enough to pad: sorting many short rows beats one lexsort of all
        # positions by a factor of 3 to 5. +inf padding sorts after every real (negated) score,
        # and stability keeps it after a real +inf too.
        query = np.repeat(np.arange(n_queries), lengths)
        rank = np.arange(total) - starts[query]
        padded = np.full((n_queries, longest), np.inf)
        padded[query, rank] = -scores
        rows = np.argsort(padded, axis=1, kind="stable")
        real = np.arange(longest)[None, :] < lengths[:, None]
        order = (rows + starts[:, None])[real]
        return order
    query = np.repeat(np.arange(n_queries, dtype=np.int64), lengths)
    # lexsort sorts by the last key first: query, then descending score.
    order = np.lexsort((-scores, query)).astype(np.int64)
    return order


def _break_ties(
    order: IntArray,
    scores: FloatArray,
    offsets: IntArray,
    retrieved: Sequence[Mapping[str, float]],
) -> None:
    """Re-order, in place, each run of equal scores in a query by document id, descending."""
    sorted_scores = scores[order]
    # Position p and p + 1 belong to one query unless p + 1 starts a new one.
    same_query = np.ones(max(len(order) - 1, 0), dtype=bool)
    boundaries = offsets[1:-1]
    same_query[boundaries[(boundaries > 0) & (boundaries < len(order))] - 1] = False
    tied = (sorted_scores[1:] == sorted_scores[:-1]) & same_query
    if not tied.any():
        return
    # Blocks of tied positions [first, last] in the sorted order, and every position in them;
    # found from the (few) tied pairs only, not from another pass over every position.
    pairs = np.flatnonzero(tied)
    opens = np.concatenate(([True], pairs[1:] != pairs[:-1] + 1))
    closes = np.concatenate((pairs[:-1] + 1 != pairs[1:], [True]))
    first, last = pairs[opens], pairs[closes] + 1
    sizes = last - first + 1
    block_start = np.cumsum(sizes) - sizes  # where each block begins among tied positions
    within = np.arange(int(sizes.sum())) - np.repeat(block_start, sizes)
    slots = np.repeat(first, sizes) + within
    original = order[slots]
    # Document ids are fetched only for tied positions, from only the queries with ties.
    owners = np.searchsorted(offsets, original, side="right") - 1
    ids = {int(q): list(retrieved[int(q)]) for q in np.unique(owners)}
    local = original - offsets[owners]
    names = np.array([ids[q][i] for q, i in zip(owners.tolist(), local.tolist(), strict=True)])
    # Code-point order of numpy strings is the byte order strcmp sees in UTF-8. Sort each block
    # ascending, then read it backwards: docno descending.
    ascending = np.lexsort((names, np.repeat(np.arange(len(first)), sizes)))
    descending = ascending[np.repeat(block_start + sizes - 1, sizes) - within]
    order[slots] = original[descending]


def _truncate(grades: IntArray, offsets: IntArray, max_results: int) -> tuple[IntArray, IntArray]:
    """Keep the first ``max_results`` ranks of each query (trec_eval's ``-M``)."""
    lengths = np.diff(offsets)
    if (lengths <= max_results).all():
        return grades, offsets
    rank = np.arange(len(grades), dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    return grades[rank < max_results], offsets_from_lengths(np.minimum(lengths, max_results))
