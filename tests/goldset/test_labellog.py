"""The label log: a gold label edited without ``ragcard questions amend`` is refused (exit 2,
naming the item); with it, the scorecard lists the amendment since the last shipped run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.errors import ConfigError, InputError
from ragcard.goldset.labellog import amend_items, check_label_log, item_labels
from ragcard.inputs.questions import load_questions
from ragcard.outputs.history import HistoryStore

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _edit(path: Path, item: str, **changes: Any) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines):
        data = json.loads(line)
        if data["id"] == item:
            for key, value in changes.items():
                if value is None:
                    data.pop(key, None)
                else:
                    data[key] = value
            lines[n] = json.dumps(data)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_score_refuses_an_unrecorded_gold_edit_then_lists_the_amendment(
    mini: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "mini"
    shutil.copytree(mini, folder)
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    questions = folder / "questions.jsonl"
    args = ["score", "-q", str(questions), "-c", str(folder / "corpus.jsonl"),
            "-r", str(folder / "responses.jsonl"), "-t", str(folder / "thresholds.toml"),
            "--run-date", "2026-01-01", "--quiet", "--db", db]  # fmt: skip
    first = runner.invoke(app, [*args, "--out", str(tmp_path / "o1")])
    assert first.exit_code in (0, 1), first.output
    _edit(questions, "Q1", gold=["leave@2025#1", "leave@2025#2"])
    refused = runner.invoke(app, [*args, "--out", str(tmp_path / "o2")], env={"COLUMNS": "300"})
    assert refused.exit_code == 2, refused.output
    assert "questions.jsonl:1 field 'gold': item Q1: labels changed" in refused.output
    assert "ragcard questions amend Q1" in refused.output
    assert not (tmp_path / "o2").exists()  # refused before scoring
    amend = ["questions", "amend", "Q1", "--questions", str(questions), "--db", db,
             "--reason", "the carry-over rule also answers it", "--by", "Ada"]  # fmt: skip
    done = runner.invoke(app, amend)
    assert done.exit_code == 0, done.output
    assert done.output.startswith("amended Q1: gold was")
    again = runner.invoke(app, [*args, "--out", str(tmp_path / "o3")])
    assert again.exit_code in (0, 1), again.output
    card = json.loads((tmp_path / "o3" / "scorecard.json").read_text())
    (amended,) = card["amendments"]
    assert (amended["item"], amended["fields"], amended["by"]) == ("Q1", ["gold"], "Ada")
    assert amended["from"] == {"gold": [["leave@2025#1", 1]]}
    assert amended["to"] == {"gold": [["leave@2025#1", 1], ["leave@2025#2", 1]]}
    markdown = (tmp_path / "o3" / "scorecard.md").read_text()
    assert "## Label amendments since the last shipped run" in markdown
    assert "the carry-over rule also answers it" in markdown
    twice = runner.invoke(app, amend)
    assert twice.exit_code == 2 and "nothing to amend" in twice.output


def test_run_refuses_then_amends_and_a_shipped_run_resets_the_list(tmp_path: Path) -> None:
    project = tmp_path / "handbook"
    shutil.copytree(EXAMPLES / "handbook", project, ignore=shutil.ignore_patterns("eval", "out"))
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"

    def run(name: str) -> Any:
        return runner.invoke(app, ["run", str(project), "--out", str(tmp_path / name),
                                   "--attempts", "1", "--no-progress", "--db", db,
                                   "--eval-dir", str(tmp_path / "eval")],
                             env={"COLUMNS": "300"})  # fmt: skip

    assert run("r1").exit_code in (0, 1)
    questions = project / "questions.jsonl"
    item = json.loads(questions.read_text().splitlines()[4])["id"]
    _edit(questions, item, expected_answer="Something else entirely.")
    refused = run("r2")
    assert refused.exit_code == 2 and f"item {item}: labels changed" in refused.output
    assert "expected_answer was" in refused.output
    assert not (tmp_path / "r2" / "results.jsonl").exists()
    amend = ["questions", "amend", item, "--project", str(project), "--db", db]
    amended = runner.invoke(app, [*amend, "--reason", "policy v3 changed it", "--by", "Ada"])
    assert amended.exit_code == 0, amended.output
    assert run("r3").exit_code in (0, 1)
    card = json.loads((tmp_path / "r3" / "scorecard.json").read_text())
    assert [a["item"] for a in card["amendments"]] == [item]
    with HistoryStore(db) as store:  # ship it (an override lets a hold ship)
        entry = store.get(str(tmp_path / "r3"))
        store.record_override(entry.id, "Ada", "demo", [])
        store.mark_shipped(entry.id, "Ada")
    assert run("r4").exit_code in (0, 1)
    assert "amendments" not in json.loads((tmp_path / "r4" / "scorecard.json").read_text())


def test_what_counts_as_a_label_change(mini: Path, tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    shutil.copy(mini / "questions.jsonl", questions)
    with HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite'}") as store:
        check_label_log(store, "set", load_questions(questions))
        check_label_log(store, "set", load_questions(questions))  # unchanged: fine
        # wording of the question is not a label; a new item is recorded as it first appears
        _edit(questions, "Q1", question="how many days of leave do I get?")
        with questions.open("a") as handle:
            handle.write(json.dumps({"id": "Q9", "question": "new?", "gold": ["leave@2025#1"]}))
        check_label_log(store, "set", load_questions(questions))
        _edit(questions, "Q3", expected_flag=None)  # the flag no longer checked
        _edit(questions, "Q5", answerable=False, gold=[])
        with pytest.raises(InputError) as caught:
            check_label_log(store, "set", load_questions(questions))
        found = {p.value or p.message.split(":")[0] for p in caught.value.problems}
        assert found == {"item Q3", "item Q5"}, caught.value.problems
        fields = {p.field for p in caught.value.problems}
        assert fields == {"expected_flag", "gold,answerable"}
        with pytest.raises(ConfigError, match="close: Q3"):
            amend_items(store, "set", load_questions(questions), ["Q33"], reason="r", by="b")
        with pytest.raises(ConfigError, match="reason"):
            amend_items(store, "set", load_questions(questions), ["Q3"], reason=" ", by="b")
        changes = amend_items(store, "set", load_questions(questions), ["Q3", "Q5"],
                              reason="re-labelled", by="Bo")  # fmt: skip
        assert [c.item for c in changes] == ["Q3", "Q5"]
        check_label_log(store, "set", load_questions(questions))  # accepted now
        other = load_questions(mini / "questions.jsonl")
        check_label_log(store, "another set", other)  # question sets are apart
    assert item_labels(other.by_id()["Q3"])["expected_flag"] == "not_in_record"
