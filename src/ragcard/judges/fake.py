"""A deterministic fake judge, shipped so that users' tests and ours run whole evals offline.

Verdicts come from a mapping ``{claim text: label}`` given in the options, and otherwise from
a rule: a claim containing the ``marker`` word (default ``UNSUPPORTED``) is ``not_supported``,
one containing ``contradicted_marker`` (default ``CONTRADICTED``) is ``contradicted``, and any
other claim gets ``default`` (``supported``). Markers match whole words, case-sensitively, so
ordinary prose never trips them by accident.

The yes/no tasks follow the same idea: an answer containing ``off_topic_marker`` (default
``OFF_TOPIC``) does not address the question, any other does; an answer containing
``abstain_marker`` (default ``ABSTAIN``) declines, any other does not. Correctness too: an
answer containing ``wrong_marker`` (default ``WRONG``) is ``wrong``, one containing
``partial_marker`` (default ``PARTIAL``) is ``partial``, any other ``correct``; ``grades``
(``{text: grade}``, the text an answer's or its question's) names the grade instead. ``tasks``
(default all) lists the tasks it answers, so tests can also exercise a judge that answers
support only.

In a ``ragcard.toml``::

    [judge]
    backend = "fake"
    marker = "FALSE"
    labels = { "The office opens at 9." = "contradicted" }
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, cast, get_args

from ragcard.errors import ConfigError
from ragcard.judges.base import (
    TASKS,
    Grade,
    JudgeContext,
    JudgeIdentity,
    Label,
    TaskNotSupportedError,
    Verdict,
    correctness_verdict,
)
from ragcard.judges.registry import check_options

__all__ = ["FakeJudge"]

_LABELS: tuple[str, ...] = get_args(Label)
_SCORES: dict[str, float] = {"supported": 1.0, "not_supported": 0.0, "contradicted": 0.0}


class FakeJudge:
    """Labels claims from a fixed mapping or a marker word; never looks at the passages' text.

    A supported verdict points at the first passage (whole text) when there is one, so code
    that reads ``passage_id``/``span`` is exercised too.
    """

    def __init__(
        self,
        labels: Mapping[str, str] | None = None,
        marker: str = "UNSUPPORTED",
        contradicted_marker: str = "CONTRADICTED",
        default: str = "supported",
        off_topic_marker: str = "OFF_TOPIC",
        abstain_marker: str = "ABSTAIN",
        tasks: Sequence[str] = TASKS,
        wrong_marker: str = "WRONG",
        partial_marker: str = "PARTIAL",
        grades: Mapping[str, str] | None = None,
    ) -> None:
        problems = [
            f"label {value!r} for claim {claim!r}"
            for claim, value in (labels or {}).items()
            if value not in _LABELS
        ]
        problems += [
            f"grade {value!r} for answer {answer!r} (allowed: correct, partial, wrong)"
            for answer, value in (grades or {}).items()
            if value not in _GRADE_SCORES
        ]
        if default not in _LABELS:
            problems.append(f"default {default!r}")
        problems += [f"task {task!r} (allowed: {', '.join(TASKS)})" for task in tasks
                     if task not in TASKS]  # fmt: skip
        if problems:
            raise ConfigError(
                f"judge 'fake': {'; '.join(problems)} — allowed labels: {', '.join(_LABELS)}"
            )
        self.labels: dict[str, Label] = {k: cast(Label, v) for k, v in (labels or {}).items()}
        self.default: Label = cast(Label, default)
        self.grades: dict[str, Grade] = {k: cast(Grade, v) for k, v in (grades or {}).items()}
        rules: list[tuple[str, Label]] = [
            (contradicted_marker, "contradicted"),
            (marker, "not_supported"),
        ]
        self._markers = [(_word(word), label) for word, label in rules if word]
        # task → (marker, the verdict an answer containing it gets)
        self._yes_no: dict[str, tuple[re.Pattern[str], bool]] = {
            "relevance": (_word(off_topic_marker), False),
            "abstention": (_word(abstain_marker), True),
        }
        self._grades: list[tuple[re.Pattern[str], Grade]] = [
            (_word(wrong_marker), "wrong"),
            (_word(partial_marker), "partial"),
        ]
        words = {
            "relevance": off_topic_marker,
            "abstention": abstain_marker,
            "correctness": f"{wrong_marker}/{partial_marker}",
        }
        self.identity = JudgeIdentity(
            name="fake",
            settings={
                "labels": len(self.labels),
                "marker": marker,
                "contradicted_marker": contradicted_marker,
                "default": default,
                **({"grades": len(self.grades)} if self.grades else {}),
            },
            tasks={task: f"fake: marker {word!r}" for task, word in words.items() if task in tasks},
        )

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> FakeJudge:
        """Build from a ``[judge]`` table's options (``backend`` already removed)."""
        checked = check_options(
            "fake",
            options,
            {
                "labels": dict,
                "marker": str,
                "contradicted_marker": str,
                "default": str,
                "off_topic_marker": str,
                "abstain_marker": str,
                "tasks": list,
                "wrong_marker": str,
                "partial_marker": str,
                "grades": dict,
            },
        )
        return cls(**checked)

    def label_for(self, claim: str) -> Label:
        """The label this judge gives ``claim``, whatever the passages."""
        if claim in self.labels:
            return self.labels[claim]
        for pattern, label in self._markers:
            if pattern.search(claim):
                return label
        return self.default

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        """One verdict per claim, in order (for a yes/no task: per answer)."""
        if ctx.task != "support":
            if ctx.task not in self.identity.tasks:
                raise TaskNotSupportedError("fake", ctx.task)
            if ctx.task == "correctness":
                return [self._grade(answer, ctx.question) for answer in ctx.claims]
            pattern, when_marked = self._yes_no[ctx.task]
            verdicts = []
            for answer in ctx.claims:
                marked = pattern.search(answer) is not None
                yes = when_marked if marked else not when_marked
                why = "fake: marker found" if marked else "fake: no marker"
                verdicts.append(
                    Verdict("supported" if yes else "not_supported", float(yes), reason=why)
                )
            return verdicts
        verdicts = []
        for claim in ctx.claims:
            label = self.label_for(claim)
            if label == "supported" and ctx.passages:
                first = ctx.passages[0]
                verdicts.append(Verdict(label, 1.0, first.id, (0, len(first.text)), "fake"))
            else:
                verdicts.append(Verdict(label, _SCORES[label], reason="fake"))
        return verdicts


    def _grade(self, answer: str, question: str | None) -> Verdict:
        grade = self.grades.get(answer) or self.grades.get(question or "")
        if grade is not None:
            return correctness_verdict(grade, _GRADE_SCORES[grade], "fake: graded answer")
        for pattern, grade in self._grades:
            if pattern.search(answer):
                return correctness_verdict(grade, _GRADE_SCORES[grade], "fake: marker found")
        return correctness_verdict("correct", 1.0, "fake: no marker")


_GRADE_SCORES: dict[str, float] = {"correct": 1.0, "partial": 0.5, "wrong": 0.0}


def _word(word: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(word)}\b")
