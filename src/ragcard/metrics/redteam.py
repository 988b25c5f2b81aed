"""The red-team measures (docs/metrics.md#measures) as metric value objects, for the red-team
report and for
every scorecard of the project, gated like any measure.

* ``redteam_attempts`` — attack attempts the agent answered in the last red-team run;
* ``redteam_findings`` — attack variants (attack × wrapper) that succeeded at least once;
* ``redteam_critical_open`` — the project's findings of severity critical whose status is
  open *now* (a triage since the red-team run counts);
* ``redteam_success_rate`` — attack success rate: each variant's share of attempts that
  succeeded, averaged over variants, with a Wilson interval over variants; broken down by
  attack category (``redteam_success_rate[access_escalation]``).

They are run-level measures (:class:`~ragcard.metrics.base.RunMeasures`): a scorecard takes
them from the project's newest red-team run when that run tested the same agent configuration
and corpus (:func:`ragcard.redteam.project_measures`); otherwise they are unscored, with the
reason, and a threshold on them holds — a red-team run of another agent says nothing about
this one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ragcard.aggregation.stats import wilson_interval
from ragcard.metrics.base import MetricSpec, MetricValue, RunMeasures, Unscored

__all__ = [
    "ATTACK_CATEGORIES",
    "BREAKDOWN",
    "NO_REDTEAM_RUN",
    "REDTEAM_SPECS",
    "agent_digest",
    "gates_redteam",
    "measures_from_summary",
    "success_rate",
    "summary_line",
    "unscored_measures",
]

#: Attack categories and what each probes (the breakdown labels of the success rate).
ATTACK_CATEGORIES: Mapping[str, str] = {
    "direct_injection": "instructions in the question override the agent's own (OWASP LLM01)",
    "indirect_injection": "instructions planted in a document the agent retrieves (LLM01)",
    "access_escalation": "restricted passages reaching someone without access (LLM02, LLM06)",
    "instruction_extraction": "the agent's instructions or secrets revealed (LLM07)",
    "persona_break": "a persona speaking past its cutoff or out of character",
    "policy": "policy topics answered instead of routed: self-harm, children, "
    "companionship, advice, politicians, trauma",
    "currency": "a superseded version presented as the rule in force",
}

_LAYER = "redteam"
NO_REDTEAM_RUN = "no red-team run of this project is recorded: run `ragcard redteam run PROJECT`"
REDTEAM_SPECS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec("redteam_attempts", _LAYER, "count", True,
                   "attack attempts the agent answered in the last red-team run", NO_REDTEAM_RUN),
        MetricSpec("redteam_findings", _LAYER, "count", False,
                   "attack variants that succeeded at least once in the last red-team run",
                   NO_REDTEAM_RUN),
        MetricSpec("redteam_critical_open", _LAYER, "count", False,
                   "findings of severity critical whose status is open", NO_REDTEAM_RUN),
        MetricSpec("redteam_success_rate", _LAYER, "rate", False,
                   "attack success rate: share of a variant's attempts that succeeded, mean "
                   "over variants (by category in the breakdown)", NO_REDTEAM_RUN),
    )
}  # fmt: skip
BREAKDOWN = "redteam_success_rate"


def agent_digest(agent: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> str:
    """sha256 of the ``[agent]`` table as written, with ``-o`` options applied: the agent
    configuration a red-team run and an evaluation run must share."""
    table = dict(agent)
    if options:
        table["options"] = {**table.get("options", {}), **options}
    canonical = json.dumps(table, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def success_rate(rates: Sequence[float]) -> MetricValue | Unscored:
    """The mean of per-variant success rates with a Wilson interval over variants."""
    spec = REDTEAM_SPECS[BREAKDOWN]
    if not rates:
        return Unscored(spec, "no attack variant was tested")
    value = sum(rates) / len(rates)
    return MetricValue(spec, value, len(rates), wilson_interval(value * len(rates), len(rates)))


def gates_redteam(measures: Sequence[str]) -> bool:
    """Whether any of these threshold measures is a red-team one (``redteam_…``)."""
    return any(name.startswith("redteam_") for name in measures)


def unscored_measures(reason: str) -> RunMeasures:
    """Every red-team measure unscored with ``reason`` (so that a threshold on one holds)."""
    values: dict[str, MetricValue | Unscored] = {
        name: Unscored(spec, reason) for name, spec in REDTEAM_SPECS.items()
    }
    return RunMeasures("redteam", dict(REDTEAM_SPECS), values, {BREAKDOWN: {}}, {"note": reason})


def _value(data: Mapping[str, Any], name: str) -> MetricValue | Unscored:
    spec = REDTEAM_SPECS[name]
    entry = data.get(name)
    if not isinstance(entry, Mapping) or "value" not in entry:
        reason = entry.get("unscored") if isinstance(entry, Mapping) else None
        return Unscored(spec, str(reason or "not in the red-team summary"))
    ci = entry.get("ci")
    interval = (float(ci[0]), float(ci[1])) if ci else None
    return MetricValue(spec, float(entry["value"]), int(entry["n"]), interval)


def measures_from_summary(
    summary: Mapping[str, Any], critical_open: int, critical: int, block: dict[str, Any]
) -> RunMeasures:
    """The measures of a recorded red-team summary, ``redteam_critical_open`` as it stands."""
    measures = summary.get("measures", {})
    values = {name: _value(measures, name) for name in REDTEAM_SPECS}
    untested = summary.get("untested") or []
    spec = REDTEAM_SPECS["redteam_critical_open"]
    values["redteam_critical_open"] = (
        Unscored(spec, f"{len(untested)} attack variant(s) of red-team run {block.get('run')} "
                 "were never answered (agent errors): resume that run")
        if untested else MetricValue(spec, float(critical_open), critical)
    )  # fmt: skip
    by_category = {
        category: _value({BREAKDOWN: entry}, BREAKDOWN)
        for category, entry in (summary.get("success_by_category") or {}).items()
    }
    return RunMeasures("redteam", dict(REDTEAM_SPECS), values, {BREAKDOWN: by_category}, block)


def summary_line(metrics: Mapping[str, Any]) -> str | None:
    """ "Red team: 640 attempts · 3 findings (1 critical open)" from a scorecard's or a
    red-team summary's measures; None when no red-team measure is scored."""
    attempts = metrics.get("redteam_attempts")
    findings = metrics.get("redteam_findings")
    critical = metrics.get("redteam_critical_open")
    if not isinstance(attempts, Mapping) or "value" not in attempts:
        return None
    text = f"Red team: {attempts['value']:g} attempts"
    if isinstance(findings, Mapping) and "value" in findings:
        text += f" · {findings['value']:g} findings"
    if isinstance(critical, Mapping) and "value" in critical:
        text += f" ({critical['value']:g} critical open)"
    return text
