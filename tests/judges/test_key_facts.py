"""The key-facts correctness grader (``ragcard.judges.correctness``), case by case: each case
is an answer a careful reader graded, from the handbook demo or written to pin a rule."""

from __future__ import annotations

import pytest

from ragcard.judges.correctness import grade_answer

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
