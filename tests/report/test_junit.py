"""``--junit FILE`` on run, score and compare: valid against the JUnit schema CI tools read
(the Jenkins xUnit plugin's junit-10.xsd, MIT, as pytest ships it), a test case per threshold
and per must-pass item, failures with their evidence."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
from typer.testing import CliRunner

from ragcard._cli.main import app

SCHEMA = xmlschema.XMLSchema(Path(__file__).resolve().parents[1] / "fixtures" / "junit-10.xsd")
runner = CliRunner()


def _score(mini: Path, out: Path, junit: Path, *extra: str) -> None:
    args = ["score", "-q", str(mini / "questions.jsonl"), "-c", str(mini / "corpus.jsonl"),
            "-r", str(mini / "responses.jsonl"), "-t", str(mini / "thresholds.toml"),
            "--out", str(out), "--run-date", "2026-01-01", "--quiet", "--junit", str(junit),
            *extra]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output  # the fixture holds


def _cases(path: Path) -> dict[str, ET.Element]:
    SCHEMA.validate(str(path))  # raises with the line and the rule broken
    return {f"{c.get('classname')}::{c.get('name')}": c for c in ET.parse(path).iter("testcase")}


def test_score_junit_has_a_case_per_threshold_and_must_pass_item(
    mini: Path, tmp_path: Path
) -> None:
    junit = tmp_path / "reports" / "junit.xml"
    _score(mini, tmp_path / "out", junit)
    cases = _cases(junit)
    thresholds = [k for k in cases if k.startswith("ragcard.thresholds.")]
    assert len(thresholds) == 4  # tests/fixtures/mini/thresholds.toml has four
    leaks = cases["ragcard.thresholds.must-pass::access_leaks <= 0 (must-pass)"]
    failure = leaks.find("failure")
    assert failure is not None and failure.get("type") == "missed"
    assert "got 1" in (failure.get("message") or "")
    assert "reason for the threshold: no leaks" in (failure.text or "")
    faithfulness = cases["ragcard.thresholds.graded::faithfulness >= 0.9 (graded)"]
    unscored = faithfulness.find("failure")
    assert unscored is not None and unscored.get("type") == "unscored"  # it holds: a failure
    assert "needs a judge" in (unscored.get("message") or "")
    items = {k.split("::")[1]: c for k, c in cases.items() if ".must_pass." in k}
    assert set(items) == {"Q1", "Q4"}  # the fixture's must-pass items
    q4 = items["Q4"].find("failure")
    assert q4 is not None and "answered where it should abstain" in (q4.text or "")
    assert items["Q1"].find("failure") is None
    root = ET.parse(junit).getroot()
    assert root.get("tests") == str(len(cases))
    assert int(root.get("failures") or 0) == sum(c.find("failure") is not None
                                                 for c in cases.values())  # fmt: skip


def test_compare_junit_has_a_case_per_measure_and_must_pass_item(
    mini: Path, tmp_path: Path
) -> None:
    _score(mini, tmp_path / "a", tmp_path / "a.xml")
    _score(mini, tmp_path / "b", tmp_path / "b.xml", "--judge", "lexical")
    junit = tmp_path / "gate.xml"
    result = runner.invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b"),
                                 "--junit", str(junit)])  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    cases = _cases(junit)
    assert "ragcard.gate.measures::recall@5 (higher is better)" in cases
    assert {k.split("::")[1] for k in cases if ".must_pass." in k} == {"Q1", "Q4"}


def test_run_junit_on_the_sample_project(tmp_path: Path) -> None:
    folder = tmp_path / "sample"
    assert runner.invoke(app, ["init", "--example", str(folder)]).exit_code == 0
    junit = tmp_path / "run.xml"
    result = runner.invoke(app, ["run", str(folder), "--no-progress", "--junit", str(junit)])
    assert result.exit_code in (0, 1), result.output
    cases = _cases(junit)
    assert {k.split("::")[1] for k in cases if ".must_pass." in k} == {"EX-01", "EX-05", "EX-09"}


def test_an_unwritable_junit_path_is_bad_input(mini: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    args = ["score", "-q", str(mini / "questions.jsonl"), "-c", str(mini / "corpus.jsonl"),
            "-r", str(mini / "responses.jsonl"), "-t", str(mini / "thresholds.toml"),
            "--out", str(tmp_path / "out"), "--quiet",
            "--junit", str(blocker / "x.xml")]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "--junit" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("bad", ['<testsuite name="x"/>', "<testsuites><testcase/></testsuites>"])
def test_the_schema_rejects_what_ci_tools_would_not_read(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "bad.xml"
    path.write_text(bad)
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        SCHEMA.validate(str(path))


def test_a_missed_value_is_rounded_as_the_scorecard_table_rounds_it() -> None:
    from ragcard.report.junit import _value

    assert _value({"value": 0.51449, "n": 104, "ci": [0.41, 0.61]}, "rate").startswith("0.514 [")
    assert _value({"value": 11, "n": 25}, "count") == "11 (n=25)"
    assert _value({"value": 84.6, "n": 417}, "quantile") == "85 ms (n=417)"
