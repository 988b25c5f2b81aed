"""Each fault switch breaks the agent the way it says, and nothing else."""

from __future__ import annotations

from typing import Any

import pytest

from ragcard.errors import ConfigError, MissingExtraError
from ragcard.inputs.corpus import Corpus
from ragcard.reference import FAULTS, ReferenceAgent, build_agent

TODAY = "2026-06-01"


def agent_with(corpus: Corpus, *faults: str, **options: Any) -> ReferenceAgent:
    return build_agent(corpus, faults=list(faults), today=TODAY, embeddings=False, **options)


def ids(entries: list[dict[str, Any]]) -> list[str]:
    return [entry["id"] for entry in entries]


def test_unknown_fault_lists_the_valid_ones(corpus: Corpus) -> None:
    with pytest.raises(ConfigError) as raised:
        agent_with(corpus, "leaky_filter")
    message = str(raised.value)
    assert "'leaky_filter'" in message
    assert all(name in message for name in FAULTS)


def test_faults_must_be_a_list(corpus: Corpus) -> None:
    with pytest.raises(ConfigError, match=r'faults = \["keep_superseded"\]'):
        build_agent(corpus, faults="keep_superseded")  # type: ignore[arg-type]


def test_keyword_only_and_vector_only_exclude_each_other(corpus: Corpus) -> None:
    with pytest.raises(ConfigError, match="cannot be combined"):
        agent_with(corpus, "keyword_only", "vector_only")


def test_faults_are_recorded(corpus: Corpus) -> None:
    agent = agent_with(corpus, "no_abstention", "keep_superseded", "no_abstention")
    meta = agent({"question": "Can I work from home?"})["meta"]
    assert meta["faults"] == ["keep_superseded", "no_abstention"]


# -- filter_after_ranking: restricted passages reach the answer -------------------------

SALARY = {"question": "What are the Band C salaries?", "asker": "employee"}


def test_filter_after_ranking_leaks_into_the_answer(corpus: Corpus) -> None:
    clean = agent_with(corpus)(SALARY)
    assert clean["abstained"] is True and "61,500" not in clean["answer"]

    leaky = agent_with(corpus, "filter_after_ranking")(SALARY)
    # the reported list looks clean …
    assert "salary-bands#1" not in ids(leaky["retrieved"])
    # … but the answer was drafted from the unfiltered top k
    assert "61,500 to 74,250 euros" in leaky["answer"]
    assert "salary-bands#1" in ids(leaky["citations"])
    assert leaky["abstained"] is False


def test_filter_after_ranking_looks_clean_in_retrieval_only_mode(corpus: Corpus) -> None:
    leaky = agent_with(corpus, "filter_after_ranking")
    assert "salary-bands#1" not in ids(leaky.retrieve(SALARY))
    # people who may see the passage get the same answer as without the fault
    manager = {**SALARY, "asker": "manager"}
    assert leaky(manager)["answer"] == agent_with(corpus)(manager)["answer"]


# -- keep_superseded: the old version is searchable and can win --------------------------

EXPIRY = {"question": "Do unused leave days expire on 31 December?", "asker": "employee"}


def test_keep_superseded_returns_and_cites_the_old_version(corpus: Corpus) -> None:
    clean = agent_with(corpus)(EXPIRY)
    assert "leave@2023#1" not in ids(clean["retrieved"])

    stale = agent_with(corpus, "keep_superseded")(EXPIRY)
    assert ids(stale["retrieved"])[0] == "leave@2023#1"
    assert "leave@2023#1" in ids(stale["citations"])
    assert "expire on 31 December" in stale["answer"]


def test_keep_superseded_also_keeps_versions_not_yet_in_force(corpus: Corpus) -> None:
    request = {"question": "How many weeks does parental leave last?"}
    assert "parental@2027#1" not in ids(agent_with(corpus)(request)["retrieved"])
    assert ids(agent_with(corpus, "keep_superseded")(request)["retrieved"])[0] == "parental@2027#1"


# -- no_abstention: answers what it cannot know -------------------------------------------


def test_no_abstention_answers_unanswerable_questions(corpus: Corpus) -> None:
    request = {"question": "Is there a company car scheme for employees?", "asker": "employee"}
    assert agent_with(corpus)(request)["flag"] == "not_in_record"
    answered = agent_with(corpus, "no_abstention")(request)
    assert answered["abstained"] is False and answered["flag"] is None
    assert answered["citations"] and answered["retrieved"]


def test_no_abstention_answers_after_the_cutoff_but_keeps_policy(corpus: Corpus) -> None:
    agent = agent_with(corpus, "no_abstention")
    late = agent({"question": "How were you received in Leeds in 1851?", "cutoff": "1850-01-01"})
    assert late["flag"] is None and late["abstained"] is False
    assert agent({"question": "I want to die"})["flag"] == "self_harm"


# -- ignore_cutoff: later sources leak into persona answers --------------------------------

BOOK = {
    "question": "When was the book about the northern factories published?",
    "cutoff": "1850-01-01",
    "program": "letters",
}


def test_ignore_cutoff_retrieves_and_cites_later_sources(corpus: Corpus) -> None:
    assert "MM-A-1852-03-14" not in ids(agent_with(corpus)(BOOK)["retrieved"])
    late = agent_with(corpus, "ignore_cutoff")(BOOK)
    assert ids(late["retrieved"])[0] == "MM-A-1852-03-14"
    assert "MM-A-1852-03-14" in ids(late["citations"])


def test_ignore_cutoff_answers_questions_about_later_years(corpus: Corpus) -> None:
    request = {"question": "What was published in 1852?", "cutoff": "1850-01-01"}
    assert agent_with(corpus)(request)["flag"] == "after_cutoff"
    assert agent_with(corpus, "ignore_cutoff")(request)["flag"] != "after_cutoff"


def test_ignore_cutoff_speaks_of_later_events(corpus: Corpus) -> None:
    request = {"question": "What became of the Kirkstall mill?", "cutoff": "1850-01-01"}
    assert agent_with(corpus)(request)["flag"] == "after_cutoff"
    assert "1921" in agent_with(corpus, "ignore_cutoff")(request)["answer"]


# -- keyword_only / vector_only ------------------------------------------------------------


def test_keyword_only_forces_keyword_search(corpus: Corpus) -> None:
    agent = build_agent(corpus, faults=["keyword_only"], today=TODAY)
    assert agent.mode == "keyword"
    assert agent({"question": "Can I work from home?"})["meta"]["retrieval"] == "keyword"


def test_hybrid_never_runs_as_keyword_silently(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hybrid is the default and stays hybrid; without the encoder (a broken install) it is an
    error saying how to repair it, never keyword search with other answers."""
    meta = build_agent(corpus, today=TODAY)({"question": "Can I work from home?"})["meta"]
    assert meta["retrieval"] == "hybrid"
    import ragcard.reference.embeddings as embeddings

    monkeypatch.setattr(embeddings, "_cache", {})
    monkeypatch.setattr(embeddings.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(MissingExtraError, match="force-reinstall ragcard"):
        build_agent(corpus, today=TODAY)
    with pytest.raises(MissingExtraError, match="onnxruntime"):
        build_agent(corpus, faults=["vector_only"], today=TODAY)
