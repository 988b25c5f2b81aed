"""The reference agent's passage index: bm25s keyword search, optional dense vectors, fusion.

The index is built once over the whole corpus and never changes afterwards, so worker threads
may search it concurrently. Every search takes a boolean *mask* of the passages the asker may
search (identity, effective dates, cutoff — decided by the agent); masked-out passages are
never candidates, so ranking only ever happens among what the asker is allowed to see.

Alongside each ranking score a hit carries two match measures in [0, 1], for inspection —
raw BM25 and mixed scores are not comparable across questions:

* ``coverage`` — the IDF-weighted share of the question's content terms found in the passage
  (IDF over the whole corpus);
* ``similarity`` — cosine similarity of question and passage vectors (dense only).

The agent's answerability gate (:mod:`ragcard.reference.answerability`) measures support its
own way, over only the passages the asker may search; for that the index also answers
:meth:`PassageIndex.document_frequency` and :meth:`PassageIndex.names_identifier` under a mask.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import bm25s  # type: ignore[import-untyped]
import numpy as np
from numpy.typing import NDArray

from ragcard.inputs.corpus import Passage
from ragcard.inputs.responses import split_sentences
from ragcard.reference.embeddings import MiniLMEncoder
from ragcard.reference.text import identifier_keys, idf_weights, tokenize

__all__ = ["Hit", "Mode", "PassageIndex", "Query"]

Mode = Literal["keyword", "vector", "hybrid"]
Mask = NDArray[np.bool_]

#: Hybrid score = w * cosine + (1 - w) * BM25 / best BM25 among the allowed passages. Chosen
#: on the dev split of the bundled examples (recall@5, handbook / persona): w = 0.8 gives
#: 0.97 / 0.88, against 0.91 / 0.79 for reciprocal rank fusion, 0.95 / 0.75 for vectors alone
#: and 0.84 / 0.67 for BM25 alone.
VECTOR_WEIGHT = 0.8
BM25_SETTINGS: dict[str, Any] = {"k1": 1.5, "b": 0.75, "method": "lucene"}


@dataclass(frozen=True, slots=True)
class Query:
    """A question prepared once: its content terms, their weights and (when dense) its vector."""

    text: str
    terms: tuple[str, ...]
    weights: dict[str, float]
    vector: NDArray[np.float32] | None

    def coverage(self, tokens: set[str] | frozenset[str]) -> float:
        """IDF-weighted share of this query's terms found in ``tokens`` (0 for an empty query)."""
        total = sum(self.weights.values())
        if total <= 0:
            return 0.0
        return sum(weight for term, weight in self.weights.items() if term in tokens) / total


@dataclass(frozen=True, slots=True)
class Hit:
    """One retrieved passage with its ranking score and match measures."""

    passage: Passage
    position: int
    score: float
    coverage: float
    similarity: float | None


def _passage_text(passage: Passage) -> str:
    """What gets indexed: headings travel with the text (docs/metrics.md#diagnosis, 'keep
    headings')."""
    title = (passage.model_extra or {}).get("title")
    parts = (passage.doc, title if isinstance(title, str) else None, passage.section)
    heading = " — ".join(part for part in parts if part)
    return f"{heading}: {passage.text}" if heading else passage.text


def _postings(entries: Sequence[set[str] | frozenset[str]]) -> dict[str, NDArray[np.intp]]:
    """Term -> positions of the entries holding it (an inverted index over sets of terms)."""
    positions: dict[str, list[int]] = {}
    for position, entry in enumerate(entries):
        for term in entry:
            positions.setdefault(term, []).append(position)
    return {term: np.asarray(found, dtype=np.intp) for term, found in positions.items()}


def _ranked(scores: NDArray[np.float64], candidates: NDArray[np.intp]) -> list[int]:
    """Candidate indices by descending score; ties keep corpus order (deterministic)."""
    order = np.lexsort((candidates, -scores[candidates]))
    return [int(candidates[position]) for position in order]


class PassageIndex:
    """A keyword (and, with an encoder, vector) index over a fixed list of passages."""

    def __init__(self, passages: Sequence[Passage], encoder: MiniLMEncoder | None = None) -> None:
        self.passages: tuple[Passage, ...] = tuple(passages)
        texts = [_passage_text(passage) for passage in self.passages]
        tokens = [tokenize(text) for text in texts]
        self._token_sets = tuple(frozenset(entry) for entry in tokens)
        self._postings = _postings(self._token_sets)
        self._identifier_postings = _postings([identifier_keys(text) for text in texts])
        self._idf, self._unseen_idf = idf_weights(tokens)
        self._bm25: Any = bm25s.BM25(**BM25_SETTINGS)
        self._bm25.index(tokens, show_progress=False)
        self._vocabulary: dict[str, int] = dict(self._bm25.vocab_dict)
        self.encoder = encoder
        self._vectors: NDArray[np.float32] | None = (
            encoder.encode(texts) if encoder is not None and texts else None
        )
        self._sentences = tuple(tuple(split_sentences(p.text)) for p in self.passages)
        self._sentence_terms = tuple(
            tuple(frozenset(tokenize(sentence)) for sentence in sentences)
            for sentences in self._sentences
        )
        self._sentence_vectors: dict[int, NDArray[np.float32]] = {}
        self._lock = threading.Lock()

    @property
    def dense(self) -> bool:
        """True when passages have vectors (vector and hybrid search are possible)."""
        return self._vectors is not None

    def __len__(self) -> int:
        return len(self.passages)

    def prepare(self, question: str) -> Query:
        """Tokenise (and embed, when dense) a question once for every search that uses it."""
        terms = tuple(dict.fromkeys(tokenize(question)))
        weights = {term: self._idf.get(term, self._unseen_idf) for term in terms}
        vector = None
        if self.encoder is not None and self._vectors is not None:
            vector = self.encoder.encode([question])[0]
        return Query(question, terms, weights, vector)

    def tokens(self, position: int) -> frozenset[str]:
        """The indexed terms (stemmed, headings included) of the passage at ``position``."""
        return self._token_sets[position]

    def document_frequency(self, term: str, mask: Mask) -> int:
        """How many of the passages ``mask`` allows contain ``term``."""
        positions = self._postings.get(term)
        return 0 if positions is None else int(np.count_nonzero(mask[positions]))

    def names_identifier(self, key: str, mask: Mask) -> bool:
        """True when a passage ``mask`` allows writes the code ``key`` (``hr17``) in any form."""
        positions = self._identifier_postings.get(key)
        return positions is not None and bool(mask[positions].any())

    def sentences(self, position: int) -> tuple[tuple[str, frozenset[str]], ...]:
        """The sentences of the passage at ``position`` with their content terms."""
        return tuple(zip(self._sentences[position], self._sentence_terms[position], strict=True))

    def sentence_vectors(self, position: int) -> NDArray[np.float32] | None:
        """Vectors of the passage's sentences (None without an encoder), computed once.

        A passage's sentences are always encoded together, so their vectors do not depend on
        which question asked for them first.
        """
        if self.encoder is None or not self._sentences[position]:
            return None
        with self._lock:
            vectors = self._sentence_vectors.get(position)
            if vectors is None:
                vectors = self.encoder.encode(self._sentences[position])
                self._sentence_vectors[position] = vectors
            return vectors

    def _keyword_scores(self, query: Query) -> NDArray[np.float64]:
        known = [term for term in query.terms if term in self._vocabulary]
        if not known:
            return np.zeros(len(self.passages), dtype=np.float64)
        return np.asarray(self._bm25.get_scores(known), dtype=np.float64)

    def _similarities(self, query: Query) -> NDArray[np.float64] | None:
        if self._vectors is None or query.vector is None:
            return None
        return np.asarray(self._vectors @ query.vector, dtype=np.float64)

    def search(self, query: Query, mask: Mask, k: int, mode: Mode) -> list[Hit]:
        """The top ``k`` passages among those ``mask`` allows, best first.

        ``keyword`` ranks passages sharing at least one term with the question by BM25;
        ``vector`` ranks every allowed passage by cosine; ``hybrid`` ranks them by a mix of
        cosine and max-normalised BM25 (:data:`VECTOR_WEIGHT`).
        """
        if mode != "keyword" and self._vectors is None:
            raise ValueError(f"{mode} search needs passage vectors (build with an encoder)")
        allowed = np.flatnonzero(mask)
        keyword = self._keyword_scores(query)
        similarity = self._similarities(query)
        matching = allowed[keyword[allowed] > 0]
        if mode == "keyword" or similarity is None:
            ranking, scores = _ranked(keyword, matching), keyword
        elif mode == "vector":
            ranking, scores = _ranked(similarity, allowed), similarity
        else:
            top = float(keyword[allowed].max()) if len(allowed) else 0.0
            scaled = keyword / top if top > 0 else np.zeros_like(keyword)
            scores = VECTOR_WEIGHT * similarity + (1.0 - VECTOR_WEIGHT) * scaled
            ranking = _ranked(scores, allowed)
        return [
            Hit(
                passage=self.passages[position],
                position=position,
                score=round(float(scores[position]), 6),
                coverage=round(query.coverage(self._token_sets[position]), 6),
                similarity=None if similarity is None else round(float(similarity[position]), 6),
            )
            for position in ranking[:k]
        ]

    def describe(self) -> dict[str, Any]:
        """Index settings recorded with the run."""
        settings: dict[str, Any] = {
            "passages": len(self.passages),
            "keyword": {
                "engine": f"bm25s {bm25s.__version__}",
                **BM25_SETTINGS,
                "tokenizer": "ragcard-reference light English stemmer + stopwords",
            },
            "indexed_text": "doc — title — section: text",
        }
        if self.encoder is not None:
            settings["dense"] = self.encoder.describe()
            settings["fusion"] = {
                "method": "score_mix",
                "vector_weight": VECTOR_WEIGHT,
                "keyword_normalisation": "max over allowed passages",
            }
        return settings
