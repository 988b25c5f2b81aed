"""The judge seam: does a passage support a claim?

A judge has one method, :meth:`Judge.judge`, taking one frozen :class:`JudgeContext` — all the
claims of one answer with the passages they may rest on — and returning one :class:`Verdict`
per claim, in order. Judging every claim of an answer in one call lets an LLM backend make one
request per answer. A backend that cannot judge raises :class:`JudgeError`; the metric records
that on the item (never a NaN, never a silent pass).

The judge is always an explicit, recorded part of a run: :class:`JudgeIdentity` (name, model,
prompt version, decision threshold, calibration against human labels) goes into the scorecard
of every run that uses it.

Tasks. Besides support (the default), a context may put one of two yes/no questions about a
whole answer, named by :attr:`JudgeContext.task`:

* ``"relevance"`` — does the answer address the question? ``claims`` holds the answer text,
  ``question`` the question (required), ``passages`` is empty.
* ``"abstention"`` — does the answer decline, or say that its sources do not hold the answer?
  ``claims`` holds the answer text; ``question`` is given as context.

For these, a verdict's ``"supported"`` label reads *yes* and ``"not_supported"`` *no*, and
``score`` is the judge's belief in *yes*.

A fourth task grades a whole answer against the item's expected answer:

* ``"correctness"`` — does the answer state what the expected answer states
  (docs/metrics.md#answer-correctness)?
  ``claims`` holds the answer text, ``reference`` the expected answer (required),
  ``question`` the question, ``passages`` the item's gold passages. The verdict's
  :attr:`Verdict.grade` is ``"correct"`` (every key fact), ``"partial"`` (some of the key
  facts, nothing false that would change what the asker does) or ``"wrong"`` (a wrong fact, a
  neighbouring question answered, or an answer that would lead the asker to do the wrong
  thing); its label mirrors it (``supported`` / ``not_supported`` / ``contradicted``, see
  :func:`correctness_verdict`), ``score`` is the judge's belief that the answer is correct and
  ``reason`` the deciding fact. A ``partial`` verdict scoring at least :data:`MAIN_POINT` says
  the main question is answered and only a secondary detail is missing (rubric level 2, not 1).
 A backend declares the extra tasks it answers in
:attr:`JudgeIdentity.tasks` (task → how it answers it, e.g. a prompt version); one that
declares none answers support only, so a third-party judge written before tasks existed is
never handed a question it would mistake for support. Ask :func:`answers_task` before asking;
a backend asked a task it cannot answer raises :class:`TaskNotSupportedError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args, runtime_checkable

from ragcard.errors import JudgeError, TaskNotSupportedError

__all__ = [
    "GRADES",
    "MAIN_POINT",
    "Evidence",
    "Grade",
    "Judge",
    "JudgeContext",
    "JudgeError",
    "JudgeIdentity",
    "Label",
    "TASKS",
    "Task",
    "TaskNotSupportedError",
    "Verdict",
    "answers_task",
    "correctness_verdict",
]

Label = Literal["supported", "not_supported", "contradicted"]
#: What a context asks: support of claims by passages (default), or a yes/no question about a
#: whole answer (module docstring).
Task = Literal["support", "relevance", "abstention", "correctness"]
TASKS: tuple[Task, ...] = get_args(Task)
#: A ``partial`` correctness verdict from this score has the main point (module docstring).
MAIN_POINT = 0.5
#: A correctness verdict: the answer against the expected answer (docs/metrics.md).
Grade = Literal["correct", "partial", "wrong"]
GRADES: tuple[Grade, ...] = get_args(Grade)
_GRADE_LABELS: dict[str, Label] = {
    "correct": "supported",
    "partial": "not_supported",
    "wrong": "contradicted",
}


@dataclass(frozen=True, slots=True)
class Evidence:
    """A passage a claim may rest on."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class JudgeContext:
    """What a judge sees: the claims of one answer, the passages, the question if known, and
    the task (``"support"`` unless it asks about relevance or abstention)."""

    claims: tuple[str, ...]
    passages: tuple[Evidence, ...]
    question: str | None = None
    task: Task = "support"
    #: The expected answer (the ``correctness`` task; answer checks may carry it too).
    reference: str | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    """One claim's verdict. ``score`` is the judge's belief that the claim is supported, in
    [0, 1]; ``passage_id``/``span`` point at the support when there is one (span = character
    offsets in that passage's text)."""

    label: Label
    score: float
    passage_id: str | None = None
    span: tuple[int, int] | None = None
    reason: str | None = None
    #: Only on a ``correctness`` verdict: correct / partial / wrong.
    grade: Grade | None = None

    @property
    def supported(self) -> bool:
        return self.label == "supported"


def correctness_verdict(
    grade: Grade, score: float, reason: str, passage_id: str | None = None
) -> Verdict:
    """A ``correctness`` verdict: the grade, with the label that mirrors it (correct →
    ``supported``, partial → ``not_supported``, wrong → ``contradicted``), the belief that the
    answer is correct (clipped to [0, 1]) and the deciding fact."""
    return Verdict(
        _GRADE_LABELS[grade], round(min(1.0, max(0.0, float(score))), 6), passage_id, None,
        reason, grade,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class JudgeIdentity:
    """Everything needed to say which judge produced a verdict, and how good it is.

    ``tasks`` maps each task beyond support that the judge answers to how it answers it (an
    algorithm or prompt version); empty: support only. The calibration is of support.
    """

    name: str
    model: str | None = None
    prompt_version: str | None = None
    threshold: float | None = None
    calibration: dict[str, Any] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    tasks: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "threshold": self.threshold,
            "calibration": self.calibration,
            "settings": self.settings,
            "tasks": self.tasks,
        }


@runtime_checkable
class Judge(Protocol):
    """Decides whether passages support claims."""

    identity: JudgeIdentity

    async def judge(self, ctx: JudgeContext) -> list[Verdict]: ...


def answers_task(judge: Judge, task: Task) -> bool:
    """Whether ``judge`` declares that it answers ``task`` (support always)."""
    return task == "support" or task in judge.identity.tasks
