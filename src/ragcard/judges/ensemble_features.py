"""The signals the ``ensemble`` judge combines, per (claim, passages).

Lexical signals come from the ``lexical`` judge's own index (same sentences, same IDF
weights); embedding signals from :class:`~ragcard.judges.embedding.SentenceVectors`, which
also *selects* evidence sentences (the ``top_k`` nearest) that lexical coverage is measured
against again. The optional ``llm_vote`` is another judge's score (the ``local`` judge).

===================  ==========================================================================
``lexical_score``    the lexical judge's score (coverage, halved by a failed hard check)
``lexical_coverage`` IDF-weighted share of the claim's content words in its best 1–2 sentences
``numbers_absent``   1 when a number/date of the claim appears in no passage
``negation_mismatch`` 1 when the lexical judge saw a negation on one side only
``coverage_all``     IDF-weighted share of the claim's content words anywhere in the passages
``missing_terms``    log(1 + number of the claim's content words found in no passage)
``emb_max``          best cosine between the claim and a passage sentence
``emb_top3``         mean cosine of the 3 nearest sentences (fewer when there are fewer)
``emb_coverage``     IDF-weighted coverage of the claim by the 3 embedding-nearest sentences
``claim_terms``      log(1 + number of content words of the claim)
``numbers_share``    share of the claim's numbers/dates found in no passage (0 without numbers)
``names_absent``     log(1 + capitalised words of the claim, after its first, in no passage)
``clause_coverage``  the claim cut at commas, semicolons, brackets and "and/but/which/who/
                     while/where": the lowest IDF-weighted coverage of a clause by the passages
``clause_cosine``    the lowest, over those clauses, of the clause's best sentence cosine
``llm_vote``         the local LLM judge's score (only when ``llm_vote = true``)
===================  ==========================================================================
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ragcard.judges.base import Judge, JudgeContext, JudgeError, Verdict
from ragcard.judges.contrast import Contrast, contrast_in, is_copy
from ragcard.judges.embedding import SentenceMatches, SentenceVectors
from ragcard.judges.figures import conflicting_figures
from ragcard.judges.lexical import (
    HARD_FAIL_FACTOR,
    LexicalJudge,
    _Index,
    first_term,
    numbers_in,
)
from ragcard.judges.lexical import content_terms as _content_terms

__all__ = ["BASE_FEATURES", "FEATURES", "LLM_FEATURE", "ClaimFeatures", "FeatureExtractor"]

BASE_FEATURES = (
    "lexical_score",
    "lexical_coverage",
    "numbers_absent",
    "negation_mismatch",
    "coverage_all",
    "missing_terms",
    "emb_max",
    "emb_top3",
    "emb_coverage",
    "claim_terms",
    "numbers_share",
    "names_absent",
    "clause_coverage",
    "clause_cosine",
)
LLM_FEATURE = "llm_vote"
#: Every feature a weights file may name.
FEATURES = (*BASE_FEATURES, LLM_FEATURE)
TOP_K = 3
_CLAUSE_BREAK = re.compile(
    r"[,;:()\[\]\u2013\u2014]|\s(?:and|but|which|who|while|where|whereas|whose)\s", re.I
)
_NAME = re.compile(r"(?<=\s)[A-Z][\w'’-]+")


def clauses(claim: str) -> list[str]:
    """The pieces of ``claim`` with at least two content words (the claim itself if none)."""
    pieces = [p.strip() for p in _CLAUSE_BREAK.split(claim)]
    kept = [p for p in pieces if len(_content_terms(p)) >= 2]
    return kept if len(kept) > 1 else [claim]


@dataclass(frozen=True, slots=True)
class ClaimFeatures:
    """One claim's signals, the lexical verdict, and the best evidence sentence."""

    values: dict[str, float]
    lexical: Verdict
    passage_id: str | None
    span: tuple[int, int] | None
    #: The claim's numbers, dates and amounts that no evidence sentence states (the lexical
    #: judge's best 1–2 sentences and the embedding-nearest ones).
    unmatched_numbers: tuple[str, ...] = ()
    #: (the claim's figure, its evidence's) where the best-aligned evidence sentence states
    #: another figure between the same words (:mod:`ragcard.judges.figures`).
    conflicting_figures: tuple[tuple[str, str], ...] = ()
    #: A negation, name or relation word the claim changed against the evidence sentence it
    #: copies (:mod:`ragcard.judges.contrast`).
    contrast: Contrast | None = None
    #: The claim restates one evidence sentence up to synonyms, units and stop words
    #: (:func:`ragcard.judges.contrast.is_copy`).
    copied: bool = False

    def vector(self, names: tuple[str, ...]) -> NDArray[np.float64]:
        return np.array([self.values[name] for name in names], dtype=np.float64)


class FeatureExtractor:
    """Computes :data:`FEATURES` for every claim of a context."""

    def __init__(self, vectors: SentenceVectors, llm: Judge | None = None) -> None:
        self.vectors = vectors
        self.llm = llm
        self.lexical = LexicalJudge()

    async def extract(
        self,
        ctx: JudgeContext,
        needs_vote: Callable[[list[ClaimFeatures]], list[bool]] | None = None,
    ) -> list[ClaimFeatures]:
        """Signals per claim, in order; raises :class:`JudgeError` when the LLM vote fails.

        With an LLM, every claim gets its vote (:data:`LLM_FEATURE`), or, given
        ``needs_vote`` (the other signals in, a yes/no per claim out), only the claims it
        picks: the LLM is then asked about those claims alone, in one call."""
        index = _Index(ctx.passages)
        pieces = [clauses(claim) for claim in ctx.claims]
        texts = [*ctx.claims, *(p for claim_pieces in pieces for p in claim_pieces)]
        matches = self.vectors.match(texts, ctx.passages)
        if len(matches.sentences) != len(index.sentences):  # pragma: no cover - same splitter
            raise JudgeError("lexical and embedding sentence splits disagree")
        results, row = [], len(ctx.claims)
        for c, claim in enumerate(ctx.claims):
            rows = list(range(row, row + len(pieces[c])))
            row += len(pieces[c])
            features = self._claim(claim, c, index, matches)
            features.values.update(_clause_values(pieces[c], rows, index, matches))
            results.append(features)
        if self.llm is not None and results:
            wanted = needs_vote(results) if needs_vote else [True] * len(results)
            chosen = [c for c, yes in enumerate(wanted) if yes]
            if chosen:
                asked = tuple(ctx.claims[c] for c in chosen)
                verdicts = await self.llm.judge(dataclasses.replace(ctx, claims=asked))
                if len(verdicts) != len(chosen):
                    raise JudgeError(f"llm vote: {len(verdicts)} verdicts for {len(chosen)}")
                for c, verdict in zip(chosen, verdicts, strict=True):
                    results[c].values[LLM_FEATURE] = verdict.score
        return results

    def _claim(self, claim: str, c: int, index: _Index, matches: SentenceMatches) -> ClaimFeatures:
        lexical = self.lexical._judge_claim(claim, index)
        terms = _content_terms(claim)
        absent_numbers = bool(numbers_in(claim) - index.numbers)
        negated = lexical.label == "contradicted"
        hard_fail = negated or (absent_numbers and lexical.score > 0)
        coverage = lexical.score / HARD_FAIL_FACTOR if hard_fail else lexical.score
        weights = {term: index.weight(term) for term in terms}
        total = math.fsum(weights.values()) or 1.0
        everywhere = set(index.document_frequency)
        ranked = matches.ranked(c)
        top = ranked[:TOP_K]
        selected = frozenset().union(*(index.sentences[i].terms for i in top))
        cosines = [float(matches.cosines[c, i]) for i in top]
        values = {
            "lexical_score": lexical.score,
            "lexical_coverage": min(1.0, coverage),
            "numbers_absent": float(absent_numbers),
            "negation_mismatch": float(negated),
            "coverage_all": math.fsum(weights[t] for t in terms & everywhere) / total,
            "missing_terms": math.log1p(len(terms - everywhere)),
            "emb_max": cosines[0] if cosines else 0.0,
            "emb_top3": sum(cosines) / len(cosines) if cosines else 0.0,
            "emb_coverage": math.fsum(weights[t] for t in terms & selected) / total,
            "claim_terms": math.log1p(len(terms)),
            "numbers_share": _share(numbers_in(claim) - index.numbers, numbers_in(claim)),
            "names_absent": math.log1p(
                len({t for t in map(first_term, _NAME.findall(claim)) if t not in everywhere})
            ),
        }
        passage_id, span = lexical.passage_id, lexical.span
        if (passage_id is None or span is None) and ranked:
            passage, span = matches.sentences[ranked[0]]
            passage_id = index.passages[passage].id
        evidence = _evidence_sentences(lexical, index, matches, top)
        return ClaimFeatures(
            values, lexical, passage_id, span, _unmatched(claim, evidence),
            conflicting_figures(claim, evidence),
            contrast_in(claim, evidence, context=[p.text for p in index.passages]),
            is_copy(claim, evidence),
        )


def _evidence_sentences(
    lexical: Verdict, index: _Index, matches: SentenceMatches, top: list[int]
) -> list[str]:
    """The claim's evidence sentences: the lexical judge's best 1–2 and the nearest ones."""
    texts = []
    if lexical.passage_id is not None and lexical.span is not None:
        passage = next(p for p in index.passages if p.id == lexical.passage_id)
        texts.append(passage.text[lexical.span[0] : lexical.span[1]])
    for i in top:
        passage_index, (start, end) = matches.sentences[i]
        texts.append(index.passages[passage_index].text[start:end])
    return texts


def _unmatched(claim: str, evidence: list[str]) -> tuple[str, ...]:
    """The claim's numbers stated by none of its evidence sentences."""
    wanted = numbers_in(claim)
    if not wanted:
        return ()
    stated: set[str] = set().union(*map(numbers_in, evidence))
    return tuple(sorted(wanted - stated))


def _share(part: set[str], whole: set[str]) -> float:
    return len(part) / len(whole) if whole else 0.0




def _clause_values(
    pieces: list[str], rows: list[int], index: _Index, matches: SentenceMatches
) -> dict[str, float]:
    everywhere = set(index.document_frequency)
    coverages, cosines = [], []
    for piece, row in zip(pieces, rows, strict=True):
        terms = _content_terms(piece)
        weights = {term: index.weight(term) for term in terms}
        total = math.fsum(weights.values()) or 1.0
        coverages.append(math.fsum(weights[t] for t in terms & everywhere) / total)
        best = matches.cosines[row].max() if matches.cosines.shape[1] else 0.0
        cosines.append(float(best))
    return {"clause_coverage": min(coverages), "clause_cosine": min(cosines)}
