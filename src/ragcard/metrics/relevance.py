"""Answer relevance: does the answer address the question? (ragcard's measure;
docs/metrics.md#measures names
no definition, so the name is ``answer_relevance``.)

A rate, over answered attempts (not abstentions: the abstention layer scores those), of the
answers the run's judge says address the question asked — a yes/no verdict per answer from
the judge's ``relevance`` task (:mod:`ragcard.judges.base`). Higher is better; a 95% Wilson
interval. Without a judge, or with one that cannot answer the question, it is unscored with
that reason, never 0; a judge failure on one answer leaves that item unscored.

What the verdict means depends on the judge: the ``lexical`` judge only checks that the answer
holds the question's key terms (it catches answers about something else, not evasive ones);
the chat judges ask the model. The judge and how it answers are named on the scorecard. An
answer the judge finds states the item's expected answer counts as relevant, whatever the
relevance check said (a correct answer addresses the question; the lexical check misses
paraphrase such as "deadline for putting in expenses" → "submit claims within 45 days").
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

__all__ = ["RelevanceLayer"]


class RelevanceLayer:
    name = "relevance"

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]:
        return (
            MetricSpec(
                "answer_relevance",
                self.name,
                "rate",
                True,
                "answered attempts whose answer addresses the question (judge)",
                NEEDS_JUDGE,
            ),
        )

    def score(self, ctx: AttemptContext) -> LayerScore:
        result = LayerScore()
        response = ctx.response
        if response is None or ctx.settings.retrieval_only:
            return result
        if ctx.settings.judge is None:
            result.unscored["answer_relevance"] = NEEDS_JUDGE
            return result
        judged = judged_of(ctx)
        if abstention_of(response, ctx.settings, judged)[0]:
            return result  # an abstention is not an answer: not in the population
        if judged is None or judged.relevance is None:
            why = judged.note("relevance") if judged is not None else None
            result.unscored["answer_relevance"] = why or "not judged"
            return result
        verdict = judged.relevance
        if (
            not verdict.supported
            and judged.correctness is not None
            and judged.correctness.supported
        ):
            # the judge found the expected answer in it: it addresses the question, whatever
            # the relevance check made of its wording (the lexical check misses paraphrase)
            result.values["answer_relevance"] = 1.0
            result.evidence["relevance_overruled"] = "the answer states the expected answer"
            return result
        result.values["answer_relevance"] = 1.0 if verdict.supported else 0.0
        if not verdict.supported:
            result.evidence["off_topic"] = {"score": verdict.score, "reason": verdict.reason}
        return result
