"""Score a run against qrels the way trec_eval does: which queries count, and the averages."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragcard.errors import ConfigError, InputError, Problem
from ragcard.trec.compute import Scoring, compute
from ragcard.trec.measures import Measure, Summary, parse_measures
from ragcard.trec.ranking import rank_run

__all__ = ["MeasureColumn", "TrecResult", "evaluate"]

# trec_eval's MIN_GEO_MEAN: a query with AP 0 would make the geometric mean 0 for every run.
_GEOMETRIC_FLOOR = 1e-5


@dataclass(frozen=True, slots=True, eq=False)
class MeasureColumn:
    """One printed measure (``P_5``, ``map``, ``num_ret``): its per-query values and summary.

    Attributes:
        name: the name trec_eval prints.
        values: one value per query of :attr:`TrecResult.query_ids`; ``None`` for the
            measures printed on the summary line only (``runid``, ``num_q``, ``gm_map``).
        summary: the ``all`` value: a mean, a sum for counts, the run id for ``runid``.
        integer: printed as a whole number (counts) rather than with 4 decimals.
    """

    name: str
    values: npt.NDArray[np.float64] | None
    summary: float | int | str
    integer: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class TrecResult:
    """The outcome of :func:`evaluate`, ready for :func:`~ragcard.trec.format_trec`.

    Attributes:
        query_ids: the queries scored, in trec_eval's order (``strcmp`` on the id).
        columns: the measures in trec_eval's print order.
        per_query: whether per-query lines are wanted (trec_eval's ``-q``).
        not_implemented: measures of a requested set (``all_trec``) ragcard does not compute.
    """

    query_ids: tuple[str, ...]
    columns: tuple[MeasureColumn, ...]
    per_query: bool = False
    not_implemented: tuple[str, ...] = ()

    def summary(self) -> dict[str, float | int | str]:
        """The ``all`` line: printed name → value."""
        return {column.name: column.summary for column in self.columns}

    def query_values(self) -> dict[str, dict[str, float]]:
        """Per-query values: query id → printed name → value (summary-only measures left out)."""
        table: dict[str, dict[str, float]] = {qid: {} for qid in self.query_ids}
        for column in self.columns:
            if column.values is None:
                continue
            for qid, value in zip(self.query_ids, column.values.tolist(), strict=True):
                table[qid][column.name] = value
        return table


def evaluate(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    measures: Iterable[str] | None = None,
    *,
    per_query: bool = False,
    complete: bool = False,
    max_results: int | None = None,
    relevance_level: int = 1,
    run_id: str = "",
) -> TrecResult:
    """Score ``run`` against ``qrels`` as ``trec_eval`` does.

    Args:
        qrels: query id → document id → relevance grade (negative: pooled but unjudged).
        run: query id → document id → score; documents rank by score, highest first, equal
            scores by document id in descending order (the rank column of a run file is ignored).
        measures: ``-m`` arguments in trec_eval's syntax (``"P.5,10"``, ``"ndcg_cut.10"``,
            ``"map"``, ``"all_trec"``); default: trec_eval's ``official`` set.
        per_query: keep per-query lines for printing (``-q``); values are computed either way.
        complete: average over every query in ``qrels``, a query missing from the run scoring
            0 (``-c``); otherwise queries without results are skipped.
        max_results: rank only the first ``max_results`` documents of each query (``-M``).
        relevance_level: lowest grade that counts as relevant for binary measures (``-l``);
            nDCG always uses the grades themselves.
        run_id: printed by the ``runid`` measure.

    Queries in the run but not in the qrels are ignored, as trec_eval ignores them.

    Raises:
        ConfigError: an unknown measure, bad measure parameters, or a bad option value.
        InputError: no query of the run has judgements in the qrels.
    """
    if max_results is not None and max_results < 1:
        raise ConfigError(f"-M (max results per query) must be at least 1, got {max_results}")
    if relevance_level < 0:
        raise ConfigError(
            f"-l (relevance level) must be 0 or more, got {relevance_level}: negative grades "
            "mark unjudged documents, which are never relevant"
        )
    selection = parse_measures(measures)
    query_ids = _queries_to_score(qrels, run, complete)
    ranked = rank_run(qrels, run, query_ids, max_results)
    scoring = Scoring(ranked, relevance_level)
    columns: list[MeasureColumn] = []
    for measure in selection.measures:
        columns.extend(_columns(scoring, measure, run_id))
    return TrecResult(ranked.query_ids, tuple(columns), per_query, selection.not_implemented)


def _queries_to_score(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    complete: bool,
) -> list[str]:
    if complete:
        query_ids = sorted(qrels)
    else:
        query_ids = sorted(qid for qid in run if qid in qrels)
    if not query_ids:
        sample_run = ", ".join(sorted(run)[:3]) or "none"
        sample_qrels = ", ".join(sorted(qrels)[:3]) or "none"
        raise InputError(
            Problem(
                "run",
                None,
                "qid",
                "no query of the run has judgements in the qrels",
                f"run queries: {sample_run}…; qrels queries: {sample_qrels}…",
                "check that the two files use the same query ids",
            ),
            "nothing to score",
        )
    return query_ids


def _columns(scoring: Scoring, measure: Measure, run_id: str) -> list[MeasureColumn]:
    definition = measure.definition
    n_queries = scoring.run.n_queries
    if definition.summary is Summary.RUN_ID:
        return [MeasureColumn(measure.name, None, run_id)]
    if definition.summary is Summary.QUERIES:
        return [MeasureColumn(measure.name, None, n_queries, integer=True)]
    columns = []
    for name, values in compute(scoring, measure):
        summary: float | int
        if definition.summary is Summary.SUM:
            summary = int(values.sum())
        elif definition.summary is Summary.GEOMETRIC:
            summary = float(np.exp(np.log(np.maximum(values, _GEOMETRIC_FLOOR)).mean()))
        else:
            summary = float(values.mean())
        kept = None if definition.summary_only else values.astype(np.float64)
        columns.append(MeasureColumn(name, kept, summary, definition.integer))
    return columns
