"""Question sets (docs/formats.md#questionsjsonl): the golden items an agent is tested on.

Both dialects load into one :class:`Question` model: the knowledge-base kit's (``gold``,
``expected_answer``) and the persona programs' (``expected_ids``, ``reference``). Unknown
fields are kept and written back unchanged.

Two things are decided here once for every layer:

* **Which flags are abstentions** (:func:`is_abstention_flag`): every flag is, unless the
  configuration names it non-abstaining (``[run] non_abstaining_flags``). The same rule reads
  an item's ``expected_flag`` (whether it is answerable by default) and an agent's raised
  flag (whether it abstained), so a persona's policy refusal (``companionship``) expected and
  raised counts as a correct abstention, never as a false one.
* **An item's category when the file gives none** (the persona tutorial's format keeps the
  type among ``tags`` or implies it by ``expected_flag`` / ``expected_corpus``): a tag that
  names a known category, else ``not_in_record`` / ``after_cutoff`` from the flag of that
  name, ``policy`` from any other abstention flag, ``b_only`` from ``expected_corpus: ["B"]``.
  :attr:`Question.category_source` records where it came from (``field``, ``tag``,
  ``expected_flag``, ``expected_corpus``; None: no category).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from ragcard._suggest import closest
from ragcard.errors import InputError, Problem
from ragcard.inputs._fields import Day, Flag, Whole
from ragcard.inputs._jsonl import load_records

__all__ = [
    "agent_request",
    "ABSTENTION_FLAGS",
    "KB_CATEGORIES",
    "PERSONA_CATEGORIES",
    "UNANSWERABLE_CATEGORIES",
    "GoldPassage",
    "LabelSet",
    "Question",
    "QuestionSet",
    "category_warnings",
    "is_abstention_flag",
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

#: Warnings about inputs (an unknown category …) go to this logger; the CLI prints them.
log = logging.getLogger("ragcard.inputs")

#: Categories whose items the approved sources do not answer (for that asker).
UNANSWERABLE_CATEGORIES = frozenset(
    {"unanswerable", "access_probe", "not_in_record", "after_cutoff", "policy"}
)
#: The flags the kits name for "I will not answer this from the sources" (documentation and
#: category inference; every other flag is an abstention too, see :func:`is_abstention_flag`).
ABSTENTION_FLAGS = frozenset({"not_in_record", "after_cutoff", "access_denied", "out_of_scope"})
_KNOWN_CATEGORIES = frozenset(KB_CATEGORIES) | frozenset(PERSONA_CATEGORIES)
#: Flags that name a persona category of their own (any other abstention flag means ``policy``).
_FLAG_CATEGORIES = frozenset({"not_in_record", "after_cutoff"})


def is_abstention_flag(
    flag: str | None, non_abstaining: frozenset[str] | set[str] = frozenset()
) -> bool:
    """Whether ``flag`` (expected or raised) means the agent declines to answer from the
    sources: any flag does, unless the configuration names it non-abstaining. The one rule for
    both sides (docs/formats.md#questionsjsonl, docs/agents.md)."""
    return bool(flag) and flag not in non_abstaining



def agent_request(
    question: str, asker: str, program: str | None, cutoff: dt.date | None
) -> dict[str, Any]:
    """The request every adapter sends the agent (docs/agents.md), for a golden question and for a
    red-team probe alike: the same four fields, whoever asks."""
    return {
        "question": question,
        "asker": asker,
        "program": program,
        "cutoff": cutoff.isoformat() if cutoff else None,
    }

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
    """One golden item. Field meanings in docs/formats.md#questionsjsonl."""

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

    _non_abstaining: frozenset[str] = PrivateAttr(default=frozenset())
    _category_source: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _infer_category(self) -> Question:
        if self.category is not None:
            self._category_source = "field"
            return self
        inferred, source = _inferred_category(self)
        if inferred is not None:
            # the value is inferred, not given: keep it out of the fields the file set, so the
            # item is written back as it was read
            self.__dict__["category"] = inferred
            self._category_source = source
        return self

    def with_flag_rule(self, non_abstaining: frozenset[str]) -> Question:
        """This item judged by a configuration's non-abstaining flags (its answerability by
        default, and a category inferred from its flag: a non-abstaining flag implies none)."""
        self._non_abstaining = frozenset(non_abstaining)
        if "category" not in self.model_fields_set:
            self.__dict__["category"], self._category_source = _inferred_category(self)
        return self

    @property
    def category_source(self) -> str | None:
        """Where the category came from: ``field``, ``tag``, ``expected_flag``,
        ``expected_corpus``; None when the item has none."""
        return self._category_source

    @property
    def is_answerable(self) -> bool:
        """``answerable`` as given; by default false for an unanswerable category or an
        expected abstention flag (:func:`is_abstention_flag`)."""
        if self.answerable is not None:
            return self.answerable
        return not (
            self.category in UNANSWERABLE_CATEGORIES
            or is_abstention_flag(self.expected_flag, self._non_abstaining)
        )

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
        """What the agent receives (docs/agents.md); never the id, category, gold or answer."""
        return agent_request(self.question, self.asker, self.program, self.cutoff)


def _inferred_category(question: Question) -> tuple[str | None, str | None]:
    """(category, source) for an item whose file gives no category (module docstring)."""
    for tag in question.tags:
        if tag in _KNOWN_CATEGORIES:
            return tag, "tag"
    flag = question.expected_flag
    if flag in _FLAG_CATEGORIES:
        return flag, "expected_flag"
    if is_abstention_flag(flag, question._non_abstaining):
        return "policy", "expected_flag"
    if question.expected_corpus == ["B"]:
        return "b_only", "expected_corpus"
    return None, None


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
        if question.category is not None and question.category not in _KNOWN_CATEGORIES:
            lines.setdefault(question.category, []).append(line)
    warnings = []
    for category, found in lines.items():
        near = closest(category, sorted(_KNOWN_CATEGORIES), cutoff=0.75)
        shown = ", ".join(map(str, found[:10])) + (" …" if len(found) > 10 else "")
        hint = f"did you mean {near!r}? " if near else ""
        warnings.append(Problem(
            path, found[0], "category",
            f"not a category of either kit, on {len(found)} item(s) (lines {shown})", category,
            fix=f"{hint}a category of your own is allowed, but no category-specific measure "
            "counts its items"))  # fmt: skip
    return warnings


def load_questions(
    path: str | Path, non_abstaining_flags: frozenset[str] | set[str] | tuple[str, ...] = ()
) -> QuestionSet:
    """Load and validate a question set; raise :class:`InputError` listing every bad line.

    ``non_abstaining_flags``: the configuration's flags that are not abstentions, which decide
    whether an item with an ``expected_flag`` and no ``answerable`` is answerable."""
    path = Path(path)
    records, problems = load_records(path, Question, "question")
    rule = frozenset(non_abstaining_flags)
    seen: dict[str, int] = {}
    for line, question in records:
        question.with_flag_rule(rule)
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
        problems.append(Problem(str(path), None, None, "the file is empty: it holds no question",
                                fix="write one question per line (docs/formats.md#questionsjsonl)"))
    if problems:
        raise InputError(problems, f"{path}: {len(problems)} problem(s) in the question set")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    warnings = category_warnings(str(path), records)
    for warning in warnings:
        log.warning("%s", warning)
    return QuestionSet(path, tuple(q for _, q in records), digest, seen, tuple(warnings))
