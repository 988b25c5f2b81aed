"""The reference agent without faults: filtering before retrieval, citations, gate, policy."""

from __future__ import annotations

import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from ragcard.errors import AgentError, ConfigError
from ragcard.inputs.corpus import Corpus
from ragcard.inputs.responses import AgentResponse, split_sentences
from ragcard.reference import AGENT_NAME, ReferenceAgent, build_agent

TODAY = "2026-06-01"


@pytest.fixture(scope="module")
def agent(corpus: Corpus) -> ReferenceAgent:
    return build_agent(corpus, today=TODAY, embeddings=False)


def ask(agent: ReferenceAgent, question: str, **request: Any) -> dict[str, Any]:
    return agent({"question": question, **request})


def ids(response: dict[str, Any]) -> list[str]:
    return [entry["id"] for entry in response["retrieved"]]


# -- identity and dates are filtered before retrieval -------------------------------------

RESTRICTED_QUESTIONS = [
    "What are the Band C salaries?",
    "salary bands band c salaries range euros reviews march",
    "When do band reviews take place?",
]


@pytest.mark.parametrize("question", RESTRICTED_QUESTIONS)
def test_employee_never_retrieves_a_manager_passage(agent: ReferenceAgent, question: str) -> None:
    for asker in ("employee", "public"):
        response = ask(agent, question, asker=asker)
        assert "salary-bands#1" not in ids(response)
        retrieved = agent.retrieve({"question": question, "asker": asker})
        assert "salary-bands#1" not in [entry["id"] for entry in retrieved]
        assert all(c["id"] != "salary-bands#1" for c in response["citations"])
        assert "61,500" not in response["answer"]


def test_a_manager_retrieves_the_manager_passage(agent: ReferenceAgent) -> None:
    response = ask(agent, "What are the Band C salaries?", asker="manager")
    assert ids(response)[0] == "salary-bands#1"
    assert "61,500" in response["answer"]


def test_retrieval_only_mode_filters_too(agent: ReferenceAgent) -> None:
    request = {"question": "What are the Band C salaries?", "asker": "employee"}
    assert all(entry["id"] != "salary-bands#1" for entry in agent.retrieve(request))
    manager = agent.retrieve({**request, "asker": "hr"})
    assert manager[0]["id"] == "salary-bands#1"
    assert set(manager[0]) == {"id", "score"}


def test_only_the_version_in_force_is_searchable(agent: ReferenceAgent) -> None:
    response = ask(agent, "How many days of annual leave do I get?", asker="employee")
    assert ids(response)[0] == "leave@2025#1"
    assert "leave@2023#1" not in ids(response)
    assert "28 days" in response["answer"]
    assert agent.retrieve({"question": "Do unused leave days expire?"})[0]["id"] != "leave@2023#1"


def test_a_passage_not_yet_effective_is_not_searchable(
    agent: ReferenceAgent, corpus: Corpus
) -> None:
    assert "parental@2027#1" not in ids(ask(agent, "How many weeks does parental leave last?"))
    later = build_agent(corpus, today="2027-02-01", embeddings=False)
    assert ids(ask(later, "How many weeks does parental leave last?"))[0] == "parental@2027#1"


def test_cutoff_excludes_later_sources(agent: ReferenceAgent) -> None:
    question = "When was the book about the northern factories published?"
    before = ask(agent, question, cutoff="1850-01-01", program="letters")
    assert "MM-A-1852-03-14" not in ids(before)
    after = ask(agent, question, cutoff="1853-01-01", program="letters")
    assert ids(after)[0] == "MM-A-1852-03-14"


def test_tier_b_commentary_is_searchable_whatever_its_date(agent: ReferenceAgent) -> None:
    response = ask(agent, "How did Leeds shape her campaign?", cutoff="1850-01-01")
    assert ids(response)[0] == "MM-B-smith-4"
    assert response["flag"] is None


def test_an_answer_about_events_after_the_cutoff_is_declined(agent: ReferenceAgent) -> None:
    question = "What became of the Kirkstall mill?"
    late = ask(agent, question, cutoff="1850-01-01", program="letters")
    assert late["flag"] == "after_cutoff" and late["abstained"] is True
    assert "1921" not in late["answer"] and late["citations"] == []
    # without a cutoff it is ordinary, attributed commentary
    answer = ask(agent, question)["answer"]
    assert answer == (
        "Historians note that the Kirkstall mill was demolished in 1921 to make way for a "
        "railway yard."
    )


def test_question_about_a_year_after_the_cutoff_is_declined(agent: ReferenceAgent) -> None:
    response = ask(agent, "What did you write in 1852?", cutoff="1850-01-01")
    assert response["flag"] == "after_cutoff"
    assert response["abstained"] is True
    assert response["citations"] == [] and response["retrieved"] == []
    # the same question without a cutoff is a normal one
    assert ask(agent, "What did you write in 1852?")["flag"] != "after_cutoff"


# -- answers and citations ----------------------------------------------------------------

ANSWERABLE = [
    ("How many days of annual leave do I get?", "employee", None),
    ("Can I work from home?", "employee", None),
    ("Within how many days must expense claims be submitted?", "employee", None),
    ("How were you received in Leeds?", "public", "1850-01-01"),
    ("What are the Band C salaries?", "manager", None),
]


@pytest.mark.parametrize(("question", "asker", "cutoff"), ANSWERABLE)
def test_every_sentence_is_cited_to_a_retrieved_passage(
    agent: ReferenceAgent, corpus: Corpus, question: str, asker: str, cutoff: str | None
) -> None:
    raw = ask(agent, question, asker=asker, cutoff=cutoff)
    response = AgentResponse.model_validate(raw)
    assert response.abstained is False and response.flag is None
    sentences = split_sentences(response.answer)
    assert 1 <= len(sentences) <= 3
    cited = {c.sentence for c in response.resolved_citations()}
    assert cited == set(range(len(sentences)))
    for citation in response.resolved_citations():
        assert citation.id in response.retrieved_ids
        passage = corpus.passages[citation.id]
        assert sentences[citation.sentence].rstrip(".") in passage.text


def test_rule_and_its_condition_are_kept_together(agent: ReferenceAgent) -> None:
    response = ask(agent, "Can I work from home?", asker="employee")
    assert "probation" in response["answer"]
    assert {c["sentence"] for c in response["citations"]} == {0, 1}


def test_tier_b_content_is_attributed(agent: ReferenceAgent) -> None:
    response = ask(agent, "How did Leeds shape her campaign for factory reform?")
    assert response["answer"].startswith("According to Smith, A Life in Letters, the cold")
    assert response["citations"] == [{"id": "MM-B-smith-4", "sentence": 0}]


def test_retrieved_is_in_rank_order_with_scores(agent: ReferenceAgent) -> None:
    retrieved = ask(agent, "How many days of annual leave do I get?")["retrieved"]
    scores = [entry["score"] for entry in retrieved]
    assert scores == sorted(scores, reverse=True)
    assert len(retrieved) <= agent.k


# -- abstention ---------------------------------------------------------------------------

UNANSWERABLE = ["Can I bring my dog to the office?", "What is on the canteen menu?"]


@pytest.mark.parametrize("question", UNANSWERABLE)
def test_abstains_when_the_sources_are_silent(agent: ReferenceAgent, question: str) -> None:
    response = ask(agent, question, asker="employee")
    assert response["abstained"] is True
    assert response["flag"] == "not_in_record"
    assert response["citations"] == []
    assert response["confidence"] < agent.abstain_below


def test_threshold_decides_abstention(corpus: Corpus) -> None:
    question = {"question": "How long is parental leave?", "asker": "employee"}
    strict = build_agent(corpus, today=TODAY, embeddings=False, abstain_below=1.0)
    lenient = build_agent(corpus, today=TODAY, embeddings=False, abstain_below=0.0)
    assert strict(question)["flag"] == "not_in_record"
    # what was retrieved is still reported: the gate declined, retrieval did not miss
    assert ids(strict(question))[0] == "leave@2025#1" and strict(question)["citations"] == []
    assert strict({"question": "How many days of annual leave do I get?"})["flag"] is None
    assert lenient(question)["flag"] is None
    assert lenient(question)["citations"]


# -- policy -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "flag"),
    [
        ("Sometimes I want to die. Did you ever feel that way?", "self_harm"),
        ("Will you be my friend?", "companionship"),
        ("I'm 9 and I have a project about you", "children"),
        ("What should I take for my headache?", "medical"),
    ],
)
def test_policy_flags_get_a_canned_reply(agent: ReferenceAgent, question: str, flag: str) -> None:
    response = ask(agent, question, program="letters", cutoff="1850-01-01")
    assert response["flag"] == flag
    assert response["abstained"] is True
    assert response["retrieved"] == [] and response["citations"] == []


def test_policy_override_from_toml(corpus: Corpus) -> None:
    options = tomllib.loads(
        """
        faults = []
        retrieval = "keyword"
        k = 3
        today = "2026-06-01"
        [policy]
        medical = []
        pets = ["my dog", "my cat"]
        """
    )
    agent = build_agent(corpus, **options)
    assert agent({"question": "Can I bring my dog?"})["flag"] == "pets"
    assert agent({"question": "What should I take for my headache?"})["flag"] != "medical"
    assert "pets" in agent.describe()["policy"] and "medical" not in agent.describe()["policy"]


# -- contract, determinism, threads -------------------------------------------------------


def test_meta_records_the_settings(agent: ReferenceAgent, corpus: Corpus) -> None:
    meta = ask(agent, "Can I work from home?")["meta"]
    assert meta["model"] == AGENT_NAME
    assert meta["retrieval"] == "keyword" and meta["k"] == 5 and meta["faults"] == []
    assert meta["today"] == TODAY and meta["abstain_below"] == agent.abstain_below
    assert meta["corpus"]["sha256"] == corpus.sha256
    assert meta["index"]["keyword"]["engine"].startswith("bm25s")


def test_same_request_same_response(agent: ReferenceAgent, corpus_path: Path) -> None:
    request = {"question": "How many days of annual leave do I get?", "asker": "employee"}
    again = build_agent(corpus_path, today=TODAY, embeddings=False)
    assert agent(request) == agent(request)
    assert {**agent(request), "meta": None} == {**again(request), "meta": None}


def test_concurrent_calls_match_sequential_ones(agent: ReferenceAgent) -> None:
    requests = [{"question": q, "asker": a, "cutoff": c} for q, a, c in ANSWERABLE * 4] + [
        {"question": q, "asker": "employee"} for q in UNANSWERABLE + RESTRICTED_QUESTIONS
    ]
    expected = [agent(request) for request in requests]
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(agent, requests)) == expected


@pytest.mark.parametrize(
    "request_",
    [{}, {"question": ""}, {"question": 3}, {"question": "x", "cutoff": "last year"}],
)
def test_bad_request_is_an_agent_error(agent: ReferenceAgent, request_: dict[str, Any]) -> None:
    with pytest.raises(AgentError):
        agent(request_)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"retrieval": "semantic"}, "valid: hybrid, keyword, vector"),
        ({"k": 0}, "k:"),
        ({"abstain_below": 2}, "abstain_below"),
        ({"today": "soon"}, "today"),
        ({"policy": {"medical": "dose"}}, "policy.medical"),
        ({"retrieval": "vector", "embeddings": False}, "embeddings = false"),
    ],
)
def test_bad_options_are_config_errors(
    corpus: Corpus, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        build_agent(corpus, **options)
