"""``split``: a deterministic held-out assignment that never moves when items are added.

An item is held out when ``int(sha256(salt + id)) / 2**256 < share(category)``: the draw
depends only on the item's own id, so adding, removing or reordering other items never
changes it, and anyone can recompute it. Items that already carry a ``split`` keep it unless
``reassign`` is asked for.

The file is rewritten line by line: a line whose split does not change is kept byte for
byte, and a changed line keeps every other field (unknown ones included) in its order.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcard.goldset.targets import Targets
from ragcard.inputs.questions import load_questions
from ragcard.outputs._writing import write_atomic

__all__ = ["SplitPlan", "SplitRow", "heldout_draw", "plan_split", "write_text_atomically"]

_SPLITS = ("dev", "heldout")


def heldout_draw(item_id: str, salt: str = "") -> float:
    """The item's fixed draw in [0, 1): ``int(sha256(salt + id)) / 2**256``."""
    digest = hashlib.sha256((salt + item_id).encode("utf-8")).hexdigest()
    return int(digest, 16) / 2**256


@dataclass(frozen=True, slots=True)
class SplitRow:
    """The resulting split of one category."""

    category: str
    count: int
    heldout: int
    target: float
    kept: int
    assigned: int

    @property
    def share(self) -> float:
        return self.heldout / self.count if self.count else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "count": self.count,
            "heldout": self.heldout,
            "share": round(self.share, 4),
            "target": self.target,
            "kept": self.kept,
            "assigned": self.assigned,
        }


@dataclass(frozen=True, slots=True)
class SplitPlan:
    """The rewritten question file and what changed; write it with :meth:`write`."""

    source: str
    text: str
    salt: str
    rows: tuple[SplitRow, ...]
    changed: tuple[str, ...]

    @property
    def total(self) -> int:
        return sum(row.count for row in self.rows)

    @property
    def heldout(self) -> int:
        return sum(row.heldout for row in self.rows)

    def write(self, path: str | Path) -> None:
        """Write the file atomically (a crash never leaves half a question set)."""
        write_text_atomically(Path(path), self.text)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "salt": self.salt,
            "total": self.total,
            "heldout": self.heldout,
            "share": round(self.heldout / self.total, 4) if self.total else 0.0,
            "changed": list(self.changed),
            "categories": [row.to_dict() for row in self.rows],
        }


def write_text_atomically(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically and durably (:func:`ragcard.outputs._writing.
    write_atomic`), creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)


def _rewrite(line: str, record: dict[str, Any], split: str) -> str:
    ending = line[len(line.rstrip("\r\n")) :]
    record = dict(record)
    record["split"] = split  # assignment to an existing key keeps its position
    return json.dumps(record, ensure_ascii=False) + (ending or "")


def plan_split(
    path: str | Path, targets: Targets, *, salt: str = "", reassign: bool = False
) -> SplitPlan:
    """Assign ``split`` to every item of the question file at ``path``.

    The file is validated first (:func:`ragcard.inputs.questions.load_questions` raises
    :class:`~ragcard.errors.InputError` listing every bad line). Held-out shares come from
    ``targets`` (:meth:`Targets.heldout_share_for`).
    """
    path = Path(path)
    question_set = load_questions(path)
    by_id = question_set.by_id()
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    counts: Counter[tuple[str, str]] = Counter()
    out: list[str] = []
    changed: list[str] = []
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        record = json.loads(line)
        question = by_id[record["id"]]
        category = question.category or "uncategorised"
        existing = record.get("split")
        if existing in _SPLITS and not reassign:
            split = str(existing)
            counts[(category, "kept")] += 1
        else:
            held = heldout_draw(question.id, salt) < targets.heldout_share_for(question.category)
            split = "heldout" if held else "dev"
            counts[(category, "assigned")] += 1
        counts[(category, split)] += 1
        if split == existing:
            out.append(line)
        else:
            out.append(_rewrite(line, record, split))
            changed.append(question.id)
    categories = sorted({category for category, _ in counts})
    rows = tuple(
        SplitRow(
            category=name,
            count=counts[(name, "dev")] + counts[(name, "heldout")],
            heldout=counts[(name, "heldout")],
            target=targets.heldout_share_for(None if name == "uncategorised" else name),
            kept=counts[(name, "kept")],
            assigned=counts[(name, "assigned")],
        )
        for name in categories
    )
    return SplitPlan(str(path), "".join(out), salt, rows, tuple(changed))
