"""Metric value objects and the layer seam.

A :class:`MetricSpec` names one measure canonically (``recall@5``), declares its direction and
how per-item values aggregate. A :class:`Layer` scores one item-attempt from one frozen
:class:`AttemptContext` and returns a :class:`LayerScore`: per-item values keyed by metric name
(absent = the item is not in that metric's population) plus the evidence behind them.
Aggregation over items lives in :mod:`ragcard.aggregation.scoring`, the same for every layer.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ragcard.inputs.corpus import Corpus
from ragcard.inputs.questions import Question
from ragcard.inputs.responses import AgentResponse

if TYPE_CHECKING:
    from ragcard.metrics.judged import JudgedAnswer

__all__ = [
    "NEEDS_JUDGE",
    "AttemptContext",
    "AttemptFailure",
    "Kind",
    "Layer",
    "LayerScore",
    "MetricSpec",
    "MetricValue",
    "RunMeasures",
    "ScoringSettings",
    "Unscored",
    "parse_metric_name",
]

NEEDS_JUDGE = "needs a judge: none is configured for this run"

#: How per-item values aggregate: ``rate`` (share, Wilson interval), ``mean`` (bootstrap
#: interval), ``count`` (items whose worst attempt is positive; no interval), ``quantile``
#: (over all attempts; order-statistic interval), ``pooled`` (successes over trials pooled
#: across items, e.g. citation accuracy over all (sentence, cited passage) pairs; Wilson).
Kind = Literal["rate", "mean", "count", "quantile", "pooled"]

_NAME = re.compile(r"^(?P<base>[a-z_][a-z0-9_]*?)(?:@(?P<k>\d+))?(?:\[(?P<label>[^\]]+)\])?$")


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One measure: canonical name, layer, aggregation kind and direction.

    ``share``: a ``mean`` whose per-item values are shares in [0, 1] (mrr, id recall,
    faithfulness…). When every item's value is 0 or 1 such a mean is a proportion and gets a
    Wilson interval, as a rate does (a bootstrap over all-equal values collapses to a point).
    """

    name: str
    layer: str
    kind: Kind
    higher_is_better: bool
    description: str
    empty_reason: str
    quantile: float | None = None
    share: bool = False

    @property
    def base(self) -> str:
        return parse_metric_name(self.name)[0]


def parse_metric_name(name: str) -> tuple[str, int | None, str | None]:
    """Split ``recall@5`` → ``("recall", 5, None)``, ``flag_accuracy[self_harm]`` →
    ``("flag_accuracy", None, "self_harm")``. Raises ValueError on a malformed name."""
    match = _NAME.match(name.strip())
    if not match:
        raise ValueError(f"not a metric name: {name!r} (expected e.g. 'recall@5', 'access_leaks')")
    k = match.group("k")
    return match.group("base"), int(k) if k else None, match.group("label")


@dataclass(frozen=True, slots=True)
class MetricValue:
    """An aggregated result: value, population size and (except for counts) a 95% interval.

    ``coverage`` is ``(n, of)`` when the value was computed on ``n`` of the ``of`` members of
    its population (the others' every attempt failed: :mod:`ragcard.aggregation.coverage`); None
    when complete.

    A quantile's interval may be open: ``ci[0]`` is ``-inf`` or ``ci[1]`` is ``inf`` where the
    data cannot bound the quantile on that side (p95 of fewer than 72 values has no upper
    end); ``observed`` then holds the smallest and largest value, which the reports show as
    ``< min`` / ``> max``. ``scorecard.json`` keeps ``"ci": [lo, hi]`` for bounded intervals
    only and writes an open one as ``"ci_open"`` (see :meth:`to_json`).
    """

    spec: MetricSpec
    value: float
    n: int
    ci: tuple[float, float] | None = None
    _: KW_ONLY
    coverage: tuple[int, int] | None = None
    observed: tuple[float, float] | None = None

    def shown(self) -> str:
        """The value as every report rounds it, the decision's reasons included: a count whole,
        a quantile in whole ms, anything else to three decimals (0.514, never 0.5145)."""
        if self.spec.kind == "count":
            return f"{self.value:g}"
        if self.spec.kind == "quantile":
            return f"{self.value:.0f} ms"
        return f"{self.value:.3f}"

    @property
    def bounded(self) -> tuple[bool, bool]:
        """Whether the interval has a lower end and an upper end (True, True without one)."""
        if self.ci is None:
            return True, True
        return math.isfinite(self.ci[0]), math.isfinite(self.ci[1])

    @property
    def partial(self) -> bool:
        """Computed on fewer items (or attempts) than its population."""
        return self.coverage is not None and self.coverage[0] < self.coverage[1]

    def to_json(self) -> dict[str, Any]:
        """``{"value", "n", "ci": [lo, hi]}``; an open interval has no ``ci`` but
        ``"ci_open": {"low": lo or null, "high": hi or null, "min": …, "max": …}``, null
        marking the end the data cannot give (readers of ``ci`` never see an open end)."""
        data: dict[str, Any] = {"value": _round(self.value), "n": self.n}
        if self.ci is not None:
            low, high = self.bounded
            if low and high:
                data["ci"] = [_round(self.ci[0]), _round(self.ci[1])]
            else:
                smallest, largest = self.observed if self.observed is not None else (None, None)
                data["ci_open"] = {
                    "low": _round(self.ci[0]) if low else None,
                    "high": _round(self.ci[1]) if high else None,
                    "min": None if smallest is None else _round(smallest),
                    "max": None if largest is None else _round(largest),
                }
        if self.coverage is not None:
            data["coverage"] = {"of": self.coverage[1], "missing": self.coverage[1] - self.n}
        return data

    @classmethod
    def from_json(cls, spec: MetricSpec, data: Mapping[str, Any]) -> MetricValue:
        """The inverse of :meth:`to_json` (open intervals and coverage included)."""
        ci: tuple[float, float] | None = None
        observed: tuple[float, float] | None = None
        if data.get("ci"):
            ci = (float(data["ci"][0]), float(data["ci"][1]))
        elif isinstance(data.get("ci_open"), Mapping):
            ends = data["ci_open"]
            low, high = ends.get("low"), ends.get("high")
            ci = (
                -math.inf if low is None else float(low),
                math.inf if high is None else float(high),
            )
            if ends.get("min") is not None and ends.get("max") is not None:
                observed = (float(ends["min"]), float(ends["max"]))
        n = int(data["n"])
        coverage = None
        if isinstance(data.get("coverage"), Mapping):
            coverage = (n, int(data["coverage"]["of"]))
        return cls(spec, float(data["value"]), n, ci, coverage=coverage, observed=observed)


@dataclass(frozen=True, slots=True)
class Unscored:
    """A metric that could not be computed, and why. Never shown as zero."""

    spec: MetricSpec
    reason: str


@dataclass(frozen=True, slots=True)
class RunMeasures:
    """Measures of a run that no layer computes item by item — the red team's, read from the
    run history — shown and gated like the others: their specs, their values (or why they
    are unscored), breakdowns by label, and a block recorded in the scorecard's ``config``
    under ``name``."""

    name: str
    specs: dict[str, MetricSpec]
    values: dict[str, MetricValue | Unscored]
    breakdowns: dict[str, dict[str, MetricValue | Unscored]] = field(default_factory=dict)
    block: dict[str, Any] = field(default_factory=dict)


def _round(value: float) -> float:
    return round(float(value), 6)


@dataclass(frozen=True, slots=True)
class ScoringSettings:
    """Options every layer may read."""

    k: int = 5
    run_date: dt.date = field(default_factory=dt.date.today)
    non_abstaining_flags: frozenset[str] = frozenset()
    retrieval_only: bool = False
    judge: str | None = None


@dataclass(frozen=True, slots=True)
class AttemptFailure:
    """The agent failed on this attempt: no response to score."""

    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class AttemptContext:
    """Everything a layer may look at for one item-attempt."""

    question: Question
    corpus: Corpus
    attempt: int
    response: AgentResponse | None
    settings: ScoringSettings
    failure: AttemptFailure | None = None
    latency_ms: float | None = None
    first_token_ms: float | None = None
    judged: JudgedAnswer | None = None

    def judgement(self) -> tuple[JudgedAnswer | None, str | None]:
        """The judge's verdicts on this answer, or why there are none."""
        if self.settings.judge is None:
            return None, NEEDS_JUDGE
        if self.judged is None:
            return None, "not judged"
        if self.judged.error is not None:
            return None, f"judge failed: {self.judged.error}"
        return self.judged, None


@dataclass(slots=True)
class LayerScore:
    """Per-item values (metric name → value) and evidence from one layer for one attempt.

    ``unscored`` maps a metric name to the reason it could not be computed for this item (e.g.
    "needs a judge"); the aggregate reports the reason when no item could be scored.
    ``labels`` attach a breakdown label to a metric value (flag accuracy per expected flag).
    For ``pooled`` metrics the value is the number of successes and ``trials`` the number of
    trials on this attempt.
    """

    values: dict[str, float] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)
    unscored: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    trials: dict[str, float] = field(default_factory=dict)


class Layer(Protocol):
    """One evaluation layer (retrieval, citation, …)."""

    name: str

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]: ...

    def score(self, ctx: AttemptContext) -> LayerScore: ...
