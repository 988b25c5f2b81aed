"""trec_eval semantics on small hand-checked runs: ranking, judging, options, output format."""

from __future__ import annotations

import math
import random

import pytest

from ragcard.errors import ConfigError, InputError
from ragcard.metrics.ranking import average_precision, precision_at
from ragcard.trec import evaluate, format_trec

# q1 ranks c (3.0), n (2.0), then the tie at 1.0 by docno descending: b before a, then u.
# Grades: c=2, n not in the qrels, b=0, a=1, u=-1 (pooled but unjudged).
QRELS = {
    "q1": {"a": 1, "b": 0, "c": 2, "u": -1},
    "q2": {"x": 1},
    "q3": {"y": 1},  # judged, but not in the run
}
RUN = {
    "q1": {"a": 1.0, "b": 1.0, "c": 3.0, "n": 2.0, "u": 0.5},
    "q2": {"z": 1.0, "x": 0.5},
    "q9": {"a": 1.0},  # not judged: ignored
}


def per_query(measures: list[str], **options: object) -> dict[str, dict[str, float]]:
    return evaluate(QRELS, RUN, measures, **options).query_values()  # type: ignore[arg-type]


def summary(measures: list[str], **options: object) -> dict[str, float | int | str]:
    return evaluate(QRELS, RUN, measures, **options).summary()  # type: ignore[arg-type]


def test_ties_break_by_docno_descending_and_rank_column_is_irrelevant() -> None:
    values = per_query(["map", "recip_rank", "P.4"])
    # Relevant at ranks 1 (c) and 4 (a, after b): (1/1 + 2/4) / 2. Insertion order would put
    # a third and give 0.8333.
    assert values["q1"]["map"] == pytest.approx(0.75)
    assert values["q1"]["recip_rank"] == 1.0
    assert values["q1"]["P_4"] == 0.5
    assert values["q2"]["map"] == pytest.approx(0.5)


def test_counts_and_queries_scored() -> None:
    values = per_query(["num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"])
    assert set(values) == {"q1", "q2"}  # q3 has no results, q9 no judgements
    # The unjudged document (rel -1) is neither relevant nor judged non-relevant.
    assert values["q1"] == {
        "num_ret": 5.0,
        "num_rel": 2.0,
        "num_rel_ret": 2.0,
        "num_nonrel_judged_ret": 1.0,
    }
    totals = summary(["num_q", "num_ret", "num_rel"])
    assert totals == {"num_q": 2, "num_ret": 7, "num_rel": 3}


def test_rprec_bpref_success() -> None:
    values = per_query(["Rprec", "bpref", "success.1,2"])
    assert values["q1"]["Rprec"] == 0.5  # R = 2: c relevant, n not
    # c: no judged non-relevant above it (1); a: b above it, 1 - min(1, 2) / min(1, 2) = 0.
    assert values["q1"]["bpref"] == 0.5
    assert values["q2"]["bpref"] == 1.0  # the unpooled z above x does not count
    assert values["q2"]["success_1"] == 0.0
    assert values["q2"]["success_2"] == 1.0


def test_ndcg_uses_grades_as_gains_and_all_judged_for_the_ideal() -> None:
    values = per_query(["ndcg", "ndcg_cut.1,3"])
    dcg = 2 + 1 / math.log2(5)
    ideal = 2 + 1 / math.log2(3)
    assert values["q1"]["ndcg"] == pytest.approx(dcg / ideal)
    assert values["q1"]["ndcg_cut_1"] == pytest.approx(1.0)
    assert values["q1"]["ndcg_cut_3"] == pytest.approx(2 / ideal)


def test_ndcg_gain_map() -> None:
    values = per_query(["ndcg.1=3"])
    expected = (2 + 3 / math.log2(5)) / (3 + 2 / math.log2(3))
    assert values["q1"]["ndcg_1=3"] == pytest.approx(expected)


def test_complete_counts_queries_missing_from_the_run_as_zero() -> None:
    result = evaluate(QRELS, RUN, ["num_q", "map", "num_rel", "gm_map"], complete=True)
    assert result.query_ids == ("q1", "q2", "q3")
    assert result.query_values()["q3"] == {"map": 0.0, "num_rel": 1.0}
    totals = result.summary()
    assert totals["num_q"] == 3
    assert totals["map"] == pytest.approx((0.75 + 0.5) / 3)
    assert totals["num_rel"] == 4
    geometric = math.exp((math.log(0.75) + math.log(0.5) + math.log(1e-5)) / 3)
    assert totals["gm_map"] == pytest.approx(geometric)


def test_geometric_mean_without_complete() -> None:
    assert summary(["gm_map"])["gm_map"] == pytest.approx(math.sqrt(0.75 * 0.5))


def test_max_results_cuts_each_ranking() -> None:
    values = per_query(["num_ret", "num_rel_ret", "map"], max_results=3)
    assert values["q1"] == {"num_ret": 3.0, "num_rel_ret": 1.0, "map": 0.5}


def test_relevance_level_applies_to_binary_measures_only() -> None:
    values = per_query(["num_rel", "map", "bpref", "ndcg"], relevance_level=2)
    assert values["q1"]["num_rel"] == 1.0
    assert values["q1"]["map"] == 1.0
    assert values["q1"]["bpref"] == 1.0
    assert values["q1"]["ndcg"] == pytest.approx(per_query(["ndcg"])["q1"]["ndcg"])
    assert values["q2"]["map"] == 0.0  # x (grade 1) is no longer relevant


def test_interpolated_precision_and_eleven_point_average() -> None:
    values = per_query(["iprec_at_recall.0,.5,1", "11pt_avg.0,.5,1"])
    # q1: precision 1 at the first relevant (rank 1), 2/4 at the second.
    assert values["q1"]["iprec_at_recall_0.00"] == 1.0
    assert values["q1"]["iprec_at_recall_0.50"] == 1.0
    assert values["q1"]["iprec_at_recall_1.00"] == 0.5
    assert values["q1"]["11pt_avg_0,.5,1"] == pytest.approx(2.5 / 3)


def test_queries_print_in_strcmp_order() -> None:
    qrels = {"9": {"a": 1}, "10": {"a": 1}}
    run = {"9": {"a": 1.0}, "10": {"a": 1.0}}
    assert evaluate(qrels, run, ["map"]).query_ids == ("10", "9")


def test_format_matches_trec_eval_byte_for_byte() -> None:
    result = evaluate(QRELS, RUN, ["runid", "num_ret", "map"], per_query=True, run_id="myrun")
    assert format_trec(result) == (
        "num_ret               \tq1\t5\n"
        "map                   \tq1\t0.7500\n"
        "num_ret               \tq2\t2\n"
        "map                   \tq2\t0.5000\n"
        "runid                 \tall\tmyrun\n"
        "num_ret               \tall\t7\n"
        "map                   \tall\t0.6250\n"
    )
    summary_only = evaluate(QRELS, RUN, ["map"])
    assert format_trec(summary_only) == "map                   \tall\t0.6250\n"


def test_no_common_query_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no query of the run has judgements"):
        evaluate({"1": {"a": 1}}, {"2": {"a": 1.0}}, ["map"])


@pytest.mark.parametrize(
    ("options", "message"),
    [({"max_results": 0}, "-M"), ({"relevance_level": -1}, "-l")],
)
def test_bad_options_are_config_errors(options: dict[str, int], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        evaluate(QRELS, RUN, ["map"], **options)  # type: ignore[arg-type]


def naive_trec_ranking(scores: dict[str, float]) -> list[str]:
    """trec_eval's order written the obvious way: score descending, then docno descending."""
    return sorted(scores, key=lambda doc: (scores[doc], doc), reverse=True)


@pytest.mark.parametrize(
    "lengths",
    [
        [20] * 30,  # every query the same depth
        [0, 5, 40, 1, 33, 0, 12],  # ragged, padded into a matrix
        [2000] + [1] * 100,  # too ragged to pad: one lexsort
    ],
)
def test_ranking_matches_the_obvious_implementation(lengths: list[int]) -> None:
    rng = random.Random(sum(lengths))
    run = {
        f"q{i}": {
            f"d{rng.randrange(10**6)}": rng.choice([0.5, 1.0, 1.5, rng.random()]) for _ in range(n)
        }
        for i, n in enumerate(lengths)
    }
    qrels = {
        qid: {doc: 1 for doc in docs if rng.random() < 0.3} | {"none": 0}
        for qid, docs in run.items()
    }
    result = evaluate(qrels, run, ["map", "P.3"], complete=True).query_values()
    for qid, scores in run.items():
        ranked = naive_trec_ranking(scores)
        relevant = {doc for doc, grade in qrels[qid].items() if grade >= 1}
        assert result[qid]["map"] == pytest.approx(average_precision(ranked, relevant)), qid
        assert result[qid]["P_3"] == pytest.approx(precision_at(ranked, relevant, 3)), qid


def test_nan_scores_are_refused() -> None:
    with pytest.raises(InputError, match="NaN"):
        evaluate({"q": {"a": 1}}, {"q": {"a": math.nan}}, ["map"])
