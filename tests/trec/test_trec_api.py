"""The public surface of ``ragcard.trec`` and ``ragcard.metrics.ranking``, pinned."""

from __future__ import annotations

import ragcard.metrics.ranking as ranking
import ragcard.trec as trec


def test_trec_public_names() -> None:
    assert sorted(trec.__all__) == [
        "MEASURES",
        "Measure",
        "MeasureColumn",
        "MeasureSelection",
        "NICKNAMES",
        "Qrels",
        "Run",
        "RunFile",
        "TrecResult",
        "evaluate",
        "format_trec",
        "parse_measures",
        "read_qrels",
        "read_run",
    ]
    assert all(hasattr(trec, name) for name in trec.__all__)


def test_ranking_public_names() -> None:
    assert sorted(ranking.__all__) == [
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
    assert all(hasattr(ranking, name) for name in ranking.__all__)
