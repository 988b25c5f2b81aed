"""Your own human labels, for measuring a judge on your domain before trusting it.

One JSON object per line (JSON Lines, UTF-8)::

    {"claim": "Staff get 25 days of annual leave.",
     "passages": [{"id": "leave@2025#1", "text": "Full-time staff receive 25 days…"}],
     "label": "supported",
     "group": "hr", "id": "L-001", "supporting": ["leave@2025#1"], "split": "test"}

Fields:

* ``claim`` (required) — the statement judged.
* ``passages`` — the passages shown to the labeller, ``[{"id": …, "text": …}, …]``, in the
  order the agent had them; or ``evidence`` — a single evidence text (id ``evidence``).
  Exactly one of the two.
* ``label`` (required) — ``supported`` | ``not_supported`` | ``contradicted``; the last two
  count as *not supported* in the binary metrics.
* ``group`` — any label to break agreement down by (category, annotator, source…).
* ``id`` — a stable id; default: a hash of the claim and evidence, so the split survives
  reordering the file.
* ``supporting`` — ids of the passages that hold the support; gives the position breakdown
  (support in the first passage vs. a later one).
* ``split`` — ``dev`` or ``test`` to fix an example's part; otherwise the seeded hash decides.
  ``heldout`` (the question sets' word, docs/formats.md) is the test part: a threshold is tuned and
  ensemble weights are trained on the dev part only, so held-out labels are only reported.

Unknown fields are kept by the reader and ignored. Every bad line is reported at once, with
file, line and field. Labels of answer relevance (``question``, ``answer``, ``label``
``relevant`` | ``not_relevant``) have their own reader: :mod:`.relevance`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ragcard.errors import InputError, Problem
from ragcard.inputs._jsonl import load_records
from ragcard.judges.base import Evidence, Task
from ragcard.judges.metaeval.examples import (
    SPLIT_SEED,
    Dataset,
    LabelledExample,
    hash_part,
    hash_split_rule,
)

__all__ = ["LabelRecord", "labels_dataset", "line_part", "read_user_labels", "repeated_id"]


class PassageRecord(BaseModel):
    """A passage shown with the claim."""

    model_config = ConfigDict(extra="allow")
    id: str = Field(min_length=1)
    text: str


class LabelRecord(BaseModel):
    """One line of a user's labels file (see the module docstring for the format)."""

    model_config = ConfigDict(extra="allow")
    claim: str = Field(min_length=1)
    passages: list[PassageRecord] | None = None
    evidence: str | None = None
    label: Literal["supported", "not_supported", "contradicted"]
    group: str | None = None
    id: str | None = None
    supporting: list[str] | None = None
    split: Literal["dev", "test", "heldout"] | None = None

    @model_validator(mode="after")
    def _one_evidence_form(self) -> LabelRecord:
        if (self.passages is None) == (self.evidence is None):
            raise ValueError("give exactly one of 'passages' (list of {id, text}) or 'evidence'")
        return self

    def evidence_list(self) -> tuple[Evidence, ...]:
        if self.passages is not None:
            return tuple(Evidence(p.id, p.text) for p in self.passages)
        return (Evidence("evidence", self.evidence or ""),)

    def stable_id(self) -> str:
        if self.id:
            return self.id
        text = "\x1f".join([self.claim, *(e.text for e in self.evidence_list())])
        return "h" + hashlib.sha256(text.encode()).hexdigest()[:12]


_PARTS: dict[str, Literal["dev", "test"]] = {"dev": "dev", "test": "test", "heldout": "test"}


def line_part(split: str | None, example_id: str, seed: int) -> Literal["dev", "test"]:
    """A labels line's part: its ``split`` field (``heldout`` = test), else the seeded hash."""
    return _PARTS[split] if split else hash_part(example_id, seed)


def repeated_id(seen: dict[str, int], path: Path, line: int, example_id: str) -> list[Problem]:
    """The problem when an earlier line of ``path`` has ``example_id`` (``seen`` records the
    first line of each id)."""
    first = seen.setdefault(example_id, line)
    if first == line:
        return []
    return [Problem(str(path), line, "id", f"repeats line {first}", example_id,
                    fix="give each line a unique 'id'")]  # fmt: skip


def _position(
    record: LabelRecord, passages: tuple[Evidence, ...]
) -> Literal["first", "later"] | None:
    if not record.supporting or record.label != "supported":
        return None
    ids = [p.id for p in passages]
    positions = [ids.index(s) for s in record.supporting if s in ids]
    if not positions:
        return None
    return "first" if min(positions) == 0 else "later"


def read_user_labels(path: Path, seed: int = SPLIT_SEED) -> Dataset:
    """Read a labels file; raises :class:`InputError` listing every bad line."""
    records, problems = load_records(path, LabelRecord, "labelled claim")
    examples: list[LabelledExample] = []
    seen: dict[str, int] = {}
    for line, record in records:
        passages = record.evidence_list()
        known = {p.id for p in passages}
        for missing in [s for s in record.supporting or [] if s not in known]:
            problems.append(
                Problem(str(path), line, "supporting", "names no passage of this line", missing)
            )
        example_id = record.stable_id()
        problems += repeated_id(seen, path, line, example_id)
        examples.append(
            LabelledExample(
                id=example_id,
                claims=(record.claim,),
                evidence_sets=(passages,),
                supported=record.label == "supported",
                label=record.label,
                part=line_part(record.split, example_id, seed),
                group=record.group,
                support_position=_position(record, passages),
            )
        )
    return labels_dataset(
        path,
        seed,
        examples,
        problems,
        what="labelled claims",
        note="binary: supported vs. not_supported or contradicted",
        fixed_split=any(record.split for _, record in records),
    )


def labels_dataset(
    path: Path,
    seed: int,
    examples: list[LabelledExample],
    problems: list[Problem],
    *,
    what: str,
    note: str,
    fixed_split: bool,
    task: Task = "support",
) -> Dataset:
    """A labels file's dataset, or the :class:`InputError` listing every problem found in it
    (or saying it holds no ``what``)."""
    if problems:
        raise InputError(problems, f"{len(problems)} problem(s) in the labels file {path}")
    if not examples:
        raise InputError(Problem(str(path), None, None, f"no {what} in the file"))
    return Dataset(
        name=path.name,
        title=f"your {'' if task == 'support' else task + ' '}labels ({path})",
        examples=tuple(examples),
        split_rule=hash_split_rule(seed) + "; a line's 'split' field overrides it",
        licence="yours",
        credit=str(path),
        notes=(note,),
        fixed_split=fixed_split,
        task=task,
    )
