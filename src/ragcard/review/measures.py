"""The measures of a blind review (docs/metrics.md#measures), computed from the unblinded ratings.

* Each generated answer counts once, at the most severe rating any reviewer gave it (a wrong
  seen by one reviewer is a wrong, and must get an action): ``review_accurate``,
  ``review_minor``, ``review_wrong`` and ``review_wrong[<category>]`` are counts over the
  rated generated answers; controls are excluded. ``review_off_voice`` and
  ``review_unattributed`` count answers any reviewer rated off voice / unattributed.
* ``review_control_agreement``: the share of control ratings (every reviewer's) that are
  accurate, with a Wilson interval — a reviewer who marks authored answers wrong is not
  reading carefully, or the authored answers are out of date.
* ``review_kappa``: Cohen's κ between the two reviewers over the generated answers both
  rated, with a seeded bootstrap interval over answers; with more than two reviewers, the mean
  of the pairs' κ weighted by answers shared (each pair is listed), without an interval.
* ``judge_human_agreement``: κ between the run's correctness verdict on the attempt shown
  (``correct``/``partial``/``wrong`` read as accurate/minor/wrong) and the people's combined
  rating, over the answers both graded.

A κ that cannot be computed (one reviewer, no answer rated by two, every rating the same) is
unscored with the reason, never 0.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from ragcard.aggregation.stats import wilson_interval
from ragcard.goldset.agreement import cohen_kappa
from ragcard.metrics.base import MetricValue, Unscored
from ragcard.metrics.recorded import RECORDED_SPECS
from ragcard.review.packet import KeyEntry, ReviewKey
from ragcard.review.ratings import RATINGS, Rating, severity

__all__ = ["ItemReview", "ReviewSummary", "VERDICT_AS_RATING", "kappa_interval", "summarise"]

#: A judge's correctness verdict read on the reviewers' scale.
VERDICT_AS_RATING = {"correct": "accurate", "partial": "minor", "wrong": "wrong"}
_RESAMPLES = 2000
_SEED = 20261201


@dataclass(frozen=True, slots=True)
class ItemReview:
    """One packet item unblinded, with its ratings by reviewer."""

    packet_item: str
    entry: KeyEntry
    ratings: dict[str, Rating]
    judge: str | None = None  # the run's correctness verdict, as a rating

    @property
    def combined(self) -> str | None:
        """The most severe rating, or None when nobody rated it."""
        if not self.ratings:
            return None
        return max((r.rating for r in self.ratings.values()), key=severity)

    def to_json(self) -> dict[str, Any]:
        return {
            "packet_item": self.packet_item,
            "item": self.entry.item,
            "attempt": self.entry.attempt,
            "kind": self.entry.kind,
            "category": self.entry.category,
            "must_pass": self.entry.must_pass,
            "rating": self.combined,
            "judge": self.judge,
            "ratings": {
                name: r.model_dump(exclude={"item", "reviewer"}) for name, r in self.ratings.items()
            },
        }


@dataclass(frozen=True, slots=True)
class ReviewSummary:
    """What a review found: the measures, their breakdown by category, the items, notes."""

    metrics: dict[str, MetricValue | Unscored]
    breakdowns: dict[str, dict[str, MetricValue | Unscored]]
    items: tuple[ItemReview, ...]
    reviewers: tuple[str, ...]
    pairs: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def generated(self) -> list[ItemReview]:
        return [i for i in self.items if i.entry.kind == "generated"]

    @property
    def wrong(self) -> list[ItemReview]:
        return [i for i in self.generated if i.combined == "wrong"]


def kappa_interval(
    first: Sequence[str], second: Sequence[str], seed: int = _SEED
) -> tuple[float, float] | None:
    """A seeded percentile bootstrap 95% interval of Cohen's κ over the rated pairs (None
    when fewer than two pairs, or no resample has a defined κ)."""
    n = len(first)
    if n < 2:
        return None
    rng = random.Random(seed)
    values = []
    for _ in range(_RESAMPLES):
        picks = [rng.randrange(n) for _ in range(n)]
        kappa = cohen_kappa([first[i] for i in picks], [second[i] for i in picks])
        if kappa is not None:
            values.append(kappa)
    if not values:
        return None
    values.sort()
    return values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]


def _count(name: str, value: int, n: int) -> MetricValue:
    return MetricValue(RECORDED_SPECS[name], float(value), n)


def _unscored(name: str, reason: str) -> Unscored:
    return Unscored(RECORDED_SPECS[name], reason)


def _kappa_metric(
    name: str, first: Sequence[str], second: Sequence[str], why_empty: str
) -> MetricValue | Unscored:
    if not first:
        return _unscored(name, why_empty)
    kappa = cohen_kappa(first, second)
    if kappa is None:
        only = sorted(set(first) | set(second))
        return _unscored(name, f"κ is undefined: every rating on both sides was {' / '.join(only)}")
    return MetricValue(RECORDED_SPECS[name], kappa, len(first), kappa_interval(first, second))


def _reviewer_kappa(
    generated: Sequence[ItemReview], reviewers: Sequence[str]
) -> tuple[MetricValue | Unscored, list[dict[str, Any]]]:
    if len(reviewers) < 2:
        return _unscored("review_kappa", "one reviewer: κ needs two rating the same answers"), []
    pairs: list[dict[str, Any]] = []
    for a, b in combinations(reviewers, 2):
        both = [i for i in generated if a in i.ratings and b in i.ratings]
        first = [i.ratings[a].rating for i in both]
        second = [i.ratings[b].rating for i in both]
        kappa = cohen_kappa(first, second) if both else None
        agreed = sum(x == y for x, y in zip(first, second, strict=True))
        pairs.append({"reviewers": [a, b], "n": len(both), "kappa": kappa, "agreed": agreed,
                      "first": first, "second": second})  # fmt: skip
    if len(reviewers) == 2:
        pair = pairs[0]
        metric = _kappa_metric("review_kappa", pair.pop("first"), pair.pop("second"),
                               "no generated answer was rated by both reviewers")  # fmt: skip
        return metric, pairs
    for pair in pairs:
        pair.pop("first"), pair.pop("second")
    defined = [p for p in pairs if p["kappa"] is not None and p["n"]]
    if not defined:
        return _unscored("review_kappa", "no pair of reviewers has a defined κ"), pairs
    shared = sum(p["n"] for p in defined)
    mean = sum(p["kappa"] * p["n"] for p in defined) / shared
    return MetricValue(RECORDED_SPECS["review_kappa"], mean, shared), pairs


def _judge_agreement(generated: Sequence[ItemReview]) -> MetricValue | Unscored:
    graded = [i for i in generated if i.combined is not None and i.judge is not None]
    if not any(i.judge is not None for i in generated):
        return _unscored(
            "judge_human_agreement",
            "the run recorded no correctness verdict on the reviewed answers (no judge, or a "
            "run from before answer correctness was judged)",
        )
    return _kappa_metric(
        "judge_human_agreement",
        [i.judge or "" for i in graded],
        [i.combined or "" for i in graded],
        "no reviewed answer has both a rating and a judge verdict",
    )


def _by_category(generated: Sequence[ItemReview]) -> dict[str, MetricValue | Unscored]:
    rated: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    for i in generated:
        if i.combined is None:
            continue
        category = i.entry.category or "uncategorised"
        rated[category] += 1
        wrong[category] += i.combined == "wrong"
    return {c: _count("review_wrong", wrong[c], rated[c]) for c in sorted(rated)}


def summarise(
    key: ReviewKey,
    ratings: Sequence[Rating],
    judge_verdicts: Mapping[tuple[str, int], str] | None = None,
) -> ReviewSummary:
    """The review's measures from the key, the ratings and the run's correctness verdicts
    (``(item, attempt) → correct|partial|wrong``)."""
    verdicts = judge_verdicts or {}
    by_item: dict[str, dict[str, Rating]] = {pid: {} for pid in key.items}
    for r in ratings:
        by_item[r.item][r.reviewer] = r
    items = []
    for pid, entry in key.items.items():
        verdict = verdicts.get((entry.item, entry.attempt or 0)) if entry.attempt else None
        items.append(ItemReview(pid, entry, by_item[pid], VERDICT_AS_RATING.get(verdict or "")))
    reviewers = tuple(sorted({r.reviewer for r in ratings}))
    generated = [i for i in items if i.entry.kind == "generated"]
    rated = [i for i in generated if i.combined is not None]
    counts = Counter(i.combined for i in rated)
    n = len(rated)
    metrics: dict[str, MetricValue | Unscored] = {}
    if n:
        for rating in RATINGS:
            metrics[f"review_{rating}"] = _count(f"review_{rating}", counts[rating], n)
        off = sum(any(r.voice == "off" for r in i.ratings.values()) for i in rated)
        asked = [i for i in rated if any(r.voice is not None for r in i.ratings.values())]
        if asked:
            metrics["review_off_voice"] = _count("review_off_voice", off, len(asked))
        attributed = [i for i in rated if any(r.attributed is not None for r in i.ratings.values())]
        if attributed:
            bad = sum(any(r.attributed is False for r in i.ratings.values()) for i in attributed)
            metrics["review_unattributed"] = _count("review_unattributed", bad, len(attributed))
    else:
        for rating in RATINGS:
            metrics[f"review_{rating}"] = _unscored(f"review_{rating}", "no generated answer rated")
    control_ratings = [r for i in items if i.entry.kind == "control" for r in i.ratings.values()]
    if control_ratings:
        agreed = sum(r.rating == "accurate" for r in control_ratings)
        share = agreed / len(control_ratings)
        metrics["review_control_agreement"] = MetricValue(
            RECORDED_SPECS["review_control_agreement"],
            share,
            len(control_ratings),
            wilson_interval(agreed, len(control_ratings)),
        )
    else:
        why = "the packet has no control" if not key.controls else "no control was rated"
        metrics["review_control_agreement"] = _unscored("review_control_agreement", why)
    metrics["review_kappa"], pairs = _reviewer_kappa(generated, reviewers)
    metrics["judge_human_agreement"] = _judge_agreement(generated)
    notes = []
    unrated = [i.packet_item for i in items if not i.ratings]
    if unrated:
        notes.append(f"{len(unrated)} packet item(s) not rated by anyone: {', '.join(unrated)}")
    return ReviewSummary(
        metrics, {"review_wrong": _by_category(generated)}, tuple(items), reviewers,
        tuple(pairs), tuple(notes)
    )  # fmt: skip
