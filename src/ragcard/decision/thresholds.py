"""Thresholds (docs/formats.md#thresholdstoml): written before the first run, each with a reason;
the ship/hold decision.

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

Failed attempts gate the decision (:mod:`ragcard.aggregation.coverage`): a run with any failed
item-attempt holds unless a threshold on ``agent_error_rate`` says how many failures are acceptable;
a must-pass item with a failed attempt holds it; and a threshold whose measure was computed on fewer
items than its population (some items never answered) is ``not_distinguishable`` — never ``met`` —
unless even the most favourable answers from the missing items would miss it.

An optional ``[evidence]`` table lowers the smallest category a decision may rest on
(:mod:`.evidence`; 20 items by default), with a reason::

    [evidence]
    min_items = 5
    reason = "CI smoke set; the release set of 200 items is gated separately"

Every problem of the file is listed at once with its line (:class:`ConfigFileError`): unknown
keys (with the closest known one), a ``value`` that is not a finite number (``inf``, ``nan``,
``true`` and ``"0.9"`` are refused), a measure this run does not compute, a share outside 0–1.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcard._suggest import did_you_mean
from ragcard.aggregation.coverage import Coverage
from ragcard.aggregation.stats import values_to_bound
from ragcard.decision.evidence import MIN_ITEMS, items_to_tell
from ragcard.errors import ConfigError, ConfigFileError, Problem
from ragcard.inputs._fields import Number
from ragcard.inputs._toml import TomlFile, read_toml, table_problems, unique, validation_problems
from ragcard.metrics.base import MetricSpec, MetricValue, Unscored, parse_metric_name

__all__ = [
    "TEMPLATES",
    "Decision",
    "Evidence",
    "Threshold",
    "ThresholdResult",
    "Thresholds",
    "check_measures",
    "decide",
    "inspect_thresholds",
    "load_thresholds",
    "measure_problems",
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

    measure: str = Field(min_length=1, max_length=200)
    comparison: Comparison
    value: Number
    type: Literal["must-pass", "graded"]
    reason: str = Field(min_length=1)
    owner: str | None = None

    def describe(self) -> str:
        return f"{self.measure} {self.comparison} {self.value:g}"


class Evidence(BaseModel):
    """The ``[evidence]`` table: the smallest category a decision may rest on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_items: int = Field(default=MIN_ITEMS, ge=1, le=1_000_000, strict=True)
    reason: str | None = Field(default=None, min_length=1)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The thresholds of a file; ``lines``: the line of each threshold's ``measure`` (or of
    its ``[[threshold]]`` header), for the problems found once the run's measures are known."""

    path: Path | None
    items: tuple[Threshold, ...]
    sha256: str
    lines: tuple[int | None, ...] = ()
    evidence: Evidence = Evidence()

    def problem(
        self, number: int, message: str, value: object = None, fix: str | None = None
    ) -> Problem:
        """A problem of threshold ``number`` (1-based) at its line."""
        line = self.lines[number - 1] if number <= len(self.lines) else None
        field = f"[[threshold]] #{number} measure"
        return Problem(str(self.path or "thresholds"), line, field, message, value, fix)


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


_NEEDS = (
    "each [[threshold]] needs measure, comparison (>=, <=, >, <, ==), value (a number), "
    "type ('must-pass' or 'graded') and reason"
)


def _items(toml: TomlFile, problems: list[Problem]) -> list[tuple[int, Any]]:
    listed = toml.data.get("threshold", [])
    if isinstance(listed, list) and all(isinstance(entry, dict) for entry in listed):
        return list(enumerate(listed))
    problems.append(toml.problem(("threshold",), "must be a list of [[threshold]] tables",
                                 fix=_NEEDS))  # fmt: skip
    return []


def _check_threshold(
    toml: TomlFile, index: int, table: Any, problems: list[Problem]
) -> Threshold | None:
    try:
        threshold = Threshold.model_validate(table)
    except ValidationError as error:
        found = validation_problems(toml, ("threshold", index), error, Threshold)
        problems.extend(p if p.message != "is required" else
                        Problem(p.file, p.line, p.field, p.message, fix=_NEEDS)
                        for p in found)  # fmt: skip
        return None
    try:
        parse_metric_name(threshold.measure)
    except ValueError as error:
        problems.append(toml.problem(("threshold", index, "measure"), str(error),
                                     fix="write a measure name such as recall@5, access_leaks "
                                     "or flag_accuracy[not_in_record]"))  # fmt: skip
        return None
    return threshold


def inspect_thresholds(path: str | Path) -> tuple[Thresholds | None, list[Problem]]:
    """A thresholds file and every problem in it, each on its line (None when a threshold is
    unusable: the file must be fixed before a run)."""
    path = Path(path)
    try:
        toml, problems = read_toml(path)
    except FileNotFoundError:
        return None, [Problem(str(path), None, None, "thresholds file not found",
                              fix="write one before the first run (`ragcard init --kit "
                              "knowledge-base` writes a template)")]  # fmt: skip
    except ConfigFileError as error:  # bad syntax, not a readable UTF-8 regular file …
        return None, list(error.problems)
    problems += table_problems(toml, ["threshold", "evidence"], "tables of a thresholds file")
    items, lines = [], []
    for index, table in _items(toml, problems):
        threshold = _check_threshold(toml, index, table, problems)
        if threshold is not None:
            items.append(threshold)
            lines.append(toml.line_of(("threshold", index, "measure")))
    evidence = _evidence(toml, problems)
    problems = unique(problems)
    if problems or evidence is None:
        return None, problems
    digest = hashlib.sha256(toml.raw).hexdigest()
    return Thresholds(path, tuple(items), digest, tuple(lines), evidence), []


def _evidence(toml: TomlFile, problems: list[Problem]) -> Evidence | None:
    table = toml.data.get("evidence", {})
    if not isinstance(table, dict):
        problems.append(toml.problem(("evidence",), "must be a table",
                                     fix="write [evidence] with min_items and reason"))  # fmt: skip
        return None
    try:
        evidence = Evidence.model_validate(table)
    except ValidationError as error:
        problems.extend(validation_problems(toml, ("evidence",), error, Evidence))
        return None
    if evidence.min_items < MIN_ITEMS and evidence.reason is None:
        problems.append(toml.problem(
            ("evidence", "min_items"), f"lowers the {MIN_ITEMS}-item minimum without a reason",
            evidence.min_items, fix='add reason = "…" to [evidence]: why a decision may rest '
            "on fewer items"))  # fmt: skip
        return None
    return evidence


def load_thresholds(path: str | Path) -> Thresholds:
    """Load a thresholds file; a :class:`ConfigFileError` lists every problem with its line."""
    thresholds, problems = inspect_thresholds(path)
    if thresholds is None:
        raise ConfigFileError(problems, f"{path}: {len(problems)} problem(s) in the thresholds")
    return thresholds


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
    """Raise :class:`ConfigFileError` listing, each at its line, every threshold whose measure
    this run does not compute — before the run, so that a typo costs no agent call — and every
    threshold on a share (a rate) whose value is outside 0–1. With ``labels`` (each broken-down
    measure → the labels its items have, known from the question set), a breakdown threshold
    must also name a broken-down measure and a label some item has."""
    problems = measure_problems(thresholds, specs, labels)
    if problems:
        raise ConfigFileError(
            problems, f"{thresholds.path or 'thresholds'}: {len(problems)} problem(s)"
        )


def measure_problems(
    thresholds: Thresholds,
    specs: Mapping[str, MetricSpec],
    labels: Mapping[str, Collection[str]] | None = None,
) -> list[Problem]:
    """The problems :func:`check_measures` raises."""
    problems = []
    for number, threshold in enumerate(thresholds.items, 1):
        _base, _k, label = parse_metric_name(threshold.measure)
        name = _measure_name(threshold.measure)
        spec = specs.get(name)
        if spec is None:
            problems.append(thresholds.problem(
                number, "unknown measure", threshold.measure,
                fix=did_you_mean(name, specs, "measures of this run") + " (a breakdown is "
                "written measure[label]; or remove the threshold)"))  # fmt: skip
            continue
        if spec.kind == "rate" and not 0 <= threshold.value <= 1:
            problems.append(thresholds.problem(
                number, f"{name} is a share between 0 and 1, the value {threshold.value:g} is not",
                threshold.value, fix="write the share as a fraction (90% is 0.9)"))  # fmt: skip
        if label is None or labels is None:
            continue
        if name not in labels:
            broken = ", ".join(sorted(labels)) or "none"
            fix = f"measures broken down by label: {broken}; or remove the threshold"
            problems.append(thresholds.problem(number, f"{name} has no breakdown",
                                               threshold.measure, fix=fix))  # fmt: skip
        elif label not in labels[name]:
            known = sorted(labels[name])
            fix = did_you_mean(label, known, f"labels of {name}") if known else (
                f"no item is labelled for {name}; remove the threshold")
            problems.append(thresholds.problem(
                number, f"no item of the question set has the label {label!r}",
                threshold.measure, fix=fix))  # fmt: skip
    return problems


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
            # the end that crosses the line, and how many items would pull it back
            crossing = low if compare(high, threshold.value) == met else high
            needed = items_to_tell(result.value, crossing, threshold.value, result.n)
            if needed is not None and needed > 100 * result.n:  # no practical sample
                note += (
                    f"; the result sits so close to the threshold that only about {needed:,} "
                    f"items (now {result.n}) would tell"
                )
            elif needed is not None and needed > result.n:
                note += f"; a sample of about {needed:,} (now {result.n}) would tell"
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
            why = f"got {r.result.shown()}"  # rounded as the tables show it
            unbounded = _unbounded(r.threshold, r.result)
            if unbounded is not None:
                why += f", but {unbounded}"
            reason = f"{r.threshold.type} {r.threshold.describe()} missed ({why})"
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
