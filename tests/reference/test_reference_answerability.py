"""The answerability gate: specific terms, support over what the asker may search, codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragcard.errors import ConfigError
from ragcard.inputs.corpus import Corpus
from ragcard.reference import ReferenceAgent, build_agent
from ragcard.reference.answerability import QUESTION_FILLERS, Support, specific_terms
from ragcard.reference.text import identifier_keys, identifiers, tokenize

TODAY = "2026-06-01"

FORMS: list[dict[str, Any]] = [
    {
        "id": "forms#1",
        "doc": "forms",
        "section": "Study leave",
        "text": "Form HR-17 requests paid study leave. Submit it two weeks before the exam.",
    },
    {
        "id": "forms#2",
        "doc": "forms",
        "section": "Equipment",
        "text": "Order a replacement laptop with form IT 09 in the service portal.",
    },
    {
        "id": "managers#1",
        "doc": "managers-guide",
        "section": "Performance plans",
        "access": ["manager"],
        "text": "Template MG-PIP-2 sets out the goals of a performance improvement plan.",
    },
    {
        "id": "canteen#1",
        "doc": "facilities",
        "section": "Canteen",
        "text": "The canteen serves lunch from noon until two o'clock on working days.",
    },
]


def write_corpus(folder: Path, passages: list[dict[str, Any]]) -> Path:
    path = folder / "corpus.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in passages), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def agent(corpus: Corpus) -> ReferenceAgent:
    return build_agent(corpus, today=TODAY, embeddings=False)


@pytest.fixture(scope="module")
def forms(tmp_path_factory: pytest.TempPathFactory) -> ReferenceAgent:
    path = write_corpus(tmp_path_factory.mktemp("forms"), FORMS)
    return build_agent(path, today=TODAY, embeddings=False)


def ask(agent: ReferenceAgent, question: str, asker: str = "employee") -> dict[str, Any]:
    return agent({"question": question, "asker": asker})


def support(agent: ReferenceAgent, question: str, asker: str = "employee") -> Support:
    return agent.support({"question": question, "asker": asker})


# -- what counts as a specific term -------------------------------------------------------


def test_fillers_are_not_specific_terms() -> None:
    terms = tokenize("I'm actually going to need to know how long my laptop lasts, ok?")
    assert set(specific_terms(terms)) == {"laptop", "last"}
    assert {"m", "actually", "go", "need", "long", "ok"} <= QUESTION_FILLERS


def test_a_question_of_fillers_only_is_judged_on_them() -> None:
    assert specific_terms(("long",)) == ("long",)
    assert specific_terms(()) == ()


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("what's the pay band for a P3 product manager?", {"p3"}),
        ("how much does an l4 engineer earn", {"l4"}),
        ("What is form HR-17 for, and MG-PIP-2?", {"hr17", "mgpip2"}),
        ("Is COVID-19 leave paid? where is my p45", {"covid19", "p45"}),
        ("a 24-hour line, 9am-5pm on the 2nd, £2,500 in the 1870s, 4.5 hours", set()),
        ("the SSO-Lock policy, covid-19 in lower case", set()),
    ],
)
def test_identifiers_are_codes_not_numbers(text: str, codes: set[str]) -> None:
    assert identifiers(text) == codes


def test_identifier_keys_match_any_spelling() -> None:
    keys = identifier_keys("Use form IT 09, or HR-17, or mgpip2.")
    assert {"it09", "hr17", "mgpip2"} <= keys
    assert "form" not in keys and "use" not in keys


# -- the gate: specific terms must be in the evidence --------------------------------------


@pytest.mark.parametrize(
    "question",
    ["Can I take a sabbatical?", "Can I bring my dog to the office?", "Who is the CEO?"],
)
def test_a_question_whose_specific_term_is_absent_abstains(
    agent: ReferenceAgent, question: str
) -> None:
    assert support(agent, question).lexical == 0.0
    response = ask(agent, question)
    assert response["flag"] == "not_in_record" and response["abstained"] is True
    assert response["citations"] == [] and response["confidence"] < agent.abstain_below


def test_a_paraphrase_whose_terms_are_covered_answers(agent: ReferenceAgent) -> None:
    question = "I actually need to know how long I have got to submit my expense claims"
    assert support(agent, question).lexical == 1.0  # fillers do not count against it
    response = ask(agent, question)
    assert response["flag"] is None
    assert [c["id"] for c in response["citations"]] == ["expenses#2"]
    assert "30 days" in response["answer"]


def test_support_counts_only_what_the_asker_may_search(agent: ReferenceAgent) -> None:
    question = "What are the Band C salaries?"
    # for an employee the manager-only passage does not exist: its words are unknown
    assert support(agent, question, "employee").lexical == 0.0
    assert support(agent, question, "manager").lexical == 1.0
    index = agent.index
    employee = np.array([p.visible_to("employee") for p in index.passages])
    everyone = np.ones(len(index), dtype=np.bool_)
    assert index.document_frequency("band", employee) == 0
    assert index.document_frequency("band", everyone) == 1


def test_the_best_of_the_retrieved_passages_counts(agent: ReferenceAgent) -> None:
    # BM25 ranks by all terms; support is the best single passage among the top k
    question = "How many days of annual leave do full-time employees receive?"
    assert support(agent, question).lexical == 1.0
    assert ask(agent, question)["flag"] is None


# -- codes: a code no searchable passage names cannot be answered about -------------------


def test_a_known_code_answers_in_any_spelling(forms: ReferenceAgent) -> None:
    for question in ("What is form HR-17 for?", "what is form hr17 for", "What is form IT-09?"):
        found = support(forms, question)
        assert found.unknown_identifiers == ()
        assert ask(forms, question)["flag"] is None


def test_an_unknown_code_abstains_even_when_the_words_match(forms: ReferenceAgent) -> None:
    question = "What is form HR-18 for?"
    found = support(forms, question)
    assert found.unknown_identifiers == ("hr18",)
    assert found.lexical >= forms.abstain_below  # "form" alone would have let it through
    assert found.confidence == 0.0
    assert ask(forms, question)["flag"] == "not_in_record"


def test_a_code_only_restricted_passages_name_is_unknown(forms: ReferenceAgent) -> None:
    question = "Where is template MG-PIP-2?"
    assert support(forms, question, "employee").unknown_identifiers == ("mgpip2",)
    assert ask(forms, question, "employee")["flag"] == "not_in_record"
    manager = ask(forms, question, "manager")
    assert manager["flag"] is None and manager["citations"][0]["id"] == "managers#1"


# -- options and faults -------------------------------------------------------------------


def test_no_abstention_turns_the_whole_gate_off(corpus: Corpus, tmp_path: Path) -> None:
    loose = build_agent(corpus, today=TODAY, embeddings=False, faults=["no_abstention"])
    assert ask(loose, "Can employees take a sabbatical?")["flag"] is None
    path = write_corpus(tmp_path, FORMS)
    loose_forms = build_agent(path, today=TODAY, embeddings=False, faults=["no_abstention"])
    assert ask(loose_forms, "What is form HR-18 for?")["flag"] is None


def test_keyword_mode_has_no_semantic_threshold(agent: ReferenceAgent) -> None:
    meta = ask(agent, "Can I work from home?")["meta"]
    assert meta["abstain_similarity_below"] is None
    assert agent.abstain_similarity_below is None
    assert support(agent, "Can I work from home?").semantic is None


def test_semantic_threshold_is_ignored_without_vectors(corpus: Corpus) -> None:
    agent = build_agent(corpus, today=TODAY, embeddings=False, abstain_similarity_below=0.0)
    assert agent.abstain_similarity_below is None
    assert ask(agent, "Can I take a sabbatical?")["flag"] == "not_in_record"


@pytest.mark.parametrize("value", [2, -0.1, True, "high"])
def test_bad_semantic_threshold_is_a_config_error(corpus: Corpus, value: object) -> None:
    with pytest.raises(ConfigError, match="abstain_similarity_below"):
        build_agent(corpus, embeddings=False, abstain_similarity_below=value)  # type: ignore[arg-type]


def test_support_rule() -> None:
    assert Support(0.5, None).answerable(0.5, None)
    assert not Support(0.4, None).answerable(0.5, 0.3)
    assert Support(0.4, 0.6).answerable(0.5, 0.5)  # a close sentence carries it
    assert not Support(0.4, 0.6).answerable(0.5, None)  # … unless semantics is off
    assert not Support(1.0, 1.0, ("p3",)).answerable(0.0, 0.0)
