"""trec_eval-compatible retrieval scoring: ``ragcard trec QRELS RUN [-m MEASURE …] [-q]``.

Reads TREC qrels and run files, ranks and judges the run as NIST's ``trec_eval`` does (score
descending, ties by document id descending; unjudged and unpooled documents never relevant),
computes its measures with its names and parameter syntax, and prints its output format::

    from ragcard.trec import evaluate, format_trec, read_qrels, read_run

    run = read_run(Path("run.txt"))
    result = evaluate(read_qrels(Path("qrels.txt")), run.scores, ["map", "P.5,10", "ndcg_cut.10"],
                      per_query=True, run_id=run.run_id)
    print(format_trec(result), end="")

The rank formulas are shared with the kit's per-item metrics (:mod:`ragcard.metrics.ranking`).
"""

from __future__ import annotations

from ragcard.trec.evaluate import MeasureColumn, TrecResult, evaluate
from ragcard.trec.files import Qrels, Run, RunFile, read_qrels, read_run
from ragcard.trec.format import format_trec
from ragcard.trec.measures import MEASURES, NICKNAMES, Measure, MeasureSelection, parse_measures

__all__ = [
    "MEASURES",
    "NICKNAMES",
    "Measure",
    "MeasureColumn",
    "MeasureSelection",
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
