"""The red-team report and findings on the terminal (rich)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ragcard.redteam.report import detector_cells, evidence_text
from ragcard.redteam.store import Finding

__all__ = ["findings_table", "print_summary"]

_SEVERITY = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "dim"}
_STATUS = {"open": "bold red", "fixed": "green", "accepted": "yellow"}


def _rate(entry: Mapping[str, Any]) -> str:
    if "value" not in entry:
        return f"not scored: {entry.get('unscored', '')}"
    low, high = entry.get("ci") or (entry["value"], entry["value"])
    return f"{entry['value']:.3f} [{low:.3f}, {high:.3f}] (n={entry['n']})"


def findings_table(findings: Sequence[Finding] | Sequence[Mapping[str, Any]], title: str) -> Table:
    """Findings: id, severity, status, attack · wrapper, and why (triage reason or evidence)."""
    table = Table(title=escape(title), title_justify="left")
    table.add_column("Id", no_wrap=True)
    for column in ("Severity", "Status", "Attack · wrapper", "Why"):
        table.add_column(column, overflow="fold")
    for found in findings:
        f = found if isinstance(found, Mapping) else _as_dict(found)
        why = f.get("reason") or evidence_text(f.get("evidence") or {})
        if f.get("judged_by"):
            why += f" (judged: {f['judged_by']})"
        table.add_row(
            escape(f["id"]),
            f"[{_SEVERITY.get(f['severity'], '')}]{escape(f['severity'])}[/]",
            f"[{_STATUS.get(f['status'], '')}]{escape(f['status'])}[/]",
            escape(f"{f['attack']} · {f['mutator']}"),
            escape(why),
        )
    return table


def _as_dict(finding: Finding) -> dict[str, Any]:
    return {name: getattr(finding, name) for name in Finding.__slots__}


def print_summary(summary: Mapping[str, Any], console: Console | None = None) -> None:
    """Measures, success by category, judged detectors on controls, findings, verdict."""
    console = console or Console(soft_wrap=True)
    console.rule(escape(f"ragcard red team · {summary['project']}"))
    measures = Table(title="Red-team measures", title_justify="left")
    measures.add_column("Measure")
    measures.add_column("Result")
    for name, entry in summary["measures"].items():
        shown = _rate(entry) if "ci" in entry else (
            f"{entry['value']:g} of {entry['n']}" if "value" in entry
            else f"not scored: {entry.get('unscored')}")  # fmt: skip
        measures.add_row(escape(name), escape(shown))
    console.print(measures)
    categories = Table(title="Attack success rate by category (95% Wilson, over variants)",
                       title_justify="left")  # fmt: skip
    for column in ("Category", "Success rate", "Variants", "Succeeded"):
        categories.add_column(column)
    for category, entry in summary["success_by_category"].items():
        categories.add_row(escape(category), escape(_rate(entry)), str(entry.get("variants")),
                           str(entry.get("succeeded")))  # fmt: skip
    console.print(categories)
    detectors = Table(title="Judged detectors on benign controls (false positives)",
                      title_justify="left")  # fmt: skip
    for column in ("Detector", "False positives", "Rate"):
        detectors.add_column(column)
    for name, entry in summary["detectors"].items():
        count, rate = detector_cells(entry)
        detectors.add_row(escape(name), count, escape(rate))
    console.print(detectors)
    if summary["findings"]:
        console.print(findings_table(summary["findings"], "Findings of the project"))
    for skipped in summary["skipped"]:
        console.print(f"[dim]not run: {escape(skipped['attack'])} — {escape(skipped['reason'])}[/]")
    errors = summary["errors"]
    if errors["attempts"]:
        console.print(f"[yellow]{errors['attempts']} attempt(s) failed: "
                      f"{escape(str(errors['by_kind']))}[/]")  # fmt: skip
    extraction = summary.get("extraction") or {}
    if extraction.get("judged_by") == "phrases":
        console.print(f"[yellow]Note: {escape(extraction['note'])}[/]")
    colour = "green" if summary["decision"] == "pass" else "red"
    console.print(f"[bold {colour}]Red team: {summary['decision'].upper()}[/]")
    for reason in summary["decision_reasons"]:
        console.print(f"  [{colour}]• {escape(reason)}[/]")
