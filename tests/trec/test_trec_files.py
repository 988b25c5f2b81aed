"""Reading TREC qrels and run files: what is accepted, and how bad lines are reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcard.errors import InputError
from ragcard.trec import read_qrels, read_run


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_qrels_grades_comments_and_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "qrels", "# judged by NIST\n1 0 a 1\n\n1 0 b 0\n2 Q0 c -1\n1 0 d 2\n")
    assert read_qrels(path) == {"1": {"a": 1, "b": 0, "d": 2}, "2": {"c": -1}}


def test_qrels_reports_every_bad_line_with_its_number(tmp_path: Path) -> None:
    path = write(tmp_path, "qrels", "1 0 a 1\n1 0 b\n1 0 c high\n1 0 a 0\n")
    with pytest.raises(InputError) as caught:
        read_qrels(path)
    problems = caught.value.problems
    assert [p.line for p in problems] == [2, 3, 4]
    assert "expected 4 fields, found 3" in problems[0].message
    assert problems[1].field == "rel" and problems[1].value == "high"
    assert "judged twice for query 1 (first on line 1)" in problems[2].message
    assert str(path) in str(caught.value)


def test_qrels_given_a_run_file_says_so(tmp_path: Path) -> None:
    path = write(tmp_path, "run", "1 Q0 a 1 3.5 bm25\n")
    with pytest.raises(InputError) as caught:
        read_qrels(path)
    assert "looks like a run file" in str(caught.value)


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        read_qrels(tmp_path / "nope")
    with pytest.raises(InputError, match="no judgements"):
        read_qrels(write(tmp_path, "empty", "\n# only a comment\n"))
    with pytest.raises(InputError, match="no results"):
        read_run(write(tmp_path, "empty_run", ""))


def test_run_ignores_rank_column_and_trailing_words(tmp_path: Path) -> None:
    text = "1 Q0 a 9 1.5 first\n1 Q0 b 1 2.5 first more junk here\n2 Q0 a 1 -3e2 last\n"
    run = read_run(write(tmp_path, "run", text))
    assert run.scores == {"1": {"a": 1.5, "b": 2.5}, "2": {"a": -300.0}}
    # trec_eval prints the run id of the last line.
    assert run.run_id == "last"
    assert run.lines == 3


def test_run_reports_bad_scores_short_lines_and_repeats(tmp_path: Path) -> None:
    text = "1 Q0 a 1 1.0 r\n1 Q0 b 2 abc r\n1 Q0 c 3 r\n1 Q0 d 4 nan r\n1 Q0 a 5 0.5 r\n"
    with pytest.raises(InputError) as caught:
        read_run(write(tmp_path, "run", text))
    problems = caught.value.problems
    assert [p.line for p in problems] == [2, 3, 4, 5]
    assert problems[0].field == "score" and problems[0].value == "abc"
    assert "expected 6 fields, found 5" in problems[1].message
    assert problems[2].field == "score"
    assert "listed twice for query 1 (first on line 1)" in problems[3].message


def test_long_lists_of_problems_are_capped(tmp_path: Path) -> None:
    path = write(tmp_path, "qrels", "bad line\n" * 120)
    with pytest.raises(InputError) as caught:
        read_qrels(path)
    assert len(caught.value.problems) == 50
    assert "120 bad line(s)" in caught.value.summary


def test_only_ascii_whitespace_separates_fields(tmp_path: Path) -> None:
    # A no-break space is part of a document id for trec_eval (C isspace), not a separator.
    path = write(tmp_path, "qrels", "1 0 doc\u00a0one 1\n1\t0\tdoc2\t0\n")
    assert read_qrels(path) == {"1": {"doc\u00a0one": 1, "doc2": 0}}
