"""What an agent returns (docs/agents.md), citation resolution, and recorded responses.

Citations come in three shapes and all end up as :class:`Citation` (passage id + 0-based
sentence of the answer, or ``None`` when the agent did not say which sentence):

* ``{"id": "p1", "sentence": 2}``
* ``"p1"`` (a bare id: cites the answer as a whole)
* an inline marker ``[p1]`` inside ``answer``, attached to the sentence it closes.

Inline markers are recognised when the bracketed token looks like an id: it has no spaces and
holds a digit or one of ``@ # : / _ . -`` — so ``[sic]`` or ``[citation needed]`` are not
taken for citations.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ragcard._sentences import split_sentences as _split_sentences
from ragcard.errors import InputError, Problem
from ragcard.inputs._fields import Flag, Number, Whole
from ragcard.inputs._jsonl import LineError, decode_line, iter_records, read_lines
from ragcard.inputs._limits import MAX_ATTEMPTS, MAX_LATENCY_MS, MAX_SCORE, MAX_SENTENCE

__all__ = [
    "AgentResponse",
    "Citation",
    "CitationRef",
    "RESULT_SCHEMA_PREFIX",
    "Recorded",
    "RecordedError",
    "RecordedResponse",
    "RecordedResponses",
    "ResultLine",
    "RetrievedRef",
    "answer_problem",
    "check_repeat",
    "is_results_file",
    "load_responses",
    "split_sentences",
    "strip_markers",
    "unknown_problem",
]

_MARKER = re.compile(r"\[([^\[\]\s]*[0-9@#:/_.\-][^\[\]\s]*)\]")
_SPACES = re.compile(r"\s+")
_SPACE_PUNCTUATION = re.compile(r"\s+([.!?,;:])")


# keys of the derived values a response keeps in its __dict__ (see AgentResponse._text)
_RETRIEVED = "_ragcard_retrieved_ids"
_TEXT = "_ragcard_text"


class RetrievedRef(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    id: str
    score: Number | None = Field(default=None, ge=-MAX_SCORE, le=MAX_SCORE)


class CitationRef(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    id: str
    sentence: Whole | None = Field(default=None, ge=0, le=MAX_SENTENCE)


@dataclass(frozen=True, slots=True)
class Citation:
    """A resolved citation: passage id and 0-based answer sentence (None = whole answer)."""

    id: str
    sentence: int | None
    inline: bool = False


class AgentResponse(BaseModel):
    """One agent answer. Unknown fields are kept."""

    model_config = ConfigDict(extra="allow")

    answer: str = ""
    retrieved: list[RetrievedRef] = Field(default_factory=list)
    citations: list[CitationRef] = Field(default_factory=list)
    flag: str | None = None
    abstained: Flag | None = None
    first_token_ms: Number | None = Field(default=None, ge=0, le=MAX_LATENCY_MS)
    latency_ms: Number | None = Field(default=None, ge=0, le=MAX_LATENCY_MS)
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("retrieved", "citations", mode="before")
    @classmethod
    def _bare_ids(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, list):
            return [{"id": entry} if isinstance(entry, str) else entry for entry in value]
        return value

    @field_validator("answer", mode="before")
    @classmethod
    def _none_answer(cls, value: Any) -> Any:
        return "" if value is None else value

    # What the scoring layers derive from a response (sentences, resolved citations, ids) is
    # computed once and kept in the instance ``__dict__`` beside the fields, like a
    # ``functools.cached_property``: pydantic neither dumps nor compares it. Each entry records
    # the fields it was derived from (the answer string itself, copies of the reference lists,
    # whose elements are frozen) and is recomputed when they change.

    @property
    def retrieved_ids(self) -> list[str]:
        """Retrieved ids in rank order, a repeated id kept at its first rank only."""
        memo = self.__dict__.get(_RETRIEVED)
        if memo is None or memo[0] != self.retrieved:
            refs = list(self.retrieved)
            memo = self.__dict__[_RETRIEVED] = (refs, tuple(dict.fromkeys(r.id for r in refs)))
        return list(memo[1])

    def _text(self) -> _Text:
        text: _Text | None = self.__dict__.get(_TEXT)
        if text is None or text.answer is not self.answer or text.refs != self.citations:
            text = self.__dict__[_TEXT] = _Text.of(self.answer, self.citations)
        return text

    def sentences(self) -> list[str]:
        """The answer's sentences, inline markers removed."""
        return list(self._text().sentences)

    def resolved_citations(self) -> list[Citation]:
        """Explicit citations followed by inline markers, each with its sentence."""
        return list(self._text().citations)

    def cited_ids(self) -> list[str]:
        """Cited passage ids in order of first citation."""
        return list(self._text().cited)


@dataclass(frozen=True, slots=True)
class _Text:
    """An answer's sentences (markers stripped) and its citations, explicit then inline."""

    answer: str
    refs: list[CitationRef]  # a copy of the explicit citations these were resolved from
    sentences: tuple[str, ...]
    citations: tuple[Citation, ...]
    cited: tuple[str, ...]

    @classmethod
    def of(cls, answer: str, refs: list[CitationRef]) -> _Text:
        raw = split_sentences(answer)
        citations = [Citation(c.id, c.sentence) for c in refs]
        for index, sentence in enumerate(raw):
            if "[" in sentence:
                citations.extend(Citation(m, index, inline=True) for m in _MARKER.findall(sentence))
        return cls(
            answer,
            list(refs),
            tuple(strip_markers(sentence) for sentence in raw),
            tuple(citations),
            tuple(dict.fromkeys(c.id for c in citations)),
        )


class RecordedResponse(AgentResponse):
    """A line of ``responses.jsonl``: a response plus the item id and attempt number."""

    item: str = Field(min_length=1)
    attempt: Whole = Field(default=1, ge=0, le=MAX_ATTEMPTS)


#: ``schema`` of the lines of ragcard's own ``results.jsonl`` (``ragcard.result/1`` …).
RESULT_SCHEMA_PREFIX = "ragcard.result/"


class RecordedError(BaseModel):
    """A failed attempt as ``results.jsonl`` records it."""

    model_config = ConfigDict(extra="allow")

    kind: str = Field(min_length=1)
    message: str
    raw: str | None = None


class ResultLine(BaseModel):
    """A line of ragcard's own ``results.jsonl`` given as recorded responses: its response
    (or its failure) is scored again with the inputs of this run; the scores, evidence and
    diagnosis of the run that wrote it are not read."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    schema_: str = Field(alias="schema", pattern=r"^ragcard\.result/")
    item: str = Field(min_length=1)
    attempt: Whole = Field(ge=0, le=MAX_ATTEMPTS)
    response: AgentResponse | None = None
    error: RecordedError | None = None
    latency_ms: Number | None = Field(default=None, ge=0, le=MAX_LATENCY_MS)
    first_token_ms: Number | None = Field(default=None, ge=0, le=MAX_LATENCY_MS)
    started_at: str | None = None
    tries: Whole = Field(default=1, ge=0, le=10_000)

    @model_validator(mode="after")
    def _response_or_error(self) -> ResultLine:
        if (self.response is None) == (self.error is None):
            raise ValueError("a result line holds either a response or an error")
        return self


def is_results_file(path: Path) -> bool:
    """True when the first line of ``path`` is a line of ragcard's own ``results.jsonl``
    (``"schema": "ragcard.result/…"``): the file is then read as :class:`ResultLine` s."""
    try:
        for _number, line in read_lines(path):
            if isinstance(line, LineError) or RESULT_SCHEMA_PREFIX not in line:
                return False
            data, _error = decode_line(line)
            schema = data.get("schema") if isinstance(data, dict) else None
            return isinstance(schema, str) and schema.startswith(RESULT_SCHEMA_PREFIX)
    except InputError:
        return False  # (the reading itself reports it)
    return False


def answer_problem(name: str, line: int, record: RecordedResponse) -> Problem | None:
    """A recorded response with no ``answer`` at all is a problem unless it abstains
    (``"abstained": true`` or a raised flag): scoring it as an empty answer would turn a
    mapping error (the answer under another name) into wrong answers. An explicit
    ``"answer": ""`` is the agent's (empty) answer and is scored as such."""
    if "answer" in record.model_fields_set or record.abstained or record.flag:
        return None
    return Problem(
        name,
        line,
        "answer",
        "no answer, and the response does not abstain",
        fix='record the answer as "answer" (is it under another name?), or '
        '"abstained": true when the agent declined; an empty answer on purpose is "answer": ""',
    )


def strip_markers(text: str) -> str:
    """``text`` without inline markers, whitespace runs made one space, no space before
    punctuation, stripped."""
    if "[" in text:
        text = _MARKER.sub("", text)
    # every whitespace character but " " is unprintable: a printable text without a double
    # space already has single-space runs only, and can have a space before punctuation only
    # as " ." etc. (the checks are exact, and skip two regex passes on most sentences)
    if "  " in text or not text.isprintable():
        text = _SPACES.sub(" ", text)
    if " ." in text or " ," in text or " !" in text or " ?" in text or " ;" in text or " :" in text:
        text = _SPACE_PUNCTUATION.sub(r"\1", text)
    return text.strip()


def split_sentences(text: str) -> list[str]:
    """Split an answer into sentences, numbered from 0 as explicit citations number them
    (inline markers stay with the sentence they close).

    The one splitter of ragcard (:mod:`ragcard._sentences`, shared with the judges and the
    reference agent): common abbreviations, initials, decimals, amounts, list numbers and
    line breaks are handled, but not every edge case of every language; agents that need
    exact control cite with explicit ``{"id", "sentence"}`` objects.
    """
    return _split_sentences(text)


def load_responses(path: str | Path) -> list[RecordedResponse | ResultLine]:
    """Load recorded responses (docs/agents.md), listing every bad line; a file of ragcard's own
    results (``results.jsonl``) loads as its :class:`ResultLine` s."""
    return list(RecordedResponses(Path(path)))


#: A recorded attempt: a line of responses.jsonl, or of ragcard's results.jsonl.
Recorded = RecordedResponse | ResultLine


@dataclass(slots=True)
class RecordedResponses:
    """Recorded responses read one line at a time, for scoring as they are read.

    Iterating yields each response in file order until the first problem, then keeps reading
    only to find every other problem (bad JSON or fields, a repeated ``(item, attempt)``, an
    item not in ``known_items`` when given, a response with no answer that does not abstain
    when ``require_answers``), and raises one :class:`InputError` listing them all when the
    file ends. Nothing of a response is kept once it is yielded: only the ``(item, attempt)``
    keys (for repeats), the items answered and the highest attempt, which are complete once
    the iteration ends.

    A file whose first line is a line of ragcard's own ``results.jsonl`` is read as
    :class:`ResultLine` s (its responses and failures, scored again); ``results_format`` says
    so once iteration has begun.
    """

    path: Path
    known_items: Container[str] | None = None
    require_answers: bool = True
    answered: set[str] = field(default_factory=set)
    max_attempt: int = 0
    problems: list[Problem] = field(default_factory=list)
    results_format: bool = False

    def line_model(self) -> type[RecordedResponse] | type[ResultLine]:
        """The model each line is read as (looked up from the file's first line)."""
        self.results_format = is_results_file(self.path)
        return ResultLine if self.results_format else RecordedResponse

    def __iter__(self) -> Iterator[Recorded]:
        name = str(self.path)
        self.problems.clear()
        self.answered.clear()
        self.max_attempt = 0
        repeats: list[Problem] = []
        unknown: list[Problem] = []
        seen: dict[tuple[str, int], int] = {}  # (item, attempt) → the last line it was on
        model: type[Recorded] = self.line_model()
        for line, record, problems in iter_records(self.path, model, "response"):
            if record is None:
                self.problems.extend(problems)
                continue
            repeat = check_repeat(seen, name, line, record.item, record.attempt)
            if repeat is not None:
                repeats.append(repeat)
            if self.require_answers and isinstance(record, RecordedResponse):
                missing = answer_problem(name, line, record)
                if missing is not None:
                    self.problems.append(missing)
            if self.known_items is not None and record.item not in self.known_items:
                unknown.append(unknown_problem(name, line, record.item))
            elif not (self.problems or repeats or unknown):
                self.answered.add(record.item)
                self.max_attempt = max(self.max_attempt, record.attempt)
                yield record
        self.settle(repeats, unknown)

    def settle(self, repeats: list[Problem], unknown: list[Problem]) -> None:
        """Once the file is read: add the whole-file problems (repeats, unknown items) and
        raise them all in one :class:`InputError`, if there are any."""
        self.problems.extend(repeats + unknown)
        if self.problems:
            count = len(self.problems)
            raise InputError(self.problems, f"{self.path}: {count} problem(s) in the responses")

    def check(self) -> list[Problem]:
        """Read the whole file only to find its problems (nothing is scored)."""
        try:
            for _record in self:
                pass
        except InputError as error:
            return list(error.problems)
        return []


def check_repeat(
    seen: dict[tuple[str, int], int], name: str, line: int, item: str, attempt: int
) -> Problem | None:
    """Note that ``line`` holds ``(item, attempt)``; the problem when an earlier line of the
    file already held it (``seen`` maps each key to the last line it was on)."""
    previous = seen.setdefault((item, attempt), line)
    if previous == line:
        return None
    seen[(item, attempt)] = line
    return Problem(
        name,
        line,
        "attempt",
        f"item {item!r} attempt {attempt} already on line {previous}",
        attempt,
        fix="number repeated runs of one item 1, 2, 3 …",
    )


def unknown_problem(name: str, line: int, item: str) -> Problem:
    """A response for an item the question set does not hold."""
    return Problem(
        name,
        line,
        "item",
        "response for an item not in the question set",
        item,
        fix="check the question set or the item id",
    )
