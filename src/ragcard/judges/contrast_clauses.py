"""The contrast checks that read clauses rather than an alignment (a rewritten sentence):
a negation, a flipped relation word, a name said of what the passage says of another
(:mod:`ragcard.judges.contrast`)."""

from __future__ import annotations

from ragcard.judges.contrast_lexicon import (
    MODAL_AXIS,
)
from ragcard.judges.contrast_text import (
    _MONTHS,
    Contrast,
    _abbreviates,
    _clauses_of,
    _content,
    _parity,
    _polarity,
    _question,
    _surface,
    _Token,
    _values,
)

#: Words between a name and the shared word it is bound to, at most (and the slack allowed in
#: the evidence's slot).
SLOT_GAP = 2


FOCUS_WORDS = 3


#: Share of a claim clause's content words the evidence clauses must hold to be its clauses,
#: and the content words a clause needs to be read (as the lexical judge reads negation).
CLAUSE_MATCH = 0.6


CLAUSE_TERMS = 2


#: Share of a claim clause's content words one evidence clause must hold for a relation word
#: of the clause to be read against that clause's.
RELATION_MATCH = 0.6


#: Evidence clauses read together against one claim clause at most.
COVER_CLAUSES = 2


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
        if _parity(piece, theirs, False):
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
        sentence = next(s for s in candidates if any(t is clause[0] for t in s))
        for axis in sorted(axes):
            mine, yours = _values(piece, axis), _values(clause, axis)
            if mine & _values(sentence, axis):
                continue  # the sentence states the claim's value too ("first … and a final")
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
