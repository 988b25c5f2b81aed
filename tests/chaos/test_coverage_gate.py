"""The issue's 95%-failing agent: before, exit 0 SHIP on the 5% that answered; now HOLD with the
failure count, and each measure says on how many of its items it was computed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chaos_support import NO_FAILURES, SHIP_THRESHOLDS, callable_agent, make_project
from typer.testing import CliRunner

from ragcard._cli.main import app

runner = CliRunner()


@pytest.mark.parametrize("gate", ["template", "none"])
def test_an_agent_failing_95_percent_holds_with_the_failure_count(
    tmp_path: Path, gate: str
) -> None:
    thresholds = SHIP_THRESHOLDS + (NO_FAILURES if gate == "template" else "")
    project = make_project(tmp_path / "p", callable_agent(seed=3, bug_rate=0.95),
                           questions=170, thresholds=thresholds, run={"concurrency": 16})
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(project), "--out", str(out), "--no-progress",
                                 "--eval-dir", str(tmp_path / "eval")])
    assert result.exit_code == 1, result.output  # HOLD, not a crash and not SHIP
    card = json.loads((out / "scorecard.json").read_text())
    failed = card["coverage"]["failed_attempts"]
    assert 150 < failed < 170 and card["coverage"]["attempts"] == 170
    line = f"{failed} of 170 item-attempts failed (agent_exception {failed})"
    assert any(line in reason for reason in card["decision_reasons"]), card["decision_reasons"]
    recall = card["metrics"]["recall@5"]
    assert recall["value"] == 1.0 and recall["coverage"] == {"of": 170, "missing": failed}
    statuses = {t["measure"]: t["status"] for t in card["thresholds"]}
    assert statuses["recall@5"] == "not_distinguishable"  # 1.000 on the survivors: not "met"
    assert statuses["access_leaks"] == "not_distinguishable"  # "0 of 25, met" before
    markdown = (out / "scorecard.md").read_text()
    assert "**Decision: HOLD**" in markdown and f"on {170 - failed} of 170 items" in markdown
