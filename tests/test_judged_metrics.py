"""Judge-dependent measures on the hand-checked fixture, with a table-driven test judge."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from ragcard.judges.base import JudgeContext, JudgeError, JudgeIdentity, Verdict
from ragcard.pipeline.evaluation import load_inputs, score_responses

# claim → (label, score, passages that support it)
TABLE = {
    "You get 25 days of annual leave.": ("supported", 1.0, {"leave@2025#1"}),
    "You can carry over 5 days.": ("supported", 1.0, {"leave@2023#2"}),
    "The founder kept a second diary.": ("supported", 1.0, {"archive#B1"}),
    "25 days plus public holidays.": ("not_supported", 0.6, {"answer"}),
    "Historians believe she kept a second diary.": ("supported", 0.9, {"answer"}),
}


class TableJudge:
    identity = JudgeIdentity("table", model="test", prompt_version="t1", threshold=0.5)

    def __init__(self, fail_on: str | None = None) -> None:
        self.calls = 0
        self.fail_on = fail_on

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        self.calls += 1
        verdicts = []
        for claim in ctx.claims:
            if self.fail_on and self.fail_on in claim:
                raise JudgeError("unparseable output", raw="<garbage>")
            label, score, allowed = TABLE.get(claim, ("not_supported", 0.0, set()))
            hit = next((p.id for p in ctx.passages if p.id in allowed), None)
            verdicts.append(Verdict(label, score, hit) if hit else Verdict("not_supported", 0.0))
        return verdicts


def run(mini: Path, tmp_path: Path, judge: TableJudge) -> dict:
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    score_responses(inputs, mini / "responses.jsonl", tmp_path, run_date=dt.date(2026, 1, 1),
                    judge=judge)
    return json.loads((tmp_path / "scorecard.json").read_text())


def test_judged_measures(mini: Path, tmp_path: Path) -> None:
    card = run(mini, tmp_path, TableJudge())
    m = card["metrics"]
    # answered items: Q1 1, Q2 1, Q4 0 (nothing it may see), Q5 0, Q6 1/2; Q3 abstained
    assert m["faithfulness"]["value"] == pytest.approx((1 + 1 + 0 + 0 + 0.5) / 5)
    # pairs: Q1 1/1 (both attempts), Q2 1/1, Q6 1/2; Q5 cites an unknown id (not judged)
    assert m["citation_accuracy"]["value"] == pytest.approx(3 / 4)
    assert m["citation_accuracy"]["n"] == 4
    # Q1 2 (incomplete), Q2 0 (superseded), Q3 3 (right to abstain), Q4 0 (leak),
    # Q5 0 (unsupported), Q6 1 (correct, half supported)
    assert m["rubric_mean"]["value"] == pytest.approx((2 + 0 + 3 + 0 + 0 + 1) / 6)
    assert card["config"]["judge"]["name"] == "table"
    assert "uncalibrated" in card["config"]["judge"]["note"]
    assert "faithfulness" not in card["unscored"]


def test_judge_failure_is_unscored_not_zero(mini: Path, tmp_path: Path) -> None:
    card = run(mini, tmp_path, TableJudge(fail_on="founder"))
    assert card["config"]["judge"]["failures"] == 1
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    q6 = next(x for x in lines if x["item"] == "Q6")
    assert q6["judge_error"] == "unparseable output"
    assert "faithfulness" not in q6["scores"]
    assert q6["unscored"]["faithfulness"].startswith("judge failed")
    # the other items are still judged
    assert card["metrics"]["faithfulness"]["n"] == 4


def test_a_pair_cited_explicitly_and_inline_counts_once(mini: Path, tmp_path: Path) -> None:
    """The issue's case: one supported pair cited twice (explicitly and inline) and one
    unsupported pair gave 1/3 instead of 1/2, and the decision flipped."""
    from ragcard.inputs.responses import RecordedResponse

    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    answer = "You get 25 days of annual leave. [leave@2025#1] You can carry over 5 days."
    responses = [
        RecordedResponse.model_validate({
            "item": q.id, "attempt": 1, "answer": answer,
            "retrieved": ["leave@2025#1", "leave@2025#2"],
            "citations": [{"id": "leave@2025#1", "sentence": 0},
                          {"id": "leave@2025#2", "sentence": 1}],
        })
        for q in inputs.questions.questions
        if q.id == "Q1"
    ]  # fmt: skip
    score_responses(inputs, responses, tmp_path, run_date=dt.date(2026, 1, 1), judge=TableJudge())
    line = json.loads((tmp_path / "results.jsonl").read_text().splitlines()[0])
    assert line["item"] == "Q1"
    # written as its share: the supported pair, once, of two pairs
    assert line["scores"]["citation_accuracy"] == 0.5
    assert line["denominators"]["citation_accuracy"] == 2
    card = json.loads((tmp_path / "scorecard.json").read_text())
    assert card["metrics"]["citation_accuracy"]["value"] == pytest.approx(1 / 2)
    assert card["metrics"]["citation_accuracy"]["n"] == 2


class TiedVersionsJudge:
    """Refuses a claim when any passage of its context that shares most of its words states
    other figures (as a judge does that counts a conflict with any equally aligned sentence)."""

    identity = JudgeIdentity("tied", model="test", prompt_version="t1", threshold=0.5)

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        import re

        verdicts = []
        for claim in ctx.claims:
            words = set(re.findall(r"[a-z]+", claim.lower()))
            figures = set(re.findall(r"\d+", claim))
            close = [p for p in ctx.passages
                     if len(words & set(re.findall(r"[a-z]+", p.text.lower()))) > len(words) / 2]
            stating = [p for p in close if figures <= set(re.findall(r"\d+", p.text))]
            if close and len(stating) == len(close):
                verdicts.append(Verdict("supported", 1.0, stating[0].id))
            else:
                verdicts.append(Verdict("not_supported", 0.0))
        return verdicts


def _q2(mini: Path, tmp_path: Path, cited: str) -> dict:
    from ragcard.inputs.responses import RecordedResponse

    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    figure = "8" if cited == "leave@2025#2" else "5"
    response = RecordedResponse.model_validate({
        "item": "Q2", "attempt": 1,
        "answer": f"Up to {figure} days of unused leave can be carried over.",
        "retrieved": ["leave@2023#2", "leave@2025#2"],
        "citations": [{"id": cited, "sentence": 0}],
    })  # fmt: skip
    score_responses(inputs, [response], tmp_path, run_date=dt.date(2026, 1, 1),
                    judge=TiedVersionsJudge())  # fmt: skip
    return json.loads((tmp_path / "results.jsonl").read_text().splitlines()[0])


def test_a_claim_citing_the_version_in_force_is_not_judged_against_the_old_one(
    mini: Path, tmp_path: Path
) -> None:
    """Both versions retrieved: the in-force figure, citing the in-force passage, is judged
    against that passage (the superseded one is the currency layer's business)."""
    line = _q2(mini, tmp_path, "leave@2025#2")
    assert line["scores"]["faithfulness"] == 1.0
    assert line["scores"]["superseded_answers_currency_traps"] == 0.0


def test_a_claim_citing_the_superseded_version_is_still_judged_against_it(
    mini: Path, tmp_path: Path
) -> None:
    line = _q2(mini, tmp_path, "leave@2023#2")
    # judged against the passage it cites and the version in force: they disagree
    assert line["scores"]["faithfulness"] == 0.0
    assert line["scores"]["superseded_answers_currency_traps"] == 1.0
