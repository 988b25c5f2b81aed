"""Citation layer: are citations real, retrieved and within the cutoff? (docs/metrics.md#measures)

``citation_validity`` is deterministic. ``citation_accuracy`` (does the cited passage support
its sentence?) needs a judge; without one it is unscored with that reason, never 0. Its trials
are the distinct (sentence, cited passage) pairs of an answer, however many times each is cited.
The cutoff applies to the figure's own record (tier A and untiered passages): tier-B passages
are later commentary, dated after the cutoff by nature, and are checked for attribution instead.
``uncited_sentences`` is the share of answer sentences that carry no citation — every sentence
counts as factual here, since telling factual from phatic sentences needs a judge.
"""

from __future__ import annotations

from typing import Any

from ragcard.inputs.responses import AgentResponse
from ragcard.metrics.base import (
    NEEDS_JUDGE,
    AttemptContext,
    LayerScore,
    MetricSpec,
    ScoringSettings,
)

__all__ = ["NEEDS_JUDGE", "CitationLayer", "invalid_citations"]


class CitationLayer:
    name = "citation"

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]:
        return (
            MetricSpec(
                "citation_validity",
                self.name,
                "rate",
                True,
                "answers whose every citation exists, was retrieved and is within the cutoff",
                "no answer cites a passage",
            ),
            MetricSpec(
                "citation_accuracy",
                self.name,
                "pooled",
                True,
                "(sentence, cited passage) pairs where the passage supports the sentence",
                NEEDS_JUDGE,
            ),
            MetricSpec(
                "uncited_sentences",
                self.name,
                "mean",
                False,
                "share of answer sentences without a citation",
                "no answered item",
                share=True,
            ),
        )

    def score(self, ctx: AttemptContext) -> LayerScore:
        result = LayerScore()
        response = ctx.response
        if response is None or ctx.settings.retrieval_only:
            return result
        citations = response.resolved_citations()
        if citations:
            problems = invalid_citations(ctx, response)
            result.values["citation_validity"] = 0.0 if problems else 1.0
            if problems:
                result.evidence["invalid_citations"] = problems
        _citation_accuracy(ctx, result)
        sentences = response.sentences()
        if sentences and not _abstained_without_citations(ctx, bool(citations)):
            covered = {c.sentence for c in citations}
            if None in covered:  # a bare id cites the whole answer
                uncited = 0
            else:
                uncited = sum(1 for i in range(len(sentences)) if i not in covered)
            result.values["uncited_sentences"] = uncited / len(sentences)
        result.evidence["cited"] = [c.id for c in citations]
        return result


def _citation_accuracy(ctx: AttemptContext, result: LayerScore) -> None:
    """Pooled over (sentence, cited passage) pairs: successes and trials of this answer."""
    judged, why = ctx.judgement()
    if judged is None:
        result.unscored["citation_accuracy"] = why or NEEDS_JUDGE
        return
    if not judged.citations:
        return
    # one verdict per (sentence, passage) pair: a passage cited both explicitly and inline in
    # the same sentence is one pair, not two (it used to count twice)
    pairs = {(i, pid): v for i, pid, v in judged.citations}
    wrong = [
        {"sentence": i, "id": pid, "verdict": v.label}
        for (i, pid), v in pairs.items()
        if not v.supported
    ]
    result.values["citation_accuracy"] = float(len(pairs) - len(wrong))
    result.trials["citation_accuracy"] = float(len(pairs))
    if wrong:
        result.evidence["unsupported_citations"] = wrong


def _abstained_without_citations(ctx: AttemptContext, cites: bool) -> bool:
    response = ctx.response
    return response is not None and bool(response.abstained or response.flag) and not cites


def invalid_citations(ctx: AttemptContext, response: AgentResponse) -> list[dict[str, Any]]:
    """Each citation that is unknown, not retrieved, or dated after the item's cutoff."""
    retrieved = set(response.retrieved_ids)
    cutoff = ctx.question.cutoff
    problems: list[dict[str, Any]] = []
    for citation in response.resolved_citations():
        passage = ctx.corpus.get(citation.id)
        reason = None
        if passage is None:
            reason = "unknown"
        elif citation.id not in retrieved:
            reason = "not_retrieved"
        elif (
            cutoff is not None
            and passage.date is not None
            and passage.date > cutoff
            and passage.tier != "B"
        ):
            reason = "after_cutoff"
        if reason:
            problems.append({"id": citation.id, "sentence": citation.sentence, "reason": reason})
    return problems
