"""B attribution: tier-B (secondary) content must be attributed in the answer (SPEC §2).

Without a judge, an answer *uses* a tier-B passage when it cites one, and attributes it when
every sentence citing a tier-B passage carries an attribution cue ("historians", "according
to", "it is said", …). Uncited use of tier-B content needs a judge to see.
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
        b_citations = [
            c
            for c in response.resolved_citations()
            if (p := ctx.corpus.get(c.id)) is not None and p.tier == "B"
        ]
        if not b_citations:
            return result
        unattributed = []
        for citation in b_citations:
            text = (
                response.answer
                if citation.sentence is None
                else (sentences[citation.sentence] if citation.sentence < len(sentences) else "")
            )
            if not ATTRIBUTION_CUES.search(text):
                unattributed.append({"id": citation.id, "sentence": citation.sentence})
        result.values["b_attribution"] = 0.0 if unattributed else 1.0
        result.evidence["b_used"] = sorted({c.id for c in b_citations})
        if unattributed:
            result.evidence["b_unattributed"] = unattributed
        return result
