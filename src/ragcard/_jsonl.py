"""Line-oriented input: read JSON Lines with line numbers, validate each line, collect problems.

Every loader in ragcard goes through :func:`load_records` so that a bad line is always reported
with file, line and field, and a load lists *all* bad lines before failing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ragcard.errors import InputError, Problem

__all__ = ["iter_json_lines", "load_records", "problems_from_validation"]

M = TypeVar("M", bound=BaseModel)


def iter_json_lines(path: Path) -> Iterator[tuple[int, Any, str | None]]:
    """Yield ``(line, parsed object or None, error message or None)``; skip blank lines."""
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(
            Problem(str(path), None, None, "file not found", fix="check the path")
        ) from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line), None
            except json.JSONDecodeError as error:
                yield number, None, f"not valid JSON ({error.msg} at column {error.colno})"


def problems_from_validation(file: str, line: int, error: ValidationError) -> list[Problem]:
    """Turn a pydantic error into one :class:`Problem` per bad field."""
    problems = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or None
        value = item.get("input") if item["type"] != "missing" else None
        message = "is required" if item["type"] == "missing" else item["msg"]
        problems.append(Problem(file, line, field, message, value))
    return problems


def load_records(
    path: Path, model: type[M], kind: str
) -> tuple[list[tuple[int, M]], list[Problem]]:
    """Parse every line of ``path`` into ``model``; return the good records and all problems."""
    records: list[tuple[int, M]] = []
    problems: list[Problem] = []
    name = str(path)
    for number, data, json_error in iter_json_lines(path):
        if json_error is not None:
            problems.append(
                Problem(name, number, None, json_error, fix=f"each line must be one {kind} object")
            )
            continue
        if not isinstance(data, dict):
            problems.append(Problem(name, number, None, f"expected a JSON object ({kind})", data))
            continue
        try:
            records.append((number, model.model_validate(data)))
        except ValidationError as error:
            problems.extend(problems_from_validation(name, number, error))
    return records, problems

