"""The ``lexical`` judge's answers to the yes/no tasks about a whole answer.

* **relevance** — the share of the question's content terms (stemmed as for support; stop
  words and question-frame words such as "long", "often", "explain" removed) that the answer
  contains; two terms also match when one is a prefix of the other and the shorter has at
  least :data:`PREFIX` letters ("resign" / "resignation"). Relevant when that share reaches
  :data:`RELEVANCE_THRESHOLD`.
* **abstention** — the refusal phrase list of :mod:`ragcard.judges.refusals`, exactly as the
  abstention layer uses it without a judge, so the lexical judge changes no abstention decision.
* **correctness** — the expected answer's key facts found in the answer, a conflicting value
  or polarity being ``wrong`` (:mod:`ragcard.judges.correctness`).

What relevance by coverage cannot see: an answer in other words ("How much holiday…?" — "25
days a year") scores low; an answer that repeats the question's words without answering it
("Annual leave is described in the handbook.") scores high. It catches answers about
something else entirely, not evasive or partial ones.

The threshold was tuned (maximum balanced accuracy: 0.268, rounded to 0.27) on CLAPNQ dev,
answerable questions 0–149, each question against its own human answer and against two other
answers (the next question's; the answer of the question sharing most of its words). On
questions 150–299, which it never saw (``.venv/bin/python benchmarks/relevance_lexical.py``):
AUROC 0.964, balanced accuracy 0.907 against the next question's answer; AUROC 0.922,
balanced accuracy 0.870 against the nearest question's answer; 81% of the human answers are
judged relevant, i.e. about one right answer in five is missed for using other words. These
are search-style questions with long answers; measure on your own data before trusting it.
"""

from __future__ import annotations

from ragcard.judges.base import JudgeContext, JudgeError, Label, TaskNotSupportedError, Verdict
from ragcard.judges.correctness import ALGORITHM as CORRECTNESS_ALGORITHM
from ragcard.judges.correctness import grade_answer
from ragcard.judges.lexical import _surface_forms, stem
from ragcard.judges.refusals import refusal_phrase

__all__ = [
    "PREFIX",
    "RELEVANCE_THRESHOLD",
    "TASK_VERSIONS",
    "correctness_of",
    "judge_task",
    "question_coverage",
]

#: Share of the question's content terms an answer must hold to count as addressing it.
RELEVANCE_THRESHOLD = 0.27
#: Shortest shared prefix that lets two different terms match.
PREFIX = 5
#: How the lexical judge answers each task (recorded in its identity).
TASK_VERSIONS = {
    "relevance": f"lexical-relevance/1 (question-term coverage >= {RELEVANCE_THRESHOLD:g})",
    "abstention": "refusal-phrases/1",
    "correctness": CORRECTNESS_ALGORITHM,
}

_QUESTION_FRAME = frozenset(
    stem(word)
    for word in """long often need needs tell explain describe list please kind type way know
    mean means happen happens allowed allow possible give ask""".split()
)


def _matches(term: str, found: set[str]) -> bool:
    if term in found:
        return True
    if len(term) < PREFIX:
        return False
    return any(
        len(other) >= PREFIX and (other.startswith(term) or term.startswith(other))
        for other in found
    )


def question_coverage(question: str, answer: str) -> tuple[float | None, list[str]]:
    """(share of the question's content terms found in ``answer``, the missing terms); the
    share is None when the question has no content term to look for."""
    surface = _surface_forms(question)
    wanted = sorted(set(surface) - _QUESTION_FRAME)
    if not wanted:
        return None, []
    found = set(_surface_forms(answer))
    missing = [surface[term] for term in wanted if not _matches(term, found)]
    return (len(wanted) - len(missing)) / len(wanted), missing


def _relevance(question: str, answer: str) -> Verdict:
    share, missing = question_coverage(question, answer)
    if share is None:
        return Verdict("supported", 1.0, reason="the question has no content words to look for")
    shown = f"covers {share:.0%} of the question's content words"
    if missing:
        shown += "; missing: " + ", ".join(missing[:8])
    label: Label = "supported" if share >= RELEVANCE_THRESHOLD else "not_supported"
    return Verdict(label, round(share, 6), reason=shown)


def _abstention(answer: str) -> Verdict:
    phrase = refusal_phrase(answer)
    if phrase is None:
        return Verdict("not_supported", 0.0, reason="no refusal phrase")
    return Verdict("supported", 1.0, reason=f"refusal phrase {phrase!r}")


def judge_task(ctx: JudgeContext) -> list[Verdict]:
    """The lexical verdicts for a yes/no task, one per answer in ``ctx.claims``."""
    if ctx.task == "relevance":
        if ctx.question is None:
            raise TaskNotSupportedError("lexical", "relevance without a question")
        return [_relevance(ctx.question, answer) for answer in ctx.claims]
    if ctx.task == "abstention":
        return [_abstention(answer) for answer in ctx.claims]
    if ctx.task == "correctness":
        return [correctness_of(ctx, answer) for answer in ctx.claims]
    raise TaskNotSupportedError("lexical", ctx.task)


def correctness_of(ctx: JudgeContext, answer: str) -> Verdict:
    """The key-fact grade of ``answer`` against ``ctx.reference`` (required)."""
    if not ctx.reference:
        raise JudgeError("correctness needs the expected answer (JudgeContext.reference)")
    return grade_answer(answer, ctx.reference, ctx.question, ctx.passages)
