"""Item-level quality checks of a question set: duplicates, near-duplicates, and questions
written by reading the documents.

A question that borrows its gold passage's wording tests retrieval on the documents' own
words, which real askers rarely use: it flatters recall. It is flagged when most of its
content words (lower-cased, stopwords removed) appear in the gold passages, or when it shares
a long run of consecutive words with one of them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragcard.goldset._text import (
    comparison_key,
    content_words,
    longest_common_run,
    similar_pairs,
    words,
)
from ragcard.goldset.findings import Finding
from ragcard.inputs.corpus import Corpus
from ragcard.inputs.questions import Question

__all__ = [
    "SimilarPair",
    "WordingReuse",
    "find_duplicates",
    "find_near_duplicates",
    "find_wording_reuse",
]


@dataclass(frozen=True, slots=True)
class SimilarPair:
    """Two items whose questions are near-duplicates."""

    left: str
    right: str
    similarity: float

    def to_dict(self) -> dict[str, Any]:
        return {"left": self.left, "right": self.right, "similarity": round(self.similarity, 4)}


@dataclass(frozen=True, slots=True)
class WordingReuse:
    """An item whose question reuses its gold passages' wording."""

    item: str
    passages: tuple[str, ...]
    share: float
    shared_words: tuple[str, ...]
    run: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "item": self.item,
            "passages": list(self.passages),
            "content_word_share": round(self.share, 4),
            "shared_content_words": list(self.shared_words),
            "shared_run": " ".join(self.run),
        }


def _context(question: Question) -> tuple[str, str | None, str | None]:
    """What the agent receives besides the question text (docs/agents.md)."""
    cutoff = question.cutoff.isoformat() if question.cutoff else None
    return (question.asker, question.program, cutoff)


def find_duplicates(
    questions: Sequence[Question],
) -> tuple[list[tuple[str, ...]], list[Finding]]:
    """Groups of items asking the same question (same words, case and punctuation aside) in
    the same context (asker, program, cutoff): blocking. The same words asked by a different
    asker are a deliberate probe pair, reported for information only."""
    groups: dict[str, list[Question]] = defaultdict(list)
    for question in questions:
        groups[comparison_key(question.question)].append(question)
    duplicates: list[tuple[str, ...]] = []
    findings = []
    for key, group in groups.items():
        if len(group) < 2:
            continue
        contexts = Counter(_context(q) for q in group)
        same = tuple(q.id for q in group if contexts[_context(q)] > 1)
        if same:
            duplicates.append(same)
            findings.append(
                Finding("blocking", "duplicate", f"same question asked twice: {key!r}", same)
            )
        if len(contexts) > 1:
            askers = ", ".join(f"{q.id} ({q.asker})" for q in group)
            findings.append(
                Finding(
                    "info",
                    "same_text_other_context",
                    f"same wording with a different asker, program or cutoff: {askers}",
                    tuple(q.id for q in group),
                )
            )
    return duplicates, findings


def find_near_duplicates(
    questions: Sequence[Question], threshold: float = 0.8, shingle_size: int = 2
) -> tuple[list[SimilarPair], list[Finding]]:
    """Pairs whose word-shingle Jaccard is ≥ ``threshold`` (exact duplicates excluded)."""
    texts = [q.question for q in questions]
    keys = [comparison_key(text) for text in texts]
    pairs, findings = [], []
    for i, j, score in similar_pairs(texts, threshold, shingle_size):
        if keys[i] == keys[j]:
            continue  # reported as exact duplicates
        left, right = questions[i], questions[j]
        pairs.append(SimilarPair(left.id, right.id, score))
        note = "" if left.asker == right.asker else f" (askers {left.asker} / {right.asker})"
        findings.append(
            Finding(
                "warning",
                "near_duplicate",
                f"near-duplicate questions (word-shingle Jaccard {score:.2f}){note}: "
                f"{left.question!r} / {right.question!r}",
                (left.id, right.id),
            )
        )
    return pairs, findings


def _reuse_message(entry: WordingReuse, by_share: bool, by_run: bool) -> str:
    reasons = []
    if by_share:
        reasons.append(
            f"{entry.share:.0%} of its content words ({', '.join(entry.shared_words)}) are in "
            f"the gold passage text"
        )
    if by_run:
        reasons.append(f"it shares the {len(entry.run)}-word run {' '.join(entry.run)!r}")
    passages = ", ".join(entry.passages)
    return f"question written by reading the documents ({passages}): " + "; ".join(reasons)


def find_wording_reuse(
    questions: Sequence[Question],
    corpus: Corpus,
    *,
    share: float = 0.8,
    run: int = 6,
    min_content_words: int = 4,
    share_exempt: Sequence[str] = ("exact_term",),
) -> tuple[list[WordingReuse], list[Finding]]:
    """Items whose question reuses their gold passages' wording (see the module docstring).

    The share test needs at least ``min_content_words`` content words (with three, a single
    topic word decides it) and is skipped for ``share_exempt`` categories, whose questions
    must use the documents' own terms; the run test applies to every item. Gold ids missing
    from the corpus are reported too.
    """
    reuse, findings = [], []
    for question in questions:
        passages = [corpus.get(gid) for gid in question.gold_ids]
        missing = [gid for gid, p in zip(question.gold_ids, passages, strict=True) if p is None]
        if missing:
            findings.append(
                Finding(
                    "warning",
                    "unknown_gold",
                    f"gold passage(s) not in the corpus: {', '.join(missing)}",
                    (question.id,),
                )
            )
        found = [p for p in passages if p is not None]
        if not found:
            continue
        asked = content_words(question.question)
        source = frozenset().union(*(content_words(p.text) for p in found))
        shared = tuple(sorted(asked & source))
        fraction = len(shared) / len(asked) if asked else 0.0
        tokens = words(question.question)
        longest = max((longest_common_run(tokens, words(p.text)) for p in found), key=len)
        by_share = (
            len(asked) >= min_content_words
            and fraction >= share
            and question.category not in share_exempt
        )
        by_run = len(longest) >= run
        if not (by_share or by_run):
            continue
        entry = WordingReuse(question.id, tuple(p.id for p in found), fraction, shared, longest)
        reuse.append(entry)
        findings.append(
            Finding(
                "warning", "gold_wording", _reuse_message(entry, by_share, by_run), (entry.item,)
            )
        )
    return reuse, findings
