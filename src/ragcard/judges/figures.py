"""A figure changed in a copied sentence.

The number check of the ensemble asks whether each figure of a claim is stated somewhere in its
evidence sentences. That misses the change a careful reader catches first: a sentence copied
from the passage with one figure replaced by another figure the same sentence also states
("$75,000 in season *four*" where the passage says "season three" and, later, "season four";
"*two* or more morphemes" beside "the two"). This module aligns the claim with each evidence
sentence word by word (:class:`difflib.SequenceMatcher` over normalised tokens) and reports a
figure that stands, in the best-aligned sentence, where that sentence has a different figure,
between words the two share.

Only a tight substitution counts: at most two tokens on each side, both sides holding a figure
of the same kind and none in common, the same words right before and after it (three at least,
counting both sides; a substitution at the claim's start or end needs only the other side),
and no evidence sentence stating the claim's figure inside a run of four words the claim
copies (the best-aligned sentence is not always the one the claim was taken from, and an
in-order alignment can pair a long shared phrase and miss the figure's own, elsewhere in the
sentence). A paraphrase that reorders, drops or adds figures aligns no such pair and is left
to the other checks; so is a claim that copies only the start of an enumeration and takes a
figure from later in it ("paid $75,000 in season four" from "$75,000 in season three,
$85,000 in season four").
Numbers are normalised as the lexical judge does ("four" = "4", "1,000" = "1000"), with "one"
a figure here (in a copied "one of which" it is one), and month names are figures ("June" for
"July" is a changed date).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from difflib import SequenceMatcher

from ragcard.judges.lexical import figure_tokens

#: Tokens on either side of a substitution at most: wider is a rewrite, not a changed figure.
MAX_SPAN = 2
#: Shared tokens around the substitution, before and after together, at least.
MIN_CONTEXT = 3
#: Claims and evidence "sentences" longer than this many tokens (unsplit text) are not
#: aligned: the alignment's time grows with the product of the lengths. Such evidence's runs
#: of words still count.
MAX_ALIGNED = 2000
#: A claim's figure inside this many words that an evidence sentence states as they are is
#: stated, whatever the alignment pairs it with.
RUN = 4


def conflicting_figures(claim: str, sentences: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """(claim's figure, evidence's figure) for each figure the claim states where the
    best-aligned of ``sentences`` (any of them, on a tie) states another of its kind, between
    the same words, and no sentence states the claim's between the words it copies; () when
    none."""
    claim_tokens = figure_tokens(claim)
    if len(claim_tokens) > MAX_ALIGNED or not any(f for _, f in claim_tokens):
        return ()
    words = [token for token, _ in claim_tokens]
    matcher = SequenceMatcher(autojunk=False)
    matcher.set_seq2(words)  # SequenceMatcher caches its second sequence
    aligned = []
    copied: set[tuple[str, ...]] = set()  # every run of RUN words of every sentence
    for sentence in dict.fromkeys(sentences):  # the lexical and the nearest often coincide
        evidence = figure_tokens(sentence)
        tokens = [token for token, _ in evidence]
        copied.update(tuple(tokens[i : i + RUN]) for i in range(len(tokens) - RUN + 1))
        if len(tokens) > MAX_ALIGNED:
            continue
        matcher.set_seq1(tokens)
        aligned.append((matcher.ratio(), evidence, matcher.get_opcodes()))
    # claim positions inside a run of RUN words that some sentence states as they are, in any
    # order of the sentences' parts (the alignment is in order and can pair the wrong parts)
    confirmed = {
        i for start in range(len(words) - RUN + 1)
        if tuple(words[start : start + RUN]) in copied for i in range(start, start + RUN)
    }
    best = max(ratio for ratio, _, _ in aligned) if aligned else 0.0
    found: dict[tuple[str, str], None] = {}
    for ratio, evidence, codes in aligned:
        if ratio == best:  # sentences aligned equally well: a change against either counts
            for position, pair in _substituted(codes, evidence, claim_tokens):
                if position not in confirmed:
                    found[pair] = None
    return tuple(found)


def _substituted(
    codes: Sequence[tuple[str, int, int, int, int]],
    evidence: list[tuple[str, bool]],
    claim: list[tuple[str, bool]],
) -> Iterator[tuple[int, tuple[str, str]]]:
    """(claim position, (its figure, the evidence's)) for each tight substitution."""
    for n, (tag, e1, e2, c1, c2) in enumerate(codes):
        if tag != "replace" or e2 - e1 > MAX_SPAN or c2 - c1 > MAX_SPAN:
            continue
        before, after = _equal_run(codes, n - 1), _equal_run(codes, n + 1)
        at_start, at_end = c1 == 0, c2 == len(claim)
        if not ((before or at_start) and (after or at_end) and before + after >= MIN_CONTEXT):
            continue
        stated = {t for t, is_figure in evidence[e1:e2] if is_figure}
        for position in range(c1, c2):
            said, is_figure = claim[position]
            if not is_figure or said in stated:
                continue
            for other in sorted(stated):
                if other.isalpha() == said.isalpha():  # a month for a month, a number for one
                    yield position, (said, other)


def _equal_run(codes: Sequence[tuple[str, int, int, int, int]], n: int) -> int:
    if 0 <= n < len(codes) and codes[n][0] == "equal":
        return codes[n][4] - codes[n][3]
    return 0
