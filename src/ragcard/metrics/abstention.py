"""Abstention layer: when the sources do not hold the answer, does the agent say so?
(docs/metrics.md#measures)

Whether an attempt abstained is read, in order, from the response's ``abstained`` field, from
a raised flag (any flag counts unless the configuration names it non-abstaining), and only
then from the answer text: by the run's judge when it answers the abstention question
(:mod:`ragcard.metrics.judged`), else by :func:`detect_abstention_phrase` — a phrase list that
catches the usual English refusals ("I don't know", "isn't covered in …") but not
paraphrased, hedged or non-English ones. Each attempt records which source decided
(``abstention_source``: ``field``, ``flag``, ``judge`` or ``phrases``) and, when the judge
could not answer, why (``abstention_fallback``).
"""

from __future__ import annotations

from typing import Any

from ragcard.inputs.questions import Question, is_abstention_flag
from ragcard.inputs.responses import AgentResponse
from ragcard.judges.refusals import detect_abstention_phrase
from ragcard.metrics.base import AttemptContext, LayerScore, MetricSpec, ScoringSettings
from ragcard.metrics.judged import JudgedAnswer

__all__ = [
    "AbstentionLayer",
    "abstention_evidence",
    "abstention_of",
    "flag_label",
    "detect_abstention_phrase",
    "judged_of",
]


def abstention_of(
    response: AgentResponse, settings: ScoringSettings, judged: JudgedAnswer | None = None
) -> tuple[bool, str]:
    """(abstained, source) with source one of ``field``, ``flag``, ``judge``, ``phrases``;
    ``judged``: the judge's verdicts on this answer, when the run has a judge."""
    if response.abstained is not None:
        return response.abstained, "field"
    if is_abstention_flag(response.flag, settings.non_abstaining_flags):
        return True, "flag"
    if judged is not None and judged.abstention is not None:
        return judged.abstention.supported, "judge"
    return detect_abstention_phrase(response.answer), "phrases"


def flag_label(question: Question) -> str | None:
    """The item's label in the ``flag_accuracy`` breakdown: the flag it expects, ``"none"``
    when it expects none; None when its flag is not checked. Known before the run, so a
    threshold on a label no item has is refused before any agent call."""
    return (question.expected_flag or "none") if question.flag_checked else None


def judged_of(ctx: AttemptContext) -> JudgedAnswer | None:
    """The judge's verdicts on this attempt's answer (None without a judge)."""
    return ctx.judged if ctx.settings.judge is not None else None


def abstention_evidence(ctx: AttemptContext, source: str) -> dict[str, Any]:
    """What the judge said on the abstention question, or why the phrases decided instead."""
    judged = judged_of(ctx)
    if source == "judge" and judged is not None and judged.abstention is not None:
        verdict = judged.abstention
        said = "declines" if verdict.supported else "answers"
        return {"abstention_judge": {"verdict": said, "score": verdict.score,
                                     "reason": verdict.reason}}  # fmt: skip
    if source == "phrases" and ctx.settings.judge is not None:
        why = judged.note("abstention") if judged is not None else None
        return {"abstention_fallback": why or "not judged"}
    return {}


class AbstentionLayer:
    name = "abstention"

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]:
        return (
            MetricSpec(
                "correct_abstention",
                self.name,
                "rate",
                True,
                "unanswerable items on which the agent abstained",
                "no unanswerable item",
            ),
            MetricSpec(
                "false_abstention",
                self.name,
                "rate",
                False,
                "answerable items on which the agent abstained",
                "no answerable item",
            ),
            MetricSpec(
                "flag_accuracy",
                self.name,
                "rate",
                True,
                "items with an expected flag whose raised flag equals it",
                "no item states an expected_flag",
            ),
        )

    def score(self, ctx: AttemptContext) -> LayerScore:
        result = LayerScore()
        response = ctx.response
        if response is None or ctx.settings.retrieval_only:
            return result
        abstained, source = abstention_of(response, ctx.settings, judged_of(ctx))
        result.evidence["abstained"] = abstained
        result.evidence["abstention_source"] = source
        result.evidence.update(abstention_evidence(ctx, source))
        if ctx.question.is_answerable:
            result.values["false_abstention"] = 1.0 if abstained else 0.0
        else:
            result.values["correct_abstention"] = 1.0 if abstained else 0.0
        label = flag_label(ctx.question)
        if label is not None:
            expected = ctx.question.expected_flag
            result.values["flag_accuracy"] = 1.0 if response.flag == expected else 0.0
            result.labels["flag_accuracy"] = label
            if response.flag != expected:
                result.evidence["flag"] = {"expected": expected, "raised": response.flag}
        return result
