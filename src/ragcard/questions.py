"""Question sets (SPEC §1.1): the golden items an agent is tested on.

Both dialects load into one :class:`Question` model: the knowledge-base kit's (``gold``,
``expected_answer``) and the persona programs' (``expected_ids``, ``reference``). Unknown
fields are kept and written back unchanged.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

from ragcard._fields import Day, Flag, Whole
from ragcard._jsonl import load_records
from ragcard._suggest import closest
from ragcard.errors import InputError, Problem

__all__ = [
    "ABSTENTION_FLAGS",
    "KB_CATEGORIES",
    "KNOWN_CATEGORIES",
    "PERSONA_CATEGORIES",
    "UNANSWERABLE_CATEGORIES",
    "GoldPassage",
    "LabelSet",
    "Question",
    "QuestionSet",
    "category_warnings",
    "load_questions",
]

KB_CATEGORIES = (
    "typical",
    "paraphrase",
    "exact_term",
    "multi_passage",
    "unanswerable",
    "access_probe",
    "currency_trap",
)
PERSONA_CATEGORIES = ("common", "deep", "b_only", "not_in_record", "after_cutoff", "policy")

#: Every category a kit defines (SPEC §1.3); a project may add its own.
KNOWN_CATEGORIES = frozenset(KB_CATEGORIES + PERSONA_CATEGORIES)

#: Warnings about inputs (an unknown category …) go to this logger; the CLI prints them.
log = logging.getLogger("ragcard.inputs")

#: Categories whose items the approved sources do not answer (for that asker).
UNANSWERABLE_CATEGORIES = frozenset(
    {"unanswerable", "access_probe", "not_in_record", "after_cutoff", "policy"}
)
#: Flags that mean "I will not answer this from the sources".
ABSTENTION_FLAGS = frozenset({"not_in_record", "after_cutoff", "access_denied", "out_of_scope"})


class GoldPassage(BaseModel):
    """A gold passage id with its relevance grade (1..3, default 1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    grade: Whole = Field(default=1, ge=1, le=3)


class LabelSet(BaseModel):
    """One labeller's independent judgement of an item (used by agreement checks)."""

    model_config = ConfigDict(extra="allow")

    by: str
    gold: list[str | GoldPassage] = Field(default_factory=list)
    answerable: Flag | None = None


class Question(BaseModel):
    """One golden item. Field meanings in SPEC §1.1."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    asker: str = "public"
    answerable: Flag | None = None
    expected_answer: str | None = Field(
        default=None, validation_alias=AliasChoices("expected_answer", "reference")
    )
    gold: list[GoldPassage] = Field(
        default_factory=list, validation_alias=AliasChoices("gold", "expected_ids")
    )
    must_pass: Flag = False
    category: str | None = None
    split: Literal["dev", "heldout"] = "dev"
    program: str | None = None
    cutoff: Day | None = None
    expected_corpus: list[Literal["A", "B"]] | None = None
    expected_flag: str | None = None
    authored_answer: str | None = None
    tags: list[str] = Field(default_factory=list)
    labels: list[LabelSet] = Field(default_factory=list)

    @field_validator("gold", mode="before")
    @classmethod
    def _gold_entries(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, list):
            return [{"id": entry} if isinstance(entry, str) else entry for entry in value]
        return value

    @model_validator(mode="after")
    def _default_answerable(self) -> Question:
        if self.answerable is None:
            self.answerable = not (
                self.category in UNANSWERABLE_CATEGORIES or self.expected_flag in ABSTENTION_FLAGS
            )
        return self

    @property
    def is_answerable(self) -> bool:
        return bool(self.answerable)

    @property
    def flag_checked(self) -> bool:
        """True when the item says which flag (possibly none) the agent must raise."""
        return "expected_flag" in self.model_fields_set

    @property
    def gold_ids(self) -> list[str]:
        return [entry.id for entry in self.gold]

    @property
    def gold_grades(self) -> dict[str, int]:
        return {entry.id: entry.grade for entry in self.gold}

    def request(self) -> dict[str, Any]:
        """What the agent receives (SPEC §1.4); never the id, category, gold or answer."""
        return {
            "question": self.question,
            "asker": self.asker,
            "program": self.program,
            "cutoff": self.cutoff.isoformat() if self.cutoff else None,
        }


@dataclass(frozen=True, slots=True)
class QuestionSet:
    """A loaded, validated question set and the hash that freezes it."""

    path: Path
    questions: tuple[Question, ...]
    sha256: str
    line_of: dict[str, int]
    warnings: tuple[Problem, ...] = ()

    def __len__(self) -> int:
        return len(self.questions)

    def by_id(self) -> dict[str, Question]:
        return {q.id: q for q in self.questions}

    def categories(self) -> Counter[str]:
        return Counter(q.category or "uncategorised" for q in self.questions)


def _check_item(path: str, line: int, question: Question) -> list[Problem]:
    problems = []
    if not question.is_answerable and question.gold:
        problems.append(
            Problem(
                path,
                line,
                "gold",
                "an unanswerable item cannot have gold passages",
                question.gold_ids,
                fix="remove the gold ids or set answerable to true",
            )
        )
    duplicates = [gid for gid, n in Counter(question.gold_ids).items() if n > 1]
    if duplicates:
        problems.append(
            Problem(
                path,
                line,
                "gold",
                "gold passage listed twice",
                duplicates,
                fix="list each passage once (use a grade for importance)",
            )
        )
    return problems


def category_warnings(path: str, records: list[tuple[int, Question]]) -> list[Problem]:
    """One warning for each category that no kit defines, naming its lines and the closest
    known category: a typo (``curency_trap``) silently empties the population of the measures
    on that category, which then hold the decision as "not scored"."""
    lines: dict[str, list[int]] = {}
    for line, question in records:
        if question.category is not None and question.category not in KNOWN_CATEGORIES:
            lines.setdefault(question.category, []).append(line)
    warnings = []
    for category, found in lines.items():
        near = closest(category, sorted(KNOWN_CATEGORIES), cutoff=0.75)
        shown = ", ".join(map(str, found[:10])) + (" …" if len(found) > 10 else "")
        hint = f"did you mean {near!r}? " if near else ""
        warnings.append(Problem(
            path, found[0], "category",
            f"not a category of either kit, on {len(found)} item(s) (lines {shown})", category,
            fix=f"{hint}a category of your own is allowed, but no category-specific measure "
            "counts its items"))  # fmt: skip
    return warnings


def load_questions(path: str | Path) -> QuestionSet:
    """Load and validate a question set; raise :class:`InputError` listing every bad line."""
    path = Path(path)
    records, problems = load_records(path, Question, "question")
    seen: dict[str, int] = {}
    for line, question in records:
        if question.id in seen:
            problems.append(
                Problem(
                    str(path),
                    line,
                    "id",
                    f"duplicate id (first on line {seen[question.id]})",
                    question.id,
                    fix="give every item a unique id",
                )
            )
        else:
            seen[question.id] = line
        problems.extend(_check_item(str(path), line, question))
    if not records and not problems:
        problems.append(Problem(str(path), None, None, "no questions in file"))
    if problems:
        raise InputError(problems, f"{path}: {len(problems)} problem(s) in the question set")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    warnings = category_warnings(str(path), records)
    for warning in warnings:
        log.warning("%s", warning)
    return QuestionSet(path, tuple(q for _, q in records), digest, seen, tuple(warnings))
