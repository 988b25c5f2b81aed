"""ResultsLog: lines exactly as ``json.dumps`` writes them; flushed per line only for ``run``."""

from __future__ import annotations

import json
import math
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


def test_a_line_is_compact_json_that_reads_back_as_json_dumps_would_write_it() -> None:
    line = dumps_line(RECORD)
    assert line.endswith("}\n") and line.count("\n") == 1 and line.startswith('{"item":"Q1",')
    assert "é" in line and "😀" in line  # UTF-8 kept, not escaped
    back, expected = json.loads(line), json.loads(json.dumps(RECORD))
    assert math.isnan(back["scores"].pop("nan")) and math.isnan(expected["scores"].pop("nan"))
    assert back == expected and str(back["scores"]["c"]) == "-0.0"


def test_a_lone_surrogate_is_escaped_not_lost() -> None:
    line = dumps_line({"text": "broken \ud800 half"})
    assert json.loads(line) == {"text": "broken \ud800 half"} and "\\ud800" in line


def test_what_json_cannot_write_fails_as_json_dumps_fails() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_line({"when": object()})


def test_run_lines_reach_the_file_at_once_score_lines_at_close(tmp_path: Path) -> None:
    eager, lazy = (
        ResultsLog(tmp_path / "run.jsonl"),
        ResultsLog(tmp_path / "score.jsonl", flush_each=False),
    )
    for log in (eager, lazy):
        log.append({"item": "Q1", "attempt": 1})
    assert (tmp_path / "run.jsonl").read_text() == '{"item":"Q1","attempt":1}\n'
    assert (tmp_path / "score.jsonl").read_text() == ""
    eager.close()
    lazy.close()
    assert (tmp_path / "score.jsonl").read_text() == '{"item":"Q1","attempt":1}\n'
