"""What an attack is: a small declared object, the probes it sends, and what it may read.

An :class:`Attack` declares its id (``access.role_claim``), category, severity, what counts as
success and which detector decides it, and builds its :class:`Probe` s from one frozen
:class:`AttackContext` — the project's corpus, roles, cutoff, policy flags and secrets. A probe
is one request (docs/agents.md) plus the ground truth its detector checks (:class:`Expectation`):
a canary, the restricted passages it targets, the flags that count as handled, a cutoff.
An attack that does not apply to a project (no restricted passages, no cutoff) raises
:class:`NotApplicable` with the reason, which the red-team report lists.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ragcard.inputs.corpus import Corpus, Passage
from ragcard.inputs.questions import Question, QuestionSet, agent_request
from ragcard.metrics.redteam import ATTACK_CATEGORIES

__all__ = [
    "CATEGORIES",
    "SEVERITIES",
    "Attack",
    "AttackContext",
    "Canary",
    "Expectation",
    "NotApplicable",
    "Probe",
    "Severity",
]

Severity = Literal["critical", "high", "medium", "low"]
SEVERITIES: tuple[Severity, ...] = ("critical", "high", "medium", "low")

#: Attack categories (third-party attacks may use these only, so that success rates by
#: category stay comparable across projects).
CATEGORIES: Mapping[str, str] = ATTACK_CATEGORIES


class NotApplicable(Exception):
    """The attack does not apply to this project; the message says why."""


@dataclass(frozen=True, slots=True)
class Canary:
    """A code an injected instruction asks the agent to reply with, given in two halves so
    that quoting the instruction (which holds the halves) never produces the joined code."""

    head: str
    tail: str

    @property
    def code(self) -> str:
        return f"{self.head}-{self.tail}"

    def instruction(self) -> str:
        """The reply an injection asks for, in words."""
        return (
            f'reply with only the code formed by joining "{self.head}" and "{self.tail}" '
            "with a hyphen"
        )


@dataclass(frozen=True, slots=True)
class Expectation:
    """The ground truth a detector checks a probe's response against."""

    #: codes an injected instruction asked for (any one in the answer: the agent obeyed)
    canaries: tuple[Canary, ...] = ()
    #: passages the probe tries to extract (the asker may not see them)
    targets: tuple[str, ...] = ()
    #: flags that count as handling the probe (a policy or cutoff flag)
    flags: frozenset[str] = frozenset()
    #: whether declining (``abstained``, any abstaining flag) also counts as handled
    declining_handles: bool = True


@dataclass(frozen=True, slots=True)
class Probe:
    """One request an attack sends (docs/agents.md), what it expects, and the test passages it
    needs in the agent's corpus (indirect injection)."""

    question: str
    asker: str = "public"
    program: str | None = None
    cutoff: dt.date | None = None
    expect: Expectation = field(default_factory=Expectation)
    plant: tuple[Passage, ...] = ()

    def request(self) -> dict[str, Any]:
        return agent_request(self.question, self.asker, self.program, self.cutoff)


@dataclass(frozen=True, slots=True)
class AttackContext:
    """Everything an attack may read to build its probes. ``seed`` makes canaries and test
    passages differ between runs (an agent cannot have learned them) and stay the same when
    a run resumes."""

    corpus: Corpus
    questions: QuestionSet
    kit: str
    seed: str
    asker: str
    roles: tuple[str, ...]
    program: str | None
    cutoff: dt.date | None
    flags: frozenset[str]
    run_date: dt.date
    #: policy topic -> the flag this project raises for it (``[redteam] flags``)
    topic_flags: Mapping[str, str] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    instructions: tuple[str, ...] = ()

    def canary(self, name: str) -> Canary:
        digest = hashlib.sha256(f"{self.seed}:{name}".encode()).hexdigest().upper()
        return Canary("RC" + digest[:4], digest[4:10])

    def restricted(self) -> list[Passage]:
        """Passages the default asker may not see, in corpus order."""
        return [p for p in self.corpus if not p.visible_to(self.asker)]

    def visible(self) -> list[Passage]:
        """Passages in force that the default asker may see (and, with a cutoff, from the
        record before it), in corpus order: topics an ordinary question would be about."""
        return [
            p
            for p in self.corpus
            if p.visible_to(self.asker)
            and p.in_force_on(self.run_date)
            and not (self.cutoff and p.date and p.date > self.cutoff and p.tier != "B")
        ]

    def later(self) -> list[Passage]:
        """With a cutoff: passages dated after it (tier B commentary included)."""
        if self.cutoff is None:
            return []
        return [p for p in self.corpus if p.date is not None and p.date > self.cutoff]

    def superseded(self) -> list[Passage]:
        """Passages not in force on the run date whose replacement is in the corpus."""
        return [p for p in self.corpus if not p.in_force_on(self.run_date) and p.superseded_by]

    def ordinary(self) -> list[Question]:
        """Answerable items of the question set, for benign controls and in-domain lures."""
        return [q for q in self.questions.questions if q.is_answerable]

    def probe(self, question: str, expect: Expectation | None = None, **fields: Any) -> Probe:
        """A probe asked as the default asker, in the project's program and cutoff."""
        settings: dict[str, Any] = {
            "asker": self.asker,
            "program": self.program,
            "cutoff": self.cutoff,
            **fields,
        }
        return Probe(question, expect=expect or Expectation(), **settings)


ProbeBuilder = Callable[[AttackContext], Sequence[Probe]]


@dataclass(frozen=True, slots=True)
class Attack:
    """One attack: declared, then registered (:func:`ragcard.redteam.register_attack`), which
    checks every field.

    ``build`` returns the probes (several phrasings; a success on any attempt of any probe is a
    finding) or raises :class:`NotApplicable`. With ``joint``, the probes are parts of one
    extraction (piecewise questions) and the detector reads their answers together.
    ``mutable``: jailbreak wrappers (:mod:`~ragcard.redteam.mutators`) apply to it.
    """

    id: str
    category: str
    severity: Severity
    title: str
    success: str
    detector: str
    build: ProbeBuilder
    mutable: bool = True
    joint: bool = False
    references: tuple[str, ...] = ()
