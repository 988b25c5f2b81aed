"""The main point of an expected answer, and its secondary parts (docs/metrics.md, "Answer
correctness").

An answer that states the main point and leaves out a secondary fact is ``partial`` with the
main point (rubric level 2), not "misses the main point". Read from the expected answer's
wording, deterministically:

* **secondary** — a parenthetical ("Six months (a final written warning stays live for 12
  months)"), and the attribution of an attributed (tier-B) answer: "According to J.-F. Rioual
  (1998), …", "The historian Annick Morvan (1962) writes that …", "Historians note that …".
  The source's name and year are not the answer; what the source says is.
* **the main point** — the first fact of the rest, a leading "Yes"/"No" left out (its polarity
  is checked as a conflict): the first sentence or clause (cut at ";", ":", ", and", ", but",
  " but "), and, when that clause opens with a figure or code and a comma follows it, the
  figure's phrase alone ("Up to 10 keeping-in-touch days, paid at your full daily rate …").
  A question that asks two things ("what evidence do I need **and what** will I be paid?")
  has a main point of two facts: the first fact of each of the first two parts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["asks", "main_point", "secondary_spans"]

_PARENTHETICAL = re.compile(r"\s*\([^()]*\)")
_YES_NO = re.compile(r"^\W*(?:yes|no)\b[\s,:;.!\u2013\u2014-]*", re.IGNORECASE)
#: Words that make a leading "X writes that" an attribution to a source, not a rule's subject
#: ("The policy states that …" is not one).
_SOURCE = re.compile(
    r"\b(?:historians?|scholars?|biographers?|catalogue|archives?|museum|descendants|census|"
    r"researchers?|studies|study|article|letters|papers|interviewed)\b|\(\d{4}\)|\b\d{4}\b",
    re.IGNORECASE,
)
_ATTRIBUTION = re.compile(
    r"^\W*(?:according\s+to\s+[^,;]+,\s*"
    r"|(?:[\w.'’-]+\s+){0,7}?(?:\(\d{4}\)\s+)?"
    r"(?:writes?|wrote|notes?|noted|suggests?|argues?|gives?|says?|reads?|counts?|recalls?|"
    r"believes?|states?|records?|reports?|describes?|estimates?)(?:\s+that)?\s+)",
    re.IGNORECASE,
)
_PARTS = re.compile(
    r"[.;:!?](?=\s|$)|,\s+(?=(?:and|but|so|then|while|whereas)\b)|\s+but\s+"
    r"|\s+and\s+(?=(?:must|may|can|cannot|should|will|is|are|has|have|needs?)\b)",
    re.IGNORECASE,
)
#: What may follow a figure's phrase after a comma, for the phrase to be the point alone
#: ("Up to 5 days of paid study leave a year, booked in Harbour …"), not a list ("six free,
#: confidential sessions").
_QUALIFIER = re.compile(
    r"(?:\w+ed|paid|kept|held|made|given|taken|sent|shown|done|set|in|with|for|during|within|"
    r"by|from|to|at|on|including|plus|as|after|before)\b",
    re.IGNORECASE,
)
_LEADING = re.compile(r"^(?:and|but|so|then|while|whereas)\s+", re.IGNORECASE)
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_SECOND_ASK = re.compile(
    r"\b(?:and|or)\s+(?:what|how|where|when|who|which|why|whether|do|does|did|is|are|can|"
    r"could|should|will|would|must|may|am|have|has)\b|\?\s*(?=\w)",
    re.IGNORECASE,
)


def secondary_spans(expected: str) -> list[tuple[int, int]]:
    """Character spans of the secondary parts of ``expected``: parentheticals and the
    attribution of an attributed answer (its source's name and year)."""
    spans = [match.span() for match in _PARENTHETICAL.finditer(expected)]
    opening = _YES_NO.match(expected)
    start = opening.end() if opening else 0
    found = _ATTRIBUTION.match(expected, start)
    if found and _SOURCE.search(found.group(0)):
        spans.append((start, found.end()))
    return sorted(spans)


def asks(question: str | None) -> int:
    """How many things a question asks: 1, or 2 and more where a second question follows ("…
    and what will I be paid?", "…? How …")."""
    return 1 + len(_SECOND_ASK.findall(question or ""))


def main_point(
    core: str, question: str | None, has_fact: Callable[[str], bool]
) -> tuple[str, ...]:
    """The main point of an expected answer whose secondary parts are blanked out (``core``),
    as one fact or, for a question asking several things, one fact per thing (module
    docstring). ``has_fact(text)`` says whether a piece holds a figure or code (a piece
    without one and with fewer than two words is too thin to be the point alone)."""
    text = _YES_NO.sub("", core, count=1).strip()
    parts = [_LEADING.sub("", p.strip(" ,")) for p in _PARTS.split(text) if p and p.strip(" ,")]
    if not parts:
        return (text,)
    wanted = max(asks(question), _named_things(question, parts))
    if wanted >= 2:
        if len(parts) < wanted:
            parts = [piece for part in parts for piece in _AND.split(part, maxsplit=1)]
        if len(parts) < wanted:
            parts = [piece for part in parts for piece in _split_qualifier(part, has_fact)]
        return tuple(_first_fact(part, [], has_fact) for part in parts[:wanted])
    return (_first_fact(parts[0], parts[1:], has_fact),)


def _split_qualifier(part: str, has_fact: Callable[[str], bool]) -> list[str]:
    pieces = part.split(", ")
    for i in range(1, len(pieces)):
        if has_fact(", ".join(pieces[:i])) and _QUALIFIER.match(pieces[i]):
            return [", ".join(pieces[:i]), ", ".join(pieces[i:])]
    return [part]


def _first_fact(part: str, rest: list[str], has_fact: Callable[[str], bool]) -> str:
    pieces = part.split(", ")
    if len(pieces) > 1 and has_fact(pieces[0]) and _QUALIFIER.match(pieces[1]):
        return pieces[0]
    if not has_fact(part) and len(re.findall(r"[^\W\d_]{3,}", part)) < 2 and rest:
        return f"{part}, {rest[0]}"
    return part


def _named_things(question: str | None, parts: list[str]) -> int:
    """2 when the question names two things ("how do the reviews link to pay rises **and**
    promotion?") and a later part of the answer is about the second one alone."""
    if not question or len(parts) < 2 or not re.search(r"\s(?:and|or)\s", question):
        return 1
    second = set(_stems(re.split(r"\s(?:and|or)\s", question)[-1]))
    first = set(_stems(parts[0]))
    return 2 if any((set(_stems(p)) - first) & second for p in parts[1:]) else 1


def _stems(text: str) -> list[str]:
    return [w[:5] for w in re.findall(r"[^\W\d_]{4,}", text.lower())]
