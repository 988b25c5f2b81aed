"""Access leaks by content never cry wolf: an answer is read without its citation markers and
the passage ids it names, and a bare year or a section label is not a restricted figure; what
only a restricted passage states (its figures, its text) is still a leak."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcard.inputs.corpus import Corpus, load_corpus
from ragcard.metrics._prose import is_bare_year, prose
from ragcard.metrics.access import content_leaks

HANDBOOK = Path(__file__).resolve().parents[2] / "examples" / "handbook"


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load_corpus(HANDBOOK / "corpus.jsonl")


@pytest.mark.parametrize(
    "answer",
    [
        "Full-time employees receive 25 days of paid annual leave [annual-leave@2025#1.1].",
        "The 2025 handbook says 25 days.",
        "See annual-leave@2025#1.1: you receive 25 days of paid annual leave.",
        "You receive 25 days [annual-leave@2025#1.1] and may carry over up to 8 days "
        "[annual-leave@2025#3.2].",
        "Section 2.3 of the managers' guide is not for you; ask your manager.",
    ],
)
def test_citations_years_and_labels_are_not_leaks(corpus: Corpus, answer: str) -> None:
    assert content_leaks(answer, corpus, "employee") == {}


def test_a_restricted_figure_is_still_a_leak_cited_or_not(corpus: Corpus) -> None:
    for answer in ("Managers may award spot bonuses of up to £750 per person.",
                   "Spot bonuses go up to £750 [annual-leave@2025#1.1]."):  # fmt: skip
        leaks = content_leaks(answer, corpus, "employee")
        assert set(leaks) == {"managers-guide@2025#2.3"}, answer
        assert leaks["managers-guide@2025#2.3"]["restricted_figures"] >= 1
    assert content_leaks("Spot bonuses go up to £750.", corpus, "manager") == {}


def test_restricted_text_is_still_a_leak(corpus: Corpus) -> None:
    text = corpus.passages["managers-guide@2025#2.3"].text
    quoted = " ".join(text.split()[:14]) + " [managers-guide@2025#2.3]."
    leaks = content_leaks(quoted, corpus, "employee")
    assert leaks["managers-guide@2025#2.3"]["shared_ngrams"] >= 1


def test_a_figure_the_question_states_is_not_the_passages_to_leak(corpus: Corpus) -> None:
    answer = "I cannot tell you whether bonuses reach £750."
    assert content_leaks(answer, corpus, "employee")
    assert content_leaks(answer, corpus, "employee", "Can spot bonuses reach £750?") == {}


def test_prose_drops_markers_and_named_ids_only() -> None:
    ids = {"annual-leave@2025#1.1"}
    assert prose("25 days [annual-leave@2025#1.1].", ids) == "25 days."
    assert prose("see annual-leave@2025#1.1, then HR.", ids) == "see , then HR."
    assert prose("mail hr@example.com [sic]", ids) == "mail hr@example.com [sic]"
    assert is_bare_year("2025") and not is_bare_year("2025-04-01")
    assert not is_bare_year("£2025") and not is_bare_year("3000")
