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
contractions expanded: "can't" = "can not"). A change counts only where it is tight — at most
:data:`MAX_SPAN` tokens on each side, between words the two share (:data:`MIN_CONTEXT` at
least, before and after together; :data:`WEAK_CONTEXT` for a name swapped for a name or one
relation word for another) — in the sentence that shares the most of the claim's words
around it (:data:`WINDOW`), and where no evidence sentence states the claim's words across it
as they are (a run of :data:`RUN`). It is read with the clauses around it, so what compensates
is not a change: "must not" for "is forbidden", "not required" for "optional", "may not" for
"must not", "no later than" for "by", "not uncommon" for "common", "stay above" for "cannot …
below" (negations, negative words and prefixes counted, an even number cancelling; modal
words read as obligation or permission). A rewritten sentence aligns no tight change; its
clauses are read instead (:mod:`ragcard.judges.contrast_clauses`): a claim clause whose
content words one or two evidence clauses hold, each with the other polarity, the negation
bearing on a word both state; a relation word against the evidence clause holding the claim
clause's words; a name of the passage said of what the passage says of another name, in the
same slot. :func:`is_copy` says whether a claim restates a sentence up to synonyms, units and
stop words.

Supersession. ``outdated`` holds the texts of versions no longer in force: their sentences are
never the sentence a claim is read against (a claim that differs from an old version is the
currency layer's business), unless nothing else is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from difflib import SequenceMatcher
from functools import lru_cache

from ragcard._sentences import sentence_spans
from ragcard.judges.contrast_anchor import (
    name_by_anchor,
    name_in_slot,
    negation_by_anchor,
    relation_by_anchor,
)
from ragcard.judges.contrast_clauses import (
    _clause_negation,
    _clause_relation,
    _name_binding,
)
from ragcard.judges.contrast_lexicon import (
    MODAL_AXIS,
    SYNONYMS,
    UNIT_WORDS,
)
from ragcard.judges.contrast_text import (
    _ANSWER_WORD,
    _MONTHS,
    Contrast,
    _abbreviates,
    _named,
    _parity,
    _polarity,
    _split,
    _surface,
    _Token,
    _tokens,
    _values,
)

__all__ = ["Contrast", "contrast_in", "find_contrast", "is_copy"]


#: Claim tokens on each side of a change whose alignment picks the sentence it is read against.
WINDOW = 4


#: Tokens on either side of a change at most: wider is a rewrite, not a contrast.
MAX_SPAN = 3


#: The kinds of contrast.
KINDS = ("negation", "name", "relation")
#: Shared tokens (one a content word) around a name swapped for a name, or one relation word
#: for another, at least.
WEAK_CONTEXT = 2
#: Shared tokens around a change, before and after together, at least.
MIN_CONTEXT = 3


#: A claim's words copied as a run of this many from an evidence sentence are stated there.
RUN = 4


#: Claims and sentences longer than this (unsplit text) are not aligned.
MAX_ALIGNED = 400


def find_contrast(
    claim: str, evidence: str, *, outdated: Sequence[str] = ()
) -> Contrast | None:
    """The first contrast of ``claim`` against the sentences of ``evidence`` it copies, or
    None when it changes no negation, name or relation word (module docstring)."""
    sentences = [evidence[a:b] for a, b in sentence_spans(evidence)]
    return contrast_in(claim, sentences, outdated=outdated)


def contrast_in(
    claim: str, sentences: Iterable[str], *, outdated: Sequence[str] = (),
    context: Sequence[str] = (),
) -> Contrast | None:
    """:func:`find_contrast` over sentences already split; ``context``: the passages they
    come from, whose names mark a claim's capitalised first word as a name."""
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
    proper = proper.union(*map(_proper_names, context))
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
        or name_in_slot(ours, evidence)
        or name_by_anchor(ours, evidence)
        or negation_by_anchor(ours, evidence)
        or relation_by_anchor(ours, evidence)
    )


@lru_cache(maxsize=512)
def _proper_names(text: str) -> frozenset[str]:
    """The words a passage writes as names (capitalised inside a sentence, or codes)."""
    return frozenset(t.norm for s in _split(text) for t in _tokens(s) if t.name)


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


Code = tuple[str, int, int, int, int]


def _changes(
    codes: Sequence[Code], evidence: list[_Token], claim: list[_Token], copied: set[tuple[str, ...]]
) -> Iterator[tuple[int, int, Contrast]]:
    """(claim start, end, contrast) of each tight change that is a contrast, in claim order."""
    for n, (tag, e1, e2, c1, c2) in enumerate(codes):
        if tag == "equal":
            continue
        at_start, at_end = c1 == 0, c2 == len(claim)
        allowed = set(KINDS)
        # a claim that starts inside a sentence (or stops before its end) changes at most its
        # first (last) words: read those against the evidence's words next to the shared ones
        # ("Claremore's assistant" from "… of signage, Walton's assistant"), never for a
        # negation ("Nobody may" for "Everyone needs a badge to"), and for a name only where
        # the evidence's words start (end) a clause there
        trimmed = (e1, e2)
        if tag == "replace" and at_start and not at_end:
            trimmed = (max(e1, e2 - (c2 - c1)), e2)
        elif tag == "replace" and at_end and not at_start and e2 < len(evidence):
            trimmed = (e1, min(e2, e1 + (c2 - c1)))
        if trimmed != (e1, e2):
            allowed.discard("negation")
            if not (evidence[trimmed[0]].clause or trimmed[0] == 0 if at_start else (
                trimmed[1] == len(evidence) or evidence[trimmed[1]].clause
            )):
                allowed.discard("name")
        if tag == "replace" and trimmed[1] - trimmed[0] > MAX_SPAN >= c2 - c1 and all(
            t.name for t in claim[c1:c2]
        ) and evidence[trimmed[0]].name:  # "Yorkshire" for "Halifax in August 2013"
            head = trimmed[0]
            while head < trimmed[1] and evidence[head].name:
                head += 1
            trimmed, allowed = (trimmed[0], head), allowed & {"name"}
        strict = trimmed != (e1, e2)
        e1, e2 = trimmed
        if e2 - e1 > MAX_SPAN or c2 - c1 > MAX_SPAN or not allowed:
            continue
        before, after = _equal_run(codes, n - 1), _equal_run(codes, n + 1)
        if (at_start or at_end) and (c1 == c2 or e1 == e2):
            continue  # words only one side has at the claim's edge: an addition, not a change
        if not ((before or at_start) and (after or at_end)):
            continue
        if before + after < MIN_CONTEXT:
            allowed &= _weak_context_kinds(claim, evidence, (c1, c2, e1, e2), before, after)
            strict = True
        if not allowed or _stated(claim, c1, c2, copied):
            continue
        contrast = _contrast(claim, evidence, (c1, c2, e1, e2), allowed, strict)
        if contrast is not None:
            yield c1, c2, contrast


def _weak_context_kinds(
    claim: list[_Token], evidence: list[_Token], where: tuple[int, int, int, int],
    before: int, after: int,
) -> set[str]:
    """What a change between only :data:`WEAK_CONTEXT` shared words (one a content word) may
    be: a name swapped for a name ("Bible is convinced" for "Delmar is convinced") or one
    relation word for another ("The shortest running" for "The longest - running")."""
    c1, c2, e1, e2 = where
    near = claim[max(0, c1 - before) : c1] + claim[c2 : c2 + after]
    if before + after < WEAK_CONTEXT or not any(t.content and not t.name for t in near):
        return set()
    ours, theirs = claim[c1:c2], evidence[e1:e2]
    if any(t.name for t in ours) and any(t.name for t in theirs):
        return {"name"}
    if len(ours) == len(theirs) == 1 and ours[0].axis and theirs[0].axis:
        return {"relation"}
    return set()


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
    allowed: set[str], strict: bool,
) -> Contrast | None:
    """The contrast a tight change makes, of the ``allowed`` kinds, read with the clauses
    around it on both sides: a negation or a modal word in the change counts only if the
    clauses disagree ("must not accept … during a tender" for "[never] during a tender"
    agrees), and a flipped relation word only if their negations agree ("stay above" for
    "cannot … below" is the same); ``strict``: a name only against a name."""
    c1, c2, e1, e2 = where
    ours, theirs = claim[c1:c2], evidence[e1:e2]
    kind: str | None = None
    w = WINDOW
    spans = (claim[max(0, c1 - w) : c2 + w], evidence[max(0, e1 - w) : e2 + w])
    mine, yours = _clause_around(claim, c1, c2), _clause_around(evidence, e1, e2)
    polar = _has_polarity(ours, theirs)
    if "negation" in allowed and polar and _focus_in_place(ours, theirs):
        kind = _polarity(mine, yours)
    if kind is None and "relation" in allowed and (not polar or "negation" in allowed) and (
        _axis_flip(ours, theirs, *spans) and _parity(mine, yours) == _parity(yours, mine)
    ):
        kind = "relation"
    if kind is None and "name" in allowed and _name_swap(ours, theirs, strict=strict) and not (
        _listed_both(ours, evidence, e1, e2) and _listed_both(theirs, claim, c1, c2)
    ):
        kind = "name"
    return None if kind is None else _made(kind, claim, evidence, where)


def _listed_both(names: list[_Token], other: list[_Token], a: int, b: int) -> bool:
    """Whether every name of one side's change is stated by the other side too, next to its
    change (``a:b``, :data:`WINDOW` tokens either side): two names of a list in another order
    ("Marilyn Bergman and Alan Bergman"), not one for another."""
    wanted = {t.norm for t in names if t.name}
    near = other[max(0, a - WINDOW) : b + WINDOW]
    return bool(wanted) and wanted <= {t.norm for t in near}


def _focus_in_place(ours: list[_Token], theirs: list[_Token]) -> bool:
    """Whether what each negation of the change bears on — the first content word after it —
    is outside the change (shared by both sides) or on its other side too: "[no fear] of
    humans" for "[found scant evidence] of human predation" negates nothing the evidence says.
    """
    for side, other in ((ours, theirs), (theirs, ours)):
        words = {t.norm for t in other}
        for i, token in enumerate(side):
            if token.negative:
                after = side[i + 1 :]
                if after and after[0].word == "longer":  # "no longer [required]"
                    after = after[1:]
                focus = next((t for t in after if t.content and not t.negative), None)
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
    """The tokens of the clause(s) holding positions ``a`` to ``b`` (a gap when equal), cut
    at connectives and strong marks only: a negation reaches across a list's commas ("Never
    accept gifts, hospitality or favours from a customer during a tender")."""
    start = a if a < b else max(a - 1, 0)
    while start > 0 and not tokens[start].strong:
        start -= 1
    end = max(b, start + 1)
    while end < len(tokens) and not tokens[end].strong:
        end += 1
    return tokens[start:end]


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
    # a word capitalised only by its place counts in a one-for-one swap alone
    loose = not strict and len(ours) == len(theirs) == 1
    mine = [t for t in ours if (t.name or t.capital and loose) and t.word not in _MONTHS]
    yours = [t for t in theirs if (t.name or t.capital and loose) and t.word not in _MONTHS]
    if not mine or not yours or not any(t.name for t in mine + yours):
        return False  # (months, and their abbreviations, are the figure rule's)
    if any(len(side) > 1 and all(len(t.word) == 1 for t in side) for side in (mine, yours)):
        return False  # "U K" for "British": an initialism, not another name
    if {t.norm for t in mine} & {t.norm for t in yours}:
        return False
    joined_mine = "".join(t.word for t in ours)
    joined_yours = "".join(t.word for t in theirs)
    if _abbreviates(mine, theirs) or _abbreviates(yours, ours):
        return False
    shorter, longer = sorted((joined_mine, joined_yours), key=len)
    return not (len(shorter) >= 3 and longer.startswith(shorter[:4]))  # "Jan" for "January"


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
