"""The text fast paths give exactly what the plain regular-expression versions give.

Each reference below is the straightforward implementation the fast one replaced; random
strings built from the characters that matter (markers, abbreviations, odd whitespace, case
variants the ``re`` module folds) must come out the same. The sentence splitter has no older
twin any more (its rules changed, see tests/test_sentences.py): on the same strings it must
keep every character, in order, in stripped, non-overlapping sentences.
"""

from __future__ import annotations

import random
import re

import pytest

from ragcard._sentences import sentence_spans
from ragcard.inputs.responses import _MARKER, split_sentences, strip_markers
from ragcard.judges.refusals import REFUSAL_PHRASES as _PHRASES
from ragcard.metrics import _text
from ragcard.metrics.abstention import detect_abstention_phrase


def reference_strip_markers(text: str) -> str:
    text = re.sub(r"\s+", " ", _MARKER.sub("", text))
    return re.sub(r"\s+([.!?,;:])", r"\1", text).strip()


REFERENCE_NUMBER = re.compile(r"(?:[£$€]\s?)?\d[\d,.:/-]*\d(?:\s?%)?|[£$€]\s?\d")


def reference_numbers(text: str) -> frozenset[str]:
    found = set()
    for match in REFERENCE_NUMBER.findall(text):
        token = re.sub(r"\s", "", match).rstrip(".,:/-")
        if sum(ch.isdigit() for ch in token) >= 2 or token[:1] in "£$€":
            found.add(token)
    return frozenset(found)


REFERENCE_PHRASES = re.compile(_PHRASES.pattern.removeprefix("(?=[iawndu])"), re.IGNORECASE)

PIECES = [
    *"ab .!?[]p1#@-_:/\"'”’)(¿¡A0,;%£$€\t\n\x00\u00a0\u2028\u0663İıſK",
    *"e.g.|approx.|pp.|p.|No.|Mr.|[p1]| [x#2] |[sic]|  | .| ,|12|3.5|£ 5|40 %|25 days".split("|"),
    *"2025-01-01|i |I |do not |don't |cannot |know|is not |ISN'T |covered|no ".split("|"),
    *"information |about|not in the |records|doesn't |say|unable to |answer".split("|"),
    *"i'm |sorry|, but |that|Details |of".split("|"),
]


def random_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(PIECES, k=rng.randint(0, 24))) for _ in range(count)]


def check_spans(text: str) -> None:
    spans = sentence_spans(text)
    previous = 0
    for start, end in spans:
        assert previous <= start < end <= len(text), repr(text)
        piece = text[start:end]
        assert piece == piece.strip() and piece, repr(text)
        assert not text[previous:start].strip(), repr(text)  # only whitespace between
        previous = end
    assert not text[previous:].strip(), repr(text)
    assert split_sentences(text) == [text[start:end] for start, end in spans]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sentences_and_markers(seed: int) -> None:
    for text in random_texts(seed, 20_000):
        check_spans(text)
        assert strip_markers(text) == reference_strip_markers(text), repr(text)


@pytest.mark.parametrize("seed", [4, 5])
def test_numbers(seed: int) -> None:
    for text in random_texts(seed, 20_000):
        assert _text.numbers(text) == reference_numbers(text), repr(text)


@pytest.mark.parametrize("seed", [6, 7])
def test_abstention_phrases(seed: int) -> None:
    for text in random_texts(seed, 20_000):
        expected = bool(REFERENCE_PHRASES.search(text.replace("’", "'")))
        assert detect_abstention_phrase(text) == expected, repr(text)
        reference = REFERENCE_PHRASES.search(text)
        found = _PHRASES.search(text)
        assert (found and found.span()) == (reference and reference.span()), repr(text)
