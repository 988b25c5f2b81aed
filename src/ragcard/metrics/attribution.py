"""B attribution: tier-B (secondary) content must be attributed in the answer
(docs/metrics.md#measures).

An answer *uses* a tier-B passage when it cites one or — with a judge — when a sentence rests
on one without citing it; it attributes them when every such sentence carries an attribution
cue ("historians", "according to", "it is said", …). The cue list is English and literal.
"""

from __future__ import annotations

import re

from ragcard.metrics.base import AttemptContext, LayerScore, MetricSpec, ScoringSettings

__all__ = ["ATTRIBUTION_CUES", "AttributionLayer"]

ATTRIBUTION_CUES = re.compile(
    r"\b(?:according to|historians?|scholars?|biographers?|researchers?|"
    r"(?:it is|it's|it was) (?:said|believed|thought|reported|claimed)|"
    r"(?:some|many|later) (?:say|believe|think|suggest|writers|accounts)|"
    r"(?:the )?museum(?:'s)? (?:catalogue|notes?|records?)|"
    r"(?:is|are|was|were) (?:said|believed|thought|reported) to|"
    r"(?:writes?|wrote|notes?|noted|suggests?|suggested|argues?|argued) that|"
    r"reportedly|allegedly|in (?:the )?(?:view|words) of)\b",
    re.IGNORECASE,
)


class AttributionLayer:
    name = "attribution"

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]:
        return (
            MetricSpec(
                "b_attribution",
                self.name,
                "rate",
                True,
                "answers citing tier-B passages that attribute them",
                "no answer cites a tier-B passage",
            ),
        )

    def score(self, ctx: AttemptContext) -> LayerScore:
        result = LayerScore()
        response = ctx.response
        if response is None or ctx.settings.retrieval_only:
            return result
        sentences = response.sentences()
        uses: dict[tuple[str, int | None], str] = {}  # (passage, sentence) → how it was used
        for citation in response.resolved_citations():
            passage = ctx.corpus.get(citation.id)
            if passage is not None and passage.tier == "B":
                uses[(citation.id, citation.sentence)] = "cited"
        judged, _ = ctx.judgement()
        if judged is not None:  # uncited use of tier-B content, seen by the judge
            for position, verdict in enumerate(judged.support):
                passage = ctx.corpus.get(verdict.passage_id or "")
                if verdict.supported and passage is not None and passage.tier == "B":
                    uses.setdefault((passage.id, position), "content")
        if not uses:
            return result
        unattributed = []
        for (pid, sentence), how in uses.items():
            text = (
                response.answer
                if sentence is None
                else (sentences[sentence] if sentence < len(sentences) else "")
            )
            if not ATTRIBUTION_CUES.search(text):
                unattributed.append({"id": pid, "sentence": sentence, "use": how})
        result.values["b_attribution"] = 0.0 if unattributed else 1.0
        result.evidence["b_used"] = sorted({pid for pid, _ in uses})
        if unattributed:
            result.evidence["b_unattributed"] = unattributed
        return result
