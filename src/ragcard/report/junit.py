"""JUnit XML for a team's CI (``--junit FILE`` on ``run``, ``score`` and ``compare``).

The schema is the one GitHub's test reporters, GitLab and Jenkins read (the Jenkins xUnit
plugin's ``junit-10.xsd``; ``tests/report/test_junit.py`` validates against it):
``<testsuites>`` of ``<testsuite name tests failures errors skipped time>`` of
``<testcase classname name time>``, a failing case holding ``<failure message type>`` with the
evidence as text.

A run gives two suites: one test case per threshold (a missed or unscored threshold is a
failure: it holds the decision) and one per must-pass item (a failure when any attempt scored
a 0, with its symptoms, rubric zeros and agent error). A comparison gives one case per measure
(a regression is a failure) and one per must-pass item of the current run (a failure when it
went from pass to fail). Like ``scorecard.md``, it names passage ids and symptoms, never the
answers' text (``results.jsonl`` keeps that, and is restricted).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcard.decision.baseline import Comparison
from ragcard.errors import ConfigError
from ragcard.report.comparison import format_measure

__all__ = ["TestCase", "comparison_suites", "run_suites", "write_junit"]


@dataclass(frozen=True, slots=True)
class TestCase:
    """One ``<testcase>``: passed when ``failure`` is None."""

    __test__ = False  # not a pytest class, whatever its name

    classname: str
    name: str
    failure: str | None = None  # the one-line message
    kind: str = "failure"  # the failure's type attribute
    text: str = ""  # the evidence


@dataclass(frozen=True, slots=True)
class Suite:
    name: str
    cases: list[TestCase] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)


def _value(result: dict[str, Any] | None, kind: str | None = None) -> str:
    """A result rounded as the scorecard's tables round it (MetricValue.shown)."""
    if not result:
        return "not scored"
    value = float(result["value"])
    text = (f"{value:g}" if kind == "count" else f"{value:.0f} ms" if kind == "quantile"
            else f"{value:.3f}")  # fmt: skip
    if result.get("ci"):
        text += f" [{result['ci'][0]:.3f}, {result['ci'][1]:.3f}]"
    return text + f" (n={result['n']})"


def _read(folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        card = json.loads((folder / "scorecard.json").read_text(encoding="utf-8"))
        lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
        return card, [json.loads(line) for line in lines if line.strip()]
    except (OSError, ValueError) as error:
        raise ConfigError(f"{folder}: not a ragcard run folder for --junit ({error})") from None


def _threshold_cases(card: dict[str, Any]) -> list[TestCase]:
    layers = {name: spec.get("layer") for name, spec in card.get("metric_specs", {}).items()}
    kinds = {name: spec.get("kind") for name, spec in card.get("metric_specs", {}).items()}
    cases = []
    for t in card.get("thresholds", []):
        measure = str(t["measure"])
        name = f"{measure} {t['comparison']} {t['value']:g} ({t['type']})"
        if t["status"] == "met":
            cases.append(TestCase(f"ragcard.thresholds.{t['type']}", name))
            continue
        line = f"threshold {t['comparison']} {t['value']:g}"
        if t["status"] == "missed":
            shown = _value(t.get("result"), kinds.get(measure.split("[", 1)[0]))
            message = f"{measure} missed: got {shown}; {line}"
        elif t["status"] == "not_distinguishable":  # partial (ragcard.aggregation.coverage)
            message = f"{measure} not distinguishable: {t.get('note')}; {line}"
        else:  # unscored: it holds the decision (what was not measured cannot ship)
            message = f"{measure} not scored: {t.get('unscored_reason')}; {line}"
        layer = layers.get(measure.split("[", 1)[0])
        causes = [c for c in card.get("diagnosis", []) if c.get("layer") == layer]
        evidence = [f"reason for the threshold: {t.get('reason')}"]
        evidence += [f"owner: {t['owner']}"] if t.get("owner") else []
        evidence += [
            f"{c['items']} item(s) — {c['cause']}; try: {c['try']}; e.g. "
            + ", ".join(c["examples"][:8])
            for c in causes
        ]
        cases.append(TestCase(f"ragcard.thresholds.{t['type']}", name, message, t["status"],
                              "\n".join(evidence)))  # fmt: skip
    return cases


def _item_cases(lines: list[dict[str, Any]]) -> list[TestCase]:
    attempts: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        if line.get("must_pass"):
            attempts.setdefault(str(line["item"]), []).append(line)
    cases = []
    for item, tries in attempts.items():
        classname = f"ragcard.must_pass.{tries[0].get('category') or 'uncategorised'}"
        zeros = [x for x in tries if x.get("scores", {}).get("must_pass_zeros") or x.get("error")]
        if not zeros:
            cases.append(TestCase(classname, item))
            continue
        evidence = []
        for x in sorted(zeros, key=lambda x: int(x.get("attempt", 0))):
            why = x.get("evidence", {}).get("rubric_zero") or []
            symptoms = [d.get("symptom", "") for d in x.get("diagnosis") or []]
            error = (x.get("error") or {}).get("message")
            said = [*why, *symptoms, *([f"error: {error}"] if error else [])]
            evidence.append(f"attempt {x.get('attempt')}: " + "; ".join(said))
        message = f"{item}: a 0 in {len(zeros)} of {len(tries)} attempt(s): " + (
            "; ".join(zeros[0].get("evidence", {}).get("rubric_zero") or ["agent failed"])
        )
        cases.append(TestCase(classname, item, message, "rubric zero", "\n".join(evidence)))
    return cases


def run_suites(folder: str | Path) -> list[Suite]:
    """The suites of a run folder (``scorecard.json`` and ``results.jsonl``)."""
    card, lines = _read(Path(folder))
    properties = {
        "decision": str(card.get("decision")),
        "project": str(card.get("project")),
        "corpus": str(card.get("config", {}).get("corpus", {}).get("version")),
        "questions": str(card.get("config", {}).get("questions", {}).get("version")),
        "judge": str(card.get("config", {}).get("judge", {}).get("name")),
    }
    project = card.get("project") or "ragcard"
    return [
        Suite(f"{project}: thresholds", _threshold_cases(card), properties),
        Suite(f"{project}: must-pass items", _item_cases(lines)),
    ]


def comparison_suites(comparison: Comparison, current: str | Path | None = None) -> list[Suite]:
    """The regression gate as suites: one case per measure, one per must-pass item of the
    current run (its folder, ``current``, lists them; without it, the flipped ones)."""
    cases = []
    for m in comparison.measures:
        base, now, delta, ci, p = format_measure(m)
        name = f"{m.name} ({'higher' if m.higher_is_better else 'lower'} is better)"
        if m.verdict != "regressed":
            cases.append(TestCase("ragcard.gate.measures", name))
            continue
        message = f"{m.name} regressed: {base} → {now} (Δ {delta}, 95% CI {ci}, p {p})"
        evidence = [m.reason, *(["newly counted: " + ", ".join(m.items)] if m.items else [])]
        cases.append(TestCase("ragcard.gate.measures", name, message, "regressed",
                              "\n".join(evidence)))  # fmt: skip
    flips = {f.item: f for f in comparison.flips if f.must_pass}
    items: Iterable[tuple[str, str | None]] = [(f.item, f.category) for f in flips.values()]
    if current is not None:
        _, lines = _read(Path(current))
        items = {str(x["item"]): x.get("category") for x in lines if x.get("must_pass")}.items()
    for item, category in items:
        classname = f"ragcard.gate.must_pass.{category or 'uncategorised'}"
        flip = flips.get(item)
        if flip is None or not flip.regressed:
            cases.append(TestCase(classname, item))
            continue
        message = f"{item}: pass→fail against the baseline: " + "; ".join(flip.symptoms)
        cases.append(TestCase(classname, item, message, "regressed", "\n".join(flip.symptoms)))
    properties = {
        "gate": comparison.gate,
        "baseline": comparison.baseline.path,
        "current": comparison.current.path,
    }
    return [Suite("ragcard regression gate", cases, properties)]


def _suite_element(suite: Suite) -> ET.Element:
    failures = sum(1 for c in suite.cases if c.failure is not None)
    element = ET.Element(
        "testsuite",
        {"name": suite.name, "tests": str(len(suite.cases)), "failures": str(failures),
         "errors": "0", "skipped": "0", "time": "0"},
    )  # fmt: skip
    if suite.properties:
        properties = ET.SubElement(element, "properties")
        for key, value in suite.properties.items():
            ET.SubElement(properties, "property", {"name": key, "value": value})
    for case in suite.cases:
        testcase = ET.SubElement(
            element, "testcase", {"classname": case.classname, "name": case.name, "time": "0"}
        )
        if case.failure is not None:
            failure = ET.SubElement(testcase, "failure", {"message": case.failure,
                                                          "type": case.kind})  # fmt: skip
            failure.text = case.text or case.failure
    return element


def write_junit(suites: list[Suite], path: str | Path) -> Path:
    """Write ``suites`` as one JUnit XML file (UTF-8); a folder on the way is created."""
    root = ET.Element("testsuites", {"name": "ragcard"})
    for suite in suites:
        root.append(_suite_element(suite))
    root.set("tests", str(sum(len(s.cases) for s in suites)))
    root.set("failures", str(sum(1 for s in suites for c in s.cases if c.failure is not None)))
    root.set("errors", "0")
    root.set("time", "0")
    ET.indent(root)
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    except OSError as error:
        raise ConfigError(f"--junit {path}: cannot write it ({error})") from None
    return path
