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
