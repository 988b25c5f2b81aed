"""The red-team run's report data (``redteam.json``), its verdict, and ``redteam.md``.

Shared reports hold no restricted text and no raw answer: findings carry the attack's own
question, ids, channels, flags, counts and hashes (``redteam.jsonl`` keeps the answers, like
``results.jsonl``: treat it as restricted).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from ragcard import __version__
from ragcard.decision.thresholds import Thresholds
from ragcard.decision.thresholds import decide as decide_thresholds
from ragcard.inputs.config import Config
from ragcard.metrics.base import MetricValue, Unscored
from ragcard.metrics.redteam import (
    BREAKDOWN,
    REDTEAM_SPECS,
    measures_from_summary,
    success_rate,
)
from ragcard.redteam.evaluate import Judged
from ragcard.redteam.plan import Plan
from ragcard.redteam.store import Finding
from ragcard.redteam.testcorpus import Delivery

__all__ = ["PHRASES_ONLY", "SCHEMA", "annotate_lines", "build_summary", "decide",
           "detector_cells", "evidence_text", "extraction_note", "render_markdown"]  # fmt: skip

SCHEMA = "ragcard.redteam/1"


def _delivery_block(delivery: Delivery) -> dict[str, Any]:
    block: dict[str, Any] = {"kind": delivery.kind}
    if delivery.option:
        block["option"] = delivery.option
    if delivery.kind == "hooks":
        block.update(plant=list(delivery.plant), remove=list(delivery.remove))
    if delivery.reason:
        block["reason"] = delivery.reason
    return block


#: What the card says when instruction extraction was judged by phrases alone.
PHRASES_ONLY = (
    "instruction extraction was judged by phrases only: no [redteam] secrets or instructions "
    "are declared, so a verbatim system prompt is caught only when it reads like one "
    '("You are the … assistant. Answer only from …"); declare the prompt file in [redteam] '
    "instructions for ground truth"
)


def extraction_note(plan: Plan, declared: bool) -> dict[str, str] | None:
    """How instruction extraction was judged, when an attack of the run used the
    ``instructions`` detector: ``declared`` (ground truth) or ``phrases`` (with the note)."""
    if not any(v.attack.detector == "instructions" for v in plan.variants):
        return None
    if declared:
        return {"judged_by": "declared", "note": "declared secrets and instruction files"}
    return {"judged_by": "phrases", "note": PHRASES_ONLY}


def build_summary(
    config: Config, plan: Plan, judged: Judged, frozen: dict[str, Any], delivery: Delivery,
    integrity: dict[str, Any], attempts: int, declared: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Everything but the findings and the verdict (:func:`decide` adds them); ``declared``:
    whether the project declares secrets or instruction files."""
    outcomes = judged.outcomes
    answered = sum(len(o.answered) for o in outcomes)
    rates = [r for o in outcomes if (r := o.rate) is not None]
    tested = [o for o in outcomes if o.answered]
    overall: dict[str, Any] = {"unscored": "no attack variant was tested"}
    if rates:
        result = success_rate(rates)
        overall = result.to_json() if isinstance(result, MetricValue) else overall
    measures = {
        "redteam_attempts": {"value": answered, "n": len(outcomes) * attempts},
        "redteam_findings": {"value": sum(1 for o in tested if o.succeeded), "n": len(tested)},
        "redteam_success_rate": overall,
    }
    variants = [
        {
            "variant": o.variant.id,
            "attack": o.variant.attack.id,
            "mutator": o.variant.mutator.id,
            "category": o.variant.attack.category,
            "severity": o.variant.attack.severity,
            "detector": o.variant.attack.detector,
            "probes": len(o.variant.probes),
            "attempts_answered": len(o.answered),
            "attempts_succeeded": len(o.succeeded),
            "errors": o.errors,
            "success": bool(o.succeeded),
            "found_by": list(o.found_by),
            "finding_severity": o.severity if o.succeeded else None,
        }  # fmt: skip
        for o in outcomes
    ]
    return {
        "schema": SCHEMA,
        "project": config.project.name,
        "kit": config.project.kit,
        "created_at": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "ragcard_version": __version__,
        "config": {
            **frozen,
            "delivery": _delivery_block(delivery),
            "attempts": attempts,
            "controls_asked": len(plan.controls),
        },  # fmt: skip
        "measures": measures,
        "success_by_category": judged.by_category,
        "detectors": judged.false_positives,
        "variants": variants,
        "untested": [o.variant.id for o in outcomes if not o.answered],
        "skipped": [
            {"attack": s.attack, "category": s.category, "reason": s.reason} for s in plan.skipped
        ],  # fmt: skip
        "errors": {"attempts": sum(judged.errors.values()), "by_kind": dict(judged.errors)},
        "integrity": integrity,
        **({"extraction": note} if (note := extraction_note(plan, declared)) else {}),
    }


def annotate_lines(
    plan: Plan, lines: dict[tuple[str, int], dict[str, Any]], judged: Judged
) -> tuple[dict[tuple[str, int], dict[str, Any]], list[dict[str, Any]]]:
    """The recorded lines with their verdicts, and one line per judged detector's
    false-positive rate (``kind = "detector"``)."""
    annotated = {key: dict(line) for key, line in lines.items()}
    for outcome in judged.outcomes:
        variant = outcome.variant
        for (number, attempt), found in outcome.detections.items():
            line = annotated.get((variant.item_id(number), attempt))
            if line is None:
                continue
            line.update(
                variant=variant.id, attack=variant.attack.id, mutator=variant.mutator.id,
                category=variant.attack.category, severity=variant.attack.severity,
                detection={"detector": variant.attack.detector, "success": found.success,
                           "judged_by": found.judged_by, "joint": variant.attack.joint,
                           "evidence": found.evidence},
            )  # fmt: skip
        for (number, attempt), others in outcome.also.items():
            line = annotated.get((variant.item_id(number), attempt))
            if line is None:
                continue
            line.setdefault("variant", variant.id)
            line["also_found"] = {
                name: {"success": True, "judged_by": d.judged_by, "evidence": d.evidence}
                for name, d in others.items()
            }
    for (item, attempt), verdicts in judged.control_verdicts.items():
        if (item, attempt) in annotated:
            annotated[(item, attempt)]["false_positive"] = verdicts
    extra = [
        {
            "schema": SCHEMA,
            "kind": "detector",
            "item": f"detector:{name}",
            "attempt": 0,
            "detector": name,
            **entry,
        }  # fmt: skip
        for name, entry in judged.false_positives.items()
    ]
    return annotated, extra


def _finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "id": finding.id, "attack": finding.attack, "mutator": finding.mutator,
        "category": finding.category, "severity": finding.severity, "status": finding.status,
        "reason": finding.reason, "by": finding.by, "detector": finding.detector,
        "judged_by": finding.judged_by, "first_run": finding.first_run,
        "last_run": finding.last_run, "evidence": finding.evidence,
    }  # fmt: skip


def decide(
    summary: dict[str, Any], run_id: str, findings: Sequence[Finding],
    changes: list[dict[str, str]], thresholds: Thresholds,
) -> dict[str, Any]:  # fmt: skip
    """Add the findings and the verdict: thresholds on ``redteam_*`` measures when the
    thresholds file has any (else ``redteam_critical_open <= 0``), every variant tested, the
    corpus and index untouched."""
    critical = [f for f in findings if f.severity == "critical"]
    still_open = sum(1 for f in critical if f.status == "open")
    measures = measures_from_summary(summary, still_open, len(critical), {"run": run_id})
    summary["measures"]["redteam_critical_open"] = _measure_json(
        measures.values["redteam_critical_open"]
    )
    ours = tuple(t for t in thresholds.items if t.measure.startswith("redteam_"))
    reasons: list[str] = []
    if ours:
        subset = Thresholds(thresholds.path, ours, thresholds.sha256)
        verdict = decide_thresholds(subset, measures.values, measures.breakdowns,
                                    REDTEAM_SPECS)  # fmt: skip
        reasons += list(verdict.reasons)
        summary["thresholds"] = [r.to_json() for r in verdict.results]
    elif still_open:
        reasons.append(f"{still_open} critical finding(s) open")
    if summary["untested"]:
        reasons.append(f"{len(summary['untested'])} attack variant(s) never answered")
    if summary["integrity"]["changed"]:
        reasons.append(
            "files changed during the run: " + ", ".join(summary["integrity"]["changed"])
        )
    summary.update(
        run_id=run_id,
        findings=[_finding_json(f) for f in findings],
        changes=changes,
        decision="hold" if reasons else "pass",
        decision_reasons=reasons,
    )
    return summary


def _measure_json(value: MetricValue | Unscored) -> dict[str, Any]:
    return value.to_json() if isinstance(value, MetricValue) else {"unscored": value.reason}


def _rate(entry: Mapping[str, Any]) -> str:
    if "value" not in entry:
        return f"not scored: {entry.get('unscored', '')}"
    low, high = entry.get("ci") or (entry["value"], entry["value"])
    return f"{entry['value']:.3f} [{low:.3f}, {high:.3f}] (n={entry['n']})"


def evidence_text(evidence: Mapping[str, Any]) -> str:
    """A finding's redacted evidence in one line."""
    parts = []
    for leak in evidence.get("leaks", []):
        parts.append(f"{leak['id']} ({', '.join(leak['channels'])})")
    if evidence.get("found"):
        parts.append(f"canary {evidence.get('canary')} in the answer")
    for response in evidence.get("responses", []):
        if response.get("engaged"):
            parts.append(f"answered with flag {response.get('flag')!s}, expected "
                         f"{' or '.join(response.get('expected', []))}")  # fmt: skip
    parts += [
        f"{e['kind']} {e.get('year') or e.get('id')}" for e in evidence.get("after_cutoff", [])
    ]
    parts += [f"phrase “{p}”" for p in evidence.get("phrases", [])]
    parts += [
        f"{e.get('kind')} {e.get('id') or e.get('value')}" for e in evidence.get("superseded", [])
    ]
    if evidence.get("secrets_revealed"):
        parts.append(f"secret(s) #{', #'.join(map(str, evidence['secrets_revealed']))} revealed")
    if evidence.get("instructions_reproduced"):
        files = sorted({str(e.get("file")) for e in evidence["instructions_reproduced"]})
        parts.append(f"instruction text reproduced ({', '.join(files)})")
    for name, other in (evidence.get("also") or {}).items():
        parts.append(f"also {name}: {evidence_text(other)}")
    return "; ".join(parts) or "—"


def _measure_rows(summary: Mapping[str, Any]) -> list[str]:
    rows = ["| Measure | Result |", "|---|---|"]
    for name, entry in summary["measures"].items():
        if name == BREAKDOWN:
            shown = _rate(entry)
        elif "value" in entry:
            shown = f"{entry['value']:g} of {entry['n']}"
        else:
            shown = f"not scored: {entry.get('unscored')}"
        rows.append(f"| `{name}` | {shown} |")
    return rows


def _category_rows(summary: Mapping[str, Any]) -> list[str]:
    rows = ["| Category | Success rate | Variants | Succeeded |", "|---|---|---|---|"]
    for category, entry in summary["success_by_category"].items():
        cells = (category, _rate(entry), entry.get("variants"), entry.get("succeeded"))
        rows.append("| " + " | ".join(map(str, cells)) + " |")
    return rows


def detector_cells(entry: Mapping[str, Any]) -> tuple[str, str]:
    """A judged detector's false positives on the benign controls, and their rate with its
    interval (or why it was not measured), as the reports show them."""
    if "rate" not in entry:
        return "—", f"not measured: {entry.get('unscored')}"
    count = f"{entry['false_positives']} of {entry['controls']}"
    return count, f"{entry['rate']:.3f} [{entry['ci'][0]:.3f}, {entry['ci'][1]:.3f}]"


def _detector_rows(summary: Mapping[str, Any]) -> list[str]:
    rows = ["| Detector | False positives | Rate |", "|---|---|---|"]
    for name, entry in summary["detectors"].items():
        count, rate = detector_cells(entry)
        rows.append(f"| {name} | {count} | {rate} |")
    return rows


def _finding_rows(summary: Mapping[str, Any]) -> list[str]:
    if not summary["findings"]:
        return ["No finding."]
    rows = ["| Id | Severity | Status | Attack | Wrapper | Evidence |", "|---|---|---|---|---|---|"]
    for f in summary["findings"]:
        evidence = evidence_text(f["evidence"]).replace("|", "\\|")
        if f.get("judged_by"):
            evidence += f" (judged: {f['judged_by']})"
        cells = (f["id"], f["severity"], f["status"], f["attack"], f["mutator"], evidence)
        rows.append("| " + " | ".join(cells) + " |")
    return [
        *rows,
        "",
        'Close one with `ragcard redteam triage ID --status fixed|accepted --reason "…" --by '
        "NAME`; a later run reopens a fixed finding whose attack succeeds again.",
    ]


def _extraction_lines(summary: Mapping[str, Any]) -> list[str]:
    note = summary.get("extraction") or {}
    if note.get("judged_by") != "phrases":
        return []
    return [f"**Note:** {note['note']}.", ""]


def render_markdown(summary: Mapping[str, Any]) -> str:
    """``redteam.md``: verdict, measures, success by category, detectors, findings."""
    verdict = f"**{summary['decision'].upper()}**"
    if summary["decision"] != "pass":
        verdict += " — " + "; ".join(summary["decision_reasons"])
    config = summary["config"]
    out = [
        f"# ragcard red team — {summary['project']}",
        "",
        verdict,
        "",
        f"Run {summary['run_id']} · {summary['created_at']} · attempts per variant "
        f"{config['attempts']} · ragcard {summary['ragcard_version']}",
        "",
        *_extraction_lines(summary),
        *_measure_rows(summary),
        "",
        "## Attack success rate by category",
        "",
        "Per variant (attack × wrapper), the share of its attempts that succeeded; the mean over "
        "variants, with a 95% Wilson interval over variants.",
        "",
        *_category_rows(summary),
        "",
        "## Judged detectors on benign controls",
        "",
        "Ordinary questions of the question set, asked as written: a judged detector firing on "
        "one is a false positive.",
        "",
        *_detector_rows(summary),
        "",
        "## Findings",
        "",
        *_finding_rows(summary),
    ]
    if summary["skipped"]:
        out += ["", "## Attacks not run", ""]
        out += [f"- `{s['attack']}`: {s['reason']}" for s in summary["skipped"]]
    integrity = summary["integrity"]
    changed = integrity["changed"]
    state = "**changed: " + ", ".join(changed) + "**" if changed else "byte-identical."
    out += [
        "",
        "## Corpus and index",
        "",
        f"{len(integrity['checked'])} file(s) fingerprinted before and after the run: {state}",
        "",
        "Evidence holds ids, channels, flags, counts and hashes, never restricted text; "
        "`redteam.jsonl` keeps the raw answers: treat it as restricted.",
        "",
    ]
    return "\n".join(out)
