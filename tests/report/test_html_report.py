"""``ragcard report RUN --html``: one self-contained file — every section rendered in a real
headless Chromium with no network, hostile text escaped in every field, restricted text
redacted — and the persona eval report with every field of the template."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.pipeline.evaluation import load_inputs, score_responses
from ragcard.report.persona import FIELDS
from ragcard.report.run_report import WITHHELD, build_run_report

runner = CliRunner()
#: Tries to run script, to fetch, and to break out of attributes and tags.
EVIL = "<script>document.title='PWNED'</script><img src=x onerror=\"document.title='PWNED2'\">'\"&"
SECTIONS = ("decision", "gates", "measures", "categories", "latency", "recall", "baseline",
            "failures", "review", "human", "redteam")  # fmt: skip


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _hostile_run(folder: Path, name: str, answer_tail: str = "") -> Path:
    """A scored run whose every text field carries EVIL."""
    inputs = folder / f"{name}-inputs"
    inputs.mkdir(parents=True)
    corpus = _write(inputs / "corpus.jsonl", [
        {"id": "P1", "doc": f"doc {EVIL}", "section": EVIL, "text": f"Leave is 25 days. {EVIL}"},
        {"id": "P2", "doc": "pay", "text": "Pay day is the 25th."},
        {"id": "SECRET", "doc": "hr-only", "text": "Salary bands are confidential: 9000.",
         "access": ["hr"]},
    ])  # fmt: skip
    questions = _write(inputs / "questions.jsonl", [
        {"id": f"Q1{EVIL}", "question": f"how much leave? {EVIL}", "gold": ["P1"],
         "category": f"typical{EVIL}", "expected_answer": f"25 days {EVIL}"},
        {"id": "Q2", "question": "when is pay day?", "gold": ["P2"], "category": "typical"},
        {"id": "Q3", "question": "what are the salary bands?", "gold": [],
         "category": "unanswerable", "expected_flag": "not_in_record"},
        {"id": "Q4", "question": "do I get leave?", "gold": ["P1"], "category": "paraphrase",
         "must_pass": True},
    ])  # fmt: skip
    meta = {"model": f"model {EVIL}", "prompt_version": EVIL}
    responses = _write(inputs / "responses.jsonl", [
        {"item": f"Q1{EVIL}", "attempt": 1, "answer": f"It is 30 days {EVIL} [P1].{answer_tail}",
         "retrieved": ["P2", "P1"], "meta": meta, "latency_ms": 120, "flag": EVIL},
        {"item": "Q2", "attempt": 1, "answer": "The 25th [P2].", "retrieved": ["P2"],
         "meta": meta, "latency_ms": 80},
        {"item": "Q3", "attempt": 1, "answer": "The bands are 9000.", "retrieved": ["SECRET"],
         "citations": ["SECRET"], "meta": meta, "latency_ms": 300},
        {"item": "Q4", "attempt": 1, "answer": "Yes [P1].", "retrieved": ["P1"], "meta": meta,
         "latency_ms": 150, "first_token_ms": 40},
    ])  # fmt: skip
    thresholds = inputs / "thresholds.toml"
    thresholds.write_text(
        f'[[threshold]]\nmeasure = "recall@5"\ncomparison = ">="\nvalue = 0.9\ntype = "graded"\n'
        f"reason = {json.dumps('recall ' + EVIL)}\nowner = {json.dumps(EVIL)}\n\n"
        '[[threshold]]\nmeasure = "access_leaks"\ncomparison = "<="\nvalue = 0\n'
        'type = "must-pass"\nreason = "no leaks"\n',
        encoding="utf-8",
    )
    out = folder / name
    score_responses(load_inputs(questions, corpus, thresholds), responses, out,
                    project=f"Project {EVIL}", run_date=None)  # fmt: skip
    return out


def _decorate(run: Path) -> None:
    """A blind-review block and a red-team block, as those stages write them, with EVIL."""
    card_path = run / "scorecard.json"
    card = json.loads(card_path.read_text())
    card["review"] = {
        "line": f"blind review {EVIL}", "packet": EVIL, "imported_at": "2026-12-01",
        "imported_by": EVIL, "reviewers": [EVIL],
        "wrong": [{"item": EVIL, "category": EVIL, "reviewers": [EVIL], "comments": [EVIL],
                   "action": {"action": "rule", "by": EVIL, "why": EVIL}}],
    }  # fmt: skip
    card["human_baseline"] = {"line": f"human baseline {EVIL}", "measures": [
        {"name": "pass_rate", "people": 0.9, "agent": 0.5, "n": 4, "verdict": EVIL}]}
    card["redteam"] = {"findings": [{"attack": EVIL, "severity": "critical", "status": "open",
                                     "evidence": EVIL}]}  # fmt: skip
    card_path.write_text(json.dumps(card), encoding="utf-8")


@pytest.fixture
def hostile_report(tmp_path: Path) -> Path:
    base = _hostile_run(tmp_path, "base", answer_tail=" Also 30.")
    run = _hostile_run(tmp_path, "run")
    _decorate(run)
    result = runner.invoke(app, ["report", str(run), "--html", "--baseline", str(base)])
    assert result.exit_code == 0, result.output
    return run / "report.html"


def test_report_escapes_hostile_text_and_redacts_restricted_text(hostile_report: Path) -> None:
    html = hostile_report.read_text(encoding="utf-8")
    assert "<script>document.title" not in html and "<img src=x" not in html
    assert html.count("&lt;script&gt;document.title=") >= 15  # every field, escaped
    assert "Salary bands are confidential" not in html  # restricted passage text
    assert "The bands are 9000." not in html and WITHHELD in html  # the leaking answer
    assert "restricted passage (roles: hr): text redacted" in html
    # one script, the filter, allowed by its hash; nothing may be fetched
    assert len(re.findall(r"<script\b", html)) == 1
    assert re.search(r"default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-", html)
    assert not re.search(r"(src|href)=\"(https?:)?//", html)


def test_recall_curve_matches_the_scorecard(tmp_path: Path) -> None:
    run = _hostile_run(tmp_path, "run")
    report = build_run_report(run)
    card = json.loads((run / "scorecard.json").read_text())
    (k5,) = [v for k, v, _n in report.recall_curve if k == 5]
    assert k5 == pytest.approx(card["metrics"]["recall@5"]["value"])
    assert [round(v, 3) for _k, v, _n in report.recall_curve][:2] == [0.667, 1.0]  # rank 2 on Q1
    assert report.failures_total == len(card["failures"])


def test_report_renders_every_section_in_chromium_without_network(
    hostile_report: Path, browser: Any, artifacts: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(hostile_report.as_uri())
    title = f"ragcard report — Project {EVIL}"
    assert browser.title == title  # the payload is shown as text; had it run, it would be PWNED
    for section in SECTIONS:
        element = browser.find_element(By.ID, section)
        assert element.is_displayed() and element.text.strip(), section
        browser.execute_script("arguments[0].scrollIntoView()", element)
        element.screenshot(str(artifacts / f"{section}.png"))
    text = browser.find_element(By.TAG_NAME, "body").text
    assert EVIL.split("<img")[0] in text  # the literal text reaches the reader
    assert len(browser.find_elements(By.CSS_SELECTOR, "#measures svg")) >= 5
    assert browser.find_elements(By.CSS_SELECTOR, "#latency svg rect")
    assert browser.find_elements(By.CSS_SELECTOR, "#recall polyline")
    assert browser.find_elements(By.CSS_SELECTOR, "#baseline tr.delta")
    # the failures filter works
    rows = browser.find_elements(By.CSS_SELECTOR, "details.failure")
    count = browser.find_element(By.ID, "f-count")
    assert count.text == f"{len(rows)} of {len(rows)} shown"
    assert len(rows) >= 2
    Select(browser.find_element(By.ID, "f-category")).select_by_value("unanswerable")
    shown = [r for r in rows if r.is_displayed()]
    assert len(shown) == 1 and count.text == f"1 of {len(rows)} shown"
    assert "Q3" in shown[0].text
    Select(browser.find_element(By.ID, "f-category")).select_by_value("")
    Select(browser.find_element(By.ID, "f-layer")).select_by_value("access")
    assert all("Q3" in r.text for r in rows if r.is_displayed())
    Select(browser.find_element(By.ID, "f-layer")).select_by_value("")
    browser.find_element(By.ID, "f-text").send_keys("pay day")
    assert count.text == f"0 of {len(rows)} shown" or "1 of" in count.text
    rows[0].click()
    browser.find_element(By.ID, "failures").screenshot(str(artifacts / "failures-open.png"))
    # nothing was fetched but the file itself, nothing was blocked, nothing ran
    logs = [json.loads(e["message"])["message"] for e in browser.get_log("performance")]
    urls = {m["params"]["request"]["url"] for m in logs
            if m["method"] == "Network.requestWillBeSent"}  # fmt: skip
    own = ("chrome://", "chrome-untrusted://", "data:")  # the browser's start page; inline
    assert {u for u in urls if not u.startswith(own)} == {hostile_report.as_uri()}, urls
    console = browser.get_log("browser")
    assert not [e for e in console if "Content Security Policy" in e["message"]], console
    assert browser.execute_script("return document.title") == title


def test_persona_report_has_every_field_of_the_template(
    hostile_report: Path, browser: Any, artifacts: Path
) -> None:
    run = hostile_report.parent
    result = runner.invoke(app, ["report", str(run), "--persona", "--html"])
    assert result.exit_code == 0, result.output
    md = (run / "eval-report.md").read_text(encoding="utf-8")
    positions = [md.index(f"**{name}**") if f"**{name}**" in md else md.index(f"## {name}")
                 for name in FIELDS]  # fmt: skip
    assert positions == sorted(positions)  # the template's order
    assert "blind review &lt;script&gt;" in md and "<script>" not in md  # escaped there too
    assert "**Red team**: red team: 1 finding(s), 1 critical open" in md
    page = run / "eval-report.html"
    html = page.read_text(encoding="utf-8")
    assert "<script>" not in html
    browser.get(page.as_uri())
    from selenium.webdriver.common.by import By

    rows = browser.find_elements(By.CSS_SELECTOR, "tr.field")
    assert [r.get_attribute("data-field") for r in rows] == list(FIELDS)
    assert all(r.text.strip() for r in rows)
    browser.find_element(By.ID, "fields").screenshot(str(artifacts / "persona-report.png"))


def test_report_refusals_exit_2(tmp_path: Path) -> None:
    run = _hostile_run(tmp_path, "run")
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    none = runner.invoke(app, ["report", str(run), "--baseline", "shipped", "--db", db])
    assert none.exit_code == 2 and "no shipped run" in none.output
    moved = Path(json.loads((run / "scorecard.json").read_text())["config"]["questions"]["path"])
    moved.rename(moved.with_name("elsewhere.jsonl"))
    gone = runner.invoke(app, ["report", str(run)])
    assert gone.exit_code == 2 and "file not found" in gone.output
    again = runner.invoke(app, ["report", str(run), "--questions",
                                str(moved.with_name("elsewhere.jsonl"))])  # fmt: skip
    assert again.exit_code == 0, again.output
    assert not runner.invoke(app, ["report", str(tmp_path / "nope")]).exit_code == 0
