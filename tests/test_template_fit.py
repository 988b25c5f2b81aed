"""The kit template fitted to inputs already in a folder: only gates they can never score go."""

from __future__ import annotations

from ragcard.decision.template_fit import fit_template
from ragcard.decision.thresholds import template_text
from ragcard.inputs.questions import Question


def _q(qid: str, **fields: object) -> Question:
    return Question.model_validate({"id": qid, "question": "How many days?", **fields})


def test_a_complete_question_set_keeps_every_gate() -> None:
    questions = [_q("A", must_pass=True, gold=["p#1"], expected_answer="25"),
                 _q("B", category="currency_trap", gold=["p#1"]),
                 _q("C", answerable=False)]  # fmt: skip
    text = template_text("knowledge-base")
    assert fit_template(text, questions, cites=None) == (text, [])
    assert fit_template(text, questions, cites=True) == (text, [])


def test_gates_without_a_population_are_commented_out_with_why() -> None:
    text, notes = fit_template(template_text("knowledge-base"), [_q("A", gold=["p#1"])], False)
    assert [n.split(":")[0] for n in notes] == [
        "superseded_answers_currency_traps", "must_pass_zeros", "citation_accuracy",
        "correct_abstention", "answer_correctness", "answer_wrong"]  # (no expected_answer)
    assert '\n# measure = "must_pass_zeros"' in text and '\nmeasure = "recall@5"' in text
