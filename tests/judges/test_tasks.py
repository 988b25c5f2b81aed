"""The yes/no tasks of the judge seam (relevance, abstention) in the fake and lexical judges."""

from __future__ import annotations

import pytest

from ragcard.errors import ConfigError
from ragcard.judges.base import (
    JudgeContext,
    JudgeIdentity,
    TaskNotSupportedError,
    Verdict,
    answers_task,
)
from ragcard.judges.fake import FakeJudge
from ragcard.judges.lexical import LexicalJudge
from ragcard.judges.lexical_tasks import RELEVANCE_THRESHOLD, question_coverage
from ragcard.judges.refusals import detect_abstention_phrase

QUESTION = "What is the notice period for resignation?"


def ask(task: str, *answers: str, question: str | None = QUESTION) -> JudgeContext:
    return JudgeContext(tuple(answers), (), question, task)  # type: ignore[arg-type]


class SupportOnly:
    """A judge written before tasks existed: an identity without tasks."""

    identity = JudgeIdentity("old")

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        return [Verdict("supported", 1.0) for _ in ctx.claims]


def test_a_judge_without_declared_tasks_answers_support_only() -> None:
    old = SupportOnly()
    assert answers_task(old, "support")
    assert not answers_task(old, "relevance") and not answers_task(old, "abstention")
    assert answers_task(LexicalJudge(), "relevance") and answers_task(FakeJudge(), "abstention")


async def test_fake_markers_decide_the_yes_no_tasks() -> None:
    judge = FakeJudge()
    relevance = await judge.judge(ask("relevance", "Four weeks.", "OFF_TOPIC lunch menu."))
    assert [v.label for v in relevance] == ["supported", "not_supported"]
    assert [v.score for v in relevance] == [1.0, 0.0]
    abstention = await judge.judge(ask("abstention", "ABSTAIN not in the handbook.", "Yes."))
    assert [v.supported for v in abstention] == [True, False]
    assert set(judge.identity.tasks) == {"relevance", "abstention", "correctness"}


async def test_fake_can_be_limited_to_support() -> None:
    judge = FakeJudge.from_config({"tasks": ["support"]})
    assert judge.identity.tasks == {}
    with pytest.raises(TaskNotSupportedError, match="judge 'fake' cannot judge relevance"):
        await judge.judge(ask("relevance", "Four weeks."))
    with pytest.raises(ConfigError, match="task 'grammar'"):
        FakeJudge(tasks=["grammar"])


async def test_lexical_relevance_is_question_term_coverage() -> None:
    judge = LexicalJudge()
    on, off = await judge.judge(
        ask("relevance", "You must give four weeks' notice before you resign.", "Lunch is free.")
    )
    assert on.supported and on.score == pytest.approx(2 / 3)  # notice, resign~resignation
    assert on.reason is not None and "missing: period" in on.reason
    assert not off.supported and off.score == 0.0
    assert RELEVANCE_THRESHOLD == 0.27  # tuned on CLAPNQ dev 0-149 (benchmarks/)


async def test_lexical_relevance_edges() -> None:
    judge = LexicalJudge()
    (vague,) = await judge.judge(ask("relevance", "Yes.", question="What is it?"))
    assert vague.supported and "no content words" in (vague.reason or "")
    assert question_coverage("How long is it?", "whatever") == (None, [])
    with pytest.raises(TaskNotSupportedError, match="relevance without a question"):
        await judge.judge(ask("relevance", "Four weeks.", question=None))


TEXTS = [
    "I couldn't find that in the handbook.",
    "That isn't covered in our sources, sorry.",
    "There is no information about dogs in the records.",
    "You get 25 days of annual leave.",
    "The handbook does not say.",
    "Bring your dog on Fridays.",
]


@pytest.mark.parametrize("text", TEXTS)
async def test_lexical_abstention_is_the_phrase_detector(text: str) -> None:
    (verdict,) = await LexicalJudge().judge(ask("abstention", text))
    assert verdict.supported == detect_abstention_phrase(text)
    assert verdict.score == (1.0 if verdict.supported else 0.0)


async def test_lexical_support_is_unchanged_by_tasks() -> None:
    judge = LexicalJudge()
    assert judge.identity.settings["algorithm"] == "lexical/3"  # its calibration still matches
    assert judge.identity.prompt_version is None
    assert "relevance" in judge.identity.to_json()["tasks"]
