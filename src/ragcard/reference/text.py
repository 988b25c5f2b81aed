"""Tokenising for the reference agent: lower-casing, a stopword list and a light stemmer.

Everything here is local and deterministic (no downloads): bm25s offers only Lucene's
33-word stopword list offline and needs PyStemmer for stemming, so the agent carries its own
small English stemmer. It is a cut-down Porter stemmer — plurals, ``-ed``/``-ing``, a handful
of derivational suffixes and a final ``-e`` — enough to match ``leave``/``leaves``/``leaving``
and ``approve``/``approved``/``approval``, which is what a keyword retriever over a handbook
needs. Numbers and codes (``p45``, ``2019``) are kept as they are.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["STOPWORDS", "identifiers", "idf_weights", "identifier_keys", "stem", "tokenize"]

_TOKEN = re.compile(r"[a-z0-9]+")

#: Lucene's English list plus question words, pronouns and auxiliaries: the words a question
#: is made of but that say nothing about which passage answers it.
STOPWORDS: frozenset[str] = frozenset(
    """
    a about after again against all also am an and any are as at be because been before being
    but by can could did do does doing done during each either else ever for from further get
    gets got had has have having he her here hers him his how i if in into is it its itself just
    let lets me might mine more most much must my myself no nor not now of off on once only or
    other our ours out over own per please s same shall she should so some such t tell than that
    the their theirs them then there these they this those through to too under until up upon us
    very was we were what when where whether which while who whom whose why will with would you
    your yours yourself many know
    """.split()
)

# Longest first: the first suffix that fits is removed (once).
_SUFFIXES = tuple(
    """
    izations ization ational fulness ousness iveness ations ation ements ement ments ment ness
    ities ity ical ance ence able ible ives ive ful ous ally ly al er
    """.split()
)
_VOWELS = frozenset("aeiouy")


def _has_vowel(text: str) -> bool:
    return any(char in _VOWELS for char in text)


def _strip_inflection(word: str) -> str:
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "i"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for ending in ("ing", "ed"):
        stem_part = word[: -len(ending)]
        if word.endswith(ending) and len(stem_part) >= 3 and _has_vowel(stem_part):
            word = stem_part
            # stopped -> stopp -> stop; but keep "ll"/"ss"/"zz" (billed -> bill)
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("y") and len(word) > 3 and word[-2] not in _VOWELS:
        word = word[:-1] + "i"
    return word


def stem(word: str) -> str:
    """A crude English stem: ``leaving`` -> ``leav``, ``approval`` -> ``approv``."""
    if len(word) <= 3 or not word.isalpha():
        return word
    word = _strip_inflection(word)
    for suffix in _SUFFIXES:
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 4 and _has_vowel(base):
            word = base
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    if word.endswith("ll") and len(word) > 4:  # travelled, travelling, travel: one stem
        word = word[:-1]
    return word


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def tokenize(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Lower-case, accent-fold, split on non-alphanumerics, drop stopwords, stem."""
    words = _TOKEN.findall(_fold(text))
    return [stem(word) for word in words if keep_stopwords or word not in STOPWORDS]


def idf_weights(documents: Iterable[Sequence[str]]) -> tuple[dict[str, float], float]:
    """Lucene-style IDF of every term in ``documents``, and the IDF of an unseen term.

    Used to weigh query terms when measuring how much of a question a passage or sentence
    covers: a rare word the corpus lacks (``pets``) counts for more than ``policy``.
    """
    frequencies: Counter[str] = Counter()
    count = 0
    for tokens in documents:
        count += 1
        frequencies.update(set(tokens))

    def idf(document_frequency: int) -> float:
        return math.log(1.0 + (count - document_frequency + 0.5) / (document_frequency + 0.5))

    return {term: idf(df) for term, df in frequencies.items()}, idf(0)


# A code-like group: alphanumeric pieces joined by hyphens or slashes (``HR-17``, ``MG-PIP-2``).
_GROUP = re.compile(r"[A-Za-z0-9]+(?:[-/][A-Za-z0-9]+)*")
# One piece that starts with letters and has a digit in it: ``P3``, ``l4``, ``p45``, ``hr17``.
# (Digit-first pieces — ``2nd``, ``5pm``, ``1870s``, ``3d`` — are read as numbers with units.)
_LETTERS_THEN_DIGIT = re.compile(r"[A-Za-z]+[0-9][A-Za-z0-9]*")


def identifiers(text: str) -> set[str]:
    """Codes named in ``text``, lower-cased without separators (``HR-17`` -> ``hr17``).

    A code is a word that starts with letters and contains a digit (``P3``, ``l4``, ``p45``),
    or a hyphen/slash group of upper-case letters and digits (``HR-17``, ``IT-09``,
    ``COVID-19``) — so ``24-hour``, ``9am-5pm`` and ``2nd`` are not codes.
    """
    found: set[str] = set()
    for group in _GROUP.findall(_fold_keep_case(text)):
        pieces = re.split(r"[-/]", group)
        has_digit = any(char.isdigit() for char in group)
        single = len(pieces) == 1 and _LETTERS_THEN_DIGIT.fullmatch(group) is not None
        letters = [piece for piece in pieces if not piece.isdigit()]
        upper_group = (
            len(pieces) > 1 and has_digit and all(piece.isupper() for piece in letters) and letters
        )
        if single or upper_group:
            found.add("".join(pieces).lower())
    return found


def identifier_keys(text: str, *, span: int = 3) -> set[str]:
    """Every way ``text`` may write a code: runs of up to ``span`` adjacent words, joined.

    ``IT-09``, ``IT 09`` and ``it09`` all yield ``it09``; only runs that mix letters and
    digits are kept. Used to look up :func:`identifiers` from a question in passages.
    """
    words = _TOKEN.findall(_fold(text))
    keys: set[str] = set()
    for start in range(len(words)):
        joined = ""
        for word in words[start : start + span]:
            joined += word
            if any(c.isdigit() for c in joined) and any(c.isalpha() for c in joined):
                keys.add(joined)
    return keys


def _fold_keep_case(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char))
