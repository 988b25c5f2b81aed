"""``agreement``: do independent labellers agree on what is answerable and which passages
answer it?

Items with two or more entries in ``labels`` (docs/formats.md#questionsjsonl) are compared
pairwise: Cohen's κ on
``answerable`` (over the items both labellers marked either way), and on gold passages the
mean Jaccard of the two gold sets and the share of identical sets (over the items neither
labeller marked unanswerable: two empty sets on an unanswerable item would count as perfect
agreement and flatter the figure).

Disagreements go to the content owner, who records the decision on the item::

    "resolution": {"by": "owner", "answerable": true, "gold": ["p1"], "reason": "…"}

A resolved item is listed as resolved, not as an open disagreement. A resolution must give
its reason; one without is an input error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcard.errors import ExitCode, InputError, Problem
from ragcard.goldset._text import jaccard
from ragcard.inputs._jsonl import problems_from_validation
from ragcard.inputs.questions import GoldPassage, LabelSet, QuestionSet

__all__ = [
    "AgreementReport",
    "ItemLabels",
    "PairAgreement",
    "Resolution",
    "cohen_kappa",
    "measure_agreement",
]


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float | None:
    """Cohen's κ between two raters' labels of the same items, in the same order.

    κ = (pₒ − pₑ) / (1 − pₑ), with pₑ from each rater's own label frequencies. Computed in
    integers until the last division, so perfect agreement is exactly 1.0. ``None`` when κ is
    undefined: both raters gave every item one and the same label (pₑ = 1).
    """
    if len(first) != len(second):
        raise ValueError(f"raters labelled {len(first)} and {len(second)} items")
    n = len(first)
    if n == 0:
        return None
    agreed = sum(a == b for a, b in zip(first, second, strict=True))
    left, right = Counter(first), Counter(second)
    chance = sum(left[label] * right[label] for label in left)  # pₑ · n²
    if chance == n * n:
        return None
    return (n * agreed - chance) / (n * n - chance)


class _ResolutionModel(BaseModel):
    model_config = ConfigDict(extra="allow")

    by: str = Field(min_length=1)
    reason: str | None = None
    answerable: bool | None = None
    gold: list[str | GoldPassage] | None = None


@dataclass(frozen=True, slots=True)
class Resolution:
    """The content owner's decision on a disagreement."""

    by: str
    reason: str
    answerable: bool | None
    gold: tuple[str, ...] | None

    def to_dict(self) -> dict[str, Any]:
        gold = None if self.gold is None else list(self.gold)
        return {"by": self.by, "answerable": self.answerable, "gold": gold, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ItemLabels:
    """One item's labels, what they disagree on, and its resolution if any."""

    item: str
    line: int | None
    labels: tuple[tuple[str, bool | None, tuple[str, ...]], ...]
    differs: tuple[str, ...]
    resolution: Resolution | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "item": self.item,
            "line": self.line,
            "labels": [
                {"by": by, "answerable": answerable, "gold": list(gold)}
                for by, answerable, gold in self.labels
            ],
            "differs": list(self.differs),
            "resolution": None if self.resolution is None else self.resolution.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class PairAgreement:
    """Agreement between two labellers over the items both labelled."""

    first: str
    second: str
    items: int
    answerable_items: int
    answerable_agreement: float | None
    kappa: float | None
    gold_items: int
    gold_jaccard: float | None
    gold_exact: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "labellers": [self.first, self.second],
            "items": self.items,
            "answerable_items": self.answerable_items,
            "answerable_agreement": _rounded(self.answerable_agreement),
            "kappa": _rounded(self.kappa),
            "gold_items": self.gold_items,
            "gold_jaccard": _rounded(self.gold_jaccard),
            "gold_exact": _rounded(self.gold_exact),
        }


@dataclass(frozen=True, slots=True)
class AgreementReport:
    """Pairwise agreement, open disagreements and resolved items of a question set."""

    source: str
    labelled: int
    pairs: tuple[PairAgreement, ...]
    gold_jaccard: float | None
    gold_exact: float | None
    disagreements: tuple[ItemLabels, ...]
    resolved: tuple[ItemLabels, ...]

    @property
    def exit_code(self) -> int:
        """1 while a disagreement is open (the labels cannot gate a release yet), else 0."""
        return ExitCode.FAILED if self.disagreements else ExitCode.OK

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "labelled_items": self.labelled,
            "pairs": [pair.to_dict() for pair in self.pairs],
            "gold_jaccard": _rounded(self.gold_jaccard),
            "gold_exact": _rounded(self.gold_exact),
            "open_disagreements": [item.to_dict() for item in self.disagreements],
            "resolved": [item.to_dict() for item in self.resolved],
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _gold_ids(entries: Sequence[str | GoldPassage]) -> tuple[str, ...]:
    return tuple(sorted({e if isinstance(e, str) else e.id for e in entries}))


def _resolution(raw: object, file: str, line: int | None) -> Resolution:
    where = line or 0
    try:
        model = _ResolutionModel.model_validate(raw)
    except ValidationError as error:
        problems = problems_from_validation(file, where, error)
        raise InputError(
            [Problem(p.file, line, f"resolution.{p.field}", p.message, p.value) for p in problems]
        ) from None
    if not (model.reason and model.reason.strip()):
        raise InputError(
            Problem(
                file,
                line,
                "resolution.reason",
                "a resolution must say why",
                fix="add a 'reason' explaining the decision for the labellers",
            )
        )
    gold = None if model.gold is None else _gold_ids(model.gold)
    return Resolution(model.by, model.reason.strip(), model.answerable, gold)


def _differences(labels: Sequence[LabelSet]) -> tuple[str, ...]:
    differs = []
    if len({label.answerable for label in labels if label.answerable is not None}) > 1:
        differs.append("answerable")
    if len({_gold_ids(label.gold) for label in labels}) > 1:
        differs.append("gold")
    return tuple(differs)


def _pair(first: str, second: str, items: Sequence[dict[str, LabelSet]]) -> PairAgreement:
    both = [(labels[first], labels[second]) for labels in items]
    rated = [(a, b) for a, b in both if a.answerable is not None and b.answerable is not None]
    kappa = cohen_kappa([a.answerable for a, _ in rated], [b.answerable for _, b in rated])
    agreement = _mean([float(a.answerable == b.answerable) for a, b in rated])
    gold = [
        (_gold_ids(a.gold), _gold_ids(b.gold))
        for a, b in both
        if a.answerable is not False and b.answerable is not False
    ]
    return PairAgreement(
        first=first,
        second=second,
        items=len(both),
        answerable_items=len(rated),
        answerable_agreement=agreement,
        kappa=kappa,
        gold_items=len(gold),
        gold_jaccard=_mean([jaccard(frozenset(x), frozenset(y)) for x, y in gold]),
        gold_exact=_mean([float(x == y) for x, y in gold]),
    )


def measure_agreement(question_set: QuestionSet) -> AgreementReport:
    """Compare the labellers of ``question_set``; raise :class:`InputError` on a resolution
    without a reason, or a labeller who labelled the same item twice."""
    file = str(question_set.path)
    problems: list[Problem] = []
    per_item: list[dict[str, LabelSet]] = []
    items: list[ItemLabels] = []
    for question in question_set.questions:
        line = question_set.line_of.get(question.id)
        raw = (question.model_extra or {}).get("resolution")
        try:
            resolution = None if raw is None else _resolution(raw, file, line)
        except InputError as error:
            problems.extend(error.problems)
            continue
        twice = [by for by, n in Counter(label.by for label in question.labels).items() if n > 1]
        if twice:
            problems.append(
                Problem(file, line, "labels", "labeller appears twice on one item", twice)
            )
            continue
        if len(question.labels) < 2 and resolution is None:
            continue
        per_item.append({label.by: label for label in question.labels})
        labels = tuple(
            (label.by, label.answerable, _gold_ids(label.gold)) for label in question.labels
        )
        differs = _differences(question.labels)
        items.append(ItemLabels(question.id, line, labels, differs, resolution))
    if problems:
        raise InputError(problems, f"{file}: {len(problems)} problem(s) in the labels")
    labellers = sorted({by for labels in per_item for by in labels})
    pairs = []
    for first, second in combinations(labellers, 2):
        shared = [labels for labels in per_item if first in labels and second in labels]
        if shared:
            pairs.append(_pair(first, second, shared))
    jaccards = [p.gold_jaccard * p.gold_items for p in pairs if p.gold_jaccard is not None]
    exact = [p.gold_exact * p.gold_items for p in pairs if p.gold_exact is not None]
    compared = sum(p.gold_items for p in pairs)
    return AgreementReport(
        source=file,
        labelled=sum(len(item.labels) >= 2 for item in items),
        pairs=tuple(pairs),
        gold_jaccard=sum(jaccards) / compared if compared else None,
        gold_exact=sum(exact) / compared if compared else None,
        disagreements=tuple(i for i in items if i.differs and i.resolution is None),
        resolved=tuple(i for i in items if i.resolution is not None),
    )
