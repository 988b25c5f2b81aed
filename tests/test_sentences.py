"""The one sentence splitter (ragcard._sentences): hard cases, and the same sentences for
answers, passages (the judges' spans), the meta-evaluation and the reference agent."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from ragcard._sentences import sentence_spans, split_sentences
from ragcard.inputs.responses import AgentResponse
from ragcard.inputs.responses import split_sentences as answer_sentences
from ragcard.judges import lexical
from ragcard.judges.metaeval import examples
from ragcard.pipeline.evaluation import load_inputs, score_responses

FIXTURE = Path(__file__).parent / "fixtures" / "sentences" / "hard_cases.jsonl"
CASES = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
TRIP = "The limit is £1,000.00 per trip. Receipts are required."


def test_the_fixture_covers_every_kind_of_hard_case() -> None:
    kinds = {case["kind"] for case in CASES}
    assert {"abbreviation", "decimal", "currency", "initials", "quotes", "lists"} <= kinds


@pytest.mark.parametrize("case", CASES, ids=[f"{c['kind']}-{n}" for n, c in enumerate(CASES)])
def test_hard_cases_split_the_same_everywhere(case: dict[str, object]) -> None:
    text, expected = str(case["text"]), case["sentences"]
    assert split_sentences(text) == expected
    assert answer_sentences(text) == expected  # answers: citations by sentence index
    assert [text[a:b] for a, b in lexical.split_sentences(text)] == expected  # judges' spans
    assert list(examples.split_sentences(text)) == expected  # meta-evaluation claims
    assert sentence_spans(text) == lexical.split_sentences(text)


def test_a_word_ending_in_p_is_no_abbreviation() -> None:
    # "p." and "pp." are abbreviations only as whole words (they matched inside "trip." once)
    assert split_sentences(TRIP) == ["The limit is £1,000.00 per trip.", "Receipts are required."]
    assert split_sentences("See p. 4. Then stop.") == ["See p. 4.", "Then stop."]
    assert split_sentences("Use the app. It helps.") == ["Use the app.", "It helps."]


def test_an_explicit_citation_to_the_second_sentence_counts(tmp_path: Path) -> None:
    (tmp_path / "q.jsonl").write_text(json.dumps({
        "id": "T1", "question": "Is there a limit per trip?", "asker": "employee",
        "category": "typical", "gold": ["exp#1"],
    }) + "\n")  # fmt: skip
    (tmp_path / "c.jsonl").write_text(json.dumps({
        "id": "exp#1", "doc": "expenses", "version": "2025", "effective_from": "2025-01-01",
        "text": TRIP,
    }) + "\n")  # fmt: skip
    (tmp_path / "r.jsonl").write_text(json.dumps({
        "item": "T1", "attempt": 1, "answer": TRIP, "retrieved": ["exp#1"],
        "citations": [{"id": "exp#1", "sentence": 1}], "abstained": False, "latency_ms": 10,
    }) + "\n")  # fmt: skip
    (tmp_path / "t.toml").write_text(
        '[[threshold]]\nmeasure="citation_accuracy"\ncomparison=">="\nvalue=1\n'
        'type="graded"\nreason="cited sentences hold"\n'
    )
    response = AgentResponse(answer=TRIP, citations=[{"id": "exp#1", "sentence": 1}])
    assert response.sentences() == ["The limit is £1,000.00 per trip.", "Receipts are required."]
    inputs = load_inputs(tmp_path / "q.jsonl", tmp_path / "c.jsonl", tmp_path / "t.toml")
    score_responses(inputs, tmp_path / "r.jsonl", tmp_path / "out",
                    run_date=dt.date(2026, 1, 1), judge=lexical.LexicalJudge())  # fmt: skip
    line = json.loads((tmp_path / "out" / "results.jsonl").read_text())
    assert line["scores"]["uncited_sentences"] == 0.5  # was 1.0: one sentence, index 1 dropped
    assert line["scores"]["citation_accuracy"] == 1.0  # the (sentence 1, exp#1) pair is judged
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert card["metrics"]["citation_accuracy"]["n"] == 1


def test_spans_point_into_the_text_and_lose_nothing() -> None:
    text = "  Leave is 25 days. [p1]\n\n- Carry over 5.\nStaff only.  "
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == [
        "Leave is 25 days. [p1]",
        "- Carry over 5.",
        "Staff only.",
    ]
    assert sentence_spans("") == sentence_spans(" \n ") == []
