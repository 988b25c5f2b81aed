from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcard.errors import InputError
from ragcard.responses import AgentResponse, load_responses, split_sentences


def test_citation_forms_resolve_to_sentences() -> None:
    response = AgentResponse.model_validate(
        {
            "answer": "You get 25 days, e.g. in 2025. [leave@2025#1] Carry over 8 days "
            "[leave@2025#2]. See section 3.2 [sic].",
            "citations": ["whole", {"id": "explicit", "sentence": 2}],
            "retrieved": ["a", {"id": "b", "score": 0.3}, "a"],
        }
    )
    cited = [(c.id, c.sentence) for c in response.resolved_citations()]
    assert cited == [("whole", None), ("explicit", 2), ("leave@2025#1", 0), ("leave@2025#2", 1)]
    assert response.retrieved_ids == ["a", "b"]  # a duplicate keeps its first rank
    assert response.sentences() == [
        "You get 25 days, e.g. in 2025.",
        "Carry over 8 days.",
        "See section 3.2 [sic].",
    ]


def test_split_sentences_edges() -> None:
    assert split_sentences("") == []
    assert split_sentences("One. Two! Three?") == ["One.", "Two!", "Three?"]
    assert split_sentences("Dr. Who lives at No. 4. Yes.") == ["Dr. Who lives at No. 4.", "Yes."]


def test_recorded_responses_duplicates_and_types(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"item": "A", "attempt": 1, "answer": "x"},
                {"item": "A", "attempt": 1, "answer": "y"},
                {"item": "B", "latency_ms": -4},
                {"answer": "no item"},
            ]
        )
    )
    with pytest.raises(InputError) as info:
        load_responses(path)
    found = {(p.line, p.field) for p in info.value.problems}
    assert found == {(2, "attempt"), (3, "latency_ms"), (4, "item")}
