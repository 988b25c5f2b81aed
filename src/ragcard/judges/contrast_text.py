"""The words of a claim and its evidence as :mod:`ragcard.judges.contrast` reads them:
tokens (contractions expanded, numbers normalised, names, negations and lexicon values
marked), clauses, and how two pieces of text compare in polarity (negations, negative words
and prefixes, obligation and permission)."""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ragcard._sentences import sentence_spans
from ragcard.judges.contrast_lexicon import (
    AXES,
    MODAL_AXIS,
    NEGATIVE_WORDS,
    NEUTRAL_PHRASES,
    PHRASES,
    STOPWORDS,
    TITLES,
)
from ragcard.judges.lexical import content_terms, figure_tokens, stem


@dataclass(frozen=True, slots=True)
class Contrast:
    """What a claim changed against its evidence: ``kind`` is ``negation``, ``name`` or
    ``relation``; the claim's words and the evidence's; a reason that names the change."""

    kind: str
    claim_word: str
    evidence_word: str
    reason: str


@dataclass(frozen=True, slots=True)
class _Token:
    norm: str  # what is aligned: lower-cased, stemmed, number words as digits
    word: str  # lower-cased word
    surface: str  # as written ("cannot" for both its tokens)
    start: int
    end: int
    name: bool  # a capitalised word not at the sentence start, or a code ("OH-1", "A4")
    negative: bool  # a negation or a negative word ("not", "forbidden")
    neutral: bool  # inside a phrase that negates nothing ("no later than")
    axis: tuple[str, str] | None  # (axis, value) from the lexicon
    clause: bool = False  # a clause starts here (after , ; : ( ) – — or at "and", "but", …)
    capital: bool = False  # capitalised, not a stop word or title (a name at a sentence start?)
    question: bool = False  # the last token of a question
    content: bool = True  # a content word as the lexical judge reads them
    strong: bool = False  # a clause starts here at a connective or at ; : ( ) – —


_TOKEN = re.compile(
    r"[A-Za-z][A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)+|[A-Za-z]+\d[A-Za-z0-9]*|\d+[A-Z][A-Za-z]*"
    r"|\d+(?:,\d{3})*(?:\.\d+)?|[^\W\d_]+(?:['’][^\W\d_]+)?"
)


_WORD = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?|[^\W\d_]+(?:['’][^\W\d_]+)?")


_CONTRACTION = {"can't": "can", "won't": "will", "shan't": "shall", "ain't": "is"}


_ANSWER_WORD = re.compile(r"^\s*(?:yes|no)\b\s*[,.;:!\u2013\u2014-]+\s*", re.I)


_MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)


_QUOTES = ("\"", "“", "`", "'", "‘")


_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non")


def _named(tokens: list[_Token], proper: set[str]) -> list[_Token]:
    return [
        dataclasses.replace(t, name=True) if t.capital and not t.name and t.norm in proper else t
        for t in tokens
    ]


def _split(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


def _tokens(text: str) -> list[_Token]:
    """The tokens of ``text``, contractions expanded, each read against the lexicon."""
    raw: list[tuple[str, str, int, int]] = []  # (surface, lower, start, end)
    for m in _TOKEN.finditer(text):
        surface = m.group(0)
        if not _is_code(surface) and not surface[0].isdigit() and not surface.isalpha():
            if "'" not in surface and "’" not in surface:  # "well-known": its words
                raw.extend(_words(surface, m.start()))
                continue
        raw.extend(_expand(surface, m.start(), m.end()))
    words = [lower for _, lower, _, _ in raw]
    neutral = _phrase_marks(words, NEUTRAL_PHRASES)
    phrases = _phrase_values(words)
    out = []
    for i, (surface, lower, start, end) in enumerate(raw):
        norm = _norm(lower)
        name = _is_code(surface) or (
            i > 0 and surface[0].isupper() and lower not in TITLES
            and (lower not in STOPWORDS or len(surface) == 1 and surface != "I")
        ) or (len(surface) > 1 and surface.isupper() and surface.isalpha())
        axis = phrases.get(i) or (None if name else AXES.get(norm) or AXES.get(lower))
        # a capitalised "Never" or "Can't" inside a sentence is a title's word ("It's Now or
        # Never"), and so is a "n't" written apart after one ("Ca n't Get You Out")
        quoted = text[:start].rstrip().endswith(_QUOTES)
        title = (start > raw[0][2] or quoted) and surface[0].isupper() or (
            surface.lower() == "n't" and i > 0 and raw[i - 1][0][0].isupper()
        )
        negative = not neutral[i] and lower in NEGATIVE_WORDS and not title
        gap = text[raw[i - 1][3] : start] if i else ""
        clause = lower in _CONNECTIVES or any(mark in gap for mark in _CLAUSE_MARKS)
        strong = lower in _CONNECTIVES or any(mark in gap for mark in _STRONG_MARKS)
        capital = surface[0].isupper() and lower not in STOPWORDS and lower not in TITLES
        question = i == len(raw) - 1 and text[end:].strip().startswith("?")
        content = len(lower) > 1 and bool(content_terms(lower))
        out.append(_Token(norm, lower, surface, start, end, name, negative, neutral[i],
                          None if neutral[i] else axis, clause, capital, question,
                          content, strong))  # fmt: skip
    return out


def _words(surface: str, offset: int) -> Iterator[tuple[str, str, int, int]]:
    for m in _WORD.finditer(surface):
        yield m.group(0), m.group(0).lower(), offset + m.start(), offset + m.end()


def _expand(surface: str, start: int, end: int) -> list[tuple[str, str, int, int]]:
    lower = surface.lower().replace("’", "'")
    if lower == "cannot":
        return [(surface, "can", start, end), (surface, "not", start, end)]
    if lower.endswith("n't"):
        base = _CONTRACTION.get(lower, lower[:-3])
        return [(surface, base, start, end)] * bool(base) + [(surface, "not", start, end)]
    if lower.endswith("'s"):
        lower = lower[:-2]
    return [(surface, lower, start, end)] if lower else []


def _is_code(surface: str) -> bool:
    return any(c.isdigit() for c in surface) and any(c.isupper() for c in surface)


def _norm(lower: str) -> str:
    if lower[0].isdigit() or lower in _NUMBER_WORDS:
        return figure_tokens(lower)[0][0]
    if not lower.isascii():  # "Makedonía" = "Makedonia"
        decomposed = unicodedata.normalize("NFKD", lower)
        lower = "".join(c for c in decomposed if not unicodedata.combining(c))
    return stem(lower)


_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve twenty thirty forty "
    "fifty sixty seventy eighty ninety".split()
)


def _phrase_marks(words: list[str], phrases: Iterable[tuple[str, ...]]) -> list[bool]:
    marks = [False] * len(words)
    for phrase in phrases:
        n = len(phrase)
        for i in range(len(words) - n + 1):
            if tuple(words[i : i + n]) == phrase:
                marks[i : i + n] = [True] * n
    return marks


def _phrase_values(words: list[str]) -> dict[int, tuple[str, str]]:
    """Positions of the lexicon's multi-word phrases ("up to", "have to") → their value."""
    values: dict[int, tuple[str, str]] = {}
    for phrase, value in PHRASES.items():
        n = len(phrase)
        for i in range(len(words) - n + 1):
            if tuple(words[i : i + n]) == phrase:
                values[i] = value
    return values


def _polarity(ours: list[_Token], theirs: list[_Token], prefixes: bool = True) -> str | None:
    """``negation`` or ``relation`` (obligation for permission) when the two sides say
    opposite things by their negations and modal words; None when these agree or compensate
    ("must not" = "is forbidden", "not before" = "after")."""
    c_neg, e_neg = _parity(ours, theirs, prefixes), _parity(theirs, ours, prefixes)
    mine, yours = _values(ours, MODAL_AXIS), _values(theirs, MODAL_AXIS)
    if mine or yours:
        a, b = _deontic(mine, c_neg), _deontic(yours, e_neg)
        if a == b or {a, b} in _AGREEING:
            return None
        return "negation" if c_neg != e_neg else "relation"
    if c_neg != e_neg and not _compensated(ours, theirs):
        return "negation"
    return None


#: What a modal phrase allows, pairs that do not contradict each other.
_AGREEING = [
    {"free", "may"}, {"free", "need-not"}, {"may", "need-not"}, {"must-not", "not"},
    {"must", "fact"}, {"may", "fact"}, {"free", "fact"},
]


def _parity(side: list[_Token], other: list[_Token], prefixes: bool = True) -> bool:
    """Odd number of negations on ``side``: negation words, negative words, and a word that
    is another word of ``other`` with a negative prefix ("unpaid" beside "paid"; with
    ``prefixes`` false, as across clauses, only "un-" and "non-" before four letters or
    more: "income" beside "come" is no negation)."""
    words = {t.word for t in other}
    allowed = _PREFIXES if prefixes else ("un", "non")
    stems = {t.norm for t in other}
    flips = sum(1 for t in side if t.negative)
    flips += sum(1 for t in side if t.word.endswith("less") and t.word[:-4] in stems)
    flips += sum(
        1 for t in side if not t.negative and any(
            t.word.startswith(p) and (base := t.word[len(p):].lstrip("-")) in words
            and (prefixes or len(base) >= 4) for p in allowed
        )
    )  # fmt: skip
    return flips % 2 == 1


def _values(side: list[_Token], axis: str) -> set[str]:
    return {t.axis[1] for t in side if t.axis is not None and t.axis[0] == axis}


def _deontic(values: set[str], negated: bool) -> str:
    """What a modal phrase allows: ``must`` (obligation), ``must-not`` (prohibition),
    ``may`` (permission), ``need-not``, ``free`` (optional), ``fact`` (no modal word)."""
    if "optional" in values:
        return "need-not" if not negated else "must"  # "not optional" = required
    if "must" in values:
        return "must-not" if negated else "must"
    if "need" in values:  # "required", "have to", "need to": negated, it frees
        return "need-not" if negated else "must"
    if "may" in values:
        return "must-not" if negated else "may"
    return "not" if negated else "fact"


def _compensated(ours: list[_Token], theirs: list[_Token]) -> bool:
    """An axis word beside the negation that the other side's word makes good ("not before"
    for "after", "not more than" is neutral already)."""
    for axis in {t.axis[0] for t in ours if t.axis} & {t.axis[0] for t in theirs if t.axis}:
        if axis != MODAL_AXIS and _values(ours, axis) != _values(theirs, axis):
            return True
    return False


def _abbreviates(names: list[_Token], other: list[_Token]) -> bool:
    """"US" for "United States", "UK" for "United Kingdom"."""
    initials = "".join(t.word[0] for t in other if t.word not in STOPWORDS)
    return any(len(t.word) >= 2 and t.word.replace(".", "") == initials for t in names)


def _dedupe(tokens: list[_Token]) -> list[_Token]:
    """One token per written word ("cannot" is read as two)."""
    out: list[_Token] = []
    for token in tokens:
        if not out or out[-1].start != token.start:
            out.append(token)
    return out


def _question(sentence: list[_Token]) -> bool:
    return bool(sentence) and sentence[-1].question


def _content(tokens: list[_Token]) -> set[str]:
    """The content words (the lexical judge's: no stop words, negations or one-letter words)."""
    return {t.norm for t in tokens if t.content and not t.negative and not t.neutral}


def _clauses_of(sentence: list[_Token]) -> list[list[_Token]]:
    """The sentence's tokens cut where its text has a clause break (a comma, "and", …)."""
    if not sentence:
        return []
    # tokens keep offsets into their sentence; a break is a non-word gap holding a mark, or a
    # connective word
    out, current = [], [sentence[0]]
    for token in sentence[1:]:
        if token.clause:
            out.append(current)
            current = [] if token.word in _CONNECTIVES else [token]
            continue
        current.append(token)
    out.append(current)
    return [c for c in out if c]


_CLAUSE_MARKS = ",;:()[]\u2013\u2014"
_STRONG_MARKS = ";:()[]\u2013\u2014"


_CONNECTIVES = frozenset(
    "and but or which while whereas although so unless because since".split()
)


def _surface(tokens: list[_Token]) -> str:
    return " ".join(t.surface for t in _dedupe(tokens))
