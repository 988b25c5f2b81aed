"""The key-facts correctness grader (``ragcard.judges.correctness``), case by case: each case
is an answer a careful reader graded, from the handbook demo or written to pin a rule."""

from __future__ import annotations

import pytest

from ragcard.judges.correctness import grade_answer, quantities

ESCALATE = (
    "Managers should respond within five working days; after that the request can be "
    "escalated to people@northwindlumen.com."
)
NOTICE = "Four weeks' notice in writing."


@pytest.mark.parametrize(
    ("answer", "expected", "grade"),
    [
        # HB-0004 (demo-correctness, the reader: wrong): the right rule, then another policy's
        # deadlines that read as if they applied to this request
        ("Managers should respond within five working days, and a request left unanswered "
         "after that can be escalated to people@northwindlumen.com. Your manager must meet "
         "you within two weeks and give a written decision within four weeks.",
         ESCALATE, "wrong"),
        # the right rule alone
        ("Managers should respond within five working days, and a request left unanswered "
         "after that can be escalated to people@northwindlumen.com.", ESCALATE, "correct"),
        # another limit about something else is not a rival: travel notice, not the reply
        ("Managers should respond within five working days, and a request left unanswered "
         "after that can be escalated to people@northwindlumen.com. Requests of more than "
         "three days need four weeks' notice.", ESCALATE, "correct"),
        # HB-0003: two weeks where the handbook says four
        ("You need to give two weeks' notice.", NOTICE, "wrong"),
        ("Give four weeks' notice, in writing, to your manager.", NOTICE, "correct"),
    ],
)
def test_grades(answer: str, expected: str, grade: str) -> None:
    verdict = grade_answer(answer, expected, "what notice or reply applies?")
    assert verdict.grade == grade, verdict.reason


def test_a_rival_limit_says_which_figures_clash() -> None:
    answer = (
        "Managers should respond within five working days; after that escalate to "
        "people@northwindlumen.com. Your manager must give a written decision within four weeks."
    )
    verdict = grade_answer(answer, ESCALATE)
    assert verdict.grade == "wrong"
    assert "four weeks" in (verdict.reason or "") and "five working days" in (verdict.reason or "")


def test_a_multiplier_is_a_figure_not_a_code() -> None:
    """HB-0050's expected answer: "hourly-paid support staff get 1.5x or double time" — 1.5 times
    (key-facts/2 read "1.5x" as a code "5X")."""
    expected = (
        "Salaried staff are not paid overtime but can take pre-agreed extra hours as TOIL; "
        "hourly-paid support staff get 1.5x or double time."
    )
    assert [(q.value, q.unit) for q in quantities(expected)] == [("1.5", "time")]
    assert "1.5x" in (grade_answer("Salaried employees are not paid overtime.", expected).reason
                      or "")  # fmt: skip
    wrong = grade_answer("Hourly staff get 2x; salaried staff take TOIL, not overtime.", expected)
    assert wrong.grade == "wrong" and "'2x'" in (wrong.reason or "")
    said = "Hourly-paid support staff get 1.5 times pay; salaried staff take pre-agreed extra hours"
    assert grade_answer(said + " as TOIL, not overtime.", expected).grade == "correct"
