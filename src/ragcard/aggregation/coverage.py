"""Coverage: how much of what a measure should have seen it saw, and failed attempts as a gate.

A failed item-attempt (timeout, refused call, malformed output, a crash) is in no population
but ``agent_error_rate``; the other measures are computed on the survivors. Left alone, a run
whose agent failed 95% of its calls would be scored on the 5% that answered and could ship.
So:

* :class:`CoverageTally` counts, per item, the attempts that answered and those that failed (by
  kind), folded as attempts are scored (and merged from worker processes);
* an item none of whose attempts answered is *lost*. Whether a lost item belongs to a measure's
  population cannot be read from an answer it never gave, so it is read from the item itself:
  the layers score a stand-in answer (answered, retrieving and citing the item's gold passages
  and a tier-B passage) and every measure that answer enters — or that it could not score
  without a judge — counts the item as a missing member;
* :meth:`Coverage.apply` attaches ``coverage = (n, of)`` to each measure computed on fewer items
  than its population (latency quantiles count attempts: a failed attempt has no latency);
* :func:`ragcard.decision.thresholds.decide` then holds a run with any failed attempt unless a
  threshold on ``agent_error_rate`` says how many are acceptable, holds on a must-pass item
  with a failed attempt, and never calls a threshold on a partial population "met".
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragcard.inputs.corpus import Corpus
from ragcard.inputs.questions import Question
from ragcard.inputs.responses import AgentResponse
from ragcard.metrics.base import (
    AttemptContext,
    Layer,
    MetricSpec,
    MetricValue,
    ScoringSettings,
    Unscored,
)
from ragcard.metrics.populations import empty_reason

__all__ = ["Coverage", "CoverageTally", "measure_coverage"]

_RETRIEVAL_ONLY_REASON = "retrieval-only run"


@dataclass(slots=True)
class _ItemAttempts:
    answered: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    #: measures with a value on a failed attempt (agent_error_rate, must_pass_zeros …)
    failed_values: set[str] = field(default_factory=set)


class CoverageTally:
    """Answered and failed attempts per item, in the order items first came."""

    def __init__(self) -> None:
        self.items: dict[str, _ItemAttempts] = {}

    def add(self, item: str, failed: bool, kind: str | None, values: Sequence[str]) -> None:
        entry = self.items.get(item)
        if entry is None:
            entry = self.items[item] = _ItemAttempts()
        if failed:
            entry.failed[kind or "unknown"] += 1
            entry.failed_values.update(values)
        else:
            entry.answered += 1

    def merge(self, other: CoverageTally) -> None:
        """Fold in another tally (a worker's), as if its attempts had been added here."""
        for item, theirs in other.items.items():
            entry = self.items.get(item)
            if entry is None:
                entry = self.items[item] = _ItemAttempts()
            entry.answered += theirs.answered
            entry.failed.update(theirs.failed)
            entry.failed_values.update(theirs.failed_values)


@dataclass(frozen=True, slots=True)
class Coverage:
    """What a decision must know about failed attempts (see the module docstring).

    ``missing`` maps a measure to the lost items of its population; ``missing_labels`` the
    same per label of a broken-down measure; ``failed_attempts`` counts every failed attempt
    (the latency quantiles' missing members).
    """

    attempts: int
    failed_attempts: int
    by_kind: dict[str, int]
    lost: tuple[str, ...]
    must_pass_failed: dict[str, int]
    missing: dict[str, int]
    missing_labels: dict[str, dict[str, int]] = field(default_factory=dict)
    #: per split (dev, heldout): each measure's lost members, and the failed attempts
    missing_by_split: dict[str, dict[str, int]] = field(default_factory=dict)
    failed_by_split: dict[str, int] = field(default_factory=dict)

    def apply(
        self,
        metrics: Mapping[str, MetricValue | Unscored],
        breakdown: str | None = None,
        split: str | None = None,
    ) -> dict[str, MetricValue | Unscored]:
        """``metrics`` with ``coverage`` set on each value computed on a partial population
        (``breakdown``: the measure, when ``metrics`` maps its labels to values; ``split``: the
        split the metrics were computed on)."""
        found: dict[str, MetricValue | Unscored] = {}
        missing_of = self.missing if split is None else self.missing_by_split.get(split, {})
        failed = self.failed_attempts if split is None else self.failed_by_split.get(split, 0)
        for name, value in metrics.items():
            found[name] = value
            if isinstance(value, Unscored):
                lost = (
                    self.missing_labels.get(breakdown, {}).get(name, 0)
                    if breakdown is not None
                    else missing_of.get(name, 0)
                )
                if lost and value.reason == empty_reason(value.spec):
                    # not "no such item": its items are there, and never answered (a reason
                    # the scorer gave from the items it saw — "every attempt failed (6
                    # attempts)", "3 abstained, 3 failed" — is already true, and kept)
                    found[name] = Unscored(
                        value.spec, f"its {lost} item(s) never answered: every attempt failed"
                    )
                continue
            if breakdown is not None:
                missing = self.missing_labels.get(breakdown, {}).get(name, 0)
            elif value.spec.kind == "quantile":
                missing = failed
            else:
                missing = missing_of.get(name, 0)
            if missing:
                found[name] = dataclasses.replace(value, coverage=(value.n, value.n + missing))
        return found

    def failure_line(self) -> str:
        """'485 of 510 item-attempts failed (transport 470, timeout 15)'."""
        kinds = ", ".join(f"{kind} {n}" for kind, n in Counter(self.by_kind).most_common())
        return f"{self.failed_attempts} of {self.attempts} item-attempts failed ({kinds})"

    def to_json(self) -> dict[str, Any]:
        return {
            "attempts": self.attempts,
            "failed_attempts": self.failed_attempts,
            "failed_by_kind": self.by_kind,
            "items_without_an_answer": len(self.lost),
            "lost_items": list(self.lost[:50]),
            "must_pass_items_with_a_failed_attempt": self.must_pass_failed,
            "missing_members": self.missing,
        }


def measure_coverage(
    tally: CoverageTally,
    questions: Mapping[str, Question],
    corpus: Corpus,
    settings: ScoringSettings,
    layers: Sequence[Layer],
    specs: Mapping[str, MetricSpec],
) -> Coverage:
    """The run's coverage from its tally; lost items are placed in populations by probing."""
    by_kind: Counter[str] = Counter()
    lost: list[str] = []
    must_pass: dict[str, int] = {}
    missing: Counter[str] = Counter()
    missing_labels: dict[str, Counter[str]] = {}
    by_split: dict[str, Counter[str]] = {}
    failed_by_split: Counter[str] = Counter()
    attempts = 0
    for item, entry in tally.items.items():
        failed = sum(entry.failed.values())
        attempts += entry.answered + failed
        by_kind.update(entry.failed)
        question = questions.get(item)
        if question is not None:
            failed_by_split[question.split] += failed
        if question is not None and question.must_pass and failed:
            must_pass[item] = failed
        if entry.answered or not failed or question is None:
            continue
        lost.append(item)
        members, labels = _probe(question, corpus, settings, layers)
        for name in members:
            if name in specs and name not in entry.failed_values:
                missing[name] += 1
                by_split.setdefault(question.split, Counter())[name] += 1
                if name in labels:
                    missing_labels.setdefault(name, Counter())[labels[name]] += 1
    return Coverage(
        attempts,
        sum(by_kind.values()),
        dict(by_kind),
        tuple(lost),
        must_pass,
        dict(missing),
        {name: dict(counts) for name, counts in missing_labels.items()},
        {split: dict(counts) for split, counts in by_split.items()},
        dict(failed_by_split),
    )


def _probe(
    question: Question, corpus: Corpus, settings: ScoringSettings, layers: Sequence[Layer]
) -> tuple[set[str], dict[str, str]]:
    """The measures (and breakdown labels) a stand-in answer to ``question`` would enter."""
    from ragcard.aggregation.scoring import score_attempt  # (scoring imports this module's users)

    cited = [pid for pid in question.gold_ids if pid in corpus]
    tier_b = next((p.id for p in corpus if p.tier == "B"), None)
    if tier_b is not None and tier_b not in cited:
        cited.append(tier_b)
    if not cited:
        first = next(iter(corpus), None)
        cited = [first.id] if first is not None else []
    response = AgentResponse.model_validate(
        {
            "answer": "A stand-in answer, to see which measures this item belongs to.",
            "retrieved": cited,
            "citations": [{"id": pid, "sentence": 0} for pid in cited],
            "abstained": False,
            "latency_ms": 1.0,
            "first_token_ms": 1.0,
        }
    )
    ctx = AttemptContext(question, corpus, 1, response, settings, None, 1.0, 1.0, None)
    score = score_attempt(ctx, layers)
    members = set(score.values) | {
        name for name, why in score.unscored.items() if _RETRIEVAL_ONLY_REASON not in why
    }
    return members, dict(score.labels)
