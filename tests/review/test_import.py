"""``ragcard review make / import / act`` and ``ship``: the review gates the run like any
measure, and every answer rated wrong needs an action before the run ships."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.outputs.history import HistoryStore

runner = CliRunner()


def _make(run: Path, packet: Path, db: str, n: int = 10, controls: int = 2) -> dict[str, Any]:
    args = ["review", "make", str(run), "--out", str(packet), "--n", str(n)]
    result = runner.invoke(app, [*args, "--controls", str(controls), "--seed", "5", "--db", db])
    assert result.exit_code == 0, result.output
    (key_path,) = (run / "review").glob("*.key.json")
    return dict(json.loads(key_path.read_text()))


def _rate(packet: Path, key: dict[str, Any], reviewer: str, wrong: set[str]) -> Path:
    """Fill the packet's CSV as ``reviewer``: every answer accurate but items in ``wrong``."""
    rows = list(csv.DictReader((packet / "packet.csv").read_text("utf-8").splitlines()))
    for row in rows:
        item = key["items"][row["packet_item"]]["item"]
        row.update(reviewer=reviewer, rating="wrong" if item in wrong else "accurate",
                   voice="in", attributed="yes",
                   comment="sends no help line" if item in wrong else "")  # fmt: skip
    sheet = packet.parent / f"{reviewer}.csv"
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return sheet


def _import(packet: Path, db: str, *sheets: Path) -> Any:
    args = ["review", "import", str(packet), "--db", db, "--by", "ada"]
    for sheet in sheets:
        args += ["--ratings", str(sheet)]
    return runner.invoke(app, args, env={"COLUMNS": "300"})


def _generated(key: dict[str, Any], category: str) -> str:
    return next(e["item"] for e in key["items"].values()
                if e["kind"] == "generated" and e["category"] == category)  # fmt: skip


def test_an_unreviewed_run_holds_on_its_review_gates(scored_run: Callable[..., Path]) -> None:
    card = json.loads((scored_run() / "scorecard.json").read_text())
    assert card["decision"] == "hold"
    statuses = {t["measure"]: t["status"] for t in card["thresholds"]}
    assert statuses == {"review_wrong": "unscored", "review_wrong[policy]": "unscored"}
    assert all("no blind review recorded" in t["unscored_reason"] for t in card["thresholds"])
    assert "review_wrong" not in card["metrics"]  # absent, not 0


def test_a_policy_answer_rated_wrong_turns_its_gate_red_and_ship_is_refused(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    run, packet = scored_run(), tmp_path / "packet"
    key = _make(run, packet, db)
    policy = _generated(key, "policy")
    result = _import(packet, db, _rate(packet, key, "ada", set()),
                     _rate(packet, key, "bea", {policy}))  # fmt: skip
    assert result.exit_code == 1, result.output
    card = json.loads((run / "scorecard.json").read_text())
    gates = {t["measure"]: t for t in card["thresholds"]}
    assert gates["review_wrong[policy]"]["status"] == "missed"
    assert gates["review_wrong[policy]"]["result"] == {"value": 1.0, "n": 2}
    assert gates["review_wrong"]["status"] == "met"
    assert card["metrics"]["review_wrong"] == {"value": 1.0, "n": 10}
    assert card["metrics"]["review_control_agreement"]["value"] == 1.0
    assert card["breakdowns"]["review_wrong"]["policy"] == {"value": 1.0, "n": 2}
    assert card["review"]["wrong"][0]["item"] == policy
    assert card["review"]["wrong"][0]["comments"] == ["sends no help line"]
    assert "judge_human_agreement" in card["metrics"]  # the fixture carries verdicts
    markdown = (run / "scorecard.md").read_text()
    assert "## Blind review" in markdown and "none yet — ship is refused" in markdown
    with HistoryStore(db) as store:
        entry = store.get(str(run))
        assert entry.decision == "hold" and entry.metrics["review_wrong"]["value"] == 1.0
    ship = runner.invoke(app, ["ship", str(run), "--by", "ada", "--db", db],
                         env={"COLUMNS": "300"})  # fmt: skip
    assert ship.exit_code == 2 and f"have no action ({policy})" in ship.output
    act = runner.invoke(app, ["review", "act", str(run), policy, "--action", "rule", "--by",
                              "ada", "--why", "route distress to the helpline first",
                              "--db", db])  # fmt: skip
    assert act.exit_code == 1, act.output  # the gate stays red: the answer was wrong
    ship = runner.invoke(app, ["ship", str(run), "--by", "ada", "--db", db],
                         env={"COLUMNS": "300"})  # fmt: skip
    assert ship.exit_code == 2 and "decided 'hold'" in ship.output


def test_a_wrong_answer_holds_until_its_action_then_the_run_ships(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    run, packet = scored_run(), tmp_path / "packet"
    key = _make(run, packet, db)
    common = _generated(key, "common")
    result = _import(packet, db, _rate(packet, key, "ada", {common}))
    assert result.exit_code == 1, result.output
    card = json.loads((run / "scorecard.json").read_text())
    assert [t["status"] for t in card["thresholds"]] == ["met", "met"]
    assert card["decision_reasons"] == [
        f"blind review: {common} rated wrong has no recorded action (ragcard review act "
        f'{run} {common} --action corpus-fix|rule|authored-answer --by NAME --why "…")'
    ]
    ship = runner.invoke(app, ["ship", str(run), "--by", "ada", "--db", db],
                         env={"COLUMNS": "300"})  # fmt: skip
    assert ship.exit_code == 2 and common in ship.output
    bad = runner.invoke(app, ["review", "act", str(run), "Q99", "--action", "rule", "--by", "a",
                              "--why", "x", "--db", db])  # fmt: skip
    assert bad.exit_code == 2 and "was not rated wrong" in bad.output
    bad = runner.invoke(app, ["review", "act", str(run), common, "--action", "pray", "--by", "a",
                              "--why", "x", "--db", db])  # fmt: skip
    assert bad.exit_code == 2 and "corpus-fix, rule, authored-answer" in bad.output
    act = runner.invoke(app, ["review", "act", str(run), common, "--action", "corpus-fix",
                              "--by", "ada", "--why", "added the 1840 logbook page",
                              "--db", db])  # fmt: skip
    assert act.exit_code == 0, act.output
    card = json.loads((run / "scorecard.json").read_text())
    assert card["decision"] == "ship" and card["decision_reasons"] == []
    assert card["review"]["wrong"][0]["action"]["by"] == "ada"
    assert "corpus-fix by ada: added the 1840 logbook page" in (run / "scorecard.md").read_text()
    ship = runner.invoke(app, ["ship", str(run), "--by", "ada", "--db", db])
    assert ship.exit_code == 0, ship.output


def test_a_review_imported_after_ship_changes_the_decision_only_when_told_and_recorded(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    from ragcard.review.records import latest_review

    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    run, packet = scored_run(), tmp_path / "packet"
    key = _make(run, packet, db)
    assert _import(packet, db, _rate(packet, key, "ada", set())).exit_code == 0
    ship = runner.invoke(app, ["ship", str(run), "--by", "ada", "--db", db])
    assert ship.exit_code == 0, ship.output
    # a second reviewer's sheet, rating a policy answer wrong, arrives after the ship
    late = _rate(packet, key, "bo", {_generated(key, "policy")})
    refused = _import(packet, db, late)
    assert refused.exit_code == 2, refused.output
    text = " ".join(refused.output.split())
    assert "was shipped by ada" in text and "from SHIP to HOLD" in text and "--after-ship" in text
    card = json.loads((run / "scorecard.json").read_text())
    assert card["decision"] == "ship"  # nothing changed: scorecard and history agree
    with HistoryStore(db) as store:
        entry = store.get(str(run))
        assert entry.decision == "ship" and entry.shipped_by == "ada"
    told = runner.invoke(app, ["review", "import", str(packet), "--db", db, "--by", "cy",
                               "--ratings", str(late), "--after-ship", "bo's late sheet"],
                         env={"COLUMNS": "300"})  # fmt: skip
    assert told.exit_code == 1, told.output
    card = json.loads((run / "scorecard.json").read_text())
    assert card["decision"] == "hold"
    after = card["review"]["after_ship"]
    assert (after["was"], after["now"], after["by"], after["shipped_by"]) == (
        "ship", "hold", "cy", "ada")  # fmt: skip
    assert "imported after the run shipped" in (run / "scorecard.md").read_text()
    with HistoryStore(db) as store:
        entry = store.get(str(run))
        review = latest_review(store, entry.id)
    assert review is not None and review["block"]["after_ship"]["reason"] == "bo's late sheet"


def test_import_refuses_bad_ratings_listing_each(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    run, packet = scored_run(), tmp_path / "packet"
    key = _make(run, packet, db)
    sheet = _rate(packet, key, "ada", set())
    text = sheet.read_text().splitlines()
    text[1] = text[1].replace(",accurate,", ",excellent,", 1)
    text.append("R77,q,public,a,,ada,accurate,in,yes,")
    sheet.write_text("\n".join(text) + "\n")
    result = _import(packet, db, sheet)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "ada.csv:2" in result.output and "rating" in result.output
    assert "no such item in the packet (got 'R77')" in result.output
    empty = _import(packet, db)
    assert empty.exit_code == 2 and "no rating to import" in empty.output
    # without the history that made the packet, the key must be given
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    lost = _import(packet, other, _rate(packet, key, "ada", set()))
    assert lost.exit_code == 2 and "pass --key" in lost.output
