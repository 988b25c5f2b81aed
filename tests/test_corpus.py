from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from ragcard.errors import InputError
from ragcard.inputs.corpus import load_corpus


def test_load_and_query(mini: Path) -> None:
    corpus = load_corpus(mini / "corpus.jsonl")
    assert len(corpus) == 8 and "leave@2025#1" in corpus
    old = corpus.passages["leave@2023#2"]
    assert not old.in_force_on(dt.date(2024, 6, 1))  # status superseded
    new = corpus.passages["leave@2025#2"]
    assert new.in_force_on(dt.date(2025, 1, 1)) and not new.in_force_on(dt.date(2024, 12, 31))
    pay = corpus.passages["pay@2025#1"]
    assert pay.restricted and pay.visible_to("hr") and not pay.visible_to("employee")
    assert corpus.passages["archive#B1"].tier == "B"


def test_cross_checks(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "doc": "d", "text": "t", "status": "superseded", "superseded_by": "zzz"},
        {"id": "a", "doc": "d", "text": "t"},
        {
            "id": "b",
            "doc": "d",
            "text": "t",
            "effective_from": "2025-01-01",
            "effective_to": "2024-01-01",
        },
        {"id": "c", "doc": "d", "text": "t", "status": "old"},
        {"id": "e", "doc": "d", "text": "t", "status": "superseded"},
        {"id": "f", "doc": "d", "version": "2", "text": "t"},
        {"id": "g", "doc": "d", "text": "t", "status": "superseded", "superseded_by": "d@2"},
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(InputError) as info:
        load_corpus(path)
    found = {(p.line, p.field) for p in info.value.problems}
    assert found == {
        (2, "id"),
        (3, "effective_to"),
        (4, "status"),
        (5, "superseded_by"),
        (1, "superseded_by"),
    }


def _passage(pid: str, **extra: object) -> str:
    doc, rest = pid.split("@")
    return json.dumps({"id": pid, "doc": doc, "section": "1", "version": rest.split("#")[0],
                       "text": "Some policy text.", **extra})


def test_one_bad_line_does_not_cascade_into_a_wrong_superseded_by_problem(
    tmp_path: Path,
) -> None:
    path = tmp_path / "corpus.jsonl"
    new = json.loads(_passage("leave@2025#2"))
    new["effective_from"] = "not a date"  # the replacement's own line is bad
    path.write_text(json.dumps(new) + "\n" + _passage(
        "leave@2023#2", status="superseded", superseded_by="leave@2025#2") + "\n")
    with pytest.raises(InputError) as info:
        load_corpus(path)
    problems = info.value.problems
    assert [p.line for p in problems] == [1], [str(p) for p in problems]
    assert problems[0].field == "effective_from"


def test_an_unreadable_line_stops_the_superseded_by_guess(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text("{not json\n" + _passage(
        "leave@2023#2", status="superseded", superseded_by="leave@2025#2") + "\n")
    with pytest.raises(InputError) as info:
        load_corpus(path)
    assert [p.line for p in info.value.problems] == [1]


def test_a_wrong_superseded_by_is_still_found_beside_a_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    bad = json.loads(_passage("leave@2025#2"))
    bad["effective_from"] = "not a date"
    path.write_text(json.dumps(bad) + "\n" + _passage(
        "leave@2023#2", status="superseded", superseded_by="leave@2024#9") + "\n")
    with pytest.raises(InputError) as info:
        load_corpus(path)
    assert sorted((p.line, p.field) for p in info.value.problems) == [
        (1, "effective_from"), (2, "superseded_by")]


def test_an_empty_corpus_says_so(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n")
    with pytest.raises(InputError, match="the file is empty"):
        load_corpus(path)
