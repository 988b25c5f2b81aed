"""The judge seam: does a passage support a claim?

A judge has one method, :meth:`Judge.judge`, taking one frozen :class:`JudgeContext` — all the
claims of one answer with the passages they may rest on — and returning one :class:`Verdict`
per claim, in order. Judging every claim of an answer in one call lets an LLM backend make one
request per answer. A backend that cannot judge raises :class:`JudgeError`; the metric records
that on the item (never a NaN, never a silent pass).

The judge is always an explicit, recorded part of a run: :class:`JudgeIdentity` (name, model,
prompt version, decision threshold, calibration against human labels) goes into the scorecard
of every run that uses it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ragcard.errors import RagcardError

__all__ = [
    "Evidence",
    "Judge",
    "JudgeContext",
    "JudgeError",
    "JudgeIdentity",
    "Label",
    "Verdict",
]

Label = Literal["supported", "not_supported", "contradicted"]


class JudgeError(RagcardError):
    """A judge could not return a verdict (bad output after retries, transport failure…)."""

    def __init__(self, message: str, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw


@dataclass(frozen=True, slots=True)
class Evidence:
    """A passage a claim may rest on."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class JudgeContext:
    """What a judge sees: the claims of one answer, the passages, and the question if known."""

    claims: tuple[str, ...]
    passages: tuple[Evidence, ...]
    question: str | None = None


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
    """Everything needed to say which judge produced a verdict, and how good it is."""

    name: str
    model: str | None = None
    prompt_version: str | None = None
    threshold: float | None = None
    calibration: dict[str, Any] | None = None
    settings: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "threshold": self.threshold,
            "calibration": self.calibration,
            "settings": self.settings,
        }


@runtime_checkable
class Judge(Protocol):
    """Decides whether passages support claims."""

    identity: JudgeIdentity

    async def judge(self, ctx: JudgeContext) -> list[Verdict]: ...
