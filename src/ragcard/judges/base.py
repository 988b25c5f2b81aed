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
``score`` is the judge's belief in *yes*. A backend declares the extra tasks it answers in
:attr:`JudgeIdentity.tasks` (task → how it answers it, e.g. a prompt version); one that
declares none answers support only, so a third-party judge written before tasks existed is
never handed a question it would mistake for support. Ask :func:`answers_task` before asking;
a backend asked a task it cannot answer raises :class:`TaskNotSupportedError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args, runtime_checkable

from ragcard.errors import RagcardError

__all__ = [
    "Evidence",
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
]

Label = Literal["supported", "not_supported", "contradicted"]
#: What a context asks: support of claims by passages (default), or a yes/no question about a
#: whole answer (module docstring).
Task = Literal["support", "relevance", "abstention"]
TASKS: tuple[Task, ...] = get_args(Task)


class JudgeError(RagcardError):
    """A judge could not return a verdict (bad output after retries, transport failure…)."""

    def __init__(self, message: str, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw


class TaskNotSupportedError(JudgeError):
    """The backend cannot answer this task; the metric falls back or is unscored with this
    reason (never a zero)."""

    def __init__(self, judge: str, task: str) -> None:
        super().__init__(f"judge '{judge}' cannot judge {task}")
        self.judge = judge
        self.task = task


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

    @property
    def supported(self) -> bool:
        return self.label == "supported"


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
