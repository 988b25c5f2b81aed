"""ResultsLog: lines exactly as ``json.dumps`` writes them; flushed per line only for ``run``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ragcard.outputs.results import ResultsLog, dumps_line

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


def test_results_read_back_as_json_reads_them_and_bad_lines_name_their_number(
    tmp_path: Path,
) -> None:
    from ragcard.errors import InputError
    from ragcard.outputs.results import read_results

    records = [
        {"item": "Q1", "attempt": 1, **RECORD},
        {"item": "Q2", "attempt": 1, "text": "broken \ud800 half", "big": 10**30},
    ]
    path = tmp_path / "results.jsonl"
    path.write_text("".join(dumps_line(r) for r in records) + '{"item": "Q3", "att', "utf-8")
    read = [data for _, data in read_results(path)]  # the torn last line is skipped
    expected = [json.loads(dumps_line(r)) for r in records]
    assert [r["item"] for r in read] == ["Q1", "Q2"] and read[1] == expected[1]
    assert str(read[0]["scores"]["c"]) == "-0.0" and math.isnan(read[0]["scores"]["nan"])
    for bad in (b'{"item": "Q9", "attempt": 1, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                b'{"item": "Q9", "attempt": 1, "x": "\xff"}', b"null"):  # fmt: skip
        path.write_bytes(dumps_line(records[0]).encode() + bad + b"\n")
        with pytest.raises(InputError) as info:
            list(read_results(path))
        assert f"{path}:2" in str(info.value), bad[:20]
