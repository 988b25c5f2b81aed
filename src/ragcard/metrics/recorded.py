"""Measures recorded after a run (docs/metrics.md#measures): blind review by people, and their
agreement with
the judge.

They are not computed from the answers while the run scores them: ``ragcard review import``
records them into the run's scorecard later. A thresholds file may still gate them
(``review_wrong <= 2``, ``review_wrong[policy] <= 0``) — the names are known before the run,
so a typo is refused as for any measure — and until a review is recorded such a threshold is
*unscored*, which holds the decision: a release gated on review cannot ship unreviewed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ragcard.inputs.questions import Question
from ragcard.metrics.base import Kind, MetricSpec, Unscored, parse_metric_name

__all__ = [
    "NO_REVIEW",
    "RECORDED_BREAKDOWNS",
    "RECORDED_SPECS",
    "REVIEW_SPECS",
    "recorded_placeholders",
    "with_recorded",
]

NO_REVIEW = (
    "no blind review recorded for this run: `ragcard review make RUN`, have people rate the "
    "packet, then `ragcard review import PACKET`"
)


def _spec(name: str, kind: Kind, higher: bool, description: str) -> MetricSpec:
    return MetricSpec(name, "review", kind, higher, description, NO_REVIEW)


REVIEW_SPECS: tuple[MetricSpec, ...] = (
    _spec("review_accurate", "count", True, "generated answers people rated accurate"),
    _spec("review_minor", "count", False, "generated answers people rated as a minor error"),
    _spec("review_wrong", "count", False, "generated answers a reviewer rated wrong"),
    _spec("review_off_voice", "count", False, "generated answers a reviewer rated off voice"),
    _spec(
        "review_unattributed",
        "count",
        False,
        "generated answers using tier-B sources that a reviewer found unattributed",
    ),
    _spec(
        "review_control_agreement",
        "rate",
        True,
        "share of the authored control answers the reviewers rated accurate",
    ),
    _spec("review_kappa", "mean", True, "Cohen's κ between two reviewers, where both rated"),
    _spec(
        "judge_human_agreement",
        "mean",
        True,
        "Cohen's κ between the run's judge verdicts and the people's, where both graded",
    ),
)

#: Every measure recorded after a run, by canonical name.
RECORDED_SPECS: dict[str, MetricSpec] = {spec.name: spec for spec in REVIEW_SPECS}

#: Recorded measures broken down by a label of the item (``review_wrong[policy]``).
RECORDED_BREAKDOWNS: dict[str, Callable[[Question], str | None]] = {
    "review_wrong": lambda question: question.category,
}


def recorded_placeholders(
    measures: list[str],
) -> tuple[dict[str, Unscored], dict[str, dict[str, Unscored]]]:
    """Unscored stand-ins for the recorded measures among ``measures`` (threshold measure
    names), so that a threshold on one says why it is not scored yet."""
    metrics: dict[str, Unscored] = {}
    breakdowns: dict[str, dict[str, Unscored]] = {}
    for measure in measures:
        try:
            base, _k, label = parse_metric_name(measure)
        except ValueError:
            continue
        spec = RECORDED_SPECS.get(base)
        if spec is None:
            continue
        if label is None:
            metrics[base] = Unscored(spec, spec.empty_reason)
        else:
            breakdowns.setdefault(base, {})[label] = Unscored(spec, spec.empty_reason)
    return metrics, breakdowns


def with_recorded(specs: Mapping[str, MetricSpec]) -> dict[str, MetricSpec]:
    """``specs`` and the recorded measures: every name a threshold of this run may use."""
    return {**RECORDED_SPECS, **specs}
