"""Answerability: do the retrieved passages support the question well enough to answer it?

A retrieval score says which passage matches a question *best*; it does not say whether the
best match is good enough. Near-domain questions the sources do not answer ("is there a
Christmas bonus?", a pay band asked by someone who may not read the managers' guide) share
their everyday words with real passages and score like answerable paraphrases. The gate
therefore asks a narrower question — *how much of what this question is specifically about
do the retrieved passages contain?* — with three measures:

* **lexical support** — the IDF-weighted share of the question's specific terms found in the
  best retrieved passage (the maximum over the top ``k``). Specific terms are the question's
  content terms (stemmed, stopwords removed) minus :data:`QUESTION_FILLERS`: contraction
  fragments (``I'm`` leaves ``m``), light verbs (``get``, ``take``, ``need``), conversational
  fillers (``actually``, ``stuff``) and frame words (``how long``, ``how often``), which every
  question carries whatever it asks. The IDF is computed over **the passages the asker may
  search** (role, dates, cutoff), so a term that only restricted or superseded passages use
  counts as unknown, exactly like a term the corpus never uses — the gate learns nothing from
  text the asker may not see, and reveals nothing about it;
* **semantic support** (only with the ``embed`` extra) — the highest cosine similarity between
  the question and any sentence of the retrieved passages, which credits paraphrases whose
  words differ from the passage's (``newborn`` for ``birth``);
* **unknown identifiers** — codes that mix letters and digits (``P3``, ``HR-17``, ``L4``)
  named in the question but in none of the searchable passages. An identifier is exact: if
  the asker's sources never name it, they cannot say anything about it.

The rule: abstain when the question names an unknown identifier, or when lexical support is
below ``abstain_below`` *and* (with vectors) semantic support is below
``abstain_similarity_below``. Either kind of support alone is enough to answer — a passage
holding most of the question's specific terms, or a sentence saying nearly the same thing.

Where it stops: the measures see words and sentence vectors, not meaning. A question whose
only specific word is absent from the sources (``sabbatical``) and a paraphrase whose only
specific word is a synonym the sources do not use (``paternity`` for ``partner leave``) look
the same to them; so do an unanswerable question whose context words are specific (``is
there parking at the Leeds office?``: ``Leeds`` and ``office`` carry much of its weight) and
an answerable one, and a question about the asker's own records (``how much leave have I got
left?``) whose every word the policy uses. Keyword mode cannot tell these apart at
all, vectors only some of them. On the bundled handbook this gate lifts correct abstention
on the dev split (keyword 0.27 -> 0.40 at the same false abstention; hybrid 0.43 -> 0.50 with
false abstention halved to 0.05), but not on its 10 held-out unanswerable items (0.10 and
0.20, as before): 0.90 / 0.05 needs an answerability judge that reads meaning (an NLI or QA
model, an LLM), which this small offline agent deliberately does not ship.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ragcard.reference.index import Hit, PassageIndex, Query
from ragcard.reference.text import identifiers, stem

__all__ = ["QUESTION_FILLERS", "Support", "assess", "specific_terms"]

Mask = NDArray[np.bool_]

_FILLER_WORDS = """
    m ve ll re d t s don didn doesn isn aren wasn weren won wouldn shouldn couldn haven hasn hadn
    im ive dont didnt doesnt isnt arent wasnt werent wont wouldnt shouldnt couldnt cant havent
    hasnt whats wheres whens whos hows thats theres heres youre theyre hes shes
    need needs needed want wants wanted like get got getting give gives given gave make makes
    made making take takes took taken taking go goes going went gone come comes came coming put
    puts find happen happens happened mean means tell told ask asks asked say says said see seem
    seems try tries tried think know let use
    actually really basically just still ever even also ok okay stuff thing things something
    anything everything someone anyone everyone somebody anybody bit lot lots kind sort maybe
    probably thanks hi hello hey
    often long much many soon far ago yet already
"""

#: Stems of words a question carries whatever it asks about: contraction fragments, light
#: verbs, conversational fillers and frame words (``how long``, ``how often``). A general
#: English list — nothing in it comes from a particular corpus.
QUESTION_FILLERS: frozenset[str] = frozenset(
    {word for word in _FILLER_WORDS.split()} | {stem(word) for word in _FILLER_WORDS.split()}
)


def specific_terms(terms: Sequence[str]) -> tuple[str, ...]:
    """The question terms the gate weighs: ``terms`` without fillers (all of them if only
    fillers remain, so that "How long?" is still judged on something)."""
    specific = tuple(term for term in terms if term not in QUESTION_FILLERS)
    return specific or tuple(terms)


@dataclass(frozen=True, slots=True)
class Support:
    """How well the retrieved passages support a question (see the module docstring)."""

    lexical: float
    """IDF-weighted share of the question's specific terms in the best passage, in [0, 1]."""
    semantic: float | None
    """Best question-sentence cosine similarity in the passages (None without vectors)."""
    unknown_identifiers: tuple[str, ...] = ()
    """Identifiers the question names that no searchable passage contains."""

    def answerable(self, min_lexical: float, min_semantic: float | None) -> bool:
        """True when the evidence is enough to answer (the gate's decision)."""
        if self.unknown_identifiers:
            return False
        if self.lexical >= min_lexical:
            return True
        return (
            min_semantic is not None and self.semantic is not None and self.semantic >= min_semantic
        )

    @property
    def confidence(self) -> float:
        """One number for the response: the stronger of the two supports, in [0, 1]."""
        if self.unknown_identifiers:
            return 0.0
        return max(self.lexical, self.semantic or 0.0)


def _idf(count: int, frequency: int) -> float:
    """Lucene's IDF, as :func:`ragcard.reference.text.idf_weights` computes it."""
    return float(np.log(1.0 + (count - frequency + 0.5) / (frequency + 0.5)))


def _lexical(query: Query, hits: Sequence[Hit], index: PassageIndex, mask: Mask) -> float:
    terms = specific_terms(query.terms)
    if not terms or not hits:
        return 0.0
    searchable = int(mask.sum())
    weights = {term: _idf(searchable, index.document_frequency(term, mask)) for term in terms}
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    best = 0.0
    for hit in hits:
        tokens = index.tokens(hit.position)
        best = max(best, sum(weight for term, weight in weights.items() if term in tokens))
    return best / total


def _semantic(query: Query, hits: Sequence[Hit], index: PassageIndex) -> float | None:
    if query.vector is None:
        return None
    best = 0.0
    for hit in hits:
        vectors = index.sentence_vectors(hit.position)
        if vectors is not None and len(vectors):
            best = max(best, float(np.max(vectors @ query.vector)))
    return best


def assess(query: Query, hits: Sequence[Hit], index: PassageIndex, mask: Mask) -> Support:
    """Measure how well ``hits`` (retrieved from the passages ``mask`` allows) support ``query``."""
    unknown = tuple(
        sorted(code for code in identifiers(query.text) if not index.names_identifier(code, mask))
    )
    return Support(
        lexical=round(_lexical(query, hits, index, mask), 6),
        semantic=None if (sem := _semantic(query, hits, index)) is None else round(sem, 6),
        unknown_identifiers=unknown,
    )
