"""Extractive answers: sentence choice, attribution, citations in ragcard's sentence numbering."""

from __future__ import annotations

import numpy as np

from ragcard.inputs.corpus import Passage
from ragcard.inputs.responses import AgentResponse, split_sentences
from ragcard.reference.answer import MAX_SENTENCES, draft_answer
from ragcard.reference.index import PassageIndex


def passage(pid: str, text: str, **fields: object) -> Passage:
    return Passage.model_validate(
        {"id": pid, "doc": fields.pop("doc", pid), "text": text, **fields}
    )


def draft(passages: list[Passage], question: str) -> tuple[str, list[dict[str, object]]]:
    index = PassageIndex(passages)
    query = index.prepare(question)
    hits = index.search(query, np.ones(len(index), dtype=np.bool_), 5, "keyword")
    result = draft_answer(query, hits, index)
    return result.answer, result.citations


def test_best_sentence_wins_and_is_copied_verbatim() -> None:
    answer, citations = draft(
        [
            passage("a", "The office opens at 8am. Parking is free for staff. Visitors sign in."),
            passage("b", "Staff parking permits are renewed every January."),
        ],
        "Is parking free for staff?",
    )
    assert answer.startswith("Parking is free for staff.")
    assert citations[0] == {"id": "a", "sentence": 0}


def test_a_second_passage_adds_what_the_first_lacks() -> None:
    answer, citations = draft(
        [
            passage("a", "Expense claims are due within 30 days."),
            passage("b", "Receipts are needed for items over 25 euros."),
        ],
        "When are expense claims due and when are receipts needed?",
    )
    assert "30 days" in answer and "25 euros" in answer
    assert {c["id"] for c in citations} == {"a", "b"}
    assert len(split_sentences(answer)) <= MAX_SENTENCES


def test_a_source_name_that_would_break_the_sentence_is_not_used() -> None:
    answer, citations = draft(
        [passage("b1", "The reform campaign began in Leeds.", doc="Acme Inc. Archive", tier="B")],
        "Where did the reform campaign begin?",
    )
    # "According to Acme Inc. Archive, …" would be two sentences to ragcard ("Inc." is not an
    # abbreviation it knows), the second unattributed
    assert answer == "Historians note that the reform campaign began in Leeds."
    assert citations == [{"id": "b1", "sentence": 0}]
    answer, _ = draft(
        [passage("b1", "The reform campaign began in Leeds.", doc="J. Smith", tier="B")],
        "Where did the reform campaign begin?",
    )
    assert answer == "According to J. Smith, the reform campaign began in Leeds."  # initials


def test_a_title_field_names_the_source() -> None:
    answer, _ = draft(
        [passage("b1", "The campaign began in Leeds.", doc="smith-1998", title="A Life", tier="B")],
        "Where did the campaign begin?",
    )
    assert answer == "According to A Life, the campaign began in Leeds."


def test_an_id_like_doc_gets_a_generic_attribution() -> None:
    answer, _ = draft(
        [passage("b1", "The campaign began in Leeds.", doc="morvan-1962-keepers", tier="B")],
        "Where did the campaign begin?",
    )
    assert answer == "Historians note that the campaign began in Leeds."


def test_second_sentence_of_a_tier_b_source_is_attributed_too() -> None:
    text = "Her letters were widely read. They shaped the reform campaign in Leeds."
    answer, _ = draft(
        [passage("b1", text, doc="Smith (1998)", tier="B")],
        "Were her letters widely read, and did they shape the reform campaign?",
    )
    assert answer.startswith("According to Smith (1998), her letters were widely read.")
    assert "Smith (1998) also notes that they shaped" in answer


def test_proper_names_keep_their_capital_after_attribution() -> None:
    answer, _ = draft(
        [passage("b1", "Leeds hardened her resolve.", doc="Smith (1998)", tier="B")],
        "What hardened her resolve?",
    )
    assert answer == "According to Smith (1998), Leeds hardened her resolve."


def test_citations_follow_ragcards_sentence_splitter() -> None:
    text = "Claims go to finance, e.g. travel and meals. Approval takes 5 days"
    answer, citations = draft([passage("x", text)], "How long does approval of claims take?")
    response = AgentResponse.model_validate({"answer": answer, "citations": citations})
    assert answer.endswith("Approval takes 5 days.")
    assert {c.sentence for c in response.resolved_citations()} == set(
        range(len(response.sentences()))
    )


def test_no_text_no_answer() -> None:
    answer, citations = draft([passage("x", "  ")], "Anything?")
    assert answer == "" and citations == []
