"""Locked thresholds, overrides, stale inputs and history — through the CLI, on a copy of the
bundled handbook example."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "handbook"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    copy = tmp_path / "handbook"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("eval", "out", "*.sqlite"))
    config = copy / "ragcard.toml"  # keyword retrieval whether or not the embed extra is here
    options = "[agent.options]\nembeddings = false"
    config.write_text(config.read_text().replace("[agent.options]", options))
    return copy


def run(project: Path, out: str, *extra: str) -> object:
    return runner.invoke(app, ["run", str(project), "--out", str(project / out), "--attempts",
                               "1", "--no-progress", "--fresh", *extra])


def loosen(project: Path) -> None:
    path = project / "thresholds.toml"
    text = path.read_text()
    assert 'value = 0.90\ntype = "graded"' in text
    lowered = text.replace('value = 0.90\ntype = "graded"', 'value = 0.50\ntype = "graded"', 1)
    path.write_text(lowered)


def test_loosened_threshold_is_refused_then_overridden_in_red(project: Path) -> None:
    locked = runner.invoke(app, ["thresholds", "lock", str(project), "--by", "Ada"])
    assert locked.exit_code == 0, locked.output
    loosen(project)
    refused = run(project, "out1")
    assert refused.exit_code == 2
    assert "recall@5: lowered from 0.9 to 0.5" in refused.output
    assert "--override-thresholds" in refused.output
    assert not (project / "out1" / "scorecard.json").exists()
    forced = run(project, "out2", "--override-thresholds", "--reason", "pilot week",
                 "--by", "Bob")
    assert forced.exit_code in (0, 1), forced.output
    assert "THRESHOLDS LOOSENED" in forced.output
    card = json.loads((project / "out2" / "scorecard.json").read_text())
    assert card["override"]["by"] == "Bob" and card["override"]["reason"] == "pilot week"
    assert card["override"]["loosened"][0]["measure"] == "recall@5"
    assert "🔴 **THRESHOLDS LOOSENED" in (project / "out2" / "scorecard.md").read_text()
    raising = project / "thresholds.toml"
    raising.write_text(raising.read_text().replace("value = 0.50", "value = 0.95", 1))
    assert run(project, "out3").exit_code in (0, 1)  # raising the bar is always allowed


def test_override_needs_a_reason(project: Path) -> None:
    result = run(project, "out", "--override-thresholds")
    assert result.exit_code == 2 and "--reason" in result.output


def test_stale_names_what_changed(project: Path) -> None:
    assert runner.invoke(app, ["stale", str(project)]).exit_code == 1  # nothing recorded yet
    assert run(project, "out").exit_code in (0, 1)
    fresh = runner.invoke(app, ["stale", str(project)])
    assert fresh.exit_code == 0, fresh.output
    config = project / "ragcard.toml"
    config.write_text(config.read_text().replace('corpus_version = "handbook-2025.2"',
                                                 'corpus_version = "handbook-2025.3"'))
    stale = runner.invoke(app, ["stale", str(project)])
    assert stale.exit_code == 1
    assert "corpus version: handbook-2025.2 → handbook-2025.3" in stale.output


def test_history_and_ship(project: Path) -> None:
    assert run(project, "out").exit_code in (0, 1)
    listing = runner.invoke(app, ["history", str(project)])
    assert listing.exit_code == 0 and "hold" in listing.output.lower()
    shipped = runner.invoke(app, ["ship", str(project / "out"), "--by", "Ada", "--project",
                                  str(project)])
    # the reference agent's run is a HOLD: shipping it needs an override first
    assert shipped.exit_code == 2, shipped.output


def test_run_against_the_shipped_baseline_gates_a_regression(project: Path) -> None:
    thresholds = project / "thresholds.toml"  # a lenient gate so the clean run can ship
    thresholds.write_text('[[threshold]]\nmeasure = "access_leaks"\ncomparison = "<="\n'
                          'value = 0\ntype = "must-pass"\nreason = "no leaks"\n')
    assert run(project, "base").exit_code == 0
    shipped = runner.invoke(app, ["ship", str(project / "base"), "--by", "Ada", "--project",
                                  str(project)])
    assert shipped.exit_code == 0, shipped.output
    same = run(project, "same", "--baseline", "shipped")
    assert same.exit_code == 0, same.output
    stale = run(project, "stale", "--baseline", "shipped", "-o", 'faults=["keep_superseded"]')
    assert stale.exit_code == 1
    comment = (project / "stale" / "comparison.md").read_text()
    assert "regression gate: ❌ fail" in comment and "went from pass to fail: HB-01" in comment
    clobber = run(project, "base", "--baseline", "shipped")
    assert clobber.exit_code == 2 and "overwrite" in clobber.output


@pytest.mark.parametrize(
    ("edit", "change"),
    [("write_text('Answer freely.\\n')", "changed"), ("unlink(missing_ok=True)", "was removed")],
)
def test_a_declared_input_edited_during_the_run_holds_it(
    project: Path, monkeypatch: pytest.MonkeyPatch, edit: str, change: str
) -> None:
    (project / "system.txt").write_text("Answer from the handbook only.\n")
    (project / "editing_agent.py").write_text(
        "from pathlib import Path\n\n"
        "def answer(request):\n"
        f"    Path(__file__).with_name('system.txt').{edit}\n"
        "    return {'answer': 'I cannot find that in the handbook.', 'abstained': True}\n"
    )
    monkeypatch.delitem(sys.modules, "editing_agent", raising=False)  # one per test
    monkeypatch.syspath_prepend(str(project))
    config = project / "ragcard.toml"
    text = config.read_text().replace("[project]\n", '[project]\ninputs = ["system.txt"]\n', 1)
    agent = text[text.index("[agent]") : text.index("[judge]")]
    config.write_text(text.replace(agent, '[agent]\ntype = "callable"\n'
                                          'function = "editing_agent:answer"\n\n'))  # fmt: skip
    result = run(project, "out")
    assert result.exit_code == 1, result.output
    card = json.loads((project / "out" / "scorecard.json").read_text())
    assert card["decision"] == "hold"
    assert f"declared input system.txt {change} during the run" in card["decision_reasons"]
