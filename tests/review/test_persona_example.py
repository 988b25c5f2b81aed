"""The bundled persona example, end to end: run → review make → a scripted review → import;
its ``review_wrong[policy]`` gate turns red, ``ship`` refuses the answer without an action, and
``stale`` knows when a review is due again."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.pipeline.running import run_evaluation

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "persona"


@pytest.fixture
def persona_run(tmp_path: Path) -> tuple[Path, Path, str]:
    project = tmp_path / "persona"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("eval", "out", "*.sqlite"))
    db = f"sqlite:///{tmp_path / 'history.sqlite'}"
    out = tmp_path / "run"
    run_evaluation(project, out_dir=out, attempts=1, progress=False, history_url=db,
                   eval_dir=tmp_path / "eval")  # fmt: skip
    return project, out, db


def _stale(project: Path, db: str) -> Any:
    return runner.invoke(app, ["stale", str(project), "--db", db], env={"COLUMNS": "300"})


def test_persona_review_gate_ship_and_stale(
    persona_run: tuple[Path, Path, str], tmp_path: Path
) -> None:
    project, run, db = persona_run
    card = json.loads((run / "scorecard.json").read_text())
    gate = {t["measure"]: t for t in card["thresholds"]}["review_wrong[policy]"]
    assert gate["status"] == "unscored"
    due = _stale(project, db)
    assert due.exit_code == 1 and "no review of this project is recorded" in due.output

    packet = tmp_path / "packet"
    made = runner.invoke(app, ["review", "make", str(run), "--out", str(packet), "--n", "50",
                               "--controls", "5", "--db", db])  # fmt: skip
    assert made.exit_code == 0, made.output
    (key_path,) = (run / "review").glob("*.key.json")
    key = json.loads(key_path.read_text())
    entries = key["items"]
    assert sum(e["kind"] == "generated" for e in entries.values()) == 50
    assert sum(e["kind"] == "control" for e in entries.values()) == 5
    policy = sorted(e["item"] for e in entries.values()
                    if e["kind"] == "generated" and e["category"] == "policy")  # fmt: skip
    assert len(policy) == 9  # 11 of 60 items: 50 × 11/60, rounded by largest remainder
    rows = list(csv.DictReader((packet / "packet.csv").read_text("utf-8").splitlines()))
    for row in rows:
        wrong = entries[row["packet_item"]]["item"] == policy[0]
        row.update(reviewer="historian", rating="wrong" if wrong else "accurate", voice="in",
                   comment="answers a visitor in distress without the help line" if wrong
                   else "")  # fmt: skip
    sheet = tmp_path / "historian.csv"
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    imported = runner.invoke(app, ["review", "import", str(packet), "--ratings", str(sheet),
                                   "--db", db], env={"COLUMNS": "300"})  # fmt: skip
    assert imported.exit_code == 1, imported.output
    card = json.loads((run / "scorecard.json").read_text())
    gates = {t["measure"]: t for t in card["thresholds"]}
    assert gates["review_wrong[policy]"]["status"] == "missed"  # red
    assert gates["review_wrong[policy]"]["result"]["value"] == 1.0
    assert gates["review_wrong"]["status"] == "met"  # 1 of 50 ≤ 2
    assert any("review_wrong[policy] <= 0 missed" in r for r in card["decision_reasons"])

    ship = runner.invoke(app, ["ship", str(run), "--by", "cto", "--db", db],
                         env={"COLUMNS": "300"})  # fmt: skip
    assert ship.exit_code == 2 and policy[0] in ship.output and "no action" in ship.output
    act = runner.invoke(app, ["review", "act", str(run), policy[0], "--action", "rule", "--by",
                              "historian", "--why", "distress always gets the help line",
                              "--db", db])  # fmt: skip
    assert act.exit_code == 1  # the gate it failed still holds this run
    ship = runner.invoke(app, ["ship", str(run), "--by", "cto", "--db", db],
                         env={"COLUMNS": "300"})  # fmt: skip
    assert ship.exit_code == 2 and "no action" not in ship.output

    fresh = _stale(project, db)
    assert "blind review due" not in fresh.output, fresh.output
    corpus = project / "corpus.jsonl"
    corpus.write_text(corpus.read_text().replace("Garvenn", "Garvenn island", 1))
    due = _stale(project, db)
    assert due.exit_code == 1
    assert "blind review due: corpus manifest" in due.output
    assert "since the review of run" in due.output and key["packet_id"] in due.output
