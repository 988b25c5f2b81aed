"""The refusal phrase list: does an answer's text decline to answer from the sources?

A deterministic English phrase list that catches the usual refusals ("I don't know", "isn't
covered in …", "no information about …", "not in the records") but not paraphrased, hedged or
non-English ones. It is the ``lexical`` judge's answer to the abstention question and the
fallback of the abstention layer when the run's judge cannot answer that question.
"""

from __future__ import annotations

import re

__all__ = ["REFUSAL_PHRASES", "detect_abstention_phrase", "refusal_phrase"]

# Every phrase starts with i, a, w, n, d or u: the leading lookahead only rejects, early, the
# positions where none could start (same matches, about twice as fast on long answers).
REFUSAL_PHRASES = re.compile(
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


def refusal_phrase(text: str) -> str | None:
    """The first refusal phrase found in ``text``, or None."""
    match = REFUSAL_PHRASES.search(text.replace("’", "'"))
    return match.group(0) if match else None


def detect_abstention_phrase(text: str) -> bool:
    """True when ``text`` reads as a refusal to answer from the sources (English phrases)."""
    return refusal_phrase(text) is not None
