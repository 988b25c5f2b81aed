"""What a meta-evaluation runs on: human-labelled examples, the dataset they come from, and the
split between the part a threshold is tuned on and the part that is reported.

An example is one human judgement. It may hold several claims (a FaithBench summary, split
into sentences), all of which must be supported for the example to be; and several alternative
evidence sets (WiCE's oracle chunks), of which the best counts. So the judge's score for an
example is ``max over evidence sets (min over claims (verdict score))``.

Every example belongs to one part: ``dev`` (a threshold may be tuned on it) or ``test`` (it is
reported). Datasets with their own split keep it (BEGIN's dev and test files; WiCE's published
100-claim subset); the others are split by a seeded hash of the example id, so the split does
not depend on file order and is the same on every machine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ragcard._sentences import split_sentences as _split_sentences
from ragcard.errors import InputError, Problem
from ragcard.judges.base import Evidence, Task

__all__ = [
    "SPLIT_SEED",
    "Dataset",
    "LabelledExample",
    "Part",
    "Reference",
    "hash_part",
    "hash_split_rule",
    "length_bucket",
    "limit_examples",
    "require_file",
    "split_sentences",
]

Part = Literal["dev", "test"]

#: Seed of the hash split: changing it changes which examples are tuned on.
SPLIT_SEED = 20240521


@dataclass(frozen=True, slots=True)
class LabelledExample:
    """One human judgement of whether ``claims`` are supported by the evidence."""

    id: str
    claims: tuple[str, ...]
    evidence_sets: tuple[tuple[Evidence, ...], ...]
    supported: bool
    label: str
    part: Part
    group: str | None = None
    support_position: Literal["first", "later"] | None = None
    #: ``"relevance"``: ``claims`` holds one answer, ``question`` what it was asked, and
    #: ``supported`` means "addresses the question" (the judge's relevance task).
    task: Task = "support"
    question: str | None = None


@dataclass(frozen=True, slots=True)
class Reference:
    """A published (or recomputed-from-published-outputs) figure to print next to ours."""

    system: str
    metrics: dict[str, float]
    population: str
    source: str


@dataclass(frozen=True, slots=True)
class Dataset:
    """Human-labelled examples, with where they come from and how they were split."""

    name: str
    title: str
    examples: tuple[LabelledExample, ...]
    split_rule: str
    licence: str
    credit: str
    notes: tuple[str, ...] = ()
    references: tuple[Reference, ...] = field(default=())
    #: True when the dev/test parts are the dataset's own (BEGIN's files, WiCE's published
    #: subset): its dev part is never reported, even when no threshold is tuned on it.
    fixed_split: bool = False
    #: What the labels judge: support of claims by passages, or relevance of answers.
    task: Task = "support"

    def part(self, part: Part) -> list[LabelledExample]:
        return [example for example in self.examples if example.part == part]


def hash_part(example_id: str, seed: int = SPLIT_SEED, dev_share: float = 0.5) -> Part:
    """``dev`` for about ``dev_share`` of ids, ``test`` for the rest, decided by a seeded hash."""
    digest = hashlib.sha256(f"{seed}:{example_id}".encode()).digest()
    return "dev" if int.from_bytes(digest[:8], "big") / 2**64 < dev_share else "test"


def hash_split_rule(seed: int, dev_share: float = 0.5) -> str:
    """The words every report uses for the hash split."""
    return (
        f"hash split of example ids (sha256, seed {seed}): about {dev_share:.0%} dev "
        "(threshold tuned), the rest test (reported)"
    )


def limit_examples(
    examples: Iterable[LabelledExample], limit: int | None
) -> tuple[LabelledExample, ...]:
    """The first ``limit`` examples of *each* part (so a limited run still has both parts)."""
    kept: list[LabelledExample] = []
    seen = {"dev": 0, "test": 0}
    for example in examples:
        if limit is None or seen[example.part] < limit:
            kept.append(example)
            seen[example.part] += 1
    return tuple(kept)


_BUCKETS = ((15, "short (<=15 words)"), (30, "medium (16-30 words)"))


def length_bucket(example: LabelledExample) -> str:
    """The claim-length bucket of an example (all its claims' words together)."""
    words = sum(len(claim.split()) for claim in example.claims)
    for limit, name in _BUCKETS:
        if words <= limit:
            return name
    return "long (>30 words)"


def split_sentences(text: str) -> tuple[str, ...]:
    """The sentences of a summary, split as answers are (:mod:`ragcard._sentences`): good
    enough to turn a summary into claims; no claim extraction."""
    return tuple(_split_sentences(text))


def require_file(path: Path, dataset: str, expected: str) -> Path:
    """``path`` if it is a file; otherwise an :class:`InputError` saying what to do."""
    if not path.is_file():
        raise InputError(
            Problem(
                str(path),
                None,
                None,
                f"{dataset} file not found",
                fix=f"pass --data-dir pointing at the folder that holds {expected}",
            )
        )
    return path
