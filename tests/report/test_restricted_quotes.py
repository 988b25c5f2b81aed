"""``ragcard report --html`` redacts a restricted passage, and so the answer and the expected
answer that quote it: an asker with the role may read them, the report's readers may not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragcard.pipeline.evaluation import load_inputs, score_responses
from ragcard.report.html import render_html
from ragcard.report.run_report import build_run_report

BANDS = "Salary band L3 runs from £58,000 to £72,000 and is reviewed every April by the board."


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_answers_and_expected_answers_quoting_a_redacted_passage_are_withheld(
    tmp_path: Path,
) -> None:
    corpus = _write(tmp_path / "corpus.jsonl", [
        {"id": "PAY", "doc": "pay", "text": BANDS, "access": ["hr"]},
        {"id": "LEAVE", "doc": "leave", "text": "Leave is 25 days a year for everyone."},
    ])  # fmt: skip
    questions = _write(tmp_path / "questions.jsonl", [
        {"id": "Q1", "question": "what does L3 pay?", "asker": "hr", "gold": ["PAY"],
         "category": "typical", "expected_answer": "L3 runs from £58,000 to £72,000."},
        {"id": "Q2", "question": "how much leave?", "gold": ["LEAVE"], "category": "typical",
         "expected_answer": "25 days."},
    ])  # fmt: skip
    responses = _write(tmp_path / "responses.jsonl", [
        {"item": "Q1", "attempt": 1, "answer": f"{BANDS} [PAY]", "retrieved": ["LEAVE"]},
        {"item": "Q2", "attempt": 1, "answer": "It is 30 days [LEAVE].", "retrieved": []},
    ])  # fmt: skip
    thresholds = tmp_path / "thresholds.toml"
    thresholds.write_text('[[threshold]]\nmeasure = "recall@5"\ncomparison = ">="\nvalue = 1\n'
                          'type = "graded"\nreason = "r"\n')  # fmt: skip
    out = tmp_path / "run"
    score_responses(load_inputs(questions, corpus, thresholds), responses, out)
    report = build_run_report(out)
    shown = {f.item: f for f in report.failures}
    assert set(shown) == {"Q1", "Q2"}
    assert shown["Q1"].answer is not None and "£58,000" not in shown["Q1"].answer
    assert "withheld" in shown["Q1"].answer and "PAY" in shown["Q1"].answer
    assert shown["Q1"].expected is not None and "£58,000" not in shown["Q1"].expected
    assert shown["Q2"].answer == "It is 30 days [LEAVE]." and shown["Q2"].expected == "25 days."
    html = render_html(report)
    assert "58,000" not in html and "72,000" not in html
    assert "expected answer withheld: it quotes restricted passage(s) PAY (roles: hr)" in html
