"""The scorecard's data: what a run measured, decided and why (docs/formats.md#scorecardjson,
docs/formats.md#resultsjsonl).

Rendering lives beside this module (:mod:`.markdown`, :mod:`.terminal`); ``scorecard.json`` is
:meth:`Scorecard.to_json` verbatim, a stable contract with a schema version.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragcard.aggregation.coverage import Coverage
from ragcard.aggregation.scoring import AttemptScore, ScoreAccumulator
from ragcard.decision.thresholds import Decision
from ragcard.errors import one_line
from ragcard.inputs.questions import Question
from ragcard.metrics.base import MetricSpec, MetricValue, RunMeasures, Unscored

__all__ = ["SCHEMA", "FailureTally", "Scorecard", "build_scorecard"]

SCHEMA = "ragcard.scorecard/1"
_EXAMPLES = 8


@dataclass(slots=True)
class _Cause:
    layer: str
    cause: str
    fix: str
    symptoms: Counter[str] = field(default_factory=Counter)
    items: dict[str, None] = field(default_factory=dict)
    attempts: int = 0


@dataclass(slots=True)
class _ItemFailures:
    item: str
    attempts: dict[int, list[str]] = field(default_factory=dict)
    rubric_zero: list[str] = field(default_factory=list)
    error: str | None = None
    failed: bool = False  # an attempt failed (``error`` is the last failed attempt's message)


class FailureTally:
    """Folds attempt diagnoses into causes (for the scorecard) and failing items."""

    def __init__(self) -> None:
        self.causes: dict[str, _Cause] = {}
        self.items: dict[str, _ItemFailures] = {}
        self.errors: Counter[str] = Counter()
        self.messages: Counter[str] = Counter()  # the failed attempts' error messages
        self.abstention_sources: Counter[str] = Counter()
        self.attempts = 0
        #: item → attempt → the passages it leaked, with channels, access and hashes
        #: (docs/metrics.md#measures:
        #: "each leak is listed with its evidence"); never restricted text
        self.leaks: dict[str, dict[int, list[dict[str, Any]]]] = {}

    def add(self, question: Question, score: AttemptScore) -> None:
        self.attempts += 1
        leaks = score.evidence.get("leaks")
        if leaks:
            self.leaks.setdefault(question.id, {})[score.attempt] = [_leak(x) for x in leaks]
        source = score.evidence.get("abstention_source")
        if source is not None:
            self.abstention_sources[source] += 1
        if score.failed:
            error = score.evidence.get("error", {})
            self.errors[error.get("kind", "unknown")] += 1
            self.messages[one_line(error.get("message") or "no message")] += 1
        if score.passed:
            return
        entry = self.items.setdefault(question.id, _ItemFailures(question.id))
        entry.attempts[score.attempt] = [d.symptom for d in score.diagnoses]
        entry.rubric_zero = sorted(
            set(entry.rubric_zero) | set(score.evidence.get("rubric_zero", []))
        )
        if score.failed:
            entry.error, entry.failed = score.evidence.get("error", {}).get("message"), True
        for diagnosis in score.diagnoses:
            cause = self.causes.setdefault(
                diagnosis.cause, _Cause(diagnosis.layer, diagnosis.cause, diagnosis.fix)
            )
            cause.symptoms[diagnosis.symptom] += 1
            cause.items.setdefault(question.id, None)
            cause.attempts += 1

    def merge(self, other: FailureTally) -> None:
        """Fold in another tally (a worker's) as if its attempts had been added here after
        this one's: same counts, items, causes and orders."""
        self.attempts += other.attempts
        for item, attempts in other.leaks.items():
            self.leaks.setdefault(item, {}).update(attempts)
        self.abstention_sources.update(other.abstention_sources)
        self.errors.update(other.errors)
        self.messages.update(other.messages)
        for item_id, theirs in other.items.items():
            entry = self.items.setdefault(item_id, _ItemFailures(item_id))
            entry.attempts.update(theirs.attempts)
            entry.rubric_zero = sorted(set(entry.rubric_zero) | set(theirs.rubric_zero))
            if theirs.failed:
                entry.error, entry.failed = theirs.error, True
        for key, theirs_cause in other.causes.items():
            cause = self.causes.setdefault(
                key, _Cause(theirs_cause.layer, theirs_cause.cause, theirs_cause.fix)
            )
            cause.symptoms.update(theirs_cause.symptoms)
            cause.items.update(theirs_cause.items)
            cause.attempts += theirs_cause.attempts


_LEAK_FIELDS = ("id", "channels", "access", "shared_ngrams", "restricted_figures", "match_sha256")


def _leak(evidence: dict[str, Any]) -> dict[str, Any]:
    """A leak's evidence as the scorecard shows it: ids, channels, access, counts, a hash."""
    return {name: evidence[name] for name in _LEAK_FIELDS if name in evidence}


def _leak_rows(tally: FailureTally) -> list[dict[str, Any]]:
    """One row per leaking item: the attempts that leaked and each passage with how it leaked
    (channels merged over the attempts)."""
    rows = []
    for item, attempts in sorted(tally.leaks.items()):
        passages: dict[str, dict[str, Any]] = {}
        for found in attempts.values():
            for leak in found:
                entry = passages.setdefault(leak["id"], {**leak, "channels": []})
                entry["channels"] = sorted(set(entry["channels"]) | set(leak.get("channels", [])))
        found_in = sorted(attempts)
        rows.append({"item": item, "attempts": found_in, "passages": list(passages.values())})
    return rows


@dataclass(frozen=True, slots=True)
class Scorecard:
    header: dict[str, Any]
    config: dict[str, Any]
    decision: Decision
    metrics: dict[str, MetricValue | Unscored]
    specs: dict[str, MetricSpec]
    breakdowns: dict[str, dict[str, MetricValue | Unscored]]
    splits: dict[str, dict[str, MetricValue | Unscored]]
    categories: list[dict[str, Any]]
    causes: list[dict[str, Any]]
    failures: list[dict[str, Any]]
    errors: dict[str, Any]
    flaky: list[dict[str, Any]]
    #: attempts by what decided whether they abstained: field, flag, judge, phrases
    abstention_sources: dict[str, int] = field(default_factory=dict)
    #: failed attempts and lost items (:meth:`ragcard.aggregation.coverage.Coverage.to_json`)
    coverage: dict[str, Any] = field(default_factory=dict)
    #: each leaking item with its evidence (passage ids, channels, access, hashes)
    leaks: list[dict[str, Any]] = field(default_factory=list)
    #: a measure whose every item value equals an earlier one's (same items, same verdicts) →
    #: that measure; the reports show the two as one row
    same_as: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            **self.header,
            "decision": self.decision.decision,
            "decision_reasons": list(self.decision.reasons),
            "config": self.config,
            "metrics": _values(self.metrics),
            "unscored": {n: m.reason for n, m in self.metrics.items() if isinstance(m, Unscored)},
            "metric_specs": {
                n: {
                    "layer": s.layer,
                    "kind": s.kind,
                    "higher_is_better": s.higher_is_better,
                    "description": s.description,
                }
                for n, s in self.specs.items()
            },
            "breakdowns": {name: _values(by) for name, by in self.breakdowns.items()},
            "splits": {name: _values(by) for name, by in self.splits.items()},
            "categories": self.categories,
            "thresholds": [r.to_json() for r in self.decision.results],
            "diagnosis": self.causes,
            "failures": self.failures,
            "errors": self.errors,
            "flaky": self.flaky,
            "abstention_sources": self.abstention_sources,
            "coverage": self.coverage,
            "leaks": self.leaks,
            "same_as": self.same_as,
        }


def _values(metrics: dict[str, MetricValue | Unscored]) -> dict[str, Any]:
    return {n: m.to_json() for n, m in metrics.items() if isinstance(m, MetricValue)}


def _category_rows(acc: ScoreAccumulator, tally: FailureTally) -> list[dict[str, Any]]:
    counts: Counter[str] = Counter()
    failing: Counter[str] = Counter()
    for item in acc.items.values():
        category = item.question.category or "uncategorised"
        counts[category] += 1
        if item.question.id in tally.items:
            failing[category] += 1
    rows = []
    judged = [name for name in _BY_CATEGORY if name in acc.specs]
    for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        row: dict[str, Any] = {
            "category": c,
            "items": n,
            "failing_items": failing[c],
            "below_20": n < 20,
        }
        if judged:
            figures = acc.summarise(_in_category(c), judged)
            row.update(
                {name: m.to_json() for name, m in figures.items() if isinstance(m, MetricValue)}
            )
        rows.append(row)
    return rows


#: Measures the Categories table shows per category (when the run scored them).
_BY_CATEGORY = ("answer_correctness", "answer_wrong")


def _in_category(category: str) -> Callable[[Question], bool]:
    return lambda question: (question.category or "uncategorised") == category


def _causes(tally: FailureTally) -> list[dict[str, Any]]:
    ordered = sorted(tally.causes.values(), key=lambda c: (-len(c.items), -c.attempts, c.cause))
    return [
        {
            "layer": c.layer,
            "cause": c.cause,
            "try": c.fix,
            "items": len(c.items),
            "attempts": c.attempts,
            # ties and examples in a fixed order, not the order attempts happened to finish
            "symptoms": dict(sorted(c.symptoms.items(), key=lambda kv: (-kv[1], kv[0]))),
            "examples": sorted(c.items)[:_EXAMPLES],
        }
        for c in ordered
    ]


def _failures(acc: ScoreAccumulator, tally: FailureTally) -> list[dict[str, Any]]:
    rows = []
    for entry in tally.items.values():
        q = acc.items[entry.item].question
        rows.append(
            {
                "item": q.id,
                "category": q.category,
                "must_pass": q.must_pass,
                "split": q.split,
                "failed_attempts": sorted(entry.attempts),
                "symptoms": sorted({s for symptoms in entry.attempts.values() for s in symptoms}),
                "rubric_zero": entry.rubric_zero,
                "error": entry.error,
            }
        )
    rows.sort(key=lambda r: (not r["must_pass"], r["category"] or "", r["item"]))
    return rows


def _flaky(acc: ScoreAccumulator, tally: FailureTally) -> list[dict[str, Any]]:
    """Items whose verdict differs across attempts, with the attempts side by side."""
    rows = []
    for item_id in acc.flaky():
        item = acc.items[item_id]
        failed = tally.items[item_id].attempts if item_id in tally.items else {}
        attempts = {
            str(n): "pass" if ok else "fail: " + "; ".join(failed.get(n, []))
            for n, ok in sorted(item.verdicts.items())
        }
        rows.append(
            {
                "item": item_id,
                "category": item.question.category,
                "must_pass": item.question.must_pass,
                "attempts": attempts,
            }
        )
    return rows


def _in_split(split: str) -> Callable[[Question], bool]:
    return lambda question: question.split == split


def build_scorecard(
    header: dict[str, Any],
    config: dict[str, Any],
    decision: Decision,
    acc: ScoreAccumulator,
    tally: FailureTally,
    breakdown_metrics: tuple[str, ...] = ("flag_accuracy",),
    coverage: Coverage | None = None,
    measures: Sequence[RunMeasures] = (),
) -> Scorecard:
    """Assemble the scorecard from the folded scores, the failures and the decision; with
    ``coverage``, each measure computed on a partial population says so; the run-level
    ``measures`` (the red team's) come after the layers' own."""
    metrics = acc.summarise() if coverage is None else coverage.apply(acc.summarise())
    specs = dict(acc.specs)
    breakdowns = {name: acc.breakdown(name) for name in breakdown_metrics if name in acc.specs}
    for extra in measures:
        metrics.update(extra.values)
        specs.update(extra.specs)
        breakdowns.update(extra.breakdowns)
    splits: dict[str, dict[str, MetricValue | Unscored]] = {
        split: acc.summarise(_in_split(split))
        for split in sorted({i.question.split for i in acc.items.values()})
    }
    if coverage is not None:
        breakdowns = {name: coverage.apply(by, breakdown=name) for name, by in breakdowns.items()}
        splits = {name: coverage.apply(by, split=name) for name, by in splits.items()}
    errors = {
        "attempts": sum(tally.errors.values()),
        "by_kind": dict(tally.errors),
        "total_attempts": tally.attempts,
        # the commonest messages, so the scorecard says why without opening results.jsonl
        "messages": [[message, n] for message, n in tally.messages.most_common(3)],
    }
    return Scorecard(
        header=header,
        config=config,
        decision=decision,
        metrics=metrics,
        specs=specs,
        breakdowns=breakdowns,
        splits=splits,
        categories=_category_rows(acc, tally),
        causes=_causes(tally),
        failures=_failures(acc, tally),
        errors=errors,
        flaky=_flaky(acc, tally),
        abstention_sources=dict(tally.abstention_sources.most_common()),
        coverage=coverage.to_json() if coverage is not None else {},
        leaks=_leak_rows(tally),
        same_as=acc.same_values(),
    )
