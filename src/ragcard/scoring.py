"""Scoring: run every layer on each item-attempt, then aggregate per item and over items.

Aggregation is the same for every layer and reads only the :class:`MetricSpec`: an item's
attempts are averaged (rates, means) or reduced to their worst (counts), then items are
aggregated with a Wilson interval (rates), a bootstrap interval (means) or, for quantiles,
pooled over attempts with an order-statistic interval. Failed attempts are in no population
but ``agent_error_rate``. A metric whose population is empty is :class:`Unscored` with the
reason its layer gave.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

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
            "diagnosis": [d.to_json() for d in self.diagnoses],
        }


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
        values.update(result.values)
        trials.update(result.trials)
        evidence.update(result.evidence)
        labels.update(result.labels)
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
    # name → [sum, attempts, max, trials]
    sums: dict[str, list[float]] = field(default_factory=dict)
    pooled: dict[str, list[float]] = field(default_factory=dict)  # quantile metrics
    labels: dict[str, str] = field(default_factory=dict)
    unscored: Counter[str] = field(default_factory=Counter)
    verdicts: dict[int, bool] = field(default_factory=dict)


class ScoreAccumulator:
    """Collects attempt scores item by item; summarises any subset of items on demand.

    Memory grows with items × metrics (a few numbers each), not with responses: attempts are
    folded in as they arrive and their text is not kept.
    """

    def __init__(self, specs: dict[str, MetricSpec]) -> None:
        self.specs = specs
        self.items: dict[str, _Item] = {}
        self.reasons: dict[str, Counter[str]] = {name: Counter() for name in specs}

    def add(self, question: Question, score: AttemptScore) -> None:
        item = self.items.setdefault(question.id, _Item(question))
        for name, value in score.values.items():
            spec = self.specs.get(name)
            if spec is None:
                continue
            if spec.kind == "quantile":
                item.pooled.setdefault(name, []).append(value)
            acc = item.sums.setdefault(name, [0.0, 0.0, float("-inf"), 0.0])
            acc[0] += value
            acc[1] += 1
            acc[2] = max(acc[2], value)
            acc[3] += score.trials.get(name, 0.0)
        item.labels.update(score.labels)
        for name, reason in score.unscored.items():
            if name in self.reasons:
                self.reasons[name][reason] += 1
        item.verdicts[score.attempt] = score.passed

    def summarise(
        self, keep: Callable[[Question], bool] | None = None
    ) -> dict[str, MetricValue | Unscored]:
        """Aggregate every metric over the items ``keep`` selects (all by default)."""
        items = [i for i in self.items.values() if keep is None or keep(i.question)]
        return {name: self._aggregate(spec, items) for name, spec in self.specs.items()}

    def breakdown(self, name: str) -> dict[str, MetricValue | Unscored]:
        """One metric per label (e.g. flag accuracy per expected flag)."""
        labels = sorted({i.labels[name] for i in self.items.values() if name in i.labels})
        spec = self.specs[name]
        return {
            label: self._aggregate(
                spec, [i for i in self.items.values() if i.labels.get(name) == label]
            )
            for label in labels
        }

    def flaky(self) -> list[str]:
        """Items whose pass/fail verdict differs across attempts."""
        return [i.question.id for i in self.items.values() if len(set(i.verdicts.values())) > 1]

    def _aggregate(self, spec: MetricSpec, items: Iterable[_Item]) -> MetricValue | Unscored:
        if spec.kind == "quantile":
            pooled = [v for i in items for v in i.pooled.get(spec.name, ())]
            if not pooled:
                return Unscored(spec, self._reason(spec))
            q = spec.quantile if spec.quantile is not None else 0.5
            return MetricValue(spec, quantile(pooled, q), len(pooled), quantile_ci(pooled, q))
        per_item = [i.sums[spec.name] for i in items if spec.name in i.sums]
        if not per_item:
            return Unscored(spec, self._reason(spec))
        n = len(per_item)
        if spec.kind == "count":
            return MetricValue(spec, float(sum(1 for acc in per_item if acc[2] > 0)), n)
        if spec.kind == "pooled":
            successes = sum(acc[0] / acc[1] for acc in per_item)
            trials = sum(acc[3] / acc[1] for acc in per_item)
            if trials <= 0:
                return Unscored(spec, self._reason(spec))
            pairs = max(1, round(trials))
            value = successes / trials
            return MetricValue(spec, value, pairs, wilson_interval(value * pairs, pairs))
        means = np.fromiter((acc[0] / acc[1] for acc in per_item), dtype=float, count=n)
        value = float(means.mean())
        if spec.kind == "rate":
            return MetricValue(spec, value, n, wilson_interval(value * n, n))
        return MetricValue(spec, value, n, bootstrap_ci(means))

    def _reason(self, spec: MetricSpec) -> str:
        reasons = self.reasons.get(spec.name)
        if reasons:
            return reasons.most_common(1)[0][0]
        return spec.empty_reason
