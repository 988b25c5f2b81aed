"""The default judge (``auto``, the ensemble) on tiny corpora: a sentence and its minimal
contrast get different verdicts, a faithful paraphrase is supported, and a correct answer
citing the passage in force beside its superseded version is supported and passes the
currency trap (issue 19)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path

import pytest

from ragcard.judges import build_judge
from ragcard.judges.base import Evidence, Judge, JudgeContext, Verdict
from ragcard.judges.ensemble import ensemble_available

pytestmark = pytest.mark.skipif(
    not ensemble_available(), reason="the ensemble judge needs the embed extra"
)

BIKES = Evidence("bikes@2025#1", "Bicycles are parked in the basement of building B.")


@pytest.fixture(scope="module")
def judge() -> Judge:
    return build_judge({"backend": "auto"})


def _verdict(judge: Judge, claim: str, *passages: Evidence) -> Verdict:
    (verdict,) = asyncio.run(judge.judge(JudgeContext((claim,), passages or (BIKES,))))
    return verdict


def test_the_roof_of_building_a_is_refused_with_what_changed(judge: Judge) -> None:
    verdict = _verdict(judge, "Bicycles are parked on the roof of building A.")
    assert verdict.label == "contradicted"
    assert "says 'the roof' where the passage says 'the basement'" in (verdict.reason or "")


def test_a_plain_paraphrase_is_supported(judge: Judge) -> None:
    assert _verdict(judge, "Bikes go in the basement of building B.").supported


def test_a_negated_sentence_is_refused(judge: Judge) -> None:
    assert _verdict(judge, "Bicycles are parked in the basement of building B.").supported
    verdict = _verdict(judge, "Bicycles are not parked in the basement of building B.")
    assert verdict.label == "contradicted"
    assert "negates 'are parked'" in (verdict.reason or "")


def test_a_swapped_building_is_refused(judge: Judge) -> None:
    verdict = _verdict(judge, "Bicycles are parked in the basement of building A.")
    assert not verdict.supported
    assert "says 'building A' where the passage says 'building B'" in (verdict.reason or "")


def _score(mini: Path, tmp_path: Path, answers: dict[str, dict[str, object]]) -> dict:
    from ragcard.inputs.responses import RecordedResponse
    from ragcard.pipeline.evaluation import load_inputs, score_responses

    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    responses = [
        RecordedResponse.model_validate({"item": item, "attempt": 1, **record})
        for item, record in answers.items()
    ]
    score_responses(inputs, responses, tmp_path, run_date=dt.date(2026, 1, 1),
                    judge=build_judge({"backend": "auto"}))  # fmt: skip
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    return {line["item"]: line for line in lines}


def test_a_negated_answer_scores_no_faithfulness(mini: Path, tmp_path: Path) -> None:
    lines = _score(mini, tmp_path, {
        "Q5": {"answer": "Meals on business travel are not reimbursed when you keep the receipts.",
               "retrieved": ["expenses@2025#1"]},
    })  # fmt: skip
    assert lines["Q5"]["scores"]["faithfulness"] == 0.0


def test_the_in_force_figure_beside_its_superseded_version_passes_the_trap(
    mini: Path, tmp_path: Path
) -> None:
    """Both versions retrieved (the old one first), the in-force figure stated and cited: the
    claim is judged against the passage it cites and the version in force."""
    answer = "You can carry over up to 8 days of unused leave into the next leave year."
    lines = _score(mini, tmp_path, {
        "Q2": {"answer": answer, "retrieved": ["leave@2023#2", "leave@2025#2"],
               "citations": [{"id": "leave@2025#2", "sentence": 0}]},
    })  # fmt: skip
    q2 = lines["Q2"]
    assert q2["scores"]["faithfulness"] == 1.0
    assert q2["scores"]["superseded_answers_currency_traps"] == 0.0
    assert q2["scores"]["citation_accuracy"] == 1.0
