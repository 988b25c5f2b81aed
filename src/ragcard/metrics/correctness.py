"""Answer correctness: does the answer state what the expected answer states?
(docs/metrics.md#measures)

Over answerable items the agent answered (did not abstain) that have an ``expected_answer``:
the judge's verdict per answer — ``correct``, ``partial`` (some of the key facts, nothing false
that would change what the asker does) or ``wrong`` (a wrong fact, a neighbouring question
answered, or an answer that would lead the asker to do the wrong thing), given the question
and the gold passages (:mod:`ragcard.metrics.judged`). ``answer_correctness`` is the share
``correct``, ``answer_wrong`` the share ``wrong``; both rates carry a Wilson interval, and the
scorecard breaks them down by category and split. Faithfulness says an answer is supported;
only correctness says it is right.

Each attempt's verdict is kept as evidence (``correctness``: grade, score, the deciding fact),
so a reader can overturn it. Without a judge the measures are unscored with that reason;
a judge failure on one answer leaves that item unscored, never a zero.
"""

from __future__ import annotations

from ragcard.metrics.abstention import abstention_of, judged_of
from ragcard.metrics.base import (
    NEEDS_JUDGE,
    AttemptContext,
    LayerScore,
    MetricSpec,
    ScoringSettings,
)

__all__ = ["CorrectnessLayer"]


class CorrectnessLayer:
    name = "correctness"

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]:
        return (
            MetricSpec(
                "answer_correctness",
                self.name,
                "rate",
                True,
                "answered answerable items whose answer states what the expected answer states",
                NEEDS_JUDGE,
            ),
            MetricSpec(
                "answer_wrong",
                self.name,
                "rate",
                False,
                "answered answerable items whose answer is wrong (a wrong fact, a neighbouring "
                "question answered, or misleading)",
                NEEDS_JUDGE,
            ),
        )

    def score(self, ctx: AttemptContext) -> LayerScore:
        result = LayerScore()
        response, question = ctx.response, ctx.question
        if response is None or ctx.settings.retrieval_only:
            return result
        if not question.is_answerable or not question.expected_answer:
            return result  # not in the population
        if ctx.settings.judge is None:
            result.unscored["answer_correctness"] = result.unscored["answer_wrong"] = NEEDS_JUDGE
            return result
        judged = judged_of(ctx)
        if abstention_of(response, ctx.settings, judged)[0]:
            return result  # an abstention is not an answer: the abstention layer scores it
        verdict = judged.correctness if judged is not None else None
        if verdict is None or verdict.grade is None:
            why = judged.note("correctness") if judged is not None else None
            result.unscored["answer_correctness"] = result.unscored["answer_wrong"] = (
                why or "not judged"
            )
            return result
        result.values["answer_correctness"] = 1.0 if verdict.grade == "correct" else 0.0
        result.values["answer_wrong"] = 1.0 if verdict.grade == "wrong" else 0.0
        result.evidence["correctness"] = {
            "verdict": verdict.grade,
            "score": verdict.score,
            "reason": verdict.reason,
        }
        return result
