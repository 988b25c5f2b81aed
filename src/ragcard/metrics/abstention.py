"""Abstention layer: when the sources do not hold the answer, does the agent say so? (SPEC §2)

Whether an attempt abstained is read, in order, from the response's ``abstained`` field, from
a raised flag (any flag counts unless the configuration names it non-abstaining), and only
then from the answer text with :func:`detect_abstention_phrase` — a phrase list that catches
the usual English refusals ("I don't know", "isn't covered in …") but not paraphrased,
hedged or non-English refusals; the judge layer replaces it when a judge is configured.
"""

from __future__ import annotations

import re

from ragcard.metrics.base import AttemptContext, LayerScore, MetricSpec, ScoringSettings
from ragcard.responses import AgentResponse

__all__ = ["AbstentionLayer", "abstention_of", "detect_abstention_phrase"]

# Every phrase starts with i, a, w, n, d or u: the leading lookahead only rejects, early, the
# positions where none could start (same matches, about twice as fast on long answers).
_PHRASES = re.compile(
    r"(?=[iawndu])"
    r"\b(?:"
    r"i (?:do not|don't|cannot|can't|could not|couldn't|am unable to|am not able to|have no)"
    r" (?:know|find|answer|say|help with|see|locate|tell|information|record)"
    r"|(?:is|are|was) not (?:covered|mentioned|addressed|included|stated|in (?:the|my|our))"
    r"|(?:isn't|aren't|wasn't) (?:covered|mentioned|addressed|included|stated|in (?:the|my|our))"
    r"|no (?:information|record|mention|answer|details?) (?:about|on|of|for|in)"
    r"|not in (?:the|my|our) (?:records?|sources?|documents?|handbook|archive|letters)"
    r"|(?:doesn't|does not|don't|do not) (?:say|cover|mention|address|contain)"
    r"|unable to (?:answer|find)"
    r"|(?:i'm|i am) (?:sorry|afraid),? (?:but )?(?:i|that)"
    r")",
    re.IGNORECASE,
)


def detect_abstention_phrase(text: str) -> bool:
    """True when ``text`` reads as a refusal to answer from the sources (English phrases)."""
    return bool(_PHRASES.search(text.replace("’", "'")))


def abstention_of(response: AgentResponse, settings: ScoringSettings) -> tuple[bool, str]:
    """(abstained, source) with source one of ``field``, ``flag``, ``text``."""
    if response.abstained is not None:
        return response.abstained, "field"
    if response.flag and response.flag not in settings.non_abstaining_flags:
        return True, "flag"
    return detect_abstention_phrase(response.answer), "text"


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
        abstained, source = abstention_of(response, ctx.settings)
        result.evidence["abstained"] = abstained
        result.evidence["abstention_source"] = source
        if ctx.question.is_answerable:
            result.values["false_abstention"] = 1.0 if abstained else 0.0
        else:
            result.values["correct_abstention"] = 1.0 if abstained else 0.0
        if ctx.question.flag_checked:
            expected = ctx.question.expected_flag
            result.values["flag_accuracy"] = 1.0 if response.flag == expected else 0.0
            result.labels["flag_accuracy"] = expected or "none"
            if response.flag != expected:
                result.evidence["flag"] = {"expected": expected, "raised": response.flag}
        return result
