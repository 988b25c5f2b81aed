"""Answer relevance and abstention from the answer text, asked of the judge, on the mini
fixture (tests/fixtures/mini)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from ragcard.judges.base import (
    JudgeContext,
    JudgeError,
    JudgeIdentity,
    Verdict,
    correctness_verdict,
)
from ragcard.judges.fake import FakeJudge
from ragcard.metrics.base import NEEDS_JUDGE
from ragcard.metrics.judged import JudgedAnswer
from ragcard.metrics.rubric import rubric_level
from ragcard.pipeline.evaluation import load_inputs, score_responses

YES, NO = Verdict("supported", 1.0, reason="yes"), Verdict("not_supported", 0.0, reason="no")


class ScriptedJudge:
    """Supports every claim; answers the yes/no tasks from scripts keyed by answer text."""

    def __init__(
        self,
        off_topic: set[str] = frozenset(),  # type: ignore[assignment]
        declines: set[str] = frozenset(),  # type: ignore[assignment]
        fail_on: str | None = None,
        tasks: dict[str, str] | None = None,
    ) -> None:
        self.off_topic, self.declines, self.fail_on = off_topic, declines, fail_on
        known = {"relevance": "scripted", "abstention": "scripted"}
        self.identity = JudgeIdentity("scripted", tasks=known if tasks is None else tasks)
        self.asked: list[str] = []

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        self.asked.append(ctx.task)
        if ctx.task == "support":
            return [Verdict("supported", 1.0) for _ in ctx.claims]
        (answer,) = ctx.claims
        if self.fail_on and self.fail_on in answer and ctx.task == "relevance":
            raise JudgeError("unparseable output", raw="<garbage>")
        script = self.off_topic if ctx.task == "relevance" else self.declines
        yes = (answer in script) != (ctx.task == "relevance")
        return [YES if yes else NO]


def run(mini: Path, tmp_path: Path, judge: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    score_responses(inputs, mini / "responses.jsonl", tmp_path, run_date=dt.date(2026, 1, 1),
                    judge=judge)  # fmt: skip
    card = json.loads((tmp_path / "scorecard.json").read_text())
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    return card, {f"{x['item']}/{x['attempt']}": x for x in lines}


def test_without_a_judge_relevance_is_unscored_and_phrases_decide(
    mini: Path, tmp_path: Path
) -> None:
    card, lines = run(mini, tmp_path, None)
    assert "answer_relevance" not in card["metrics"]
    assert card["unscored"]["answer_relevance"] == NEEDS_JUDGE
    assert card["abstention_sources"] == {"phrases": 4, "field": 2, "flag": 1}
    assert "abstention_fallback" not in lines["Q5/1"]["evidence"]  # no judge: nothing to say


def test_fake_judge_scores_relevance_over_answered_attempts(mini: Path, tmp_path: Path) -> None:
    card, lines = run(mini, tmp_path, FakeJudge())
    relevance = card["metrics"]["answer_relevance"]
    assert (relevance["value"], relevance["n"]) == (1.0, 5)  # Q3 abstained (flag): not counted
    assert card["metric_specs"]["answer_relevance"]["higher_is_better"] is True
    assert len(relevance["ci"]) == 2
    assert card["abstention_sources"] == {"judge": 4, "field": 2, "flag": 1}
    assert lines["Q5/1"]["evidence"]["abstention_judge"]["verdict"] == "answers"
    assert card["config"]["judge"]["tasks"]["relevance"] == "fake: marker 'OFF_TOPIC'"
    md = (tmp_path / "scorecard.md").read_text()
    assert "| relevance | `answer_relevance` | 1.000" in md
    assert "the judge, from the answer text (fake): 4" in md
    assert "also judges relevance: fake: marker 'OFF_TOPIC'" in md


def test_off_topic_answer_is_a_zero_with_a_diagnosis(mini: Path, tmp_path: Path) -> None:
    judge = ScriptedJudge(
        off_topic={"You can carry over 5 days.", "Band L3 pays £58,000 to £72,000."}
    )
    card, lines = run(mini, tmp_path, judge)
    assert card["metrics"]["answer_relevance"]["value"] == pytest.approx(3 / 5)
    q2 = lines["Q2/1"]
    assert q2["scores"]["answer_relevance"] == 0.0
    assert q2["evidence"]["off_topic"] == {"score": 0.0, "reason": "no"}
    assert "relevance.off_topic" in {d["rule"] for d in q2["diagnosis"]}
    # Q4 should have abstained: that is its failure, not being off topic
    assert "relevance.off_topic" not in {d["rule"] for d in lines["Q4/1"]["diagnosis"]}
    assert judge.asked.count("relevance") == 7  # every non-empty answer, one question each
    assert judge.asked.count("abstention") == 5  # only where the agent sent no `abstained`


def test_judge_decides_abstention_when_the_agent_does_not_say(mini: Path, tmp_path: Path) -> None:
    card, lines = run(mini, tmp_path, ScriptedJudge(declines={"Meals are covered."}))
    q5 = lines["Q5/1"]
    assert q5["evidence"]["abstention_source"] == "judge"
    assert q5["scores"]["false_abstention"] == 1.0
    assert "answer_relevance" not in q5["scores"]  # an abstention is not in the population
    assert lines["Q1/1"]["evidence"]["abstention_source"] == "field"  # the agent's word wins
    assert lines["Q3/1"]["evidence"]["abstention_source"] == "flag"


def test_a_judge_that_cannot_falls_back_with_its_reason(mini: Path, tmp_path: Path) -> None:
    card, lines = run(mini, tmp_path, ScriptedJudge(tasks={}))
    assert "answer_relevance" not in card["metrics"]
    assert card["unscored"]["answer_relevance"] == "judge 'scripted' cannot judge relevance"
    q5 = lines["Q5/1"]["evidence"]
    assert q5["abstention_source"] == "phrases"
    assert q5["abstention_fallback"] == "judge 'scripted' cannot judge abstention"
    assert card["abstention_sources"] == {"phrases": 4, "field": 2, "flag": 1}
    assert "faithfulness" in card["metrics"]  # support is unaffected


def test_a_judge_failure_on_one_answer_leaves_that_item_unscored(
    mini: Path, tmp_path: Path
) -> None:
    card, lines = run(mini, tmp_path, ScriptedJudge(fail_on="Meals"))
    q5 = lines["Q5/1"]
    assert "answer_relevance" not in q5["scores"]
    assert q5["unscored"]["answer_relevance"] == "judge failed: unparseable output"
    assert "faithfulness" in q5["scores"]  # the support verdicts still count
    assert card["metrics"]["answer_relevance"]["n"] == 4


def test_rubric_caps_an_answer_that_misses_the_question_without_an_expected_answer() -> None:
    sentences = ("You get 25 days.",)
    faithful = JudgedAnswer(sentences, (YES,), relevance=YES)
    assert rubric_level(faithful, 1.0) == 3
    assert rubric_level(JudgedAnswer(sentences, (YES,), relevance=NO), 1.0) == 1
    assert rubric_level(JudgedAnswer(sentences, (YES,)), 1.0) == 3  # not asked: no cap
    correct = correctness_verdict("correct", 1.0, "states 25 days")
    with_expected = JudgedAnswer(sentences, (YES,), correctness=correct, relevance=NO)
    assert rubric_level(with_expected, 1.0) == 3  # correctness already says it answers


def test_an_answer_that_states_the_expected_answer_is_relevant_whatever_the_check_said(
    mini: Path, tmp_path: Path
) -> None:
    # Q1's answer matches its expected answer (the scripted judge supports every claim), but
    # the relevance check says no: a correct answer addresses the question, so it counts
    judge = ScriptedJudge(off_topic={"You get 25 days of annual leave [leave@2025#1]."})
    card, lines = run(mini, tmp_path, judge)
    q1 = lines["Q1/1"]
    assert q1["scores"]["answer_relevance"] == 1.0 and "off_topic" not in q1["evidence"]
    assert q1["evidence"]["relevance_overruled"] == "the answer states the expected answer"
    assert "relevance.off_topic" not in {d["rule"] for d in q1["diagnosis"]}
    assert card["metrics"]["answer_relevance"]["value"] == pytest.approx(1.0)
