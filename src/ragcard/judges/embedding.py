"""The ``embedding`` judge: how close is the claim to the nearest passage sentence?

Needs the ``embed`` extra (``pip install 'ragcard[embed]'``): the MiniLM int8 encoder shared
with the reference agent (:mod:`ragcard.reference.embeddings`). Per claim it encodes the claim
and every passage sentence (sentences as the ``lexical`` judge splits them), takes the best
cosine, and maps it to a score in [0, 1] with a one-feature logistic model shipped in
``judges/weights/embedding.json`` (trained by ``ragcard judges train-ensemble --feature
emb_max`` on BEGIN dev and WiCE's 258 claims outside the published subset; the file records
it). Evidence = the best sentence (``passage_id`` and character ``span``).

Passage-sentence vectors are cached per passage text within a judge instance (least recently
used first out), so an answer's passages are encoded once however many claims it has, and a
passage shared by many answers once per run.

Measured (``ragcard judges evaluate --judge embedding --threshold judge --dataset wice-100
--dataset begin --dataset faithbench``): BEGIN test AUROC 0.827, balanced accuracy 0.751;
FaithBench AUROC 0.550; WiCE published 100 AUROC 0.429 — worse than chance on long multi-fact
claims, where the nearest sentence is on topic whether or not it supports every part. Speed:
70–100 passage sentences a second on 2 busy cores (load 6), cached per passage text.

Relevance (does the answer address the question?) is the cosine between the question and the
whole answer, relevant from :data:`RELEVANCE_THRESHOLD`; the ``ensemble`` judge answers it the
same way. Tuned (maximum balanced accuracy, 0.356) on CLAPNQ dev answerable questions 0–149,
each against its own human answer and two others (the next question's; the one sharing most
of its words), exactly as the ``lexical`` judge's coverage threshold was. On questions
150–299, never seen (``.venv/bin/python benchmarks/relevance_lexical.py``): AUROC 0.998 and
0.976 against the two kinds of wrong answer (lexical coverage: 0.964, 0.922), balanced
accuracy 0.963 and 0.937 (0.907, 0.870), and 93% of the human answers judged relevant (81%
by coverage: answers in other words no longer count as off-topic). An answer that stays on
the topic without answering (an evasion) still scores high. Abstention is the ``lexical``
judge's phrase list.

What it cannot see: a cosine measures topic, not truth. "The office opens at 9" and "The office
opens at 10" are near-identical vectors; negation and wrong numbers barely move it. So a
number, date or amount of the claim must also be stated by the nearest sentence (or clause:
long sentences are cut at ':', ';', dashes and "and"/"but", since a long sentence dilutes a
cosine), else the claim is not supported. Negation still passes unseen. It is a signal for the
``ensemble`` judge and an evidence selector more than a judge on its own.

TOML::

    [judge]
    backend = "embedding"
    threshold = 0.5        # absent: the threshold stored in the weights file
    weights = "mine.json"  # absent: the shipped embedding.json
    relevance_threshold = 0.36  # question-answer cosine from which an answer is relevant
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from ragcard.errors import ConfigError, MissingExtraError
from ragcard.judges.base import Evidence, JudgeContext, JudgeIdentity, Label, Verdict
from ragcard.judges.contrast import contrast_in
from ragcard.judges.correctness import ALGORITHM as CORRECTNESS_ALGORITHM
from ragcard.judges.correctness import SIMILAR_CORRECT, SIMILAR_PARTIAL, grade_answer
from ragcard.judges.ensemble_model import LogisticModel, load_weights, shipped_weights_path
from ragcard.judges.lexical import LexicalJudge, numbers_in, split_sentences
from ragcard.judges.lexical_tasks import TASK_VERSIONS as LEXICAL_TASK_VERSIONS
from ragcard.judges.registry import check_options

__all__ = [
    "RELEVANCE_THRESHOLD",
    "TASK_VERSIONS",
    "EmbeddingJudge",
    "Encoder",
    "SentenceVectors",
    "SentenceMatches",
    "answer_task",
    "relevance_threshold_of",
    "task_versions",
]

#: The highest score a claim gets when a number of it is not in its nearest sentence.
NUMBER_CAP = 0.3
#: Passages whose sentence vectors one judge instance keeps.
CACHE_PASSAGES = 4096
#: Question–answer cosine from which an answer counts as addressing the question (the
#: ``relevance_threshold`` option of the embedding and ensemble judges changes it).
RELEVANCE_THRESHOLD = 0.36


def task_versions(relevance_threshold: float = RELEVANCE_THRESHOLD) -> dict[str, str]:
    """How the embedding-based judges answer each task beyond support (their identity)."""
    return {
        "relevance": f"embedding-relevance/1 (question-answer cosine >= {relevance_threshold:g})",
        "abstention": LEXICAL_TASK_VERSIONS["abstention"],
        "correctness": (
            f"{CORRECTNESS_ALGORITHM} + embedding similarity (correct from "
            f"{SIMILAR_CORRECT:g} with every figure, partial from {SIMILAR_PARTIAL:g})"
        ),
    }


#: :func:`task_versions` at the default threshold.
TASK_VERSIONS = task_versions()


def relevance_threshold_of(judge: str, value: float | None) -> float:
    """The ``relevance_threshold`` option, checked (default :data:`RELEVANCE_THRESHOLD`)."""
    if value is None:
        return RELEVANCE_THRESHOLD
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"judge '{judge}': relevance_threshold must be in [0, 1], got {value}")
    return float(value)


class Encoder(Protocol):
    """What the judge needs of an encoder (the MiniLM one, or a stub in tests)."""

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]: ...

    def describe(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class SentenceMatches:
    """The passage sentences of one context, their vectors, and the claims' cosines to them.

    ``sentences[i] = (passage index, (start, end))``; ``cosines[c, i]`` is claim ``c`` against
    sentence ``i`` (empty second axis when the passages have no text).
    """

    sentences: tuple[tuple[int, tuple[int, int]], ...]
    cosines: NDArray[np.float32]

    def ranked(self, claim: int) -> list[int]:
        """Sentence indices, best cosine first (ties: earlier sentence first)."""
        row = self.cosines[claim]
        return sorted(range(row.shape[0]), key=lambda i: (-float(row[i]), i))


class SentenceVectors:
    """Encodes passage sentences once per passage text (LRU-bounded) and claims per call."""

    def __init__(self, encoder: Encoder, capacity: int = CACHE_PASSAGES) -> None:
        self.encoder = encoder
        self.capacity = capacity
        self._passages: OrderedDict[str, _Encoded] = OrderedDict()
        self._texts: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self.encoded_sentences = 0

    def match(self, claims: Sequence[str], passages: Sequence[Evidence]) -> SentenceMatches:
        """Cosines of every claim to every sentence of ``passages``; whatever is not cached
        yet is encoded in one call. The "claims" may be any texts (the ensemble adds the
        claims' clauses); their vectors are cached too, as a run judges an answer's sentences
        for several measures."""
        fresh = list(dict.fromkeys(p.text for p in passages if p.text not in self._passages))
        fresh_claims = list(dict.fromkeys(c for c in claims if c not in self._texts))
        spans_of = {text: split_sentences(text) for text in fresh}
        pieces = [text[s:e] for text in fresh for s, e in spans_of[text]]
        new_passages: dict[str, _Encoded] = {}
        new_texts: dict[str, NDArray[np.float32]] = {}
        if fresh_claims or pieces:
            vectors = self.encoder.encode([*fresh_claims, *pieces])
            new_texts = {claim: vectors[i] for i, claim in enumerate(fresh_claims)}
            offset = len(fresh_claims)
            for text in fresh:
                count = len(spans_of[text])
                new_passages[text] = (spans_of[text], vectors[offset : offset + count])
                offset += count
        self.encoded_sentences += len(pieces)
        sentences: list[tuple[int, tuple[int, int]]] = []
        blocks = []
        for index, passage in enumerate(passages):
            spans, block = new_passages.get(passage.text) or self._passages[passage.text]
            sentences += [(index, span) for span in spans]
            blocks.append(block)
        rows = [new_texts[c] if c in new_texts else self._texts[c] for c in claims]
        _remember(self._passages, [p.text for p in passages], new_passages, self.capacity)
        _remember(self._texts, list(claims), new_texts, self.capacity * 4)
        if not rows or not sentences:
            return SentenceMatches(tuple(sentences), np.zeros((len(claims), 0), np.float32))
        cosines = np.asarray(np.vstack(rows) @ np.vstack(blocks).T, dtype=np.float32)
        return SentenceMatches(tuple(sentences), cosines)

    def texts(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """The vectors of ``texts`` (one row each), encoding only those not cached yet."""
        fresh = list(dict.fromkeys(t for t in texts if t not in self._texts))
        new_texts: dict[str, NDArray[np.float32]] = {}
        if fresh:
            new_texts = dict(zip(fresh, self.encoder.encode(fresh), strict=True))
        rows = [new_texts[t] if t in new_texts else self._texts[t] for t in texts]
        _remember(self._texts, list(texts), new_texts, self.capacity * 4)
        return np.vstack(rows) if rows else np.zeros((0, 0), np.float32)


_Encoded = tuple[list[tuple[int, int]], NDArray[np.float32]]


async def answer_task(
    vectors: SentenceVectors, ctx: JudgeContext, threshold: float = RELEVANCE_THRESHOLD
) -> list[Verdict]:
    """A task about whole answers (``ctx.claims``): relevance by the question–answer cosine
    (relevant from ``threshold``), correctness by key facts with the expected answer's best
    sentence cosine as the meaning score (:func:`ragcard.judges.correctness.grade_answer`),
    abstention as the ``lexical`` judge answers it."""
    if ctx.task == "correctness" and ctx.reference:
        similarity = _similarity(vectors)
        return [
            grade_answer(answer, ctx.reference, ctx.question, ctx.passages, similarity=similarity)
            for answer in ctx.claims
        ]
    if ctx.task != "relevance" or ctx.question is None or not ctx.claims:
        return await LexicalJudge().judge(ctx)
    rows = vectors.texts([ctx.question, *ctx.claims])
    verdicts = []
    for answer, cosine in zip(ctx.claims, rows[1:] @ rows[0], strict=True):
        if not answer.strip():
            verdicts.append(Verdict("not_supported", 0.0, reason="empty answer"))
            continue
        label: Label = "supported" if cosine >= threshold else "not_supported"
        reason = f"question-answer cosine {cosine:.2f} (relevant from {threshold:g})"
        verdicts.append(Verdict(label, round(min(1.0, max(0.0, float(cosine))), 6), reason=reason))
    return verdicts


def _similarity(vectors: SentenceVectors) -> Callable[[str, str], float]:
    """The best cosine between an expected answer and the answer or one of its sentences."""

    def similarity(expected: str, answer: str) -> float:
        pieces = [answer, *(answer[s:e] for s, e in split_sentences(answer))]
        rows = vectors.texts([expected, *dict.fromkeys(pieces)])
        return float(max(0.0, min(1.0, float((rows[1:] @ rows[0]).max()))))

    return similarity


def _remember(
    cache: OrderedDict[str, Any], used: list[str], new: dict[str, Any], size: int
) -> None:
    """Add ``new`` entries, mark ``used`` ones most recent, drop the least recent over ``size``."""
    cache.update(new)
    for key in used:
        cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


def load_default_encoder(purpose: str = "The embedding judge") -> Encoder:
    """The shared MiniLM encoder; :class:`~ragcard.errors.MissingExtraError` (naming
    ``purpose`` and the ``pip install 'ragcard[embed]'`` hint) without the ``embed`` extra."""
    from ragcard.reference.embeddings import load_encoder

    try:
        return load_encoder()
    except MissingExtraError as error:
        raise MissingExtraError(error.package, error.extra, purpose) from None


class EmbeddingJudge:
    """Scores a claim by its best sentence cosine, calibrated by a one-feature logistic model.

    Options: ``threshold`` (in [0, 1]; default: the weights file's), ``weights`` (a path).
    """

    def __init__(
        self,
        threshold: float | None = None,
        weights: str | None = None,
        encoder: Encoder | None = None,
        relevance_threshold: float | None = None,
    ) -> None:
        self.relevance_threshold = relevance_threshold_of("embedding", relevance_threshold)
        self.vectors = SentenceVectors(encoder or load_default_encoder())
        path = Path(weights).expanduser() if weights else shipped_weights_path("embedding")
        self.model: LogisticModel = load_weights(path)
        if self.model.features != ("emb_max",):
            raise ConfigError(
                f"{self.model.source}: the embedding judge needs a model of the one feature "
                f"'emb_max', got {', '.join(self.model.features)}; train one with `ragcard "
                "judges train-ensemble --feature emb_max --out FILE`"
            )
        if threshold is not None and not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"judge 'embedding': threshold must be in [0, 1], got {threshold}")
        self.threshold = float(self.model.threshold if threshold is None else threshold)
        described = self.vectors.encoder.describe()
        self.identity = JudgeIdentity(
            name="embedding",
            model=str(described.get("model")),
            threshold=self.threshold,
            settings={
                "encoder_sha256": described.get("sha256"),
                "weights": Path(self.model.source).name if not weights else str(weights),
                "weights_date": self.model.record.get("date"),
                "score": "sigmoid(intercept + weight * max sentence cosine)",
                # a negation, name or relation changed against the nearest sentences is
                # contradicted (ragcard.judges.contrast)
                "rules": "contrast/1",
            },
            tasks=task_versions(self.relevance_threshold),
        )

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> EmbeddingJudge:
        """Build from a ``[judge]`` table's options (``backend`` already removed)."""
        allowed: dict[str, type | tuple[type, ...]] = {
            "threshold": (float, int),
            "weights": str,
            "relevance_threshold": (float, int),
        }
        checked = check_options("embedding", options, allowed)
        return cls(**checked)

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        """One verdict per claim, in order; other tasks by :func:`answer_task`."""
        if getattr(ctx, "task", "support") != "support":
            return await answer_task(self.vectors, ctx, self.relevance_threshold)
        matches = self.vectors.match(ctx.claims, ctx.passages)
        pieces = _clause_pieces(ctx.passages, matches.sentences)
        piece_cosines = (
            self.vectors.texts(list(ctx.claims)) @ self.vectors.texts([p[-1] for p in pieces]).T
            if pieces and ctx.claims
            else None
        )
        verdicts = []
        for c in range(len(ctx.claims)):
            if not matches.sentences:
                verdicts.append(Verdict("not_supported", 0.0, reason="no passage text"))
                continue
            best = matches.ranked(c)[0]
            cosine = float(matches.cosines[c, best])
            passage, span = matches.sentences[best]
            sentence, where = span, "sentence"
            if piece_cosines is not None:  # a long sentence's clause may match better
                top = int(np.argmax(piece_cosines[c]))
                if float(piece_cosines[c, top]) > cosine:
                    cosine, (passage, span, sentence, _) = float(piece_cosines[c, top]), pieces[top]
                    where = "clause"
            score = round(float(self.model.probability(np.array([[cosine]]))[0]), 6)
            label: Label = "supported" if score >= self.threshold else "not_supported"
            reason = f"nearest passage {where} has cosine {cosine:.2f}"
            text = ctx.passages[passage].text
            stated = numbers_in(text[sentence[0] : sentence[1]])
            for near in matches.ranked(c)[:3]:  # the nearest three, as the ensemble reads them
                p, (start, end) = matches.sentences[near]
                stated |= numbers_in(ctx.passages[p].text[start:end])
            unstated = sorted(numbers_in(ctx.claims[c]) - stated)
            if unstated:  # a cosine cannot see a changed figure: the evidence must state it
                label, score = "not_supported", min(score, NUMBER_CAP)
                reason += f"; number(s) {', '.join(unstated[:4])} in none of the nearest sentences"
            nearest = [
                ctx.passages[p].text[start:end]
                for p, (start, end) in (matches.sentences[i] for i in matches.ranked(c)[:3])
            ]
            contrast = contrast_in(ctx.claims[c], nearest)
            if contrast is not None:  # nor a negation, a swapped name or a flipped relation
                label, score = "contradicted", min(score, NUMBER_CAP)
                reason += f"; {contrast.kind}: {contrast.reason}"
            verdicts.append(Verdict(label, score, ctx.passages[passage].id, span, reason))
        return verdicts


_PIECE = re.compile(r"[:;\u2013\u2014]\s*|\s(?:and|but|while|whereas)\s")


def _clause_pieces(
    passages: Sequence[Evidence], sentences: Sequence[tuple[int, tuple[int, int]]]
) -> list[tuple[int, tuple[int, int], tuple[int, int], str]]:
    """(passage, span, sentence span, text) of the parts of passage sentences cut at ":", ";",
    "and"/"but"/"while", when a sentence has several parts of four words or more (a long
    sentence dilutes a cosine)."""
    pieces = []
    for passage, (start, end) in sentences:
        text = passages[passage].text
        cuts = [start, *(m.end() for m in _PIECE.finditer(text, start, end)), end]
        parts = [
            (a, b) for a, b in zip(cuts, cuts[1:], strict=False) if len(text[a:b].split()) >= 4
        ]
        if len(parts) > 1:
            pieces += [(passage, (a, b), (start, end), text[a:b].strip()) for a, b in parts]
    return pieces
