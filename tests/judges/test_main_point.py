"""Credit for the main point, figures read by slot, reasons that name what is missing (issue 19,
items 2 and 3): the cases the issue names, on the demo's labelled answers and small examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragcard.judges.base import MAIN_POINT, Evidence, Verdict
from ragcard.judges.correctness import grade_answer, key_facts
from ragcard.judges.main_point import asks, main_point, secondary_spans

LABELS = (
    Path(__file__).resolve().parents[2]
    / "src" / "ragcard" / "judges" / "metaeval" / "data" / "demo-correctness.jsonl"
)  # fmt: skip
ROWS = {row["id"]: row for row in map(json.loads, LABELS.read_text().splitlines())}


def _demo(item: str, answer: str | None = None) -> Verdict:
    row: dict[str, Any] = ROWS[item]
    passages = tuple(Evidence(p["id"], p["text"]) for p in row["passages"])
    return grade_answer(
        row["answer"] if answer is None else answer, row["expected_answer"], row["question"],
        passages,
    )  # fmt: skip


def _passes(verdict: Verdict) -> bool:
    return verdict.grade == "correct" or (
        verdict.grade == "partial" and verdict.score >= MAIN_POINT
    )


def test_the_main_point_without_a_secondary_fact_is_partial_with_the_main_point() -> None:
    # HB-0167: "will I lose any of my 7 days?" — "You may carry up to 8 unused days"
    verdict = _demo("HB-0167")
    assert verdict.grade == "partial" and verdict.score >= MAIN_POINT
    assert "states the main point" in verdict.reason and "31 March" in verdict.reason
    for item in ("HB-0080", "HB-0105", "HB-0166"):  # a figure's phrase, then its details
        assert _passes(_demo(item)), item


@pytest.mark.parametrize("item", ["HB-0107", "HB-0108", "HB-0110", "HB-0123"])
def test_a_true_figure_about_something_else_is_no_wrong_value(item: str) -> None:
    """"£140" is the correctly quoted UK hotel cap: the food limit is what is missing."""
    verdict = _demo(item)
    assert verdict.grade == "partial" and not _passes(verdict), verdict.reason
    assert "where the expected answer says" not in verdict.reason
    assert "missing of it" in verdict.reason
    if item == "HB-0108":
        assert "£55" in verdict.reason and "£140" not in verdict.reason


def test_a_verbatim_copy_is_not_the_opposite_of_the_expected_answer() -> None:
    # HB-0122: "… only after at least four weeks of documented informal support have not worked"
    verdict = _demo("HB-0122")
    assert verdict.grade == "partial" and "denies" not in verdict.reason
    assert "capability" in verdict.reason  # what is missing: the Not Met outcome


def test_a_question_asking_two_things_has_a_main_point_of_two_facts() -> None:
    # HB-0125: "how do I ask, and what happens to my holiday?" — the HR-17 request only
    verdict = _demo("HB-0125")
    assert verdict.grade == "partial" and not _passes(verdict)
    assert "pro" in verdict.reason and "entitlement" in verdict.reason
    assert asks("how do I ask, and what happens to my holiday?") == 2
    assert asks("I'm leaving next month, how do I send back my laptop?") == 1


def test_another_amount_is_wrong_not_partial() -> None:
    verdict = grade_answer("You get 500 euros a year.", "800 euros per calendar year.",
                           "How big is my learning budget?")  # fmt: skip
    assert verdict.grade == "wrong" and "'500 euros'" in verdict.reason
    # "55 pounds" is "£55"
    same = grade_answer("You can claim 55 pounds a day.", "Up to £55 a day on overnight trips.")
    assert same.grade != "wrong"


def test_the_same_number_in_another_currency_conflicts() -> None:
    verdict = grade_answer("The budget is £1,400 a year.", "€1,400 a year.",
                           "how much is the learning budget for the Irish team?")  # fmt: skip
    assert verdict.grade == "wrong" and "'£1,400'" in verdict.reason and "€1,400" in verdict.reason


def test_a_parenthetical_is_secondary() -> None:
    verdict = grade_answer(
        "A first written warning stays live for 6 months.",
        "Six months (a final written warning stays live for 12 months).",
        "how long does a first written warning stay live?",
    )
    assert verdict.grade == "correct", verdict.reason
    assert secondary_spans("Six months (a final written warning stays live for 12 months).")


def test_an_attributed_answer_does_not_need_its_sources_year() -> None:
    for item in ("GQ-MA-0026", "GQ-MA-0032"):  # "Annick Morvan (1962) writes…", "… in 1987"
        assert _demo(item).grade == "correct", item
    facts = key_facts(ROWS["GQ-MA-0028"]["expected_answer"])  # "According to J.-F. Rioual (1998)"
    assert [q.value for q in facts.secondary] == ["1998"]
    assert "1998" not in facts.point and "47" in facts.point


def test_inline_citation_ids_are_not_answer_words() -> None:
    expected = "Full-time employees get 25 days of paid annual leave a year."
    bare = grade_answer("Working hours are 37.5 a week.", expected)
    cited = grade_answer("Working hours are 37.5 a week [working-hours@2024#1.1].", expected)
    assert cited.score == bare.score and cited.grade == bare.grade == "wrong"


def test_polarity_without_a_leading_yes_or_no() -> None:
    expected = "No, alcohol is not reimbursed except at client entertainment approved in advance."
    question = "Can I expense the wine at a team dinner?"
    wrong = grade_answer("Alcohol is reimbursed at team dinners.", expected, question)
    assert wrong.grade == "wrong" and "denies" in wrong.reason
    right = grade_answer("Alcohol is not reimbursed, except at client entertainment.", expected,
                         question)  # fmt: skip
    assert right.grade == "correct"
    bikes = ("Bicycles are parked in the basement of building B.", "Where do I park my bike?")
    negated = grade_answer("Bicycles are not parked in the basement of building B.", *bikes)
    assert negated.grade == "wrong"
    reworded = grade_answer("Bikes go in the basement of building B.", *bikes)
    assert reworded.grade == "correct"


def test_main_point_reads_the_first_fact() -> None:
    def has_fact(text: str) -> bool:
        return any(ch.isdigit() for ch in text) or "six" in text.lower()

    assert main_point("No, up to 8 days can be carried over, but they must be used by 31 March.",
                      None, has_fact) == ("up to 8 days can be carried over",)  # fmt: skip
    assert main_point("Up to 10 keeping-in-touch days, paid at your full daily rate.", None,
                      has_fact) == ("Up to 10 keeping-in-touch days",)  # fmt: skip
    assert main_point("Up to six free, confidential sessions a year.", None, has_fact) == (
        "Up to six free, confidential sessions a year",  # a list, not a qualifier
    )
    two = main_point("The report is due within 20 working days and the file is kept six years.",
                     "how long do we have to write the report and how long do we keep the file?",
                     has_fact)  # fmt: skip
    assert two == ("The report is due within 20 working days", "the file is kept six years")


def test_a_wrong_value_names_the_figure_it_replaces() -> None:
    # HB-0003: "two weeks' notice" replaces "four weeks' notice", not "three … working days"
    verdict = _demo("HB-0003")
    assert verdict.grade == "wrong" and "'four weeks''" in verdict.reason


def test_another_number_to_call_and_a_flipped_order_word() -> None:
    # HB-0073: the whistleblowing hotline where the expected answer gives ClearPath's number
    verdict = _demo("HB-0073")
    assert verdict.grade == "wrong" and "'0808 157 0266'" in verdict.reason
    flipped = _demo("HB-0095", "HW-2 is the home workspace self-assessment, completed in Harbour "
                    "after you have started working from home.")  # fmt: skip
    assert flipped.grade == "wrong" and "'after'" in flipped.reason and "'before'" in flipped.reason
