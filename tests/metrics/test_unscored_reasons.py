"""True reasons for every unscored measure (issue 11 item 4): no judge; every attempt
abstained; every attempt failed; no item in the population; and a mix of the last three.

The reason shown must be the cause, not a guess: ``faithfulness: not scored: needs a judge``
printed under a header naming the judge, when every attempt abstained, was the bug.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from ragcard.aggregation.scoring import default_layers, metric_specs
from ragcard.inputs.responses import RecordedResponse
from ragcard.metrics.base import NEEDS_JUDGE, ScoringSettings, Unscored
from ragcard.metrics.populations import POPULATIONS
from ragcard.pipeline.evaluation import EvaluationResult, load_inputs, score_responses
from ragcard.pipeline.project import judge_from_spec

JUDGED = ("faithfulness", "answer_relevance")


def _score(
    mini: Path, out: Path, responses: list[RecordedResponse], *, judge: bool,
    questions: Path | None = None,
) -> EvaluationResult:  # fmt: skip
    thresholds = mini / "thresholds.toml"
    if questions is not None:  # the fixture's thresholds name a flag this set may not have
        thresholds = questions.with_name("thresholds.toml")
        thresholds.write_text('[[threshold]]\nmeasure = "recall@5"\ncomparison = ">="\n'
                              'value = 0.5\ntype = "graded"\nreason = "r"\n')  # fmt: skip
    inputs = load_inputs(questions or mini / "questions.jsonl", mini / "corpus.jsonl",
                         thresholds)  # fmt: skip
    return score_responses(
        inputs,
        responses,
        out,
        run_date=dt.date(2026, 1, 1),
        judge=judge_from_spec({"backend": "lexical"}) if judge else None,
    )


def _reason(result: EvaluationResult, name: str) -> str:
    value = result.scorecard.metrics[name]
    assert isinstance(value, Unscored), f"{name} was scored: {value}"
    return value.reason


def _abstaining(items: list[str], attempts: int = 2) -> list[RecordedResponse]:
    return [
        RecordedResponse(item=item, attempt=n, answer="I don't know.", abstained=True,
                         retrieved=["leave@2025#1"])  # fmt: skip
        for item in items
        for n in range(1, attempts + 1)
    ]


ITEMS = ["Q1", "Q2", "Q3", "Q4", "Q5", "Q6"]


def test_no_judge_says_so(mini: Path, tmp_path: Path) -> None:
    answers = [RecordedResponse(item=i, answer="An answer.", retrieved=["leave@2025#1"])
               for i in ITEMS]  # fmt: skip
    result = _score(mini, tmp_path, answers, judge=False)
    for name in (*JUDGED, "citation_accuracy", "rubric_mean"):
        assert _reason(result, name) == NEEDS_JUDGE


def test_every_attempt_abstained_is_the_reason_not_the_judge(mini: Path, tmp_path: Path) -> None:
    result = _score(mini, tmp_path, _abstaining(ITEMS), judge=True)
    assert result.scorecard.config["judge"]["name"] == "lexical"
    for name in JUDGED:
        reason = _reason(result, name)
        assert reason == "every attempt abstained (12 attempts): no answer to score", name
        assert "judge" not in reason


def test_every_attempt_failed_is_the_reason(mini: Path, tmp_path: Path) -> None:
    for judge in (True, False):
        result = _score(mini, tmp_path / str(judge), [], judge=judge)  # nothing recorded
        for name, n in ((JUDGED[0], 6), (JUDGED[1], 6), ("recall@5", 4), ("id_recall", 6),
                        ("correct_abstention", 2), ("latency_p50_ms", 6)):  # fmt: skip
            assert _reason(result, name) == (
                f"every attempt failed ({n} attempts): the agent gave no answer to score"
            ), name


def test_abstained_and_failed_together(mini: Path, tmp_path: Path) -> None:
    result = _score(mini, tmp_path, _abstaining(["Q1", "Q2", "Q3"], attempts=1), judge=True)
    assert _reason(result, "faithfulness") == (
        "no answer to score: 3 attempts abstained, 3 attempts failed"
    )


def test_no_item_in_the_population(mini: Path, tmp_path: Path) -> None:
    answerable = tmp_path / "q.jsonl"
    lines = (mini / "questions.jsonl").read_text().splitlines()
    answerable.write_text("\n".join(x for x in lines if '"Q1"' in x or '"Q5"' in x) + "\n")
    answers = [RecordedResponse(item=i, answer="An answer.", retrieved=["leave@2025#1"])
               for i in ("Q1", "Q5")]  # fmt: skip
    result = _score(mini, tmp_path / "out", answers, judge=True, questions=answerable)
    assert _reason(result, "correct_abstention") == "no unanswerable item"
    assert _reason(result, "superseded_answers_currency_traps") == "no currency_trap item"
    assert _reason(result, "flag_accuracy") == "no item states an expected_flag"


@pytest.mark.parametrize("name", sorted(metric_specs(default_layers(), ScoringSettings())))
def test_every_built_in_measure_has_a_population(name: str) -> None:
    spec = metric_specs(default_layers(), ScoringSettings())[name]
    assert spec.name in POPULATIONS or spec.base in POPULATIONS, (
        f"add {spec.base!r} to POPULATIONS in src/ragcard/metrics/populations.py (which items "
        "and attempts it is over, and why it is unscored when none qualifies)"
    )
