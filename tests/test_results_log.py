"""ResultsLog: lines exactly as ``json.dumps`` writes them; flushed per line only for ``run``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcard.results import ResultsLog, dumps_line

RECORD = {
    "item": "Q1",
    "scores": {"a": 0.1, "b": 1e16, "c": -0.0, "d": 1e-7, "nan": float("nan")},
    "text": 'é – "quoted" \\ \u2028 \x00 😀',
    "nested": [{"x": None, "y": True}, [], {}],
    3: "int key",
}


def test_a_line_is_what_json_dumps_writes() -> None:
    assert dumps_line(RECORD) == json.dumps(RECORD, ensure_ascii=False) + "\n"


def test_what_json_cannot_write_fails_as_json_dumps_fails() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_line({"when": {1, 2}})


def test_run_lines_reach_the_file_at_once_score_lines_at_close(tmp_path: Path) -> None:
    eager, lazy = (
        ResultsLog(tmp_path / "run.jsonl"),
        ResultsLog(tmp_path / "score.jsonl", flush_each=False),
    )
    for log in (eager, lazy):
        log.append({"item": "Q1", "attempt": 1})
    assert (tmp_path / "run.jsonl").read_text() == '{"item": "Q1", "attempt": 1}\n'
    assert (tmp_path / "score.jsonl").read_text() == ""
    eager.close()
    lazy.close()
    assert (tmp_path / "score.jsonl").read_text() == '{"item": "Q1", "attempt": 1}\n'
