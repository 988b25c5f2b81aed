"""ScoreAccumulator: summaries in item order, whatever order the values arrive in; reuse;
accumulators (and failure tallies) filled apart merge into exactly what one would hold."""

from __future__ import annotations

import pickle
import random
from typing import Any

import numpy as np
import pytest

from ragcard.aggregation.diagnosis import Diagnosis
from ragcard.aggregation.scoring import AttemptScore, ScoreAccumulator
from ragcard.aggregation.stats import bootstrap_ci, quantile, quantile_ci, wilson_interval
from ragcard.inputs.questions import Question
from ragcard.metrics.base import MetricSpec, MetricValue
from ragcard.report.scorecard import FailureTally

SPECS = {
    "m": MetricSpec("m", "test", "mean", True, "a mean", "no m"),
    "r": MetricSpec("r", "test", "rate", True, "a rate", "no r"),
    "c": MetricSpec("c", "test", "count", False, "a count", "no c"),
    "q": MetricSpec("q", "test", "quantile", False, "a median", "no q", 0.5),
}


def _score(item: str, attempt: int, values: dict[str, float], label: str = "") -> AttemptScore:
    labels = {"r": label} if label else {}
    return AttemptScore(item, attempt, values, {}, labels, {}, (), False)


def _fed(seed: int) -> tuple[ScoreAccumulator, list[Question], dict[str, list[float]]]:
    """300 items; each item's first attempt has no "m", and the second attempts arrive
    shuffled, so the order items first get "m" is not the order of the items."""
    rng = random.Random(seed)
    questions = [
        Question(id=f"Q{i}", question="?", split="dev" if i % 3 else "heldout") for i in range(300)
    ]
    acc = ScoreAccumulator(SPECS)
    values: dict[str, list[float]] = {q.id: [] for q in questions}
    for q in questions:
        acc.add(q, _score(q.id, 1, {"r": float(rng.random() < 0.5), "q": rng.random()}))
    for q in rng.sample(questions, len(questions)):
        m = [rng.random() for _ in range(rng.randint(1, 2))]
        values[q.id] += m
        for n, v in enumerate(m, 2):
            label = "a" if v < 0.5 else "b"
            acc.add(q, _score(q.id, n, {"m": v, "c": float(v > 0.9), "r": 1.0}, label))
    return acc, questions, values


@pytest.mark.parametrize("seed", [1, 2])
def test_means_and_intervals_follow_the_order_of_the_items(seed: int) -> None:
    acc, questions, values = _fed(seed)
    for split in (None, "dev"):
        chosen = [q for q in questions if split is None or q.split == split]
        means = np.array([sum(values[q.id]) / len(values[q.id]) for q in chosen])
        summary = acc.summarise(None if split is None else (lambda q, s=split: q.split == s))
        expected = MetricValue(SPECS["m"], float(means.mean()), len(chosen), bootstrap_ci(means))
        assert summary["m"] == expected
        assert summary["c"] == MetricValue(
            SPECS["c"], float(sum(max(values[q.id]) > 0.9 for q in chosen)), len(chosen)
        )
    rate = acc.summarise()["r"]
    assert isinstance(rate, MetricValue) and rate.n == 300
    assert rate.ci == wilson_interval(rate.value * 300, 300)
    pooled = acc.summarise()["q"]
    assert isinstance(pooled, MetricValue) and pooled.n == 300


def test_quantiles_pool_every_attempt() -> None:
    acc = ScoreAccumulator(SPECS)
    q1, q2 = Question(id="A", question="?"), Question(id="B", question="?")
    for question, attempt, value in ((q1, 1, 5.0), (q2, 1, 1.0), (q1, 2, 3.0), (q2, 2, 9.0)):
        acc.add(question, _score(question.id, attempt, {"q": value}))
    pooled = [5.0, 3.0, 1.0, 9.0]
    assert acc.summarise()["q"] == MetricValue(
        SPECS["q"], quantile(pooled, 0.5), 4, quantile_ci(pooled, 0.5), observed=(1.0, 9.0)
    )
    assert acc.summarise(lambda q: q.id == "B")["q"].n == 2  # type: ignore[union-attr]


def test_summaries_are_reused_until_the_next_attempt() -> None:
    acc, questions, _ = _fed(3)
    first = acc.summarise()
    again = acc.summarise()
    assert again == first and again is not first
    breakdown = acc.breakdown("r")
    assert set(breakdown) == {"a", "b"} and acc.breakdown("r") == breakdown
    acc.add(questions[0], _score(questions[0].id, 9, {"m": 5.0}))
    assert acc.summarise()["m"] != first["m"]


def test_a_breakdown_needs_a_metric_of_the_run() -> None:
    with pytest.raises(KeyError, match="flag_accuracy"):
        ScoreAccumulator(SPECS).breakdown("flag_accuracy")


POOLED = {**SPECS, "p": MetricSpec("p", "test", "pooled", True, "a pooled rate", "no p")}


def _events(seed: int) -> list[tuple[Question, AttemptScore]]:
    """Attempts of 60 items in a shuffled order, with labels, unscored reasons, trials,
    diagnoses (some attempts fail) and errors."""
    rng = random.Random(seed)
    questions = [Question(id=f"Q{i}", question="?") for i in range(60)]
    causes = [Diagnosis("retrieval", f"s{n}", f"cause {n % 3}", "fix", "rule") for n in range(5)]
    events = []
    for question, attempt in rng.sample([(q, a) for q in questions for a in (1, 2, 3)], 180):
        values = {"m": rng.random() / 3, "r": float(rng.random() < 0.5), "q": rng.random()}
        trials = {}
        if rng.random() < 0.7:
            values["p"], trials["p"] = float(rng.randint(0, 3)), 3.0
        unscored = {} if "p" in values else {"p": rng.choice(["no judge", "no citation"])}
        failed = rng.random() < 0.05
        evidence: dict[str, Any] = {"abstention_source": rng.choice(["field", "phrases"])}
        if failed:
            evidence["error"] = {"kind": "timeout", "message": f"slow {attempt}"}
        diagnoses = tuple(rng.sample(causes, rng.choice([0, 0, 1, 2])))
        score = AttemptScore(
            question.id,
            attempt,
            values,
            evidence,
            {"r": rng.choice("ab")},
            unscored,
            diagnoses,
            failed,
            trials,
        )
        events.append((question, score))
    return events


@pytest.mark.parametrize("seed", [4, 5])
def test_accumulators_filled_apart_merge_into_what_one_would_hold(seed: int) -> None:
    events = _events(seed)
    whole, tally = ScoreAccumulator(POOLED), FailureTally()
    for question, score in events:
        whole.add(question, score)
        tally.add(question, score)
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(events)), 6))
    merged, merged_tally = ScoreAccumulator(POOLED), FailureTally()
    questions = {q.id: q for q, _ in events}
    for start, end in zip([0, *cuts], [*cuts, len(events)], strict=True):
        part, part_tally = ScoreAccumulator(POOLED), FailureTally()
        for question, score in events[start:end]:
            part.add(question, score)
            part_tally.add(question, score)
        # what a worker sends back crosses a process boundary as a pickle
        merged.merge(pickle.loads(pickle.dumps(part.part())), questions)
        merged_tally.merge(pickle.loads(pickle.dumps(part_tally)))
    assert merged.summarise() == whole.summarise()  # exactly: the same sums, in the same order
    assert merged.breakdown("r") == whole.breakdown("r")
    assert list(merged.items) == list(whole.items)
    for item_id, item in whole.items.items():
        assert merged.items[item_id].labels == item.labels
        assert merged.items[item_id].verdicts == item.verdicts
    assert merged.reasons == whole.reasons
    assert merged.flaky() == whole.flaky()
    assert _tally_state(merged_tally) == _tally_state(tally)


def _tally_state(tally: FailureTally) -> Any:
    causes = [
        (key, c.layer, c.fix, list(c.symptoms.items()), list(c.items), c.attempts)
        for key, c in tally.causes.items()
    ]
    items = [
        (key, list(i.attempts.items()), i.rubric_zero, i.error, i.failed)
        for key, i in tally.items.items()
    ]
    return (causes, items, tally.errors, list(tally.abstention_sources.items()), tally.attempts)


def test_accumulators_of_different_metrics_do_not_merge() -> None:
    acc = ScoreAccumulator(SPECS)
    with pytest.raises(ValueError, match="different metrics"):
        acc.merge(ScoreAccumulator(POOLED).part(), {})
