"""A sentence and its minimal contrast: a negation, a name, a relation word changed.

The figure rule (:mod:`ragcard.judges.figures`) catches a copied sentence with one figure
replaced. This module catches the other changes a careful reader sees first, in a claim set
beside the evidence sentence it copies (README.md, "Judges": contrast rules):

* **negation** on one side only — "are not parked" for "are parked", "may not" for "may",
  "no longer", "never", "cannot", "without", "none", "closed" for "open", "unpaid" for "paid";
* **name** — a name, code, title or place replaced by another capitalised or code token
  ("building A" for "building B", "OH-1" for "OH-2");
* **relation** — a word of a small curated lexicon replaced by another of its axis:
  before/after, first/last, more/less, highest/lowest, minimum/maximum, increase/decrease,
  all/some, must/may, required/optional, above/below, inside/outside, roof/basement, daily/weekly.

How. The claim is aligned word by word with each evidence sentence
(:class:`difflib.SequenceMatcher` over lower-cased, stemmed tokens, number words as digits,
contractions expanded: "can't" = "can not"); the sentences sharing the most words are the ones
it copies. A change counts only where it is tight — at most :data:`MAX_SPAN` tokens on each
side, between words the two share (:data:`MIN_CONTEXT` at least, before and after together) —
and where it holds against every equally aligned sentence, and no evidence sentence states the
claim's words around it as they are (a run of :data:`RUN`). What compensates is not a change:
"must not" for "is forbidden", "not required" for "optional", "may not" for "must not", "no
later than" for "by", "not uncommon" for "common" (negations and negative words counted, an
even number cancelling; modal words read as obligation or permission). A rewrite that
reorders or rewords aligns no tight change and is left to the other checks, except a negation:
a clause of the claim whose content words lie, nearly all, in one clause of the sentence with
the other polarity is a negation too.

Supersession. ``outdated`` holds the texts of versions no longer in force: their sentences are
never the sentence a claim is read against (a claim that differs from an old version is the
currency layer's business), unless nothing else is given.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from ragcard._sentences import sentence_spans
from ragcard.judges.contrast_lexicon import (
    AXES,
    MODAL_AXIS,
    NEGATIVE_WORDS,
    NEUTRAL_PHRASES,
    PHRASES,
    STOPWORDS,
    SYNONYMS,
    TITLES,
    UNIT_WORDS,
)
from ragcard.judges.lexical import content_terms, figure_tokens, stem

__all__ = ["Contrast", "contrast_in", "find_contrast", "is_copy"]

#: Words between a name and the shared word it is bound to, at most (and the slack allowed in
#: the evidence's slot).
SLOT_GAP = 2
#: Claim tokens on each side of a change whose alignment picks the sentence it is read against.
WINDOW = 4
FOCUS_WORDS = 3
#: Tokens on either side of a change at most: wider is a rewrite, not a contrast.
MAX_SPAN = 3
#: Shared tokens around a change, before and after together, at least.
MIN_CONTEXT = 3
#: A claim's words copied as a run of this many from an evidence sentence are stated there.
RUN = 4
#: Claims and sentences longer than this (unsplit text) are not aligned.
MAX_ALIGNED = 400
#: Share of a claim clause's content words the evidence clauses must hold to be its clauses,
#: and the content words a clause needs to be read (as the lexical judge reads negation).
CLAUSE_MATCH = 0.6
CLAUSE_TERMS = 2
#: Share of a claim clause's content words one evidence clause must hold for a relation word
#: of the clause to be read against that clause's.
RELATION_MATCH = 0.6
#: Evidence clauses read together against one claim clause at most.
COVER_CLAUSES = 2


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


_TOKEN = re.compile(
    r"[A-Za-z][A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)+|[A-Za-z]+\d[A-Za-z0-9]*|\d+[A-Z][A-Za-z]*"
    r"|\d+(?:,\d{3})*(?:\.\d+)?|[^\W\d_]+(?:['’][^\W\d_]+)?"
)
_WORD = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?|[^\W\d_]+(?:['’][^\W\d_]+)?")
_CONTRACTION = {"can't": "can", "won't": "will", "shan't": "shall", "ain't": "is"}
_ANSWER_WORD = re.compile(r"^\s*(?:yes|no)\b\s*[,.;:!\u2013\u2014-]+\s*", re.I)
_MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)
_QUOTES = ("\"", "“", "`", "'", "‘")
_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non")


def find_contrast(
    claim: str, evidence: str, *, outdated: Sequence[str] = ()
) -> Contrast | None:
    """The first contrast of ``claim`` against the sentences of ``evidence`` it copies, or
    None when it changes no negation, name or relation word (module docstring)."""
    sentences = [evidence[a:b] for a, b in sentence_spans(evidence)]
    return contrast_in(claim, sentences, outdated=outdated)


def contrast_in(
    claim: str, sentences: Iterable[str], *, outdated: Sequence[str] = ()
) -> Contrast | None:
    """:func:`find_contrast` over sentences already split."""
    claim = _ANSWER_WORD.sub("", claim, count=1)
    ours = _tokens(claim)
    if not ours or len(ours) > MAX_ALIGNED:
        return None
    old = {" ".join(s.split()) for text in outdated for s in _split(text)}
    given = list(dict.fromkeys(s for text in sentences for s in _split(text)))
    kept = [s for s in given if " ".join(s.split()) not in old] or given
    evidence = [tokens for s in kept if 0 < len(tokens := _tokens(s)) <= MAX_ALIGNED]
    if not evidence:
        return None
    # a capitalised first word is a name when the texts write it capitalised inside a sentence
    proper = {t.norm for tokens in (ours, *evidence) for t in tokens if t.name}
    ours, evidence = _named(ours, proper), [_named(tokens, proper) for tokens in evidence]
    copied = {
        tuple(t.norm for t in tokens[i : i + RUN])
        for tokens in evidence
        for i in range(len(tokens) - RUN + 1)
    }
    norms = [t.norm for t in ours]
    matcher = SequenceMatcher(autojunk=False)
    matcher.set_seq2(norms)
    aligned = []
    for tokens in evidence:
        matcher.set_seq1([t.norm for t in tokens])
        blocks = matcher.get_matching_blocks()
        matched = {b.b + k for b in blocks for k in range(b.size)}  # claim positions it shares
        aligned.append((matched, tokens, matcher.get_opcodes()))
    found: list[tuple[int, Contrast]] = []
    for matched, tokens, codes in aligned:
        for c1, c2, contrast in _changes(codes, tokens, ours, copied):
            # read against the sentence that shares the most of the claim's words around the
            # change (a claim may join two sentences; the one it copies here decides)
            window = set(range(c1 - WINDOW, c2 + WINDOW))
            here = len(matched & window)
            if all(len(other & window) <= here for other, _, _ in aligned):
                found.append((c1, contrast))
    if found:
        return min(found, key=lambda pair: pair[0])[1]
    return (
        _clause_negation(ours, evidence)
        or _clause_relation(ours, evidence)
        or _name_binding(ours, evidence)
    )


def is_copy(claim: str, sentences: Iterable[str]) -> bool:
    """Whether ``claim`` restates one of ``sentences`` word for word up to synonyms, unit
    words, stop words and number words ("Bikes go in the basement of building B" for "Bicycles
    are parked in the basement of building B"; "55 pounds a day" for "£55 per day"), with no
    contrast: what a careful reader calls supported whatever a score says."""
    text = _ANSWER_WORD.sub("", claim, count=1)
    ours = [t for t in _tokens(text) if _kept(t)]
    if len([t for t in ours if t.content]) < 3 or contrast_in(claim, sentences) is not None:
        return False
    mine = [_key(t) for t in ours]
    for sentence in (s for text in sentences for s in _split(text)):
        theirs = [_key(t) for t in _tokens(sentence) if _kept(t)]
        matcher = SequenceMatcher(None, theirs, mine, autojunk=False)
        if all(tag == "equal" or tag == "delete" and (e1 == 0 or e2 == len(theirs))
               for tag, e1, e2, _, _ in matcher.get_opcodes()):  # fmt: skip
            return True
    return False


def _kept(token: _Token) -> bool:
    """A token a copy must keep: no stop word, no unit word."""
    return (token.content or token.negative or token.word[0].isdigit()) and (
        token.word not in UNIT_WORDS
    )


def _key(token: _Token) -> str:
    if token.axis is not None:
        return f"{token.axis[0]}={token.axis[1]}"
    return SYNONYMS.get(token.norm, token.norm)


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
        capital = surface[0].isupper() and lower not in STOPWORDS and lower not in TITLES
        question = i == len(raw) - 1 and text[end:].strip().startswith("?")
        content = len(lower) > 1 and bool(content_terms(lower))
        out.append(_Token(norm, lower, surface, start, end, name, negative, neutral[i],
                          None if neutral[i] else axis, clause, capital, question,
                          content))  # fmt: skip
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


Code = tuple[str, int, int, int, int]


def _changes(
    codes: Sequence[Code], evidence: list[_Token], claim: list[_Token], copied: set[tuple[str, ...]]
) -> Iterator[tuple[int, int, Contrast]]:
    """(claim start, end, contrast) of each tight change that is a contrast, in claim order."""
    for n, (tag, e1, e2, c1, c2) in enumerate(codes):
        at_start, at_end = c1 == 0, c2 == len(claim)
        # a claim that starts inside a sentence (or stops before its end) changes at most its
        # first (last) words: read those against the evidence's words next to the shared ones,
        # for a name only ("Claremore's assistant" from "… of signage, Walton's assistant")
        trimmed = (e1, e2)
        if tag == "replace" and at_start and not at_end:
            trimmed = (max(e1, e2 - (c2 - c1)), e2)
        elif tag == "replace" and at_end and not at_start and e2 < len(evidence):
            trimmed = (e1, min(e2, e1 + (c2 - c1)))
        edge = trimmed != (e1, e2)
        if edge and not (evidence[trimmed[0]].clause or trimmed[0] == 0 if at_start else (
            trimmed[1] == len(evidence) or evidence[trimmed[1]].clause
        )):
            continue  # the evidence's words there run on from others: no slot to compare
        if tag == "replace" and trimmed[1] - trimmed[0] > MAX_SPAN >= c2 - c1 and all(
            t.name for t in claim[c1:c2]
        ) and evidence[trimmed[0]].name:  # "Yorkshire" for "Halifax in August 2013"
            head = trimmed[0]
            while head < trimmed[1] and evidence[head].name:
                head += 1
            trimmed = (trimmed[0], head)
        names_only = trimmed != (e1, e2)
        e1, e2 = trimmed
        if tag == "equal" or e2 - e1 > MAX_SPAN or c2 - c1 > MAX_SPAN:
            continue
        before, after = _equal_run(codes, n - 1), _equal_run(codes, n + 1)
        if (at_start or at_end) and (c1 == c2 or e1 == e2):
            continue  # words only one side has at the claim's edge: an addition, not a change
        if not ((before or at_start) and (after or at_end) and before + after >= MIN_CONTEXT):
            continue
        if _stated(claim, c1, c2, copied):
            continue
        contrast = _contrast(claim, evidence, (c1, c2, e1, e2), names_only, edge)
        if contrast is not None:
            yield c1, c2, contrast


def _equal_run(codes: Sequence[Code], n: int) -> int:
    if 0 <= n < len(codes) and codes[n][0] == "equal":
        return codes[n][4] - codes[n][3]
    return 0


def _stated(claim: list[_Token], c1: int, c2: int, copied: set[tuple[str, ...]]) -> bool:
    """Whether some evidence sentence states the claim's words across the change as they are
    (every run of :data:`RUN` words through it, or, for words the claim drops, one across
    the gap)."""
    norms = [t.norm for t in claim]
    starts = range(max(0, c1 - RUN + 1), min(c2, len(norms) - RUN + 1)) if c2 > c1 else range(
        max(0, c1 - RUN + 1), min(c1, len(norms) - RUN + 1)
    )
    runs = [tuple(norms[s : s + RUN]) for s in starts]
    return bool(runs) and any(run in copied for run in runs)


def _contrast(
    claim: list[_Token], evidence: list[_Token], where: tuple[int, int, int, int],
    names_only: bool, edge: bool = False,
) -> Contrast | None:
    """The contrast a tight change makes, read with the clauses around it on both sides: a
    negation or a modal word in the change counts only if the clauses disagree ("must not
    accept … during a tender" for "[never] during a tender" agrees), and a flipped relation
    word only if their negations agree ("stay above" for "cannot … below" is the same)."""
    c1, c2, e1, e2 = where
    ours, theirs = claim[c1:c2], evidence[e1:e2]
    kind: str | None = None
    w = WINDOW
    spans = (claim[max(0, c1 - w) : c2 + w], evidence[max(0, e1 - w) : e2 + w])
    if not names_only or edge and not _has_polarity(ours, theirs):
        # (a relation word at a claim's edge is read too: "Higher activity" for "The lower
        # levels"; a negation there is not: "Nobody may" for "Everyone needs a badge to")
        mine, yours = _clause_around(claim, c1, c2), _clause_around(evidence, e1, e2)
        if not edge and _has_polarity(ours, theirs) and _focus_in_place(ours, theirs):
            kind = _polarity(mine, yours)
        if kind is None and _axis_flip(ours, theirs, *spans) and (
            _parity(mine, yours) == _parity(yours, mine)
        ):
            kind = "relation"
    if kind is None and _name_swap(ours, theirs, strict=names_only):
        kind = "name"
    return None if kind is None else _made(kind, claim, evidence, where)


def _focus_in_place(ours: list[_Token], theirs: list[_Token]) -> bool:
    """Whether what each negation of the change bears on — the first content word after it —
    is outside the change (shared by both sides) or on its other side too: "[no fear] of
    humans" for "[found scant evidence] of human predation" negates nothing the evidence says.
    """
    for side, other in ((ours, theirs), (theirs, ours)):
        words = {t.norm for t in other}
        for i, token in enumerate(side):
            if token.negative:
                focus = next((t for t in side[i + 1 :] if t.content and not t.negative), None)
                if focus is not None and focus.norm not in words and not any(
                    w.endswith("less") and w[:-4] == focus.norm for w in words
                ):
                    return False
    return True


def _has_polarity(ours: list[_Token], theirs: list[_Token]) -> bool:
    """Whether the change holds a negation, a negative word or prefix, or a modal word."""
    return (
        any(t.negative or t.axis is not None and t.axis[0] == MODAL_AXIS for t in ours + theirs)
        or _parity(ours, theirs) != _parity(theirs, ours)
        or bool(_values(ours, MODAL_AXIS) or _values(theirs, MODAL_AXIS))
    )


def _clause_around(tokens: list[_Token], a: int, b: int) -> list[_Token]:
    """The tokens of the clause(s) holding positions ``a`` to ``b`` (a gap when equal)."""
    start = a if a < b else max(a - 1, 0)
    while start > 0 and not tokens[start].clause:
        start -= 1
    end = max(b, start + 1)
    while end < len(tokens) and not tokens[end].clause:
        end += 1
    return tokens[start:end]


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


def _axis_flip(
    ours: list[_Token], theirs: list[_Token], claim: list[_Token], evidence: list[_Token]
) -> bool:
    """Whether the change puts one value of an axis where the evidence has another, unless
    the words around it on both sides (``claim``, ``evidence``) hold each value as often ("if
    a deposit is positive, a withdrawal is negative" for "if positive represents a deposit,
    negative represents a withdrawal" reorders)."""
    for axis in {t.axis[0] for t in ours if t.axis} & {t.axis[0] for t in theirs if t.axis}:
        if axis == MODAL_AXIS:
            continue  # read with the negations (_polarity)
        mine, yours = _values(ours, axis), _values(theirs, axis)
        if not mine or not yours or mine & yours:
            continue
        # the same values as often on both sides (of the aligned words): a reordering
        if _counts(claim, axis) != _counts(evidence, axis):
            return True
    return False


def _counts(tokens: list[_Token], axis: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for t in tokens:
        if t.axis is not None and t.axis[0] == axis:
            counts[t.axis[1]] = counts.get(t.axis[1], 0) + 1
    return counts


def _name_swap(ours: list[_Token], theirs: list[_Token], strict: bool = False) -> bool:
    """A name on one side where the other has another capitalised word (a name, or, unless
    ``strict``, a word capitalised at the start of its sentence: "London are replaced" for
    "Laptops are")."""
    mine = [t for t in ours if t.name or t.capital and not strict]
    yours = [t for t in theirs if t.name or t.capital and not strict]
    if not mine or not yours or not any(t.name for t in mine + yours):
        return False
    if {t.norm for t in mine} & {t.norm for t in yours}:
        return False
    joined_mine = "".join(t.word for t in ours)
    joined_yours = "".join(t.word for t in theirs)
    if _abbreviates(mine, theirs) or _abbreviates(yours, ours):
        return False
    return not (joined_mine.startswith(joined_yours[:4]) and len(joined_yours) >= 4)


def _abbreviates(names: list[_Token], other: list[_Token]) -> bool:
    """"US" for "United States", "UK" for "United Kingdom"."""
    initials = "".join(t.word[0] for t in other if t.word not in STOPWORDS)
    return any(len(t.word) >= 2 and t.word.replace(".", "") == initials for t in names)


def _made(
    kind: str, claim: list[_Token], evidence: list[_Token], where: tuple[int, int, int, int]
) -> Contrast:
    c1, c2, e1, e2 = where
    mine, yours = _phrase(claim, c1, c2, e1 == e2), _phrase(evidence, e1, e2, c1 == c2)
    if kind != "negation":
        reason = f"says '{mine}' where the passage says '{yours}'"
    elif _parity(claim[c1:c2], evidence[e1:e2]):
        reason = f"negates '{yours}' (says '{mine}')"
    else:
        reason = f"drops the negation in '{yours}' (says '{mine}')"
    return Contrast(kind, mine, yours, reason)


def _phrase(tokens: list[_Token], a: int, b: int, other_empty: bool) -> str:
    """The changed words as written, with the shared word before them (and, where one side
    adds words, the one after), for a reason a reader recognises."""
    lo = max(0, a - 1)
    hi = min(len(tokens), b + 1) if a == b or other_empty else b
    return _surface(tokens[lo:hi])


def _dedupe(tokens: list[_Token]) -> list[_Token]:
    """One token per written word ("cannot" is read as two)."""
    out: list[_Token] = []
    for token in tokens:
        if not out or out[-1].start != token.start:
            out.append(token)
    return out


def _clause_negation(ours: list[_Token], candidates: list[list[_Token]]) -> Contrast | None:
    """A claim clause whose content words the evidence's clauses hold (at least
    :data:`CLAUSE_MATCH` of them, the clause holding most taken first, then the one adding
    most, and so on), with the other polarity: a negation the alignment could not pair."""
    pieces = [
        (c, _content(c)) for sentence in candidates if not _question(sentence)
        for c in _clauses_of(sentence)
    ]  # fmt: skip
    for piece in _clauses_of(ours):
        terms = _content(piece)
        if len(terms) < CLAUSE_TERMS:
            continue
        chosen, covered = _cover(terms, pieces, COVER_CLAUSES)
        if len(covered) < CLAUSE_MATCH * len(terms):
            continue
        theirs = [t for clause in chosen for t in clause]
        # every clause taken must say the opposite ("did not farm since the soil" agrees with
        # "many people did not farm", whatever "was not suitable" beside it says)
        if any(_polarity(piece, clause, prefixes=False) != "negation" for clause in chosen):
            continue
        if not _focus_shared(piece, theirs):
            continue
        mine, yours = _surface(piece), "; ".join(_surface(c) for c in chosen)
        if _parity(piece, theirs):
            return Contrast("negation", mine, yours, f"negates '{yours}' (says '{mine}')")
        return Contrast("negation", mine, yours, f"drops the negation in '{yours}' (says '{mine}')")
    return None


def _name_runs(tokens: list[_Token]) -> list[tuple[int, int]]:
    """(start, end) of each run of name tokens."""
    runs, start = [], None
    for i, token in enumerate([*tokens, None]):
        if token is not None and token.name and not (start is not None and token.clause):
            start = i if start is None else start
        elif start is not None:
            runs.append((start, i))
            start = None if token is None or not token.name else i
    return runs


def _name_binding(ours: list[_Token], candidates: list[list[_Token]]) -> Contrast | None:
    """A name of the claim said of what the passage says of another name: the evidence
    sentence holding most of the claim clause's other words (:data:`CLAUSE_MATCH`) lacks the
    name and has another, absent from the claim, in its slot — between the shared words that
    stand before and after the claim's name ("Bob Bogle came up with the idea of achieving
    higher sales" where the passage says "Sam Walton made the decision to achieve higher
    sales")."""
    claim_words = {t.norm for t in ours}
    stated = {t.norm for sentence in candidates for t in sentence}
    for clause in _clauses_of(ours):
        for a, b in _name_runs(clause):
            name = {t.norm for t in clause[a:b]}
            if not name <= stated:
                continue  # a name the passage never states is the other checks' business
            others = [t for t in clause[:a] + clause[b:] if not t.name]
            terms = _content(others)
            if len(terms) < CLAUSE_TERMS + 1:
                continue
            wanted = CLAUSE_MATCH * len(terms)
            holding = [s for s in candidates if len(terms & _content(s)) >= wanted]
            if not holding or any(name & {t.norm for t in s} for s in holding):
                continue  # no sentence says it, or one says it of this name
            best = max(holding, key=lambda s: len(terms & _content(s)))
            shared = terms & _content(best)
            before = [(i, t.norm) for i, t in enumerate(clause[:a]) if t.norm in shared]
            after = [(i, t.norm) for i, t in enumerate(clause) if i >= b and t.norm in shared]
            gaps = (a - before[-1][0] - 1 if before else None, after[0][0] - b if after else None)
            if not any(g is not None and g <= SLOT_GAP for g in gaps):
                continue  # the name is bound to no shared word next to it
            for m1, m2 in _name_runs(best):
                theirs = best[m1:m2]
                if {t.norm for t in theirs} & claim_words or _abbreviates(clause[a:b], theirs) \
                        or _abbreviates(theirs, clause[a:b]) or any(t.axis or t.word in
                                                                  _MONTHS for t in theirs):
                    continue
                if _in_slot(best, (m1, m2), before[-1:], after[:1], gaps):
                    mine, yours = _surface(clause[a:b]), _surface(theirs)
                    return Contrast("name", mine, yours,
                                    f"says '{mine}' where the passage says '{yours}'")
    return None


def _in_slot(
    sentence: list[_Token], span: tuple[int, int], before: list[tuple[int, str]],
    after: list[tuple[int, str]], gaps: tuple[int | None, int | None],
) -> bool:
    """Whether the evidence's name at ``span`` stands where the claim's does: as close to
    the shared word the claim's name is bound to (within :data:`SLOT_GAP` words, before or
    after it) as the claim's, give or take :data:`SLOT_GAP` words."""
    m1, m2 = span
    norms = [t.norm for t in sentence]
    if before and gaps[0] is not None and gaps[0] <= SLOT_GAP:
        places = [i for i, n in enumerate(norms[:m1]) if n == before[0][1]]
        if not places or m1 - places[-1] - 1 > gaps[0] + SLOT_GAP:
            return False
    if after and gaps[1] is not None and gaps[1] <= SLOT_GAP:
        places = [i for i, n in enumerate(norms) if i >= m2 and n == after[0][1]]
        if not places or places[0] - m2 > gaps[1] + SLOT_GAP:
            return False
    return True


def _question(sentence: list[_Token]) -> bool:
    return bool(sentence) and sentence[-1].question


def _focus_shared(ours: list[_Token], theirs: list[_Token]) -> bool:
    """Whether each negation of either side bears on a word both sides state: the first
    content word after it ("never [during] a live tender", "without [approval]")."""
    for side, other in ((ours, _content(theirs)), (theirs, _content(ours))):
        for i, token in enumerate(side):
            if not token.negative:
                continue
            focus = [t.norm for t in side[i + 1 :] if _content([t])][:FOCUS_WORDS]
            if focus and not set(focus) & other:
                return False
    return True


def _clause_relation(ours: list[_Token], candidates: list[list[_Token]]) -> Contrast | None:
    """A claim clause whose content words one evidence clause holds (at least
    :data:`RELATION_MATCH` of them) with another value of the same relation axis and not the
    claim's, their negations agreeing: a flip the alignment could not pair ("canceled … before
    three seasons" for "canceled the series after three seasons")."""
    pieces = [
        (c, _content(c)) for sentence in candidates if not _question(sentence)
        for c in _clauses_of(sentence)
    ]  # fmt: skip
    for piece in _clauses_of(ours):
        axes = {t.axis[0] for t in piece if t.axis and t.axis[0] != MODAL_AXIS}
        terms = _content([t for t in piece if not t.axis])
        if not axes or len(terms) < CLAUSE_TERMS:
            continue
        chosen, covered = _cover(terms, pieces, 1)
        if len(covered) < RELATION_MATCH * len(terms):
            continue
        clause = chosen[0]
        for axis in sorted(axes):
            mine, yours = _values(piece, axis), _values(clause, axis)
            both = _values(ours, axis) >= mine | yours  # the claim states both: a reordering
            if mine and yours and not mine & yours and not both and (
                _parity(piece, clause, False) == _parity(clause, piece, False)
            ):
                said, theirs = _surface(piece), _surface(clause)
                return Contrast("relation", said, theirs,
                                f"says '{said}' where the passage says '{theirs}'")
    return None


def _cover(
    terms: set[str], pieces: list[tuple[list[_Token], set[str]]], most: int
) -> tuple[list[list[_Token]], set[str]]:
    """Evidence clauses taken greedily (``most`` of them) while one adds any of ``terms``, and
    what they hold."""
    covered: set[str] = set()
    chosen: list[list[_Token]] = []
    while pieces and len(chosen) < most:
        clause, own = max(pieces, key=lambda p: len((terms - covered) & p[1]))
        if not (terms - covered) & own:
            break
        covered |= terms & own
        chosen.append(clause)
    return chosen, covered


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
_CONNECTIVES = frozenset(
    "and but or which while whereas although so unless because since".split()
)


def _surface(tokens: list[_Token]) -> str:
    return " ".join(t.surface for t in _dedupe(tokens))
