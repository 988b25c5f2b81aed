"""Correctness labels: read, measured against a judge, saved, and shown on the scorecard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.aggregation._scorer import JudgeCrashes
from ragcard.errors import InputError
from ragcard.judges import build_judge
from ragcard.judges.metaeval.correctness import (
    evaluate_correctness,
    is_correctness_labels,
    load_correctness,
    shipped_correctness,
)

ROWS = [
    {"id": "A", "question": "How far ahead must I book two weeks off?", "split": "dev",
     "expected_answer": "At least four weeks' notice, booked in Harbour.",
     "answer": "Book it in Harbour with at least four weeks' notice.", "label": "correct"},
    {"id": "B", "question": "How far ahead must I book two weeks off?", "split": "test",
     "expected_answer": "At least four weeks' notice, booked in Harbour.",
     "answer": "Book it in Harbour with at least two weeks' notice.", "label": "wrong"},
    {"id": "C", "question": "How many days of leave do I get?", "split": "test",
     "reference": "25 days of paid annual leave plus public holidays.",
     "answer": "You get 25 days of paid annual leave.", "label": "partial", "main_point": True},
]  # fmt: skip


def _labels(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_labels_are_read_and_graded_against_the_reader(tmp_path: Path) -> None:
    path = _labels(tmp_path, ROWS)
    assert is_correctness_labels(path)
    _, examples = load_correctness(str(path))
    assert [(e.id, e.part, e.passes) for e in examples] == [
        ("A", "dev", True), ("B", "test", False), ("C", "test", True)
    ]  # fmt: skip
    evaluation = evaluate_correctness(build_judge({"backend": "lexical"}), "labels", examples)
    overall = evaluation.reports[-1]
    assert overall.n == 3 and overall.confusion["wrong"]["wrong"] == 1
    assert overall.wrong_passing == ()


def test_a_bad_label_line_is_an_input_error_naming_it(tmp_path: Path) -> None:
    path = _labels(tmp_path, [{**ROWS[0], "label": "right"}, ROWS[1]])
    with pytest.raises(InputError) as caught:
        load_correctness(str(path))
    assert any(p.line == 1 and p.field == "label" for p in caught.value.problems)


def test_judges_evaluate_reads_and_saves_correctness_labels(tmp_path: Path) -> None:
    path, out = _labels(tmp_path, ROWS), tmp_path / "calibration.json"
    result = CliRunner().invoke(app, ["judges", "evaluate", "--judge", "lexical", "--dataset",
                                      str(path), "--save", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "grade agreement" in result.output and "confusion" in result.output
    record = json.loads(out.read_text())
    assert record["judge"] == "lexical" and record["n"] == 3 and record["task"].startswith("key-")
    mixed = CliRunner().invoke(app, ["judges", "evaluate", "--judge", "lexical", "--dataset",
                                     str(path), "--dataset", "begin"])  # fmt: skip
    assert mixed.exit_code == 2 and "different tasks" in mixed.output


def test_the_shipped_correctness_calibration_is_on_the_judge_line() -> None:
    from ragcard.pipeline.evaluation import judge_block
    from ragcard.report.markdown import judge_summary

    judge = build_judge({"backend": "lexical"})
    record = shipped_correctness("lexical", judge.identity.tasks["correctness"])
    assert record is not None and record["dataset"] == "demo-correctness" and record["n"] == 167
    assert shipped_correctness("lexical", "key-facts/0") is None  # measured on another rule

    class Scorer:
        judge_failures = 0
        crashes = JudgeCrashes()

    block = judge_block(judge, Scorer())  # type: ignore[arg-type]  # (failures and crashes only)
    assert "correctness vs 167 labels (demo-correctness)" in judge_summary(block)
