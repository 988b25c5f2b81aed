"""Text comparison for golden sets: normalisation, word shingles, near-duplicate pairs, and
how much of a question's wording comes straight from a passage.

Everything here is deterministic and dependency-free so that ``check`` and ``import`` give the
same answer on every machine.
"""

from __future__ import annotations

import difflib
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence

__all__ = [
    "STOPWORDS",
    "clean_text",
    "comparison_key",
    "content_words",
    "jaccard",
    "longest_common_run",
    "shingles",
    "similar_pairs",
    "words",
]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SPACE = re.compile(r"\s+")

#: English function words and question scaffolding. Removing them leaves the words that say
#: what a question is about, which is what "copied from the passage" should be measured on.
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each few for from further get gets got had hadn't has
    hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his
    how how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's me might
    many more most much must mustn't my myself need no nor not now of off on once only or
    other ought our
    ours ourselves out over own same shall shan't she she'd she'll she's should shouldn't so
    some such than that that's the their theirs them themselves then there there's these they
    they'd they'll they're they've this those through to too under until up upon us very was
    wasn't we we'd we'll we're we've were weren't what what's when when's where where's which
    while who who's whom why why's will with won't would wouldn't yes you you'd you'll you're
    you've your yours yourself yourselves im ive dont cant whats
    """.split()
)


def clean_text(text: str) -> str:
    """Unicode NFC, whitespace runs collapsed to one space, ends stripped (case kept)."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def words(text: str) -> tuple[str, ...]:
    """Lower-cased word tokens (letters and digits; inner apostrophes kept, unified)."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    return tuple(_WORD.findall(folded))


def comparison_key(text: str) -> str:
    """The text two questions must share to count as duplicates: words only, case-folded."""
    return " ".join(words(text))


def content_words(text: str) -> frozenset[str]:
    """Words that carry meaning: :func:`words` minus :data:`STOPWORDS`."""
    return frozenset(word for word in words(text) if word not in STOPWORDS)


def shingles(text: str, size: int = 2) -> frozenset[tuple[str, ...]]:
    """Word n-grams of ``size``; a text shorter than ``size`` words is one shingle of itself."""
    tokens = words(text)
    if len(tokens) < size:
        return frozenset({tokens}) if tokens else frozenset()
    return frozenset(tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1))


def jaccard(left: frozenset[object], right: frozenset[object]) -> float:
    """|A ∩ B| / |A ∪ B|; two empty sets are identical (1.0)."""
    if not left and not right:
        return 1.0
    return len(left & right) / len(left | right)


def similar_pairs(
    texts: Sequence[str], threshold: float, size: int = 2
) -> list[tuple[int, int, float]]:
    """Every pair ``(i, j, similarity)`` with ``i < j`` whose shingle Jaccard is ≥ ``threshold``.

    Exact and fast on thousands of texts: a pair can only reach the threshold if the two sets
    share one of the rarest ``|A| - ceil(t·|A|) + 1`` shingles of each (prefix filtering), so
    only pairs sharing such a shingle are compared.
    """
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"similarity threshold must be in (0, 1], got {threshold}")
    sets = [shingles(text, size) for text in texts]
    frequency: Counter[tuple[str, ...]] = Counter(s for shingle_set in sets for s in shingle_set)
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)
    pairs: list[tuple[int, int, float]] = []
    for j, current in enumerate(sets):
        if not current:
            continue
        ordered = sorted(current, key=lambda s: (frequency[s], s))
        prefix = ordered[: len(current) - math.ceil(threshold * len(current) - 1e-9) + 1]
        candidates: set[int] = set()
        for shingle in prefix:
            candidates.update(index[shingle])
            index[shingle].append(j)
        for i in sorted(candidates):
            score = jaccard(sets[i], current)
            if score >= threshold:
                pairs.append((i, j, score))
    return sorted(pairs)


def longest_common_run(left: Sequence[str], right: Sequence[str]) -> tuple[str, ...]:
    """The longest run of consecutive tokens found in both sequences (first one in ``left`` on
    ties): ``difflib``'s longest match, with its junk heuristic off so every token counts."""
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    match = matcher.find_longest_match(0, len(left), 0, len(right))
    return tuple(left[match.a : match.a + match.size])
