"""The pass rule as docs/metrics.md#rubric states it: level 2 or above passes, and level 2
includes a citation that misses the exact passage."""

from __future__ import annotations

from ragcard.aggregation.diagnosis import diagnose
from ragcard.inputs.questions import Question

QUESTION = Question.model_validate(
    {"id": "Q1", "question": "How many days?", "gold": ["leave#1"], "category": "typical",
     "expected_answer": "25 days."}  # fmt: skip
)
VALUES = {"recall@5": 1.0, "faithfulness": 1.0, "citation_accuracy": 0.5}


def rules(level: int) -> list[str]:
    evidence = {"rubric_level": level, "unsupported_citations": [{"sentence": 0, "id": "x#2"}]}
    return [d.rule for d in diagnose(QUESTION, VALUES, evidence, 5)]


def test_a_level_2_answer_with_a_citation_missing_the_passage_passes() -> None:
    assert rules(2) == []


def test_below_level_2_the_unsupported_citation_is_the_diagnosis() -> None:
    assert "citation.unsupported" in rules(1)
    assert "citation.unsupported" in rules(0)
