from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcard.errors import InputError
from ragcard.inputs.questions import load_questions


def write(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_both_dialects_and_defaults(tmp_path: Path) -> None:
    qs = load_questions(
        write(
            tmp_path / "q.jsonl",
            [
                {
                    "id": "HR-1",
                    "question": "leave?",
                    "gold": ["a", {"id": "b", "grade": 3}],
                    "expected_answer": "25 days",
                    "extra_field": {"kept": True},
                },
                {
                    "id": "GQ-1",
                    "question": "diary?",
                    "expected_ids": ["c"],
                    "reference": "yes",
                    "program": "p",
                    "cutoff": "1879-03-14",
                    "expected_corpus": ["A", "B"],
                    "expected_flag": None,
                },
                {"id": "U-1", "question": "dog?", "category": "unanswerable"},
                {"id": "F-1", "question": "x?", "expected_flag": "after_cutoff"},
                {"id": "P-1", "question": "x?", "expected_flag": "self_harm"},
            ],
        )
    )
    first, persona, unanswerable, flagged, policy = qs.questions
    assert first.gold_grades == {"a": 1, "b": 3}
    assert first.asker == "public" and first.split == "dev" and first.is_answerable
    assert first.model_dump()["extra_field"] == {"kept": True}
    assert persona.gold_ids == ["c"] and persona.expected_answer == "yes"
    assert persona.flag_checked and persona.expected_flag is None
    assert not first.flag_checked
    assert not unanswerable.is_answerable
    assert not flagged.is_answerable  # an abstention flag makes the default unanswerable
    # docs/formats.md#questionsjsonl: every flag is an abstention flag unless configuration says
    # otherwise, as for
    # a raised flag: a persona's policy refusal is an abstention
    assert not policy.is_answerable
    assert policy.with_flag_rule(frozenset({"self_harm"})).is_answerable
    assert persona.request() == {
        "question": "diary?",
        "asker": "public",
        "program": "p",
        "cutoff": "1879-03-14",
    }


def test_every_bad_line_is_reported(tmp_path: Path) -> None:
    path = write(
        tmp_path / "q.jsonl",
        [
            {"id": "A", "question": "ok"},
            "{not json",
            {"id": "A", "question": "dup"},
            {"question": "no id"},
            {"id": "B", "question": "x", "split": "test"},
            {"id": "C", "question": "x", "cutoff": "14/03/1879"},
            {"id": "D", "question": "x", "gold": [{"id": "g", "grade": 7}]},
            {"id": "E", "question": "x", "answerable": False, "gold": ["g"]},
            "[1, 2]",
        ],
    )
    with pytest.raises(InputError) as info:
        load_questions(path)
    problems = info.value.problems
    by_line = {p.line: p for p in problems}
    assert sorted(by_line) == [2, 3, 4, 5, 6, 7, 8, 9]
    assert by_line[3].field == "id" and "duplicate" in by_line[3].message
    assert by_line[4].field == "id" and "required" in by_line[4].message
    assert by_line[5].field == "split" and by_line[5].value == "test"
    assert by_line[6].field == "cutoff"
    assert by_line[7].field == "gold.0.grade"
    assert by_line[8].fix and "answerable" in by_line[8].fix
    text = str(info.value)
    assert f"{path}:5 field 'split'" in text


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load_questions(tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="is a folder, not a file — give the .jsonl file"):
        load_questions(tmp_path)


def test_encoding_problems_are_per_line_and_a_byte_order_mark_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    lines = [b'\xef\xbb\xbf{"id": "A", "question": "ok"}', b'{"id": "B", "question": "caf\xe9"}',
             b"{not json"]  # fmt: skip
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(InputError) as info:
        load_questions(path)
    by_line = {p.line: p for p in info.value.problems}
    assert sorted(by_line) == [2, 3]
    assert by_line[2].message == "not UTF-8 text (byte 0xe9 at column 29)"
    path.write_bytes(lines[0] + b"\n")
    assert [q.id for q in load_questions(path).questions] == ["A"]


def test_a_persona_item_without_category_gets_one_and_says_where_from(tmp_path: Path) -> None:
    rows = [
        {"id": "T", "question": "q?", "tags": ["voice", "deep"]},
        {"id": "N", "question": "q?", "expected_flag": "not_in_record"},
        {"id": "C", "question": "q?", "expected_flag": "after_cutoff"},
        {"id": "P", "question": "q?", "expected_flag": "companionship"},
        {"id": "B", "question": "q?", "expected_corpus": ["B"], "expected_ids": ["b"]},
        {"id": "X", "question": "q?", "tags": ["voice"]},
        {"id": "G", "question": "q?", "category": "common", "tags": ["deep"]},
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = {q.id: (q.category, q.category_source) for q in load_questions(path).questions}
    assert got == {
        "T": ("deep", "tag"),
        "N": ("not_in_record", "expected_flag"),
        "C": ("after_cutoff", "expected_flag"),
        "P": ("policy", "expected_flag"),
        "B": ("b_only", "expected_corpus"),
        "X": (None, None),
        "G": ("common", "field"),
    }
    # an inferred category is not written back as if the file had said it
    assert "category" not in load_questions(path).by_id()["T"].model_dump(exclude_unset=True)


def test_the_configured_flag_rule_decides_answerability_at_load(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "A", "question": "q?", "expected_flag": "disclaimer", "gold": ["g"]}\n')
    with pytest.raises(InputError, match="unanswerable item cannot have gold"):
        load_questions(path)
    (item,) = load_questions(path, non_abstaining_flags={"disclaimer"}).questions
    assert item.is_answerable
