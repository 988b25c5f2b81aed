"""Held-out items never reach tuning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcard.errors import ConfigError
from ragcard.goldset import heldout_guard
from ragcard.inputs.questions import QuestionSet, load_questions


@pytest.fixture
def question_set(tmp_path: Path) -> QuestionSet:
    items = [
        {"id": "D1", "question": "a"},
        {"id": "H1", "question": "b", "split": "heldout"},
        {"id": "D2", "question": "c", "split": "dev"},
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return load_questions(path)


def test_whole_set_gives_its_dev_items(question_set: QuestionSet) -> None:
    assert [q.id for q in heldout_guard(question_set, "prompt search")] == ["D1", "D2"]


def test_explicit_heldout_items_are_refused(question_set: QuestionSet) -> None:
    with pytest.raises(ConfigError, match=r"threshold calibration: refused .*H1"):
        heldout_guard(question_set.questions, "threshold calibration")
    dev = [q for q in question_set.questions if q.split == "dev"]
    assert heldout_guard(dev, "tuning") == dev


def test_allow_heldout_returns_everything(question_set: QuestionSet) -> None:
    assert len(heldout_guard(question_set.questions, "final run", allow_heldout=True)) == 3
    assert len(heldout_guard(question_set, "final run", allow_heldout=True)) == 3
