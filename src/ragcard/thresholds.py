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

Failed attempts gate the decision (:mod:`ragcard.coverage`): a run with any failed item-attempt
holds unless a threshold on ``agent_error_rate`` says how many failures are acceptable; a
must-pass item with a failed attempt holds it; and a threshold whose measure was computed on
fewer items than its population (some items never answered) is ``not_distinguishable`` — never
``met`` — unless even the most favourable answers from the missing items would miss it.
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
from ragcard.coverage import Coverage
from ragcard.errors import ConfigError
from ragcard.metrics.base import MetricSpec, MetricValue, Unscored, parse_metric_name

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
    status: Literal["met", "missed", "unscored", "not_distinguishable"]
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


def _judge(threshold: Threshold, result: MetricValue | Unscored | None) -> ThresholdResult:
    if not isinstance(result, MetricValue):
        return ThresholdResult(threshold, result, "unscored")
    compare = _OPERATORS[threshold.comparison]
    met = compare(round(result.value, 9), threshold.value)
    if result.partial and result.coverage is not None:
        n, of = result.coverage
        unit = "attempts" if result.spec.kind == "quantile" else "items"
        partial = (
            f"computed on {n} of {of} {unit}: {of - n} without an answered attempt could "
            "move it either way"
        )
        sure = not met and _missed_whatever_is_missing(threshold, result, n, of)
        if sure:
            return ThresholdResult(threshold, result, "missed", partial)
        return ThresholdResult(threshold, result, "not_distinguishable", partial)
    note = None
    if threshold.type == "graded" and result.ci is not None:
        low, high = result.ci
        if compare(low, threshold.value) != compare(high, threshold.value):
            note = (
                "not distinguishable at this sample size: the 95% interval straddles the "
                "threshold"
            )
    return ThresholdResult(threshold, result, "met" if met else "missed", note)


def _missed_whatever_is_missing(
    threshold: Threshold, result: MetricValue, n: int, of: int
) -> bool:
    """Whether no answers from the ``of - n`` missing members could meet ``threshold``: for a
    count they can only add (up to one each), for a rate each lies in [0, 1]; for means and
    quantiles nothing bounds them."""
    if result.spec.kind == "count":
        low, high = result.value, result.value + (of - n)
    elif result.spec.kind == "rate":
        low, high = result.value * n / of, (result.value * n + (of - n)) / of
    else:
        return False
    low, high, line = round(low, 9), round(high, 9), threshold.value
    if threshold.comparison in (">=", ">"):
        return not _OPERATORS[threshold.comparison](high, line)
    if threshold.comparison in ("<=", "<"):
        return not _OPERATORS[threshold.comparison](low, line)
    return not low <= line <= high


def decide(
    thresholds: Thresholds,
    metrics: Mapping[str, MetricValue | Unscored],
    breakdowns: Mapping[str, Mapping[str, MetricValue | Unscored]],
    specs: Mapping[str, MetricSpec],
    extra_reasons: Sequence[str] = (),
    coverage: Coverage | None = None,
) -> Decision:
    """Check every threshold; ship only when all are met, no attempt failed beyond what an
    ``agent_error_rate`` threshold accepts, no must-pass item has a failed attempt (both from
    ``coverage``), and no ``extra_reasons`` (e.g. an input that changed during the run) hold
    the run."""
    check_measures(thresholds, specs)  # (the pipelines check before the run too)
    results = tuple(_judge(t, _lookup(t.measure, metrics, breakdowns)) for t in thresholds.items)
    reasons = []
    for r in results:
        if r.status == "missed" and isinstance(r.result, MetricValue):
            got = f"{r.result.value:.4g}"
            reason = f"{r.threshold.type} {r.threshold.describe()} missed (got {got})"
            if coverage is not None and _measure_name(r.threshold.measure) == "agent_error_rate":
                reason += f": {coverage.failure_line()}"
            reasons.append(reason)
        elif r.status == "not_distinguishable":
            what = f"{r.threshold.type} {r.threshold.describe()}"
            reasons.append(f"{what} not distinguishable: {r.note}")
        elif r.status == "unscored":
            why = r.result.reason if isinstance(r.result, Unscored) else "no such breakdown"
            reasons.append(f"{r.threshold.type} {r.threshold.describe()} not scored: {why}")
    if not thresholds.items:
        reasons.append("no thresholds: nothing says this agent is good enough")
    if coverage is not None:
        reasons.extend(_coverage_reasons(thresholds, coverage))
    reasons.extend(extra_reasons)
    return Decision("hold" if reasons else "ship", results, tuple(reasons))


def _coverage_reasons(thresholds: Thresholds, coverage: Coverage) -> list[str]:
    reasons = []
    accepted = any(_measure_name(t.measure) == "agent_error_rate" for t in thresholds.items)
    if coverage.failed_attempts and not accepted:
        reasons.append(
            f"{coverage.failure_line()}, and no agent_error_rate threshold says how many "
            "failures are acceptable: fix the agent, or add one (must-pass, with a reason)"
        )
    if coverage.must_pass_failed:
        shown = ", ".join(
            f"{item} ({n} failed)" for item, n in list(coverage.must_pass_failed.items())[:10]
        )
        more = len(coverage.must_pass_failed) - 10
        shown += f" and {more} more" if more > 0 else ""
        reasons.append(
            f"must-pass item(s) with a failed attempt: {shown} — a must-pass item passes only "
            "when every attempt answered"
        )
    return reasons
