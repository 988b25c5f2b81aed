"""Access layer: do restricted passages stay away from people without access?
(docs/metrics.md#measures)

A leak is an answer to an asker whose role is not in a passage's ``access`` list where that
passage was retrieved, cited, or its content appears in the answer. Content is detected
deterministically: a shared run of :data:`NGRAM` words, or a distinctive figure (an amount, a
percentage, a date, a number) that occurs in the restricted passage and in no passage the
asker may see. The answer is read without its citation markers and the passage ids it names
(:mod:`ragcard.metrics._prose`); a bare year (``2025``) and a figure of any passage's labels
(its id, section, version, title: ``2.3``) are never restricted figures, nor one the question
itself states. A leak counts once per answer.

Evidence never holds restricted text: only the passage id, the channels, how much matched and
a short hash of the matched text, so scorecards can be shared.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ragcard.inputs.corpus import Corpus
from ragcard.metrics._prose import is_bare_year, prose
from ragcard.metrics._text import numbers, words
from ragcard.metrics.base import AttemptContext, LayerScore, MetricSpec, ScoringSettings

__all__ = ["NGRAM", "AccessLayer", "content_leaks"]

#: Words in a row shared with a restricted passage that count as reproducing it.
NGRAM = 8


@dataclass(frozen=True, slots=True)
class _RoleIndex:
    """What a role may not see, reduced to what could not have come from what it may see."""

    grams: dict[tuple[str, ...], frozenset[str]]  # restricted-only n-gram → passage ids
    figures: dict[str, frozenset[str]]  # restricted-only number → passage ids
    hidden: frozenset[str] = frozenset()  # ids of the passages the role may not see


_INDEXES: dict[tuple[str, str], _RoleIndex] = {}


def _ngrams(text: str) -> set[tuple[str, ...]]:
    tokens = words(text)
    return {tuple(tokens[i : i + NGRAM]) for i in range(len(tokens) - NGRAM + 1)}


def _role_index(corpus: Corpus, role: str) -> _RoleIndex:
    key = (corpus.sha256, role)
    if key not in _INDEXES:
        visible_grams: set[tuple[str, ...]] = set()
        visible_figures: set[str] = set()
        hidden = [p for p in corpus if not p.visible_to(role)]
        if not hidden:  # the role sees everything: nothing to leak
            _INDEXES[key] = _RoleIndex({}, {})
            return _INDEXES[key]
        labels: set[str] = set()  # figures of ids, sections, versions, titles: not content
        for passage in corpus:
            labels |= numbers(" ".join(_labels(passage)))
            if passage.visible_to(role):
                visible_grams |= _ngrams(passage.text)
                visible_figures |= numbers(passage.text)
        visible_figures |= labels
        grams: dict[tuple[str, ...], set[str]] = {}
        figures: dict[str, set[str]] = {}
        for passage in hidden:
            for gram in _ngrams(passage.text) - visible_grams:
                grams.setdefault(gram, set()).add(passage.id)
            for figure in numbers(passage.text) - visible_figures:
                if not is_bare_year(figure):
                    figures.setdefault(figure, set()).add(passage.id)
        _INDEXES[key] = _RoleIndex(
            {g: frozenset(ids) for g, ids in grams.items()},
            {f: frozenset(ids) for f, ids in figures.items()},
            frozenset(p.id for p in hidden),
        )
    return _INDEXES[key]


def _labels(passage: Any) -> list[str]:
    return [str(v) for v in (passage.id, passage.doc, passage.section, passage.version,
                             getattr(passage, "title", None)) if v]  # fmt: skip


def content_leaks(
    answer: str, corpus: Corpus, role: str, asked: str = ""
) -> dict[str, dict[str, Any]]:
    """Passage id → redacted evidence, for each restricted passage ``answer`` reproduces
    (``asked``: the question, whose own figures are not the passage's to leak)."""
    index = _role_index(corpus, role)
    if not index.grams and not index.figures:
        return {}
    said = prose(answer, corpus.passages)
    grams, figures = _ngrams(said), numbers(said) - numbers(asked)
    if index.grams.keys().isdisjoint(grams) and index.figures.keys().isdisjoint(figures):
        return {}  # the usual case, decided by set lookups alone
    matched: dict[str, list[str]] = {}
    counts: dict[str, list[int]] = {}
    for gram in grams:
        for pid in index.grams.get(gram, ()):
            matched.setdefault(pid, []).append(" ".join(gram))
            counts.setdefault(pid, [0, 0])[0] += 1
    for figure in figures:
        for pid in index.figures.get(figure, ()):
            matched.setdefault(pid, []).append(figure)
            counts.setdefault(pid, [0, 0])[1] += 1
    return {
        pid: {
            "shared_ngrams": counts[pid][0],
            "restricted_figures": counts[pid][1],
            "match_sha256": hashlib.sha256("|".join(sorted(texts)).encode()).hexdigest()[:12],
        }
        for pid, texts in matched.items()
    }


class AccessLayer:
    name = "access"

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]:
        return (
            MetricSpec(
                "access_leaks",
                self.name,
                "count",
                False,
                "answers exposing a passage the asker may not see (retrieved, cited or reproduced)",
                "no scored item",
            ),
        )

    def score(self, ctx: AttemptContext) -> LayerScore:
        result = LayerScore()
        response = ctx.response
        if response is None:
            return result
        role = ctx.question.asker
        hidden = _role_index(ctx.corpus, role).hidden  # passages in the corpus the role can't see
        channels: dict[str, dict[str, Any]] = {}
        for pid in response.retrieved_ids:
            if pid in hidden:
                channels.setdefault(pid, {"id": pid, "channels": []})["channels"].append(
                    "retrieved"
                )
        for pid in response.cited_ids():
            if pid in hidden:
                channels.setdefault(pid, {"id": pid, "channels": []})["channels"].append("cited")
        if response.answer and not ctx.settings.retrieval_only:
            found_in = content_leaks(response.answer, ctx.corpus, role, ctx.question.question)
            for pid, found in found_in.items():
                entry = channels.setdefault(pid, {"id": pid, "channels": []})
                entry["channels"].append("content")
                entry.update(found)
        result.values["access_leaks"] = 1.0 if channels else 0.0
        if channels:
            for entry in channels.values():
                entry["access"] = ctx.corpus.passages[entry["id"]].access
            result.evidence["leaks"] = sorted(channels.values(), key=lambda leak: leak["id"])
        return result
