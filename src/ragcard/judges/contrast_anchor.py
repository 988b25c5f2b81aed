"""The contrast checks that read the claim against its best-aligned evidence sentence when the
change is too wide for a tight alignment (:mod:`ragcard.judges.contrast`; README.md, "Judges":
contrast rules):

* **a name in another name's slot** — the claim's words around a name are aligned, as one
  replaced block, with the evidence sentence's words around another name, and the evidence
  sentence never states the claim's name ("Bob Bogle came up with the idea of achieving
  higher sales" where the sentence says "Sam Walton made the decision to achieve higher
  sales");
* **a relation word flipped next to a shared word** — a relation word of the claim, where the
  evidence sentence has another value of its axis (and never the claim's) beside a word the
  claim has beside its own ("the shortest running character" for "the longest - running cast
  member"), their negations agreeing; for obligation and permission, where the two say
  different things read with their negations ("must be used" for "may be used").

The evidence sentence is one that holds most of the claim's content words (at least
:data:`ALIGNED_SHARE` of them, and among the :data:`BEST` that hold most).
"""

from __future__ import annotations

from difflib import SequenceMatcher
from itertools import pairwise

from ragcard.judges.contrast_clauses import _name_runs
from ragcard.judges.contrast_lexicon import MODAL_AXIS
from ragcard.judges.contrast_text import (
    _MONTHS,
    Contrast,
    _abbreviates,
    _content,
    _parity,
    _polarity,
    _question,
    _surface,
    _Token,
    _values,
)

#: Share of the claim's content words an evidence sentence must hold to be read against it.
ALIGNED_SHARE = 0.5
#: Evidence sentences read (those holding most of the claim's content words).
BEST = 1
#: Tokens a replaced block may span on each side at most: wider is another sentence.
MAX_BLOCK = 10
#: Tokens between a relation word and the shared word that anchors it, at most.
ANCHOR = 3


def aligned_sentences(ours: list[_Token], evidence: list[list[_Token]]) -> list[list[_Token]]:
    """The evidence sentences the claim is read against (module docstring)."""
    terms = _content([t for t in ours if not t.name])
    if len(terms) < 3:
        return []
    scored = [(len(terms & _content(s)), i) for i, s in enumerate(evidence) if not _question(s)]
    scored = [(n, i) for n, i in scored if n >= ALIGNED_SHARE * len(terms)]
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    seen: list[list[_Token]] = []
    for _, i in scored:
        if [t.norm for t in evidence[i]] not in ([t.norm for t in s] for s in seen):
            seen.append(evidence[i])
        if len(seen) == BEST:
            break
    return seen


def name_in_slot(ours: list[_Token], evidence: list[list[_Token]]) -> Contrast | None:
    """A claim name aligned, inside one replaced block, with another name of the best
    evidence sentence, which never states the claim's name."""
    runs = _name_runs(ours)
    if not runs:
        return None
    claim_words = {t.norm for t in ours}
    said_with = _grams(evidence)
    runs = [(a, b) for a, b in runs if not _stated_beside(ours, a, b, said_with)]
    for sentence in aligned_sentences(ours, evidence):
        stated = {t.norm for t in sentence}
        matcher = SequenceMatcher(None, [t.norm for t in sentence], [t.norm for t in ours],
                                  autojunk=False)  # fmt: skip
        for tag, e1, e2, c1, c2 in matcher.get_opcodes():
            if tag != "replace" or c2 - c1 > MAX_BLOCK or e2 - e1 > MAX_BLOCK:
                continue
            if any(t.word in _PRONOUNS for t in sentence[e1:e2]):
                continue  # "he toured" read as "Kelley toured": the claim names who "he" is
            mine = [ours[a:b] for a, b in runs if c1 <= a and b <= c2]
            mine = [m for m in mine if _a_name(m) and not {t.norm for t in m} & stated]
            theirs = [sentence[e1 + a : e1 + b] for a, b in _name_runs(sentence[e1:e2])]
            theirs = [m for m in theirs if _a_name(m) and not {t.norm for t in m} & claim_words]
            for name in mine:
                for other in theirs:
                    if _same_referent(name, other, ours, sentence):
                        continue
                    said, written = _surface(name), _surface(other)
                    return Contrast(
                        "name", said, written, f"says '{said}' where the passage says '{written}'"
                    )
    return None


_PRONOUNS = frozenset("he she they it his her hers its their theirs him them".split())


def name_by_anchor(ours: list[_Token], evidence: list[list[_Token]]) -> Contrast | None:
    """A claim name, stated nowhere beside the words it has beside it, where the best
    evidence sentence has another name (one the claim never states) between those words:
    "a Limited department store" where it says "a chain of high-end Canadian department
    stores" (both neighbours, or one that is a content word, must agree)."""
    runs = _name_runs(ours)
    if not runs:
        return None
    claim_words = {t.norm for t in ours}
    said_with = _grams(evidence)
    runs = [(a, b) for a, b in runs if not _stated_beside(ours, a, b, said_with)]
    for sentence in aligned_sentences(ours, evidence):
        others = [
            sentence[a:b] for a, b in _name_runs(sentence)
            if _a_name(sentence[a:b]) and not {t.norm for t in sentence[a:b]} & claim_words
        ]  # fmt: skip
        for a, b in runs:
            name = ours[a:b]
            if not _a_name(name):
                continue
            left = ours[a - 1] if a > 0 else None
            right = ours[b] if b < len(ours) else None
            for other in others:
                i = next(k for k, t in enumerate(sentence) if t is other[0])
                j = i + len(other)
                lefts = left is not None and i > 0 and sentence[i - 1].norm == left.norm
                rights = right is not None and j < len(sentence) and sentence[j].norm == right.norm
                content = (lefts and left is not None and left.content) or (
                    rights and right is not None and right.content
                )
                strong = (lefts and rights) or content
                if not strong or _same_referent(name, other, ours, sentence):
                    continue
                said, written = _surface(name), _surface(other)
                return Contrast(
                    "name", said, written, f"says '{said}' where the passage says '{written}'"
                )
    return None


def _grams(evidence: list[list[_Token]]) -> set[tuple[str, ...]]:
    """Every run of words of the evidence sentences, as normalised tokens (short runs)."""
    return {
        tuple(t.norm for t in s[i : i + n])
        for s in evidence for n in range(2, 6) for i in range(len(s) - n + 1)
    }  # fmt: skip


def _stated_beside(ours: list[_Token], a: int, b: int, grams: set[tuple[str, ...]]) -> bool:
    """Whether some evidence sentence states the claim's name at ``a:b`` with the word before
    or after it (a claim joining two sentences states each name where its sentence does)."""
    if b - a > 4:
        return True
    norms = [t.norm for t in ours]
    before = tuple(norms[a - 1 : b]) if a > 0 else ()
    after = tuple(norms[a : b + 1]) if b < len(norms) else ()
    return before in grams or after in grams


def _a_name(run: list[_Token]) -> bool:
    """A name that is no month, day or lexicon word ("North", "First")."""
    return not any(t.word in _MONTHS or t.axis for t in run)


def _same_referent(
    name: list[_Token], other: list[_Token], claim: list[_Token], sentence: list[_Token]
) -> bool:
    """An abbreviation of the other, or one spelled as a prefix of the other ("Jan")."""
    if _abbreviates(name, sentence) or _abbreviates(other, claim):
        return True
    if _abbreviates(name, other) or _abbreviates(other, name):
        return True
    one, two = "".join(t.word for t in name), "".join(t.word for t in other)
    shorter, longer = sorted((one, two), key=len)
    return len(shorter) >= 3 and longer.startswith(shorter[:4])


def relation_by_anchor(ours: list[_Token], evidence: list[list[_Token]]) -> Contrast | None:
    """A relation word of the claim where the best evidence sentence has another value of its
    axis, and never the claim's, beside a word the claim has beside its own."""
    flips = [(i, t) for i, t in enumerate(ours) if t.axis and t.axis[0] not in _FIGURE_AXES]
    if not flips:
        return None
    for sentence in aligned_sentences(ours, evidence):
        for i, token in flips:
            axis, value = token.axis  # type: ignore[misc]
            if value in _values(sentence, axis) or len(_values(ours, axis)) > 1:
                continue  # the sentence states it too, or the claim states both: reordered
            anchors = {t.norm for t in _near(ours, i) if t.content and not t.axis}
            for j, theirs in enumerate(sentence):
                if theirs.axis is None or theirs.axis[0] != axis:
                    continue
                near = _near(sentence, j)
                if not anchors & {t.norm for t in near}:
                    continue
                mine_side, their_side = _near(ours, i), near
                if axis == MODAL_AXIS:
                    if _polarity(mine_side, their_side, prefixes=False) != "relation":
                        continue  # "must" for "required", "must not" for "may not": the same
                elif _parity(mine_side, their_side, False) != _parity(their_side, mine_side, False):
                    continue  # "not before" for "after": the same
                said, written = _surface(mine_side), _surface(their_side)
                return Contrast(
                    "relation",
                    said,
                    written,
                    f"says '{token.surface}' where the passage says "
                    f"'{theirs.surface}' ('{said}' for '{written}')",
                )
    return None


def negation_by_anchor(ours: list[_Token], evidence: list[list[_Token]]) -> Contrast | None:
    """A negation on one side only of two words the claim and its best evidence sentence both
    state side by side — what the negation bears on, the first content word after it — read
    with the words around them ("with further approval" for "without further approval"; "must
    not install" agrees with "installing … is forbidden")."""
    said_with = _grams(evidence)
    norms = [t.norm for t in ours]
    for sentence in aligned_sentences(ours, evidence):
        for side, other in ((ours, sentence), (sentence, ours)):
            pairs = {(a.norm, b.norm): k for k, (a, b) in enumerate(pairwise(other))}
            for i, token in enumerate(side):
                if not token.negative:
                    continue
                k = next((k for k in range(i + 1, len(side)) if side[k].content
                          and not side[k].negative), None)  # fmt: skip
                if k is None or k + 1 >= len(side) or k - i > ANCHOR:
                    continue
                at = pairs.get((side[k].norm, side[k + 1].norm))
                if at is None:
                    continue
                c = k if side is ours else at  # the focus, in the claim
                if tuple(norms[c - 1 : c + 2]) in said_with:
                    continue  # the claim's words there are stated as they are elsewhere
                here, there = _near(side, k), _near(other, at)
                if _polarity(_clause_at(side, k), _clause_at(other, at), False) != "negation":
                    continue  # read with the whole clause: "is optional" frees "not have to"
                mine, yours = (here, there) if side is ours else (there, here)
                said, written = _surface(mine), _surface(yours)
                if side is ours:
                    return Contrast(
                        "negation", said, written, f"negates '{written}' (says '{said}')"
                    )
                return Contrast(
                    "negation", said, written, f"drops the negation in '{written}' (says '{said}')"
                )
    return None


#: Axes read elsewhere: periods with the figures ("24 hours").
_FIGURE_AXES = frozenset({"period"})


def _clause_at(tokens: list[_Token], i: int) -> list[_Token]:
    """The tokens of the clause holding position ``i`` (cut at commas and connectives)."""
    start = i
    while start > 0 and not tokens[start].clause:
        start -= 1
    end = i + 1
    while end < len(tokens) and not tokens[end].clause:
        end += 1
    return tokens[start:end]


def _near(tokens: list[_Token], i: int) -> list[_Token]:
    """The tokens within :data:`ANCHOR` of position ``i``, inside its clause."""
    start = i
    while start > 0 and i - start < ANCHOR and not tokens[start].clause:
        start -= 1
    end = i + 1
    while end < len(tokens) and end - i <= ANCHOR and not tokens[end].clause:
        end += 1
    return tokens[start:end]
