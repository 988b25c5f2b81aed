"""Hand-checked values for the shared ranking functions (trec_eval definitions)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from ragcard.metrics.ranking import (
    RankedBatch,
    average_precision,
    divide_or_zero,
    first_occurrences,
    ndcg_at,
    offsets_from_lengths,
    precision_at,
    r_precision,
    recall_at,
    reciprocal_rank,
    success_at,
)

# d2 and d4 are relevant and retrieved at ranks 2 and 4; d9 is relevant but never retrieved.
RANKED = ["d1", "d2", "d3", "d4", "d5"]
RELEVANT = {"d2", "d4", "d9"}


def test_success_at() -> None:
    assert success_at(RANKED, RELEVANT, 1) == 0.0
    assert success_at(RANKED, RELEVANT, 2) == 1.0
    assert success_at(RANKED, RELEVANT, 100) == 1.0


def test_reciprocal_rank_with_and_without_cutoff() -> None:
    assert reciprocal_rank(RANKED, RELEVANT) == 0.5
    assert reciprocal_rank(RANKED, RELEVANT, 2) == 0.5
    assert reciprocal_rank(RANKED, RELEVANT, 1) == 0.0


def test_precision_divides_by_k_even_past_the_end_of_the_list() -> None:
    assert precision_at(RANKED, RELEVANT, 2) == 0.5
    assert precision_at(RANKED, RELEVANT, 5) == 2 / 5
    # trec_eval: ranks beyond the retrieved list count as non-relevant.
    assert precision_at(RANKED, RELEVANT, 10) == 2 / 10


def test_recall_counts_unretrieved_relevant_documents() -> None:
    assert recall_at(RANKED, RELEVANT, 1) == 0.0
    assert recall_at(RANKED, RELEVANT, 2) == 1 / 3
    assert recall_at(RANKED, RELEVANT) == 2 / 3


def test_average_precision_over_all_relevant() -> None:
    # precision 1/2 at rank 2, 2/4 at rank 4, divided by the 3 relevant documents.
    assert average_precision(RANKED, RELEVANT) == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert average_precision(RANKED, RELEVANT, cutoff=3) == pytest.approx((1 / 2) / 3)


def test_r_precision() -> None:
    # R = 3: d1, d2, d3 hold one relevant document.
    assert r_precision(RANKED, RELEVANT) == pytest.approx(1 / 3)
    assert r_precision(["d2"], RELEVANT) == pytest.approx(1 / 3)


GAINS = {"a": 3.0, "b": 2.0, "c": 1.0, "z": 0.0}


def test_ndcg_graded_with_ideal_from_all_judged() -> None:
    ranked = ["c", "x", "a"]
    dcg = 1 / math.log2(2) + 0 + 3 / math.log2(4)
    ideal = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(ranked, GAINS, 3) == pytest.approx(dcg / ideal)
    assert ndcg_at(ranked, GAINS, None) == pytest.approx(dcg / ideal)
    assert ndcg_at(ranked, GAINS, 10) == pytest.approx(dcg / ideal)
    # Cut at 1: both DCG and the ideal stop at rank 1.
    assert ndcg_at(ranked, GAINS, 1) == pytest.approx(1 / 3)
    assert ndcg_at(ranked, GAINS, 2) == pytest.approx(1 / (3 + 2 / math.log2(3)))


def test_ndcg_perfect_ranking_is_one() -> None:
    assert ndcg_at(["a", "b", "c"], GAINS, 5) == pytest.approx(1.0)
    assert ndcg_at(["a", "b"], GAINS, 2) == pytest.approx(1.0)


def test_ndcg_is_zero_when_the_ideal_is_zero() -> None:
    assert ndcg_at(["z", "y"], {"z": 0.0}, 5) == 0.0
    assert ndcg_at(["z"], {}, None) == 0.0


def test_ndcg_negative_grade_gains_nothing() -> None:
    assert ndcg_at(["n", "a"], {"n": -1.0, "a": 1.0}, 2) == pytest.approx(1 / math.log2(3))


@pytest.mark.parametrize(
    "measure",
    [
        lambda r, rel: success_at(r, rel, 5),
        lambda r, rel: reciprocal_rank(r, rel),
        lambda r, rel: precision_at(r, rel, 5),
        lambda r, rel: recall_at(r, rel, 5),
        lambda r, rel: average_precision(r, rel),
        lambda r, rel: r_precision(r, rel),
        lambda r, rel: ndcg_at(r, dict.fromkeys(rel, 1.0), 5),
    ],
)
def test_empty_ranked_list_and_no_relevant_score_zero(
    measure: Callable[[list[str], set[str]], float],
) -> None:
    assert measure([], {"d1"}) == 0.0
    assert measure(["d1", "d2"], set()) == 0.0


def test_duplicates_count_once_at_their_first_rank() -> None:
    assert first_occurrences(["a", "a", "b", "a"]) == ["a", "b"]
    # [a, a, b] ranks b second, not third.
    assert reciprocal_rank(["a", "a", "b"], {"b"}) == 0.5
    assert success_at(["a", "a", "b"], {"b"}, 2) == 1.0
    # A relevant id repeated is found once.
    assert precision_at(["b", "b"], {"b"}, 2) == 0.5
    assert average_precision(["b", "b", "c"], {"b", "c"}) == pytest.approx(1.0)
    assert ndcg_at(["a", "a", "b"], {"a": 1.0, "b": 1.0}, 2) == pytest.approx(1.0)


@pytest.mark.parametrize("bad", [0, -3])
def test_non_positive_cutoffs_are_programming_errors(bad: int) -> None:
    with pytest.raises(ValueError, match="positive"):
        precision_at(RANKED, RELEVANT, bad)
    with pytest.raises(ValueError, match="positive"):
        ndcg_at(RANKED, GAINS, bad)


def test_batch_agrees_with_one_query_functions() -> None:
    rankings = [RANKED, [], ["c", "x", "a"], ["q", "r"]]
    judgments = [dict.fromkeys(RELEVANT, 1.0), {"d1": 1.0}, GAINS, {}]
    batch = RankedBatch.from_judgments(rankings, judgments)
    assert batch.n_queries == 4
    for i, (ranked, judged) in enumerate(zip(rankings, judgments, strict=True)):
        relevant = {pid for pid, grade in judged.items() if grade >= 1}
        assert batch.precision_at(3)[i] == precision_at(ranked, relevant, 3)
        assert batch.recall_at(3)[i] == recall_at(ranked, relevant, 3)
        assert batch.success_at(1)[i] == success_at(ranked, relevant, 1)
        assert batch.reciprocal_rank()[i] == reciprocal_rank(ranked, relevant)
        assert batch.average_precision()[i] == pytest.approx(average_precision(ranked, relevant))
        assert batch.r_precision()[i] == pytest.approx(r_precision(ranked, relevant))
        assert batch.ndcg_at(2)[i] == pytest.approx(ndcg_at(ranked, judged, 2))


def test_batch_relevance_level_makes_low_grades_non_relevant() -> None:
    batch = RankedBatch.from_judgments([["a", "b"]], [{"a": 1.0, "b": 2.0}], relevance_level=2)
    np.testing.assert_array_equal(batch.num_relevant, [1])
    assert batch.reciprocal_rank()[0] == 0.5
    # nDCG still uses every grade as a gain.
    assert batch.ndcg_at(None)[0] < 1.0


def test_offsets_and_division_helpers() -> None:
    np.testing.assert_array_equal(offsets_from_lengths([2, 0, 3]), [0, 2, 2, 5])
    np.testing.assert_array_equal(divide_or_zero([1, 2, 3], [2, 0, -1]), [0.5, 0.0, 0.0])


def test_batch_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="one each"):
        RankedBatch.from_judgments([["a"]], [])
    with pytest.raises(ValueError, match="relevance_level must be positive"):
        RankedBatch.from_judgments([["a"]], [{"a": 0.0}], relevance_level=0)


def test_one_query_path_is_bit_identical_to_the_batch_on_random_rankings() -> None:
    """The pure-Python one-query functions return exactly the batch's floats (not approx)."""
    rng = np.random.default_rng(7)
    pool = [f"p{i}" for i in range(300)]
    rankings: list[list[str]] = []
    judgments: list[dict[str, float]] = []
    for n in range(500):
        size = int(rng.integers(0, 400 if n % 50 == 0 else 30))  # some past the first discounts
        ranked = [str(p) for p in rng.choice(pool[: 40 + size], size=size)]  # repeats too
        judged_ids = rng.choice(pool[:60], size=int(rng.integers(0, 8)), replace=False)
        grades = rng.choice([-1.0, 0.0, 1.0, 2.0, 3.0, 0.5], size=len(judged_ids))
        rankings.append(ranked)
        judgments.append({str(p): float(g) for p, g in zip(judged_ids, grades, strict=True)})
    batch = RankedBatch.from_judgments(rankings, judgments)
    for k in (1, 3, 5, 10, 100, None):
        ndcg = batch.ndcg_at(k)
        recall = batch.recall_at(k)
        for i, (ranked, judged) in enumerate(zip(rankings, judgments, strict=True)):
            relevant = {pid for pid, grade in judged.items() if grade >= 1}
            assert ndcg_at(ranked, judged, k) == ndcg[i]
            assert recall_at(ranked, relevant, k) == recall[i]
            if k is None:
                continue
            assert success_at(ranked, relevant, k) == batch.success_at(k)[i]
            assert precision_at(ranked, relevant, k) == batch.precision_at(k)[i]
            assert reciprocal_rank(ranked, relevant, k) == batch.reciprocal_rank(k)[i]
            assert average_precision(ranked, relevant, k) == batch.average_precision(k)[i]
    for i, (ranked, judged) in enumerate(zip(rankings, judgments, strict=True)):
        relevant = [pid for pid, grade in judged.items() if grade >= 1]  # any collection
        assert reciprocal_rank(ranked, relevant) == batch.reciprocal_rank()[i]
        assert average_precision(ranked, relevant) == batch.average_precision()[i]
        assert r_precision(ranked, relevant) == batch.r_precision()[i]
