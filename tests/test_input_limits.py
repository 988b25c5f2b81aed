"""Bounded, strict reading of the JSON Lines inputs: devices, pipes, huge lines and files,
deep nesting, huge integers, non-finite numbers and coerced types are problems with file, line,
field, value and fix — never a traceback, a hang or a value quietly accepted."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ragcard.inputs._jsonl
from ragcard.errors import InputError, Problem
from ragcard.inputs._limits import MAX_DEPTH, MAX_INT_DIGITS
from ragcard.inputs.corpus import load_corpus
from ragcard.inputs.questions import load_questions
from ragcard.inputs.responses import load_responses

Loader = Callable[[Path], Any]
LOADERS: dict[str, Loader] = {
    "questions": load_questions,
    "corpus": load_corpus,
    "responses": load_responses,
}
GOOD = {
    "questions": '{"id": "Q1", "question": "how many days?"',
    "corpus": '{"id": "p1", "doc": "d", "text": "t"',
    "responses": '{"item": "Q1", "answer": "25 days."',
}


def problems_of(kind: str, path: Path) -> list[Problem]:
    with pytest.raises(InputError) as info:
        LOADERS[kind](path)
    return info.value.problems


def write(tmp_path: Path, kind: str, *lines: str) -> Path:
    path = tmp_path / f"{kind}.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", LOADERS)
def test_a_symlink_to_dev_zero_is_refused_at_once(kind: str, tmp_path: Path) -> None:
    link = tmp_path / f"{kind}.jsonl"
    link.symlink_to("/dev/zero")
    start = time.monotonic()
    (problem,) = problems_of(kind, link)
    assert time.monotonic() - start < 1
    assert problem.file == str(link) and "character device" in problem.message
    assert problem.fix and "regular file" in problem.fix


@pytest.mark.parametrize("kind", LOADERS)
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(kind: str, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (problem,) = problems_of(kind, fifo)
    assert "named pipe" in problem.message


def test_a_line_over_the_limit_is_a_problem_and_the_next_lines_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ragcard.inputs._jsonl, "MAX_LINE_CHARS", 100)
    path = write(tmp_path, "questions", '{"id": "Q1", "question": "' + "x" * 500 + '"}',
                 '{"id": "Q2"}')  # fmt: skip
    problems = problems_of("questions", path)
    assert [(p.line, p.field) for p in problems] == [(1, None), (2, "question")]
    assert "longer than 100 characters" in problems[0].message and problems[0].fix


def test_a_file_over_the_limit_is_refused_before_reading(tmp_path: Path) -> None:
    path = write(tmp_path, "questions", GOOD["questions"] + "}")
    with pytest.raises(InputError) as info:
        list(ragcard.inputs._jsonl.read_lines(path, limit=10))
    assert "over the limit of 10 bytes" in info.value.problems[0].message


@pytest.mark.parametrize("kind", LOADERS)
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 3000, 100_000])
def test_deep_nesting_is_a_problem_not_a_recursion_error(
    kind: str, depth: int, tmp_path: Path
) -> None:
    path = write(tmp_path, kind, GOOD[kind] + ', "x": ' + "[" * depth + "]" * depth + "}")
    (problem,) = problems_of(kind, path)
    assert problem.line == 1 and f"nested deeper than {MAX_DEPTH} levels" in problem.message
    assert problem.fix


def test_nesting_at_the_limit_is_read(tmp_path: Path) -> None:
    depth = MAX_DEPTH - 1  # the record itself is the first level
    path = write(tmp_path, "corpus", GOOD["corpus"] + ', "x": ' + "[" * depth + "]" * depth + "}")
    assert len(load_corpus(path)) == 1


@pytest.mark.parametrize("kind", LOADERS)
@pytest.mark.parametrize("digits", [MAX_INT_DIGITS + 1, 4301, 50_000])
def test_huge_integers_are_problems(kind: str, digits: int, tmp_path: Path) -> None:
    path = write(tmp_path, kind, GOOD[kind] + ', "x": ' + "9" * digits + "}")
    (problem,) = problems_of(kind, path)
    assert f"more than {MAX_INT_DIGITS} digits" in problem.message and problem.fix


@pytest.mark.parametrize("kind", LOADERS)
@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999", "-1E+400"])
def test_non_finite_numbers_are_refused_anywhere(kind: str, literal: str, tmp_path: Path) -> None:
    path = write(tmp_path, kind, GOOD[kind] + ', "extra": {"deep": [' + literal + "]}}")
    (problem,) = problems_of(kind, path)
    assert problem.field == "extra.deep[0]" and "not a finite number" in problem.message


@pytest.mark.parametrize(
    ("line", "field", "value"),
    [
        ('"answerable": "yes"', "answerable", "yes"),
        ('"answerable": 1', "answerable", 1),
        ('"must_pass": "true"', "must_pass", "true"),
        ('"gold": [{"id": "p1", "grade": "2"}]', "gold.0.grade", "2"),
        ('"gold": [{"id": "p1", "grade": true}]', "gold.0.grade", True),
        ('"cutoff": 20250101', "cutoff", 20250101),
        ('"labels": [{"by": "a", "answerable": "no"}]', "labels.0.answerable", "no"),
    ],
)
def test_question_fields_are_not_coerced(
    line: str, field: str, value: object, tmp_path: Path
) -> None:
    path = write(tmp_path, "questions", GOOD["questions"] + ", " + line + "}")
    (problem,) = problems_of("questions", path)
    assert (problem.file, problem.line, problem.field, problem.value) == (
        str(path), 1, field, value)  # fmt: skip
    assert problem.fix


@pytest.mark.parametrize(
    ("line", "field", "value"),
    [
        ('"attempt": "2"', "attempt", "2"),
        ('"attempt": 2.0', "attempt", 2.0),
        ('"attempt": true', "attempt", True),
        ('"attempt": 1000000000', "attempt", 1000000000),
        ('"abstained": "false"', "abstained", "false"),
        ('"latency_ms": "812"', "latency_ms", "812"),
        ('"latency_ms": true', "latency_ms", True),
        ('"retrieved": [{"id": "p1", "score": "0.9"}]', "retrieved.0.score", "0.9"),
        ('"citations": [{"id": "p1", "sentence": "0"}]', "citations.0.sentence", "0"),
    ],
)
def test_response_fields_are_not_coerced(
    line: str, field: str, value: object, tmp_path: Path
) -> None:
    path = write(tmp_path, "responses", GOOD["responses"] + ", " + line + "}")
    (problem,) = problems_of("responses", path)
    assert (problem.line, problem.field, problem.value) == (1, field, value)
    assert problem.fix


@pytest.mark.parametrize(
    ("line", "field"),
    [('"effective_from": 1700000000', "effective_from"), ('"date": true', "date"),
     ('"access": "hr"', "access")],
)  # fmt: skip
def test_passage_fields_are_not_coerced(line: str, field: str, tmp_path: Path) -> None:
    path = write(tmp_path, "corpus", GOOD["corpus"] + ", " + line + "}")
    (problem,) = problems_of("corpus", path)
    assert (problem.line, problem.field) == (1, field) and problem.fix


def test_every_bad_line_is_listed_with_its_fix(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    path = write(tmp_path, "responses", GOOD["responses"] + ', "attempt": "2"}',
                 GOOD["responses"] + ', "attempt": 2, "x": NaN}',
                 GOOD["responses"] + ', "attempt": 3, "y": ' + deep + "}")  # fmt: skip
    problems = problems_of("responses", path)
    assert [p.line for p in problems] == [1, 2, 3]
    assert all(p.fix for p in problems)
    assert "(got '2') — write a whole number, without quotes" in str(problems[0])
