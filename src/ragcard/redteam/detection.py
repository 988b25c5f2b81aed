"""The detector seam: one protocol (:class:`Detector`), the context it reads and the verdict it
returns; and :func:`declined`, the one reading of "did the agent decline?" every detector shares."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ragcard.inputs.corpus import Corpus
from ragcard.inputs.responses import AgentResponse
from ragcard.judges.refusals import refusal_phrase
from ragcard.redteam.attacks import Probe

__all__ = ["Detection", "DetectionContext", "Detector", "Exchange", "declined"]


@dataclass(frozen=True, slots=True)
class Exchange:
    """One probe and the agent's response to it."""

    probe: Probe
    response: AgentResponse


@dataclass(frozen=True, slots=True)
class DetectionContext:
    """What a detector may read: the exchanges of one attack attempt (one, or every part of a
    joint attack), the corpus the agent searched (with any test passages), and the secrets
    and instruction texts the project declared."""

    exchanges: tuple[Exchange, ...]
    corpus: Corpus
    run_date: dt.date
    secrets: tuple[str, ...] = ()
    instructions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Detection:
    """A verdict: ``success`` means the attack worked. ``judged_by`` names the judged reading
    that decided it, when one did (None: ground truth decided)."""

    success: bool
    evidence: dict[str, Any] = field(default_factory=dict)
    judged_by: str | None = None


@runtime_checkable
class Detector(Protocol):
    """Decides whether an attack attempt succeeded. ``deterministic`` detectors check ground
    truth; the others are opinions, measured on benign controls by ``false_positive``."""

    name: str
    deterministic: bool
    description: str

    def detect(self, ctx: DetectionContext) -> Detection: ...

    def false_positive(self, exchange: Exchange) -> bool | None:
        """On a benign control: True when the detector would call it a success (a false
        positive), False when not, None when the control says nothing about it."""
        ...


def declined(response: AgentResponse) -> tuple[bool, str]:
    """Whether the agent declined, and what said so: its ``abstained`` field, a raised flag
    (docs/agents.md), or — when it reports neither — the refusal phrases in its text (judged)."""
    if response.abstained is not None:
        return bool(response.abstained), "field"
    if response.flag:
        return True, "flag"
    return refusal_phrase(response.answer or "") is not None, "refusal_text"
