"""Deterministic text matching shared by the layers: words, n-grams and number patterns."""

from __future__ import annotations

import functools
import re

__all__ = ["numbers", "quantities", "states_something", "words"]

_WORD = re.compile(r"[a-z0-9]+(?:[.,'][a-z0-9]+)*")
# Amounts, percentages, dates, times and plain numbers with at least two digits: "£58,000",
# "12.5%", "2025-04-01", "14:30", "30". Single digits are too common to be evidence.
# (the leading lookahead, a necessary first character, only lets the search skip faster)
_NUMBER = re.compile(
    r"(?=[£$€\d])(?:(?:[£$€]\s?)?\d[\d,.:/-]*\d(?:\s?%)?|[£$€]\s?\d)",
)


def words(text: str) -> tuple[str, ...]:
    """Lower-cased word tokens (numbers kept whole: '58,000', '3.2')."""
    return tuple(_WORD.findall(text.lower()))


@functools.lru_cache(maxsize=64)
def numbers(text: str) -> frozenset[str]:
    """Number-like tokens normalised (spaces removed, trailing punctuation stripped).

    Cached for the last few texts: the currency and access layers both read an answer's.
    """
    found = set()
    for match in _NUMBER.findall(text):
        token = re.sub(r"\s", "", match).rstrip(".,:/-")
        if sum(ch.isdigit() for ch in token) >= 2 or token[:1] in "£$€":
            found.add(token)
    return frozenset(found)


_QUANTITY = re.compile(r"\b(\d+)\s+(?:working\s+|calendar\s+|business\s+)?([a-z]+)", re.IGNORECASE)


def quantities(text: str) -> frozenset[str]:
    """:func:`numbers` plus counted nouns such as '5 days' (single digits included), the
    facts that typically change between versions of a policy."""
    counted = {f"{n} {unit.lower().rstrip('s')}" for n, unit in _QUANTITY.findall(text)}
    return numbers(text) | counted


#: Words that say nothing a passage could support: a sentence of only these is not a claim.
_PHATIC = frozenset(
    "yes no yeah nope ok okay sure thanks thank you hello hi hey please sorry well of course "
    "indeed certainly absolutely right great good morning afternoon evening dear".split()
)


def states_something(sentence: str) -> bool:
    """Whether a sentence makes a claim (a word beyond "Yes.", "No.", "Thanks!" and the like);
    faithfulness counts only the sentences that do."""
    return any(word not in _PHATIC for word in words(sentence))
