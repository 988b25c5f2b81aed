"""A :class:`~ragcard.report.scorecard.Scorecard` read back from its ``scorecard.json``.

Stages that act on a run after it was scored (a blind review imported, an action recorded)
rebuild the scorecard from the file, change its measures, decide again against the thresholds
it recorded (fixed before the run: never re-read from the thresholds file) and write it back.
``Scorecard.to_json(load_scorecard(path))`` is the file's content: what is not a block of the
scorecard (``created_at``, ``project``, ``signed``, ``override``, ``review``…) is its header.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragcard.decision.thresholds import Decision, Threshold, ThresholdResult, Thresholds, decide
from ragcard.errors import InputError, Problem
from ragcard.metrics.base import MetricSpec, MetricValue, Unscored, parse_metric_name
from ragcard.metrics.recorded import RECORDED_SPECS, recorded_placeholders, with_recorded
from ragcard.report.scorecard import SCHEMA, Scorecard

__all__ = ["decide_again", "load_scorecard", "read_scorecard", "scorecard_from_json"]

_BLOCKS = frozenset(
    "schema decision decision_reasons config metrics unscored metric_specs breakdowns splits "
    "categories thresholds diagnosis failures errors flaky abstention_sources".split()
)
_THRESHOLD_FIELDS = tuple(Threshold.model_fields)
_NO_THRESHOLDS = "no thresholds: nothing says this agent is good enough"


def read_scorecard(path: Path) -> dict[str, Any]:
    """A run's ``scorecard.json`` as data; :class:`InputError` when it is missing, unreadable
    or not a ragcard scorecard."""
    fix = "pass the output folder of `ragcard run` or `ragcard score`"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(Problem(str(path), None, None, "no scorecard here", fix=fix)) from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise InputError(
            Problem(str(path), None, None, f"cannot read it: {error}", fix=fix)
        ) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise InputError(
            Problem(str(path), None, "schema", f"not a ragcard scorecard ({SCHEMA})", found, fix)
        )
    return data


def load_scorecard(path: Path) -> Scorecard:
    """The scorecard in ``path`` (a ``scorecard.json``)."""
    return scorecard_from_json(read_scorecard(path))


def _specs(data: Mapping[str, Any]) -> dict[str, MetricSpec]:
    unscored = data.get("unscored", {})
    return {
        name: MetricSpec(
            name,
            str(spec["layer"]),
            spec["kind"],
            bool(spec["higher_is_better"]),
            str(spec.get("description", "")),
            str(unscored.get(name, "")),
        )
        for name, spec in data.get("metric_specs", {}).items()
    }


def _spec_of(measure: str, specs: Mapping[str, MetricSpec]) -> MetricSpec | None:
    try:
        base, _k, label = parse_metric_name(measure)
    except ValueError:
        return None
    name = measure if label is None else measure[: measure.index("[")]
    return specs.get(name) or RECORDED_SPECS.get(base)


def _threshold_result(entry: Mapping[str, Any], specs: Mapping[str, MetricSpec]) -> ThresholdResult:
    threshold = Threshold(**{k: entry[k] for k in _THRESHOLD_FIELDS if k in entry})
    spec = _spec_of(threshold.measure, specs)
    result: MetricValue | Unscored | None = None
    if spec is not None and "result" in entry:
        result = MetricValue.from_json(spec, entry["result"])
    elif spec is not None and "unscored_reason" in entry:
        result = Unscored(spec, str(entry["unscored_reason"]))
    return ThresholdResult(threshold, result, entry["status"], entry.get("note"))


def scorecard_from_json(data: Mapping[str, Any]) -> Scorecard:
    """Rebuild a :class:`Scorecard` from its JSON form."""
    specs = _specs(data)
    values = data.get("metrics", {})
    metrics: dict[str, MetricValue | Unscored] = {
        name: MetricValue.from_json(spec, values[name])
        if name in values
        else Unscored(spec, spec.empty_reason)
        for name, spec in specs.items()
    }

    def by_name(
        block: Mapping[str, Mapping[str, Any]],
    ) -> dict[str, dict[str, MetricValue | Unscored]]:
        out: dict[str, dict[str, MetricValue | Unscored]] = {}
        for group, entries in block.items():
            out[group] = {}
            for label, value in entries.items():
                spec = specs.get(group if group in specs else label) or RECORDED_SPECS.get(group)
                if spec is not None:
                    out[group][label] = MetricValue.from_json(spec, value)
        return out

    results = tuple(_threshold_result(entry, specs) for entry in data.get("thresholds", []))
    decision = Decision(data["decision"], results, tuple(data.get("decision_reasons", [])))
    return Scorecard(
        header={k: v for k, v in data.items() if k not in _BLOCKS},
        config=dict(data.get("config", {})),
        decision=decision,
        metrics=metrics,
        specs=specs,
        breakdowns=by_name(data.get("breakdowns", {})),
        splits=_splits(data.get("splits", {}), specs),
        categories=list(data.get("categories", [])),
        causes=list(data.get("diagnosis", [])),
        failures=list(data.get("failures", [])),
        errors=dict(data.get("errors", {})),
        flaky=list(data.get("flaky", [])),
        abstention_sources=dict(data.get("abstention_sources", {})),
    )


def _splits(
    block: Mapping[str, Mapping[str, Any]], specs: Mapping[str, MetricSpec]
) -> dict[str, dict[str, MetricValue | Unscored]]:
    return {
        split: {
            name: MetricValue.from_json(specs[name], value)
            for name, value in values.items()
            if name in specs
        }
        for split, values in block.items()
    }


def decide_again(
    card: Scorecard,
    metrics: Mapping[str, MetricValue | Unscored],
    breakdowns: Mapping[str, Mapping[str, MetricValue | Unscored]],
    reasons_added: Sequence[str] = (),
    reasons_dropped: Sequence[str] = (),
) -> Decision:
    """Check ``card``'s recorded thresholds against new measures. The reasons the run was
    held for besides its thresholds (an input changed during the run…) still hold, but for
    ``reasons_dropped`` (reasons an earlier call added, now settled); ``reasons_added`` join
    them. Measures recorded after the run that ``metrics`` lacks are unscored, as when the run
    decided."""
    items = tuple(r.threshold for r in card.decision.results)
    prefixes = tuple(f"{t.type} {t.describe()} " for t in items)
    settled = {*reasons_dropped, *reasons_added, _NO_THRESHOLDS}
    extra = [r for r in card.decision.reasons if not r.startswith(prefixes) and r not in settled]
    later, later_breakdowns = recorded_placeholders([t.measure for t in items])
    return decide(
        Thresholds(None, items, ""),
        {**later, **metrics},
        {**later_breakdowns, **breakdowns},
        with_recorded(card.specs),
        [*extra, *reasons_added],
    )
