from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcard.errors import InputError
from ragcard.inputs.responses import AgentResponse, load_responses, split_sentences


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


def test_derived_values_are_kept_out_of_dumps_and_equality_and_follow_edits() -> None:
    data = {
        "answer": "Leave is 25 days [p1]. Ask HR.",
        "citations": [{"id": "p2", "sentence": 1}],
        "retrieved": ["p1", "p2", "p1"],
    }
    response, fresh = AgentResponse.model_validate(data), AgentResponse.model_validate(data)
    assert response.cited_ids() == ["p2", "p1"] and response.retrieved_ids == ["p1", "p2"]
    assert response.model_dump() == fresh.model_dump()  # nothing derived is dumped
    assert json.loads(response.model_dump_json()) == json.loads(fresh.model_dump_json())
    assert response == fresh and fresh == response
    response.sentences().append("not kept")  # callers get copies
    assert response.sentences() == ["Leave is 25 days.", "Ask HR."]
    response.answer = "New [p9]. Text."
    assert response.cited_ids() == ["p2", "p9"]
    response.citations.append(response.citations[0].model_copy(update={"id": "p3"}))
    assert response.cited_ids() == ["p2", "p3", "p9"]
    response.retrieved.pop(0)
    assert response.retrieved_ids == ["p2", "p1"]
    copy = response.model_copy(update={"answer": "Other."})
    assert copy.sentences() == ["Other."] and response.sentences() == ["New.", "Text."]


def test_lines_json_alone_cannot_parse_are_read_as_the_json_module_reads_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    lines = [
        '{"item": "B", "answer": "\\ud800"}',  # a lone surrogate escape: pydantic refuses it
        '{"item": "C", "answer": "ok"}',
        "",
    ]
    path.write_text("\n".join(lines))
    loaded = load_responses(path)
    assert [r.item for r in loaded] == ["B", "C"]
    assert loaded[0].answer == "\ud800"


def test_nan_is_refused_even_where_json_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"item": "A", "answer": "x", "meta": {"x": NaN}}\n')
    with pytest.raises(InputError) as info:
        load_responses(path)
    (problem,) = info.value.problems
    assert (problem.line, problem.field) == (1, "meta.x")
    assert "not a finite number" in problem.message and "finite number" in str(problem.fix)


def test_non_objects_are_described_as_before(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('[1, 2]\n{"item": 3}\n{"item": "A", "attempt": -1}\n')
    with pytest.raises(InputError) as info:
        load_responses(path)
    problems = [(p.line, p.field, p.message) for p in info.value.problems]
    assert problems[0] == (1, None, "expected a JSON object (response)")
    assert [(line, field) for line, field, _ in problems[1:]] == [(2, "item"), (3, "attempt")]
