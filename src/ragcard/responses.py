"""What an agent returns (SPEC §1.4), citation resolution, and recorded responses.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragcard._jsonl import load_records
from ragcard.errors import InputError, Problem

__all__ = [
    "AgentResponse",
    "Citation",
    "CitationRef",
    "RecordedResponse",
    "RetrievedRef",
    "load_responses",
    "split_sentences",
    "strip_markers",
]

_MARKER = re.compile(r"\[([^\[\]\s]*[0-9@#:/_.\-][^\[\]\s]*)\]")
# A sentence ends at . ! ? (optionally followed by quotes/brackets) before whitespace and a
# capital, digit, quote or opening bracket. Abbreviations below do not end a sentence.
_BOUNDARY = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[A-Z0-9\"“‘(¿¡])")
_TRAILING_MARKERS = re.compile(r"([.!?])((?:\s*\[[^\[\]\s]+\])+)")
_ABBREVIATIONS = (
    "e.g.",
    "i.e.",
    "etc.",
    "Mr.",
    "Mrs.",
    "Ms.",
    "Dr.",
    "St.",
    "No.",
    "vs.",
    "approx.",
    "incl.",
    "Fig.",
    "cf.",
    "p.",
    "pp.",
)


class RetrievedRef(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    id: str
    score: float | None = None


class CitationRef(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    id: str
    sentence: int | None = Field(default=None, ge=0)


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
    abstained: bool | None = None
    first_token_ms: float | None = Field(default=None, ge=0)
    latency_ms: float | None = Field(default=None, ge=0)
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

    @property
    def retrieved_ids(self) -> list[str]:
        """Retrieved ids in rank order, a repeated id kept at its first rank only."""
        seen: dict[str, None] = {}
        for ref in self.retrieved:
            seen.setdefault(ref.id, None)
        return list(seen)

    def sentences(self) -> list[str]:
        """The answer's sentences, inline markers removed."""
        return [strip_markers(s) for s in split_sentences(self.answer)]

    def resolved_citations(self) -> list[Citation]:
        """Explicit citations followed by inline markers, each with its sentence."""
        found = [Citation(c.id, c.sentence) for c in self.citations]
        for index, sentence in enumerate(split_sentences(self.answer)):
            found.extend(Citation(m, index, inline=True) for m in _MARKER.findall(sentence))
        return found

    def cited_ids(self) -> list[str]:
        seen: dict[str, None] = {}
        for citation in self.resolved_citations():
            seen.setdefault(citation.id, None)
        return list(seen)


class RecordedResponse(AgentResponse):
    """A line of ``responses.jsonl``: a response plus the item id and attempt number."""

    item: str = Field(min_length=1)
    attempt: int = Field(default=1, ge=0)


def strip_markers(text: str) -> str:
    text = re.sub(r"\s+", " ", _MARKER.sub("", text))
    return re.sub(r"\s+([.!?,;:])", r"\1", text).strip()


def _protect(text: str) -> str:
    for abbreviation in _ABBREVIATIONS:
        text = text.replace(abbreviation, abbreviation.replace(".", "\x00"))
    # "… rule. [p1] Next …": move trailing markers inside the sentence they close
    return _TRAILING_MARKERS.sub(lambda m: m.group(2) + m.group(1), text)


def split_sentences(text: str) -> list[str]:
    """Split an answer into sentences (inline markers stay with the sentence they close).

    A plain rule-based splitter: it handles common abbreviations, decimals and section numbers,
    but not every edge case of every language; agents that need exact control cite with
    explicit ``{"id", "sentence"}`` objects.
    """
    text = text.strip()
    if not text:
        return []
    parts = _BOUNDARY.split(_protect(text))
    sentences = [part.replace("\x00", ".").strip() for part in parts]
    return [s for s in sentences if s]


def load_responses(path: str | Path) -> list[RecordedResponse]:
    """Load recorded responses (SPEC §1.4), listing every bad line."""
    path = Path(path)
    records, problems = load_records(path, RecordedResponse, "response")
    seen: dict[tuple[str, int], int] = {}
    for line, record in records:
        key = (record.item, record.attempt)
        if key in seen:
            problems.append(
                Problem(
                    str(path),
                    line,
                    "attempt",
                    f"item {record.item!r} attempt {record.attempt} already on line {seen[key]}",
                    record.attempt,
                    fix="number repeated runs of one item 1, 2, 3 …",
                )
            )
        seen[key] = line
    if problems:
        raise InputError(problems, f"{path}: {len(problems)} problem(s) in the responses")
    return [record for _, record in records]
