"""ScoreAccumulator: summaries in item order, whatever order the values arrive in; reuse."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ragcard.metrics.base import MetricSpec, MetricValue
from ragcard.questions import Question
from ragcard.scoring import AttemptScore, ScoreAccumulator
from ragcard.stats import bootstrap_ci, quantile, quantile_ci, wilson_interval

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
        SPECS["q"], quantile(pooled, 0.5), 4, quantile_ci(pooled, 0.5)
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
