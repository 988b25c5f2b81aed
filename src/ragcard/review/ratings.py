"""People's ratings of a packet: from the review app, or from files filled in offline.

A rating is one reviewer's verdict on one packet item::

    {"item": "R07", "reviewer": "ada", "rating": "wrong", "voice": "in",
     "attributed": true, "comment": "says 1852; the letter says 1851"}

``rating`` is ``accurate`` | ``minor`` | ``wrong``; ``voice`` (persona programs) ``in`` |
``off``; ``attributed`` (answers using tier-B sources) yes / no. The packet's ``packet.csv``
filled in (``reviewer``, ``rating``, ``voice``, ``attributed``, ``comment`` columns; yes/no,
true/false or blank) reads the same. Every bad line or row is reported at once, with its file,
line and column.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ragcard.errors import InputError, Problem
from ragcard.inputs._jsonl import load_records, problems_from_validation

__all__ = ["RATINGS", "Rating", "read_ratings", "severity"]

RatingValue = Literal["accurate", "minor", "wrong"]
RATINGS: tuple[RatingValue, ...] = ("accurate", "minor", "wrong")
_YES = {"yes": True, "y": True, "true": True, "1": True, "no": False, "n": False,
        "false": False, "0": False}  # fmt: skip


def severity(rating: str) -> int:
    """0 accurate, 1 minor, 2 wrong: an item's combined rating is its most severe."""
    return RATINGS.index(rating)


class Rating(BaseModel):
    """One reviewer's rating of one packet item."""

    model_config = ConfigDict(extra="forbid")

    item: str = Field(min_length=1)
    reviewer: str = Field(min_length=1)
    rating: RatingValue
    voice: Literal["in", "off"] | None = None
    attributed: bool | None = None
    comment: str = Field(default="", max_length=20_000)

    @field_validator("rating", "voice", mode="before")
    @classmethod
    def _word(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.strip().lower()
            return {"minor error": "minor", "in voice": "in", "off voice": "off"}.get(value, value)
        return value

    @field_validator("voice", "attributed", mode="before")
    @classmethod
    def _blank(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("attributed", mode="before")
    @classmethod
    def _yes_no(cls, value: object) -> object:
        if isinstance(value, str):
            return _YES.get(value.strip().lower(), value)
        return value

    @field_validator("reviewer", mode="before")
    @classmethod
    def _name(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value


def _csv_ratings(path: Path) -> tuple[list[Rating], list[Problem]]:
    ratings: list[Rating] = []
    problems: list[Problem] = []
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        return [], [Problem(str(path), None, None, f"cannot read it: {error}",
                            fix="save the sheet as UTF-8 CSV")]  # fmt: skip
    reader = csv.DictReader(text.splitlines(keepends=True))
    missing = {"packet_item", "reviewer", "rating"} - set(reader.fieldnames or [])
    if missing:
        return [], [Problem(str(path), 1, None, f"no column {', '.join(sorted(missing))}",
                            fix="rate in the packet.csv `ragcard review make` wrote")]  # fmt: skip
    for row in reader:
        line = reader.line_num
        if not (row.get("rating") or "").strip():
            continue  # not rated (yet): the item simply has no rating from this sheet
        data = {
            "item": (row.get("packet_item") or "").strip(),
            "reviewer": row.get("reviewer") or "",
            "rating": row.get("rating"),
            "voice": row.get("voice"),
            "attributed": row.get("attributed"),
            "comment": row.get("comment") or "",
        }
        try:
            ratings.append(Rating.model_validate(data))
        except ValidationError as error:
            problems.extend(problems_from_validation(str(path), line, error))
    return ratings, problems


def read_ratings(paths: Iterable[Path], known: Sequence[str]) -> list[Rating]:
    """Ratings from ``.csv`` and ``.jsonl`` files; an item not in ``known`` (the packet's
    item ids) or a second rating of one item by one reviewer is a problem."""
    ratings: list[Rating] = []
    problems: list[Problem] = []
    for path in paths:
        if path.suffix.lower() == ".csv":
            found, bad = _csv_ratings(path)
        else:
            records, bad = load_records(path, Rating, "rating")
            found = [r for _, r in records]
        ratings += found
        problems += bad
        problems += check_ratings(found, known, str(path))
    if problems:
        raise InputError(problems, f"{len(problems)} problem(s) in the ratings")
    return ratings


def check_ratings(ratings: Sequence[Rating], known: Sequence[str], where: str) -> list[Problem]:
    """Ratings of items that are not in the packet, and repeated ratings."""
    problems = []
    ids = set(known)
    seen: set[tuple[str, str]] = set()
    for r in ratings:
        if r.item not in ids:
            problems.append(Problem(where, None, "item", "no such item in the packet", r.item,
                                    fix=f"packet items are {known[0]}…{known[-1]}"
                                    if known else None))  # fmt: skip
        if (r.item, r.reviewer) in seen:
            problems.append(Problem(where, None, "item",
                                    f"rated twice by {r.reviewer}", r.item,
                                    fix="keep one rating per reviewer and item"))  # fmt: skip
        seen.add((r.item, r.reviewer))
    return problems
