"""The persona kit's eval report (``ragcard report RUN --persona``): the template's fields, in
its order — figure, date, the versions (corpus, prompt, LLM, judge, embeddings), the golden
set's size, the gates, the blind-review line, the red-team line, the changes since the last
report, and the decision with the sign-off of the CTO and the historian of record.

A field ragcard cannot fill says so ("not recorded"), never blank.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import jinja2

from ragcard.decision.governance import changes
from ragcard.errors import ConfigError
from ragcard.outputs.history import HistoryStore
from ragcard.report.loaded import read_scorecard
from ragcard.report.markdown import format_value, judge_summary
from ragcard.report.run_report import RunReport

__all__ = ["FIELDS", "PersonaFields", "persona_fields", "render_persona_html", "render_persona_md"]

#: The template's fields, in order (what both renderings show, and a test checks).
FIELDS = (
    "Figure", "Date", "Corpus version", "Prompt version", "LLM", "Judge", "Embeddings",
    "Golden set", "Gates", "Blind review", "Red team", "Changes since the last report",
    "Decision", "Signed — CTO", "Signed — historian of record",
)  # fmt: skip
_NOT_RECORDED = "not recorded"


@dataclass(frozen=True, slots=True)
class PersonaFields:
    values: dict[str, str]
    gates: list[dict[str, str]]
    changes: list[str]
    signatures: list[str]


def _figure(report: RunReport) -> str:
    programs = sorted({q.program for q in report.questions if q.program})
    project = str(report.card.header.get("project", ""))
    return f"{', '.join(programs)} ({project})" if programs else project or _NOT_RECORDED


def _golden(report: RunReport) -> str:
    q = report.card.config.get("questions", {})
    questions = report.questions
    splits = Counter(x.split for x in questions)
    categories = ", ".join(f"{c} {n}" for c, n in sorted(Counter(
        x.category or "uncategorised" for x in questions).items()))  # fmt: skip
    return (
        f"{q.get('n')} items, version {q.get('version')} (dev {splits.get('dev', 0)}, held-out "
        f"{splits.get('heldout', 0)}; {categories})"
    )


def _review_line(report: RunReport) -> str:
    if report.review:
        return str(report.review.get("line", ""))
    return "no blind review recorded for this run (ragcard review make / import)"


def _redteam_line(report: RunReport) -> str:
    rt = report.redteam
    if not rt:
        return "no red-team run recorded for this run"
    if rt.get("line"):
        return str(rt["line"])
    measures = rt.get("measures", {})
    parts = [
        f"{name.removeprefix('redteam_').replace('_', ' ')} {m.get('value'):g}"
        for name, m in measures.items()
    ]
    findings = [f for f in rt.get("findings", []) if isinstance(f, dict)]
    if findings and not measures:
        critical = sum(f.get("severity") == "critical" and f.get("status") == "open"
                       for f in findings)  # fmt: skip
        parts.append(f"{len(findings)} finding(s), {critical} critical open")
    return "red team: " + (", ".join(parts) or "recorded")


def _changes(report: RunReport) -> list[str]:
    cmp = report.comparison
    if cmp is None:
        return [report.comparison_note or "first report: no earlier run to compare with"]
    found = [f"since {cmp.baseline.path} ({cmp.baseline.created_at}, {cmp.baseline.decision})"]
    before = read_scorecard(Path(cmp.baseline.path) / "scorecard.json")
    old = before.get("config", {}).get("frozen")
    new = report.card.config.get("frozen")
    if old and new:
        found += [f"configuration: {c}" for c in changes(old, new, ignore=("agent_settings",))]
    for m in cmp.measures:
        if m.verdict != "unchanged":
            found.append(f"{m.name}: {m.show(m.baseline)} → {m.show(m.current)} ({m.verdict})")
    regressed = [f.item for f in cmp.flips if f.regressed]
    fixed = [f.item for f in cmp.flips if not f.regressed]
    if regressed:
        found.append(f"pass→fail: {', '.join(regressed)}")
    if fixed:
        found.append(f"fail→pass: {', '.join(fixed)}")
    amended = report.card.header.get("amendments")
    if isinstance(amended, list):
        found += [f"label amended: {a.get('item')} ({', '.join(a.get('fields', []))}) by "
                  f"{a.get('by')}: {a.get('reason')}" for a in amended]  # fmt: skip
    if len(found) == 1:
        found.append("nothing changed")
    return found


def _signatures(report: RunReport, store: HistoryStore | None) -> list[str]:
    if store is None:
        return []
    try:
        entry = store.get(str(report.folder))
    except ConfigError:
        return []
    return [f"{s.signer} signed '{s.decision}' at {s.signed_at:%Y-%m-%d %H:%M} UTC"
            for s in store.signatures(entry.id)]  # fmt: skip


def persona_fields(report: RunReport, store: HistoryStore | None = None) -> PersonaFields:
    """The template's fields for ``report`` (signatures from ``store``, the run history)."""
    card, config = report.card, report.card.config
    agent = config.get("agent", {})
    decision = card.decision.decision.upper()
    if card.decision.reasons:
        decision += " — " + "; ".join(card.decision.reasons)
    values = {
        "Figure": _figure(report),
        "Date": f"{card.header.get('created_at', '')} (run date "
        f"{config.get('run', {}).get('run_date', '')})",
        "Corpus version": f"{config.get('corpus', {}).get('version')} "
        f"({config.get('corpus', {}).get('passages')} passages)",
        "Prompt version": str(agent.get("prompt_version") or _NOT_RECORDED),
        "LLM": str(agent.get("model") or _NOT_RECORDED),
        "Judge": judge_summary(config.get("judge", {})),
        "Embeddings": str(agent.get("embeddings") or _NOT_RECORDED),
        "Golden set": _golden(report),
        "Blind review": _review_line(report),
        "Red team": _redteam_line(report),
        "Decision": decision,
        "Signed — CTO": "____________________  date __________",
        "Signed — historian of record": "____________________  date __________",
    }
    gates = [
        {
            "measure": r.threshold.measure,
            "threshold": f"{r.threshold.comparison} {r.threshold.value:g}",
            "result": format_value(r.result),
            "status": r.status,
            "type": r.threshold.type,
        }
        for r in card.decision.results
    ]
    return PersonaFields(values, gates, _changes(report), _signatures(report, store))


def _md(text: str) -> str:
    """Text for a Markdown line: HTML-escaped (a renderer that passes raw HTML through shows
    it as text), pipes escaped for tables, on one line."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return escaped.replace("|", "\\|").replace("\n", " ")


def render_persona_md(fields: PersonaFields) -> str:
    """The eval report as Markdown, the template's fields in order."""
    v = fields.values
    out = [f"# Eval report — {_md(v['Figure'])}", ""]
    for name in FIELDS:
        if name == "Gates":
            out += ["", "## Gates", "", "| Measure | Threshold | Result | Type | Status |",
                    "|---|---|---|---|---|"]  # fmt: skip
            out += [f"| `{g['measure']}` | {g['threshold']} | {_md(g['result'])} | {g['type']} "
                    f"| {g['status']} |" for g in fields.gates]  # fmt: skip
            out.append("")
        elif name == "Changes since the last report":
            out += ["", "## Changes since the last report", ""]
            out += [f"- {_md(c)}" for c in fields.changes]
            out.append("")
        elif name == "Decision":
            out += ["", "## Decision", "", f"**{_md(v['Decision'])}**", ""]
            out += [f"- {_md(s)}" for s in fields.signatures] or ["- no signature recorded"]
            out.append("")
        else:
            out.append(f"- **{name}**: {_md(v[name])}")
    return "\n".join(out).replace("\n\n\n", "\n\n") + "\n"


_HTML = jinja2.Environment(
    loader=jinja2.PackageLoader("ragcard.report", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
)


def render_persona_html(fields: PersonaFields) -> str:
    """The eval report as a self-contained HTML page, the template's fields in order."""
    return _HTML.get_template("persona.html").render(
        v=fields.values,
        gates=fields.gates,
        changes=fields.changes,
        signatures=fields.signatures,
        fields_order=FIELDS,
    )
