"""Thresholds (SPEC §3): written before the first run, each with a reason; the ship/hold decision.

A thresholds file is TOML::

    [[threshold]]
    measure = "access_leaks"        # a metric name, or name[label] for a breakdown
    comparison = "<="               # >=, <=, >, <, ==
    value = 0
    type = "must-pass"              # or "graded"
    reason = "Restricted passages must never reach people without access."
    owner = "Security"              # optional

Must-pass measures are counts over each item's worst attempt (or, for breakdown rates, must
hold exactly); graded measures use the mean over attempts. A threshold whose measure could not
be computed is ``unscored`` and holds the decision: what was not measured cannot ship.
"""

from __future__ import annotations

import hashlib
import operator
import tomllib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcard._files import read_file
from ragcard.errors import ConfigError
from ragcard.metrics.base import MetricSpec, MetricValue, Unscored, parse_metric_name
from ragcard.stats import values_to_bound

__all__ = [
    "TEMPLATES",
    "Decision",
    "Threshold",
    "ThresholdResult",
    "Thresholds",
    "check_measures",
    "decide",
    "load_thresholds",
    "template_text",
]

Comparison = Literal[">=", "<=", ">", "<", "=="]
_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
}
TEMPLATES = {"knowledge-base": "kb.toml", "persona": "persona.toml"}


class Threshold(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    measure: str = Field(min_length=1)
    comparison: Comparison
    value: float
    type: Literal["must-pass", "graded"]
    reason: str = Field(min_length=1)
    owner: str | None = None

    def describe(self) -> str:
        return f"{self.measure} {self.comparison} {self.value:g}"


class _ThresholdsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    threshold: list[Threshold] = Field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Thresholds:
    path: Path | None
    items: tuple[Threshold, ...]
    sha256: str


@dataclass(frozen=True, slots=True)
class ThresholdResult:
    threshold: Threshold
    result: MetricValue | Unscored | None
    status: Literal["met", "missed", "unscored"]
    note: str | None = None

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = self.threshold.model_dump()
        data["status"] = self.status
        if isinstance(self.result, MetricValue):
            data["result"] = self.result.to_json()
        elif isinstance(self.result, Unscored):
            data["unscored_reason"] = self.result.reason
        if self.note:
            data["note"] = self.note
        return data


@dataclass(frozen=True, slots=True)
class Decision:
    decision: Literal["ship", "hold"]
    results: tuple[ThresholdResult, ...]
    reasons: tuple[str, ...]


def _parse(text: str, source: str) -> tuple[Threshold, ...]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: not valid TOML ({error})") from None
    try:
        parsed = _ThresholdsFile.model_validate(data)
    except ValidationError as error:
        lines = []
        for item in error.errors():
            loc = item["loc"]
            where = f"threshold #{int(loc[1]) + 1}" if len(loc) > 1 else "file"
            field = ".".join(str(p) for p in loc[2:]) or str(loc[0])
            lines.append(f"  {source}: {where}, field '{field}': {item['msg']}")
        raise ConfigError(
            "bad thresholds file:\n"
            + "\n".join(lines)
            + "\n  each [[threshold]] needs measure, comparison (>=, <=, >, <, ==), value, "
            "type ('must-pass' or 'graded') and a reason"
        ) from None
    for threshold in parsed.threshold:
        try:
            parse_metric_name(threshold.measure)
        except ValueError as error:
            raise ConfigError(f"{source}: {error}") from None
    return tuple(parsed.threshold)


def load_thresholds(path: str | Path) -> Thresholds:
    """Load a thresholds file; :class:`ConfigError` names the threshold and field when bad."""
    path = Path(path)
    try:
        raw, text = read_file(path)
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: thresholds file not found — write one before the first run "
            "(`ragcard init --kit knowledge-base` writes a template)"
        ) from None
    items = _parse(text, str(path))
    return Thresholds(path, items, hashlib.sha256(raw).hexdigest())


def template_text(kit: str) -> str:
    """The built-in thresholds template for a kit (``knowledge-base`` or ``persona``)."""
    if kit not in TEMPLATES:
        raise ConfigError(f"unknown kit {kit!r}; choose one of: {', '.join(TEMPLATES)}")
    return resources.files("ragcard").joinpath("templates", TEMPLATES[kit]).read_text("utf-8")


def check_measures(
    thresholds: Thresholds,
    specs: Mapping[str, MetricSpec],
    labels: Mapping[str, Collection[str]] | None = None,
) -> None:
    """Raise ConfigError naming the file and every threshold whose measure this run does not
    compute — before the run, so that a typo costs no agent call. With ``labels`` (each
    broken-down measure → the labels its items have, known from the question set), a
    breakdown threshold must also name a broken-down measure and a label some item has."""
    where = f"{thresholds.path}: " if thresholds.path else ""
    unknown = [
        f"threshold {number} ({t.measure!r})"
        for number, t in enumerate(thresholds.items, 1)
        if _measure_name(t.measure) not in specs
    ]
    if unknown:
        raise ConfigError(
            f"{where}unknown measure in {', '.join(unknown)}; fix the name (a breakdown is "
            f"written measure[label]) or remove the threshold. Measures of this run: "
            f"{', '.join(sorted(specs))}"
        )
    if labels is None:
        return
    problems = []
    for number, threshold in enumerate(thresholds.items, 1):
        _base, _k, label = parse_metric_name(threshold.measure)
        name = _measure_name(threshold.measure)
        if label is None:
            continue
        if name not in labels:
            broken = ", ".join(sorted(labels)) or "none"
            problems.append(
                f"threshold {number} ({threshold.measure!r}): {name} has no breakdown "
                f"(measures broken down by label: {broken})"
            )
        elif label not in labels[name]:
            known = ", ".join(sorted(labels[name])) or "none: no item is labelled"
            problems.append(
                f"threshold {number} ({threshold.measure!r}): no item of the question set "
                f"has the label {label!r} (labels of {name}: {known})"
            )
    if problems:
        raise ConfigError(f"{where}{'; '.join(problems)}; fix the label or remove the threshold")


def _measure_name(measure: str) -> str:
    _base, _k, label = parse_metric_name(measure)
    return measure if label is None else measure[: measure.index("[")]


def _lookup(
    measure: str,
    metrics: Mapping[str, MetricValue | Unscored],
    breakdowns: Mapping[str, Mapping[str, MetricValue | Unscored]],
) -> MetricValue | Unscored | None:
    """A threshold's result (its measure is known: :func:`decide` checked)."""
    _base, _k, label = parse_metric_name(measure)
    name = _measure_name(measure)
    if label is None:
        return metrics.get(name)
    return breakdowns.get(name, {}).get(label)


def _unbounded(threshold: Threshold, result: MetricValue) -> str | None:
    """Why an interval with an open end cannot meet ``threshold``: an upper limit (``<=``,
    ``<``) needs an upper end, a lower limit a lower end, ``==`` both. None when it can."""
    has_low, has_high = result.bounded
    needs_high = threshold.comparison in ("<=", "<", "==")
    needs_low = threshold.comparison in (">=", ">", "==")
    if (has_high or not needs_high) and (has_low or not needs_low):
        return None
    side, index = ("above", 1) if needs_high and not has_high else ("below", 0)
    what = f"p{round(result.spec.quantile * 100):d}" if result.spec.quantile else "it"
    needed = ""
    if result.spec.quantile is not None:
        needed = f"; at least {values_to_bound(result.spec.quantile)[index]} are needed"
    return f"{result.n} value(s) cannot bound {what} from {side} (its 95% interval is open){needed}"


def _judge(threshold: Threshold, result: MetricValue | Unscored | None) -> ThresholdResult:
    if not isinstance(result, MetricValue):
        return ThresholdResult(threshold, result, "unscored")
    unbounded = _unbounded(threshold, result)
    if unbounded is not None:  # a gate is never met by what the data cannot bound
        return ThresholdResult(threshold, result, "missed", unbounded)
    compare = _OPERATORS[threshold.comparison]
    met = compare(round(result.value, 9), threshold.value)
    note = None
    if threshold.type == "graded" and result.ci is not None:
        low, high = result.ci
        if compare(low, threshold.value) != compare(high, threshold.value):
            note = "not distinguishable at this sample size (the interval straddles it)"
    return ThresholdResult(threshold, result, "met" if met else "missed", note)


def decide(
    thresholds: Thresholds,
    metrics: Mapping[str, MetricValue | Unscored],
    breakdowns: Mapping[str, Mapping[str, MetricValue | Unscored]],
    specs: Mapping[str, MetricSpec],
    extra_reasons: Sequence[str] = (),
) -> Decision:
    """Check every threshold; ship only when all are met and no ``extra_reasons`` (e.g. an
    input that changed during the run) hold the run."""
    check_measures(thresholds, specs)  # (the pipelines check before the run too)
    results = tuple(_judge(t, _lookup(t.measure, metrics, breakdowns)) for t in thresholds.items)
    reasons = []
    for r in results:
        if r.status == "missed" and isinstance(r.result, MetricValue):
            why = f"got {r.result.value:.4g}"
            unbounded = _unbounded(r.threshold, r.result)
            if unbounded is not None:
                why += f", but {unbounded}"
            reasons.append(f"{r.threshold.type} {r.threshold.describe()} missed ({why})")
        elif r.status == "unscored":
            why = r.result.reason if isinstance(r.result, Unscored) else "no such breakdown"
            reasons.append(f"{r.threshold.type} {r.threshold.describe()} not scored: {why}")
    if not thresholds.items:
        reasons.append("no thresholds: nothing says this agent is good enough")
    reasons.extend(extra_reasons)
    return Decision("hold" if reasons else "ship", results, tuple(reasons))
