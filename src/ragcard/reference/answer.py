"""Extractive answering: pick the passage sentences that best answer a question, cite each one.

The answer is made only of sentences copied from retrieved passages, so every claim in it is
supported by the passage it cites (the grounding and citation layers should score it 1.0 — if
they do not, the judge is wrong, which is what the demo is for). Selection:

1. every sentence of every retrieved passage is scored by how much of the question it covers
   (IDF-weighted query terms; plus cosine similarity when the agent has an encoder);
2. the best sentence wins, ties going to the better-ranked passage, then the earlier sentence;
3. up to two more are added when they cover question terms the answer lacks (a
   multi-passage answer) or continue the chosen sentence (``This applies …``, ``Unless …``).

Tier-B sentences (secondary sources) are attributed in the text: "According to <doc>, …".
Citations are per sentence, numbered as :func:`ragcard.inputs.responses.split_sentences` numbers the
final answer, so ragcard reads them exactly as the agent meant them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragcard.inputs.corpus import Passage
from ragcard.inputs.responses import split_sentences
from ragcard.reference.index import Hit, PassageIndex, Query
from ragcard.reference.text import STOPWORDS

__all__ = ["Draft", "MAX_SENTENCES", "draft_answer"]

MAX_SENTENCES = 3
# Score share below which an extra sentence is not worth adding.
_EXTRA_SHARE = 0.5
# A sentence opening with one of these leans on the one before it (conditions, exceptions).
_CONTINUATIONS = frozenset(
    "this these that it they such however unless except only but if where when otherwise "
    "exceptions".split()
)
_FIRST_WORD = re.compile(r"[A-Za-z']+")


@dataclass(frozen=True, slots=True)
class _Sentence:
    rank: int
    position: int
    text: str
    passage: Passage
    terms: frozenset[str]
    score: float


@dataclass(frozen=True, slots=True)
class Draft:
    """An answer and its per-sentence citations (``{"id", "sentence"}``, 0-based)."""

    answer: str
    citations: list[dict[str, Any]]
    passages: tuple[str, ...]
    quoted: tuple[str, ...] = ()
    """The passage sentences the answer quotes, without attributions."""


def _clean(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?", '."', ".'", ".”", "?”", "!”")) else text + "."


def _candidates(query: Query, hits: Sequence[Hit], index: PassageIndex) -> list[_Sentence]:
    found: list[_Sentence] = []
    for rank, hit in enumerate(hits):
        vectors = index.sentence_vectors(hit.position) if query.vector is not None else None
        for position, (text, terms) in enumerate(index.sentences(hit.position)):
            score = query.coverage(terms)
            if vectors is not None and query.vector is not None:
                score += float(vectors[position] @ query.vector)
            found.append(_Sentence(rank, position, text, hit.passage, terms, round(score, 6)))
    return found


def _order_key(sentence: _Sentence) -> tuple[float, int, int]:
    return (-sentence.score, sentence.rank, sentence.position)


def _continues(previous: _Sentence, candidate: _Sentence) -> bool:
    first = _FIRST_WORD.match(candidate.text)
    return (
        candidate.passage.id == previous.passage.id
        and candidate.position == previous.position + 1
        and first is not None
        and first.group(0).lower() in _CONTINUATIONS
    )


def _select(query: Query, sentences: list[_Sentence]) -> list[_Sentence]:
    ranked = sorted(sentences, key=_order_key)
    best = ranked[0]
    chosen = [best]
    chosen.extend(s for s in sentences if _continues(best, s))
    question_terms = set(query.terms)
    covered = best.terms & question_terms
    for candidate in ranked[1:]:
        if len(chosen) >= MAX_SENTENCES:
            break
        new_terms = (candidate.terms & question_terms) - covered
        if candidate not in chosen and new_terms and candidate.score >= _EXTRA_SHARE * best.score:
            chosen.append(candidate)
            covered |= new_terms
    return sorted(chosen, key=lambda s: (s.rank, s.position))


def _lower_first(text: str) -> str:
    first = _FIRST_WORD.match(text)
    if first and first.group(0) != "I" and first.group(0).lower() in STOPWORDS:
        return text[0].lower() + text[1:]
    return text


def _source_name(passage: Passage) -> str | None:
    """A name to attribute a tier-B passage to, or None when there is no readable one.

    The passage's ``title`` (an extra field) or ``doc`` qualifies when it reads like a title
    (has a space) and does not break the sentence it is put in (``Acme Inc. Archive`` would).
    """
    extra = passage.model_extra or {}
    for name in (extra.get("title"), passage.doc):
        if isinstance(name, str) and " " in name.strip():
            name = " ".join(name.split())
            if len(split_sentences(f"According to {name}, it was so.")) == 1:
                return name
    return None


def _attributed(sentences: list[_Sentence]) -> list[str]:
    """Sentence texts, tier-B ones led by an attribution ("According to …", "Historians …")."""
    texts: list[str] = []
    attributed: set[str] = set()
    for sentence in sentences:
        text = _clean(sentence.text)
        if sentence.passage.tier == "B":
            name = _source_name(sentence.passage)
            key = name or ""
            if name is None:
                lead = "Historians also note that" if key in attributed else "Historians note that"
            else:
                lead = f"{name} also notes that" if key in attributed else f"According to {name},"
            text = f"{lead} {_lower_first(text)}"
            attributed.add(key)
        texts.append(text)
    return texts


def _cite(answer: str, chunks: list[str], ids: list[str]) -> list[dict[str, Any]]:
    """Per-sentence citations in ragcard's own sentence numbering of ``answer``."""
    spans, cursor = [], 0
    for chunk in chunks:
        start = answer.index(chunk, cursor)
        spans.append((start, start + len(chunk)))
        cursor = start + len(chunk)
    citations: list[dict[str, Any]] = []
    cursor = 0
    for index, sentence in enumerate(split_sentences(answer)):
        start = answer.find(sentence, cursor)
        start = cursor if start < 0 else start
        end = start + len(sentence)
        cursor = end
        for (chunk_start, chunk_end), passage_id in zip(spans, ids, strict=True):
            entry = {"id": passage_id, "sentence": index}
            if chunk_start < end and start < chunk_end and entry not in citations:
                citations.append(entry)
    return citations


def draft_answer(query: Query, hits: Sequence[Hit], index: PassageIndex) -> Draft:
    """Build an extractive answer from ``hits`` (best first); empty when they hold no text."""
    sentences = _candidates(query, hits, index)
    if not sentences:
        return Draft("", [], ())
    chosen = _select(query, sentences)
    chunks = _attributed(chosen)
    answer = " ".join(chunks)
    ids = [sentence.passage.id for sentence in chosen]
    quoted = tuple(sentence.text for sentence in chosen)
    return Draft(answer, _cite(answer, chunks, ids), tuple(dict.fromkeys(ids)), quoted)
