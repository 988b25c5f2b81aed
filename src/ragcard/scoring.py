"""Scoring: run every layer on each item-attempt, then aggregate per item and over items.

Aggregation is the same for every layer and reads only the :class:`MetricSpec`: an item's
attempts are averaged (rates, means) or reduced to their worst (counts), then items are
aggregated with a Wilson interval (rates), a bootstrap interval (means) or, for quantiles,
pooled over attempts with an order-statistic interval. Failed attempts are in no population
but ``agent_error_rate``. A metric whose population is empty is :class:`Unscored` with the
reason its layer gave.
"""

from __future__ import annotations

import dataclasses
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ragcard.diagnosis import Diagnosis, diagnose
from ragcard.metrics.abstention import AbstentionLayer
from ragcard.metrics.access import AccessLayer
from ragcard.metrics.attribution import AttributionLayer
from ragcard.metrics.base import (
    AttemptContext,
    Layer,
    MetricSpec,
    MetricValue,
    ScoringSettings,
    Unscored,
)
from ragcard.metrics.citation import CitationLayer
from ragcard.metrics.currency import CurrencyLayer
from ragcard.metrics.operations import OperationsLayer
from ragcard.metrics.relevance import RelevanceLayer
from ragcard.metrics.retrieval import RetrievalLayer
from ragcard.metrics.rubric import RubricLayer
from ragcard.questions import Question
from ragcard.stats import bootstrap_ci, quantile, quantile_ci, wilson_interval

__all__ = [
    "AttemptScore",
    "ScoreAccumulator",
    "default_layers",
    "metric_specs",
    "score_attempt",
]


RETRIEVAL_ONLY = "retrieval-only run: the agent was asked for passages, not answers"
_RETRIEVAL_ONLY_LAYERS = frozenset({"retrieval", "access", "latency", "operations"})


def default_layers() -> tuple[Layer, ...]:
    """The deterministic layers, in reporting order."""
    return (
        RetrievalLayer(),
        CitationLayer(),
        CurrencyLayer(),
        AbstentionLayer(),
        AccessLayer(),
        AttributionLayer(),
        RelevanceLayer(),
        RubricLayer(),
        OperationsLayer(),
    )


def metric_specs(layers: Sequence[Layer], settings: ScoringSettings) -> dict[str, MetricSpec]:
    """Every metric the layers declare, by canonical name (a duplicate name is a bug)."""
    specs: dict[str, MetricSpec] = {}
    for layer in layers:
        for spec in layer.metrics(settings):
            if spec.name in specs:
                raise ValueError(f"metric {spec.name!r} declared by two layers")
            specs[spec.name] = spec
    return specs


@dataclass(frozen=True, slots=True)
class AttemptScore:
    """Everything scored on one item-attempt."""

    item: str
    attempt: int
    values: dict[str, float]
    evidence: dict[str, Any]
    labels: dict[str, str]
    unscored: dict[str, str]
    diagnoses: tuple[Diagnosis, ...]
    failed: bool
    trials: dict[str, float] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.diagnoses

    def to_json(self) -> dict[str, Any]:
        return {
            "scores": self.values,
            "unscored": self.unscored,
            "evidence": self.evidence,
            "passed": self.passed,
            "diagnosis": [_diagnosis_json(d) for d in self.diagnoses],
        }


_DIAGNOSIS_FIELDS = tuple(f.name for f in dataclasses.fields(Diagnosis))


def _diagnosis_json(diagnosis: Diagnosis) -> dict[str, str]:
    """``diagnosis.to_json()`` (``dataclasses.asdict``) for its flat string fields, without
    asdict's recursive copy: results.jsonl writes one or two of these per attempt."""
    return {name: getattr(diagnosis, name) for name in _DIAGNOSIS_FIELDS}


def score_attempt(ctx: AttemptContext, layers: Sequence[Layer]) -> AttemptScore:
    """Run each layer on one attempt, then the rubric's hard-zero rules and the diagnosis."""
    values: dict[str, float] = {}
    evidence: dict[str, Any] = {}
    labels: dict[str, str] = {}
    unscored: dict[str, str] = {}
    trials: dict[str, float] = {}
    finishers = []
    for layer in layers:
        result = layer.score(ctx)
        if result.values:  # (most of a layer's five dicts are empty: skip those)
            values.update(result.values)
        if result.trials:
            trials.update(result.trials)
        if result.evidence:
            evidence.update(result.evidence)
        if result.labels:
            labels.update(result.labels)
        if result.unscored:
            unscored.update(result.unscored)
        finish = getattr(layer, "finish", None)
        if finish is not None:
            finishers.append(finish)
    for finish in finishers:
        result = finish(ctx, values)
        values.update(result.values)
        evidence.update(result.evidence)
    if ctx.settings.retrieval_only:
        for layer in layers:
            for spec in layer.metrics(ctx.settings):
                if spec.name not in values and spec.layer not in _RETRIEVAL_ONLY_LAYERS:
                    unscored.setdefault(spec.name, RETRIEVAL_ONLY)
    failure_kind = ctx.failure.kind if ctx.failure else None
    diagnoses = diagnose(ctx.question, values, evidence, ctx.settings.k, failure_kind)
    if evidence.get("rubric_zero") and not diagnoses:
        diagnoses = [
            Diagnosis(
                "rubric",
                "; ".join(evidence["rubric_zero"]),
                "see evidence",
                "inspect the item",
                "rubric.zero",
            )
        ]
    return AttemptScore(
        ctx.question.id,
        ctx.attempt,
        values,
        evidence,
        labels,
        unscored,
        tuple(diagnoses),
        ctx.failure is not None,
        trials,
    )


@dataclass(slots=True)
class _Item:
    question: Question
    position: int  # among the accumulator's items, in order of first attempt
    rows: list[int]  # metric number → this item's row in the metric's column (-1: none yet)
    labels: dict[str, str] = field(default_factory=dict)
    verdicts: dict[int, bool] = field(default_factory=dict)


class _Column:
    """One metric's running aggregates: a row per item that has the metric (rows in the order
    items first got it) with the item's position and its sum, attempts, max and trials over
    attempts; for quantiles, also every value with its item's position. Packed doubles: a
    few dozen bytes per item and metric."""

    __slots__ = ("attempts", "maxes", "positions", "sums", "trials", "value_positions", "values")

    def __init__(self) -> None:
        self.positions = array("q")
        self.sums, self.attempts, self.maxes, self.trials = (array("d") for _ in range(4))
        self.values, self.value_positions = array("d"), array("q")


@dataclass(frozen=True, slots=True)
class _Table:
    """A column as numpy arrays, rows in item order (what every summary reads)."""

    positions: npt.NDArray[np.int64]
    sums: npt.NDArray[np.float64]
    attempts: npt.NDArray[np.float64]
    maxes: npt.NDArray[np.float64]
    trials: npt.NDArray[np.float64]
    values: npt.NDArray[np.float64]
    value_positions: npt.NDArray[np.int64]

    @classmethod
    def of(cls, column: _Column) -> _Table:
        positions = np.array(column.positions, dtype=np.int64)
        order = np.argsort(positions, kind="stable")
        value_positions = np.array(column.value_positions, dtype=np.int64)
        value_order = np.argsort(value_positions, kind="stable")
        doubles = (column.sums, column.attempts, column.maxes, column.trials)
        sums, attempts, maxes, trials = (np.array(d, dtype=np.float64)[order] for d in doubles)
        values = np.array(column.values, dtype=np.float64)[value_order]
        return cls(
            positions[order], sums, attempts, maxes, trials, values, value_positions[value_order]
        )


class ScoreAccumulator:
    """Collects attempt scores item by item; summarises any subset of items on demand.

    Memory grows with items × metrics (a few numbers each, packed), not with responses:
    attempts are folded in as they arrive and their text is not kept. The per-metric tables,
    the summary over all items and each breakdown are computed once and reused (the decision
    and the scorecard both ask; a split is a mask over the same tables) until the next
    :meth:`add`.
    """

    def __init__(self, specs: dict[str, MetricSpec]) -> None:
        self.specs = specs
        self.items: dict[str, _Item] = {}
        self.reasons: dict[str, Counter[str]] = {name: Counter() for name in specs}
        self._number = {name: n for n, name in enumerate(specs)}
        self._columns = [_Column() for _ in specs]
        self._quantiles = frozenset(n for n, spec in specs.items() if spec.kind == "quantile")
        self._tables: dict[str, _Table] | None = None
        self._summary: dict[str, MetricValue | Unscored] | None = None
        self._breakdowns: dict[str, dict[str, MetricValue | Unscored]] = {}

    def add(self, question: Question, score: AttemptScore) -> None:
        self._tables = self._summary = None
        if self._breakdowns:
            self._breakdowns.clear()
        item = self.items.get(question.id)
        if item is None:
            rows = [-1] * len(self._columns)
            item = self.items[question.id] = _Item(question, len(self.items), rows)
        number, columns, rows, trials = self._number, self._columns, item.rows, score.trials
        quantiles = self._quantiles
        for name, value in score.values.items():
            metric = number.get(name)
            if metric is None:
                continue
            column, row = columns[metric], rows[metric]
            if row < 0:
                row = rows[metric] = len(column.sums)
                column.positions.append(item.position)
                column.sums.append(0.0)
                column.attempts.append(0.0)
                column.maxes.append(float("-inf"))
                column.trials.append(0.0)
            column.sums[row] += value
            column.attempts[row] += 1
            if value > column.maxes[row]:  # max(max, value)
                column.maxes[row] = value
            if trials:  # (adding 0.0 to a sum of trials, never -0.0, changes nothing)
                column.trials[row] += trials.get(name, 0.0)
            if name in quantiles:
                column.values.append(value)
                column.value_positions.append(item.position)
        if score.labels:
            item.labels.update(score.labels)
        for name, reason in score.unscored.items():
            if name in self.reasons:
                self.reasons[name][reason] += 1
        item.verdicts[score.attempt] = score.passed

    def summarise(
        self, keep: Callable[[Question], bool] | None = None
    ) -> dict[str, MetricValue | Unscored]:
        """Aggregate every metric over the items ``keep`` selects (all by default)."""
        if keep is None and self._summary is not None:
            return dict(self._summary)
        tables = self._gather()
        mask = None
        if keep is not None:
            selected = (keep(i.question) for i in self.items.values())
            mask = np.fromiter(selected, dtype=bool, count=len(self.items))
        summary = {
            name: self._aggregate(spec, tables.get(name), mask) for name, spec in self.specs.items()
        }
        if keep is None:
            self._summary = summary
        return dict(summary)

    def breakdown(self, name: str) -> dict[str, MetricValue | Unscored]:
        """One metric per label (e.g. flag accuracy per expected flag); ``name`` must be one of
        :attr:`specs` (the layers of a run decide which metrics exist)."""
        if name not in self.specs:
            raise KeyError(f"no metric {name!r} in this run to break down")
        if name not in self._breakdowns:
            labels = [i.labels.get(name) for i in self.items.values()]
            table = self._gather().get(name)
            spec = self.specs[name]
            self._breakdowns[name] = {
                label: self._aggregate(spec, table, _is(labels, label))
                for label in sorted({x for x in labels if x is not None})
            }
        return dict(self._breakdowns[name])

    def flaky(self) -> list[str]:
        """Items whose pass/fail verdict differs across attempts."""
        return [i.question.id for i in self.items.values() if len(set(i.verdicts.values())) > 1]

    def _gather(self) -> dict[str, _Table]:
        """Each metric with a value as a table (kept until the next :meth:`add`)."""
        if self._tables is None:
            self._tables = {
                name: _Table.of(column)
                for name, column in zip(self.specs, self._columns, strict=True)
                if len(column.sums)
            }
        return self._tables

    def _aggregate(
        self, spec: MetricSpec, table: _Table | None, mask: npt.NDArray[np.bool_] | None
    ) -> MetricValue | Unscored:
        """One metric over the items ``mask`` selects (all when None), in item order."""
        if table is None:
            return Unscored(spec, self._reason(spec))
        if spec.kind == "quantile":
            pooled = table.values
            if mask is not None:
                pooled = pooled[mask[table.value_positions]]
            if not len(pooled):
                return Unscored(spec, self._reason(spec))
            q = spec.quantile if spec.quantile is not None else 0.5
            return MetricValue(spec, quantile(pooled, q), len(pooled), quantile_ci(pooled, q))
        sums, attempts, maxes, trials = table.sums, table.attempts, table.maxes, table.trials
        if mask is not None:
            chosen = mask[table.positions]
            sums, attempts, maxes, trials = (
                sums[chosen],
                attempts[chosen],
                maxes[chosen],
                trials[chosen],
            )
        n = len(sums)
        if not n:
            return Unscored(spec, self._reason(spec))
        if spec.kind == "count":
            return MetricValue(spec, float(np.count_nonzero(maxes > 0)), n)
        means = sums / attempts  # each item's mean over its attempts
        if spec.kind == "pooled":
            successes = sum(means.tolist())  # Python's sum: left to right, as over the items
            total = sum((trials / attempts).tolist())
            if total <= 0:
                return Unscored(spec, self._reason(spec))
            pairs = max(1, round(total))
            value = successes / total
            return MetricValue(spec, value, pairs, wilson_interval(value * pairs, pairs))
        value = float(means.mean())
        if spec.kind == "rate":
            return MetricValue(spec, value, n, wilson_interval(value * n, n))
        return MetricValue(spec, value, n, bootstrap_ci(means))

    def _reason(self, spec: MetricSpec) -> str:
        reasons = self.reasons.get(spec.name)
        if reasons:
            return reasons.most_common(1)[0][0]
        return spec.empty_reason


def _is(values: list[str | None], wanted: str) -> npt.NDArray[np.bool_]:
    return np.fromiter((v == wanted for v in values), dtype=bool, count=len(values))
