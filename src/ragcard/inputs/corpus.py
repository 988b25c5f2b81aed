"""Corpus manifests (docs/formats.md#corpusjsonl): the passages an agent retrieves and cites.

A :class:`Corpus` answers the questions the deterministic layers ask of a passage: does it
exist, is it in force on a date, may this role see it, which tier is it, how old is it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragcard.errors import InputError, Problem
from ragcard.inputs._fields import Day
from ragcard.inputs._jsonl import load_records, read_lines

__all__ = ["Corpus", "Passage", "load_corpus"]


class Passage(BaseModel):
    """One retrievable, citable passage. Field meanings in docs/formats.md#corpusjsonl."""

    model_config = ConfigDict(extra="allow", frozen=True)

    id: str = Field(min_length=1)
    doc: str = Field(min_length=1)
    section: str | None = None
    version: str | None = None
    text: str
    status: Literal["in_force", "superseded", "retired"] = "in_force"
    effective_from: Day | None = None
    effective_to: Day | None = None
    superseded_by: str | None = None
    access: list[str] = Field(default_factory=list)
    tier: Literal["A", "B"] | None = None
    date: Day | None = None

    @field_validator("access", mode="before")
    @classmethod
    def _access_list(cls, value: object) -> object:
        return [] if value is None else value

    @property
    def restricted(self) -> bool:
        return bool(self.access)

    def visible_to(self, role: str) -> bool:
        """True when a person with ``role`` may see this passage."""
        return not self.access or role in self.access

    def in_force_on(self, day: dt.date) -> bool:
        """In force: status ``in_force`` and ``day`` inside the effective dates (when given)."""
        if self.status != "in_force":
            return False
        if self.effective_from and day < self.effective_from:
            return False
        return not (self.effective_to and day > self.effective_to)


@dataclass(frozen=True, slots=True)
class Corpus:
    """A validated corpus manifest, indexed by passage id."""

    path: Path
    passages: dict[str, Passage]
    sha256: str
    versions: frozenset[str] = field(default_factory=frozenset)

    def __contains__(self, passage_id: object) -> bool:
        return passage_id in self.passages

    def __iter__(self) -> Iterator[Passage]:
        return iter(self.passages.values())

    def __len__(self) -> int:
        return len(self.passages)

    def get(self, passage_id: str) -> Passage | None:
        return self.passages.get(passage_id)

    @property
    def short_hash(self) -> str:
        return self.sha256[:12]


def _rejected_names(path: Path, numbers: set[int]) -> tuple[set[str], set[str]] | None:
    """The passage ids and ``doc@version`` names of the lines that failed to validate
    (``numbers``), so that a bad line does not also make every ``superseded_by`` pointing at it
    a second, wrong problem; None when one of them holds no readable id."""
    ids: set[str] = set()
    versions: set[str] = set()
    if not numbers:
        return ids, versions
    for number, line in read_lines(path):
        if number not in numbers:
            continue
        try:
            data = json.loads(line) if isinstance(line, str) else None
        except (ValueError, RecursionError):  # (a line nested too deep is a problem of its own)
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            return None
        ids.add(data["id"])
        doc, version = data.get("doc"), data.get("version")
        if isinstance(version, str):
            versions |= {version, f"{doc}@{version}"} if isinstance(doc, str) else {version}
    return ids, versions


def _replacement_exists(passage: Passage, ids: set[str], doc_versions: set[str]) -> bool:
    target = passage.superseded_by
    if target is None:
        return True
    return target in ids or target in doc_versions or f"{passage.doc}@{target}" in doc_versions


def _check_passage(path: str, line: int, passage: Passage) -> list[Problem]:
    problems = []
    if (
        passage.effective_from
        and passage.effective_to
        and (passage.effective_to < passage.effective_from)
    ):
        problems.append(
            Problem(
                path,
                line,
                "effective_to",
                "ends before effective_from",
                passage.effective_to.isoformat(),
                fix="swap or correct the dates",
            )
        )
    if passage.status == "superseded" and not passage.superseded_by:
        problems.append(
            Problem(
                path,
                line,
                "superseded_by",
                "a superseded passage should name its replacement",
                fix="set superseded_by to the id of the passage (or version) in force",
            )
        )
    return problems


def load_corpus(path: str | Path) -> Corpus:
    """Load and validate a corpus manifest; raise :class:`InputError` listing every bad line."""
    path = Path(path)
    records, problems = load_records(path, Passage, "passage")
    passages: dict[str, Passage] = {}
    lines: dict[str, int] = {}
    for line, passage in records:
        if passage.id in passages:
            problems.append(
                Problem(
                    str(path),
                    line,
                    "id",
                    f"duplicate passage id (first on line {lines[passage.id]})",
                    passage.id,
                    fix="passage ids must be unique",
                )
            )
            continue
        passages[passage.id] = passage
        lines[passage.id] = line
        problems.extend(_check_passage(str(path), line, passage))
    ids = set(passages)
    doc_versions = {f"{p.doc}@{p.version}" for p in passages.values() if p.version}
    doc_versions |= {p.version for p in passages.values() if p.version}
    rejected = _rejected_names(path, {p.line for p in problems if p.line is not None})
    # (a line that could not be read at all may be the replacement: then no guess is made)
    bad_ids, bad_versions = rejected if rejected is not None else (set(), set())
    for passage in passages.values() if rejected is not None else ():
        if not _replacement_exists(passage, ids | bad_ids, doc_versions | bad_versions):
            problems.append(
                Problem(
                    str(path),
                    lines[passage.id],
                    "superseded_by",
                    "points to no passage or document version in this corpus",
                    passage.superseded_by,
                    fix="use the id of the replacing passage, or 'doc@version'",
                )
            )
    if not records and not problems:
        problems.append(Problem(str(path), None, None, "the file is empty: it holds no passage",
                                fix="write one passage per line (docs/formats.md#corpusjsonl)"))
    if problems:
        raise InputError(problems, f"{path}: {len(problems)} problem(s) in the corpus manifest")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    versions = frozenset(p.version for p in passages.values() if p.version)
    return Corpus(path, passages, digest, versions)
