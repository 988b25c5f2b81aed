"""Scoring: run every layer on each item-attempt, then aggregate per item and over items.

Aggregation is the same for every layer and reads only the :class:`MetricSpec`: an item's
attempts are averaged (rates, means) or reduced to their worst (counts), then items are
aggregated with a Wilson interval (rates, and shares whose every item is 0 or 1), a bootstrap
interval (means) or, for quantiles,
pooled over attempts with an order-statistic interval. Failed attempts are in no population
but ``agent_error_rate``. A metric whose population is empty is :class:`Unscored` with the
reason its layer gave.
"""

from __future__ import annotations

import dataclasses
from array import array
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ragcard.aggregation.diagnosis import Diagnosis, diagnose
from ragcard.aggregation.stats import bootstrap_ci, quantile, quantile_ci, wilson_interval
from ragcard.inputs.questions import Question
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
from ragcard.metrics.correctness import CorrectnessLayer
from ragcard.metrics.currency import CurrencyLayer
from ragcard.metrics.operations import OperationsLayer
from ragcard.metrics.populations import empty_reason, population_of
from ragcard.metrics.relevance import RelevanceLayer
from ragcard.metrics.retrieval import RetrievalLayer
from ragcard.metrics.rubric import RubricLayer

__all__ = [
    "AccumulatorPart",
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
        CorrectnessLayer(),
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
        """The attempt's line in results.jsonl. Every score is per item; a pooled one (citation
        accuracy: supported pairs of all (sentence, cited passage) pairs) is written as its
        share, and the number of trials it is a share of goes in ``denominators``."""
        scores = self.values
        denominators: dict[str, float] = {}
        if self.trials:
            scores = dict(scores)
            for name, trials in self.trials.items():
                if name in scores and trials > 0:
                    scores[name] = scores[name] / trials
                    denominators[name] = int(trials) if float(trials).is_integer() else trials
        line: dict[str, Any] = {
            "scores": scores,
            "unscored": self.unscored,
            "evidence": self.evidence,
            "passed": self.passed,
            "diagnosis": [_diagnosis_json(d) for d in self.diagnoses],
        }
        if denominators:
            line["denominators"] = denominators
        return line


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
    labels: dict[str, str] = field(default_factory=dict)
    verdicts: dict[int, bool] = field(default_factory=dict)
    failed: set[int] = field(default_factory=set)  # attempts on which the agent failed
    abstained: set[int] = field(default_factory=set)  # attempts on which it abstained


class _Column:
    """One metric's values as they were added, an entry per attempt that has the metric: the
    item's position, the value, and (pooled metrics only) the attempt's trials. Packed: 16 or
    24 bytes an entry, summed per item only when a summary is asked for."""

    __slots__ = ("positions", "trials", "values")

    def __init__(self, pooled: bool) -> None:
        self.positions, self.values = array("q"), array("d")
        self.trials = array("d") if pooled else None


@dataclass(frozen=True, slots=True)
class _Table:
    """A column reduced per item, rows in item order (what every summary reads): each item's
    sum, attempts, max and trials; and every value with its item's position, in item order
    (stable: an item's values in the order they were added), for quantiles."""

    positions: npt.NDArray[np.int64]
    sums: npt.NDArray[np.float64]
    attempts: npt.NDArray[np.float64]
    maxes: npt.NDArray[np.float64]
    trials: npt.NDArray[np.float64]
    values: npt.NDArray[np.float64]
    value_positions: npt.NDArray[np.int64]

    @classmethod
    def of(cls, column: _Column, items: int, quantile: bool) -> _Table:
        positions = np.frombuffer(column.positions, dtype=np.int64)
        values = np.frombuffer(column.values, dtype=np.float64)
        # bincount adds each item's values left to right in the order they came, from 0.0
        sums = np.bincount(positions, values, items).astype(np.float64, copy=False)
        counts = np.bincount(positions, minlength=items)
        maxes = np.full(items, -np.inf)
        np.fmax.at(maxes, positions, values)  # (a NaN is never the max)
        trials: npt.NDArray[np.float64] = np.zeros(items)
        if column.trials is not None:
            weights = np.frombuffer(column.trials, np.float64)
            trials = np.bincount(positions, weights, items).astype(np.float64, copy=False)
        rows = np.flatnonzero(counts)
        pooled_values, value_positions = np.empty(0), np.empty(0, dtype=np.int64)
        if quantile:
            order = np.argsort(positions, kind="stable")
            pooled_values, value_positions = values[order], positions[order]
        return cls(
            rows.astype(np.int64),
            sums[rows],
            counts[rows].astype(np.float64),
            maxes[rows],
            trials[rows],
            pooled_values,
            value_positions,
        )


@dataclass(frozen=True, slots=True)
class AccumulatorPart:
    """What :meth:`ScoreAccumulator.part` exports (plain values: it pickles fast): the items
    in order of first attempt with their labels and verdicts, the reasons for unscored
    metrics, and each column's packed entries, positions among these items."""

    metrics: tuple[str, ...]
    items: list[tuple[str, dict[str, str], dict[int, bool], set[int], set[int]]]
    reasons: dict[str, Counter[str]]
    columns: list[tuple[bytes, bytes, bytes | None]]


class ScoreAccumulator:
    """Collects attempt scores item by item; summarises any subset of items on demand.

    Each attempt's values are appended to packed per-metric columns (16 bytes a value, 24 for
    pooled metrics; the text of the responses is not kept) and reduced per item with numpy
    when a summary is asked for. The per-metric tables, the summary over all items and each
    breakdown are computed once and reused (the decision and the scorecard both ask; a split
    is a mask over the same tables) until the next :meth:`add`. Accumulators filled apart
    (worker processes, chunk by chunk) :meth:`merge` into exactly what one would hold.
    """

    def __init__(self, specs: dict[str, MetricSpec]) -> None:
        self.specs = specs
        self.items: dict[str, _Item] = {}
        self.reasons: dict[str, Counter[str]] = {name: Counter() for name in specs}
        self._number = {name: n for n, name in enumerate(specs)}
        self._columns = [_Column(spec.kind == "pooled") for spec in specs.values()]
        self._tables: dict[str, _Table] | None = None
        self._summary: dict[str, MetricValue | Unscored] | None = None
        self._breakdowns: dict[str, dict[str, MetricValue | Unscored]] = {}

    def _changed(self) -> None:
        self._tables = self._summary = None
        if self._breakdowns:
            self._breakdowns.clear()

    def add(self, question: Question, score: AttemptScore) -> None:
        self._changed()
        item = self.items.get(question.id)
        if item is None:
            item = self.items[question.id] = _Item(question, len(self.items))
        number, columns, trials, position = self._number, self._columns, score.trials, item.position
        for name, value in score.values.items():
            metric = number.get(name)
            if metric is None:
                continue
            column = columns[metric]
            column.positions.append(position)
            column.values.append(value)
            if column.trials is not None:
                column.trials.append(trials.get(name, 0.0))
        if score.labels:
            item.labels.update(score.labels)
        for name, reason in score.unscored.items():
            if name in self.reasons:
                self.reasons[name][reason] += 1
        item.verdicts[score.attempt] = score.passed
        if score.failed:
            item.failed.add(score.attempt)
        elif score.evidence.get("abstained") is True:
            item.abstained.add(score.attempt)

    def part(self) -> AccumulatorPart:
        """This accumulator's content as plain values, for :meth:`merge` in another process."""
        return AccumulatorPart(
            tuple(self.specs),
            [
                (item_id, i.labels, i.verdicts, i.failed, i.abstained)
                for item_id, i in self.items.items()
            ],
            {name: counts for name, counts in self.reasons.items() if counts},
            [
                (
                    c.positions.tobytes(),
                    c.values.tobytes(),
                    None if c.trials is None else c.trials.tobytes(),
                )
                for c in self._columns
            ],
        )

    def merge(self, part: AccumulatorPart, questions: Mapping[str, Question]) -> None:
        """Fold in what another accumulator (same metrics) collected, as if its attempts had
        been added here one by one after this one's: same items, order, sums and labels."""
        if part.metrics != tuple(self.specs):
            raise ValueError("cannot merge accumulators of different metrics")
        self._changed()
        mapping = np.empty(len(part.items), dtype=np.int64)
        for local, (item_id, labels, verdicts, failed, abstained) in enumerate(part.items):
            item = self.items.get(item_id)
            if item is None:
                item = self.items[item_id] = _Item(questions[item_id], len(self.items))
            mapping[local] = item.position
            item.labels.update(labels)
            item.verdicts.update(verdicts)
            item.failed.update(failed)
            item.abstained.update(abstained)
        for name, counts in part.reasons.items():
            self.reasons[name].update(counts)
        for column, (positions, values, trials) in zip(self._columns, part.columns, strict=True):
            if not positions:
                continue
            column.positions.frombytes(mapping[np.frombuffer(positions, np.int64)].tobytes())
            column.values.frombytes(values)
            if column.trials is not None and trials is not None:
                column.trials.frombytes(trials)

    def summarise(
        self,
        keep: Callable[[Question], bool] | None = None,
        names: Sequence[str] | None = None,
    ) -> dict[str, MetricValue | Unscored]:
        """Aggregate every metric (or those ``names`` lists) over the items ``keep`` selects
        (all by default)."""
        whole = keep is None and names is None
        if whole and self._summary is not None:
            return dict(self._summary)
        tables = self._gather()
        mask = None
        if keep is not None:
            selected = (keep(i.question) for i in self.items.values())
            mask = np.fromiter(selected, dtype=bool, count=len(self.items))
        chosen = self.specs if names is None else {n: self.specs[n] for n in names}
        summary = {
            name: self._aggregate(spec, tables.get(name), mask) for name, spec in chosen.items()
        }
        if whole:
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

    def same_values(self) -> dict[str, str]:
        """Metrics whose every item value equals an earlier metric's of the same layer and
        kind, over the same items (a knowledge-base set whose unanswerable items all expect the
        flag the agent raises when it abstains makes ``flag_accuracy`` ``correct_abstention``
        again): later name → earlier name. Reports show such a pair as one row."""
        tables = self._gather()
        same: dict[str, str] = {}
        names = [name for name in self.specs if name in tables]
        for position, name in enumerate(names):
            spec, table = self.specs[name], tables[name]
            if spec.kind == "quantile":
                continue
            for earlier in names[:position]:
                other = self.specs[earlier]
                if earlier in same or (other.layer, other.kind) != (spec.layer, spec.kind):
                    continue
                if _same_table(tables[earlier], table):
                    same[name] = earlier
                    break
        return same

    def flaky(self) -> list[str]:
        """Items whose pass/fail verdict differs across attempts."""
        return [i.question.id for i in self.items.values() if len(set(i.verdicts.values())) > 1]

    def _gather(self) -> dict[str, _Table]:
        """Each metric with a value as a table (kept until the next :meth:`add`)."""
        if self._tables is None:
            items = len(self.items)
            self._tables = {
                name: _Table.of(column, items, spec.kind == "quantile")
                for (name, spec), column in zip(self.specs.items(), self._columns, strict=True)
                if len(column.values)
            }
        return self._tables

    def _aggregate(
        self, spec: MetricSpec, table: _Table | None, mask: npt.NDArray[np.bool_] | None
    ) -> MetricValue | Unscored:
        """One metric over the items ``mask`` selects (all when None), in item order."""
        if table is None:
            return Unscored(spec, self._reason(spec, mask))
        if spec.kind == "quantile":
            pooled = table.values
            if mask is not None:
                pooled = pooled[mask[table.value_positions]]
            if not len(pooled):
                return Unscored(spec, self._reason(spec, mask))
            q = spec.quantile if spec.quantile is not None else 0.5
            ci = quantile_ci(pooled, q)
            observed = (float(pooled.min()), float(pooled.max()))
            return MetricValue(spec, quantile(pooled, q), len(pooled), ci, observed=observed)
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
            return Unscored(spec, self._reason(spec, mask))
        if spec.kind == "count":
            return MetricValue(spec, float(np.count_nonzero(maxes > 0)), n)
        means = sums / attempts  # each item's mean over its attempts
        if spec.kind == "pooled":
            successes = sum(means.tolist())  # Python's sum: left to right, as over the items
            total = sum((trials / attempts).tolist())
            if total <= 0:
                return Unscored(spec, self._reason(spec, mask))
            pairs = max(1, round(total))
            value = successes / total
            return MetricValue(spec, value, pairs, wilson_interval(value * pairs, pairs))
        value = float(means.mean())
        if spec.kind == "rate" or (spec.share and _binary(means)):
            # a share whose every item is 0 or 1 is a proportion: Wilson, as for a rate (a
            # bootstrap of 169 ones is [1, 1], as if 169 items proved a perfect agent)
            return MetricValue(spec, value, n, wilson_interval(value * n, n))
        return MetricValue(spec, value, n, bootstrap_ci(means))

    def _reason(self, spec: MetricSpec, mask: npt.NDArray[np.bool_] | None = None) -> str:
        """Why ``spec`` has no value over the items ``mask`` selects, in this order: no item
        in its population; every attempt of those items failed; what its layer recorded on the
        items (no judge, the judge failed…); every attempt that did not fail abstained, for a
        measure over answers; else the population's own reason."""
        population = population_of(spec)
        items = [
            item
            for item in self.items.values()
            if (mask is None or mask[item.position])
            and (population is None or population.test(item.question))
        ]
        empty = empty_reason(spec)
        if not items:
            return empty
        attempts = sum(len(item.verdicts) for item in items)
        failed = sum(len(item.failed) for item in items)
        if failed and failed == attempts:
            return f"every attempt failed ({_attempts(failed)}): the agent gave no answer to score"
        reasons = self.reasons.get(spec.name)
        if reasons:
            return reasons.most_common(1)[0][0]
        abstained = sum(len(item.abstained) for item in items)
        if population is not None and population.answers and abstained:
            if abstained + failed == attempts:
                if not failed:
                    return f"every attempt abstained ({_attempts(abstained)}): no answer to score"
                return (
                    f"no answer to score: {_attempts(abstained)} abstained, "
                    f"{_attempts(failed)} failed"
                )
        return empty


def _attempts(n: int) -> str:
    return f"{n} attempt" if n == 1 else f"{n} attempts"


def _same_table(a: _Table, b: _Table) -> bool:
    return all(
        np.array_equal(x, y)
        for x, y in (
            (a.positions, b.positions),
            (a.sums, b.sums),
            (a.attempts, b.attempts),
            (a.trials, b.trials),
        )
    )


def _binary(values: npt.NDArray[np.float64]) -> bool:
    """Every value is exactly 0 or 1."""
    return bool(np.all((values == 0.0) | (values == 1.0)))


def _is(values: list[str | None], wanted: str) -> npt.NDArray[np.bool_]:
    return np.fromiter((v == wanted for v in values), dtype=bool, count=len(values))
