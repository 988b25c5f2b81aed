"""Currency layer: does the answer come from the version in force? (docs/metrics.md#measures)

An answer counts as superseded when it cites a passage that is not in force on the run date
(status other than ``in_force``, or effective dates that exclude the run date), or — without a
judge — when it states a *stale value*: a number or counted quantity ("5 days", "£25") that
appears in a not-in-force passage and in no in-force passage of the corpus. The judge layer adds
detection by meaning when one is configured: a sentence supported by a not-in-force version
of a document in play and not by the passages in force counts too, cited or not.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from ragcard.inputs.corpus import Corpus
from ragcard.metrics._prose import prose
from ragcard.metrics._text import quantities
from ragcard.metrics.base import AttemptContext, LayerScore, MetricSpec, ScoringSettings

__all__ = ["CurrencyLayer"]


@dataclass(frozen=True, slots=True)
class _StaleIndex:
    stale: dict[str, tuple[str, ...]]  # quantity → not-in-force passages holding it
    not_in_force: frozenset[str] = frozenset()  # ids of the passages not in force on the day


_INDEXES: dict[tuple[str, dt.date], _StaleIndex] = {}


def _stale_index(corpus: Corpus, settings: ScoringSettings) -> _StaleIndex:
    key = (corpus.sha256, settings.run_date)
    if key not in _INDEXES:
        current: set[str] = set()
        old: dict[str, list[str]] = {}
        not_in_force = set()
        for passage in corpus:
            found = quantities(passage.text)
            if passage.in_force_on(settings.run_date):
                current |= found
            else:
                not_in_force.add(passage.id)
                for value in found:
                    old.setdefault(value, []).append(passage.id)
        _INDEXES[key] = _StaleIndex(
            {v: tuple(ids) for v, ids in old.items() if v not in current}, frozenset(not_in_force)
        )
    return _INDEXES[key]


def _stale_content(ctx: AttemptContext) -> list[dict[str, Any]]:
    """Sentences a not-in-force passage supports and the passages in force do not (judge)."""
    judged, _ = ctx.judgement()
    if judged is None:
        return []
    found = []
    for index, old_id, _verdict in judged.stale:
        current = judged.support[index] if index < len(judged.support) else None
        backing = ctx.corpus.get(current.passage_id or "") if current is not None else None
        in_force = backing is not None and backing.in_force_on(ctx.settings.run_date)
        if current is None or not current.supported or not in_force:
            found.append({"kind": "stale_content", "sentence": index, "id": old_id})
    return found


class CurrencyLayer:
    name = "currency"

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]:
        return (
            MetricSpec(
                "superseded_answers",
                self.name,
                "count",
                False,
                "answers citing, or stating a value found only in, a passage not in force",
                "no answered item",
            ),
            MetricSpec(
                "superseded_answers_currency_traps",
                self.name,
                "count",
                False,
                "superseded answers among currency-trap items",
                "no currency_trap item",
            ),
        )

    def score(self, ctx: AttemptContext) -> LayerScore:
        result = LayerScore()
        response = ctx.response
        if response is None or ctx.settings.retrieval_only:
            return result
        evidence: list[dict[str, Any]] = []
        index = _stale_index(ctx.corpus, ctx.settings)
        for pid in response.cited_ids():
            passage = ctx.corpus.get(pid) if pid in index.not_in_force else None
            if passage is not None:
                evidence.append(
                    {
                        "kind": "cited",
                        "id": pid,
                        "status": passage.status,
                        "superseded_by": passage.superseded_by,
                    }
                )
        stale = index.stale
        said = prose(response.answer, ctx.corpus.passages)  # "[leave@2023#2]" states no "2023"
        for value in sorted(v for v in quantities(said) if v in stale):
            evidence.append({"kind": "stale_value", "value": value, "ids": list(stale[value])})
        evidence.extend(_stale_content(ctx))
        hit = 1.0 if evidence else 0.0
        result.values["superseded_answers"] = hit
        if ctx.question.category == "currency_trap":
            result.values["superseded_answers_currency_traps"] = hit
        if evidence:
            result.evidence["superseded"] = evidence
        return result
