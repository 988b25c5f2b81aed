"""Line-oriented input: read JSON Lines with line numbers, validate each line, collect problems.

Every loader in ragcard goes through :func:`load_records` (or, to stream a large file one record
at a time, :func:`iter_records`) so that a bad line is always reported with file, line and
field, and a load lists *all* bad lines before failing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, TypeVar

from pydantic import BaseModel, ValidationError

from ragcard.errors import InputError, Problem

__all__ = [
    "LineError",
    "iter_json_lines",
    "iter_records",
    "load_records",
    "not_utf8",
    "open_lines",
    "parse_line",
    "problems_from_validation",
]

M = TypeVar("M", bound=BaseModel)


#: A byte that is not UTF-8, as ``surrogateescape`` decodes it.
_UNDECODABLE = re.compile("[\udc80-\udcff]")
_SAVE_AS_UTF8 = "save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8 IN > OUT)"


def open_lines(path: Path) -> TextIO:
    """``path`` opened for reading as UTF-8 text (a leading byte-order mark is skipped; bytes
    that are not UTF-8 reach each line, which :func:`not_utf8` then reports); a missing
    file, a folder or an unreadable file is an :class:`InputError`."""
    try:
        return path.open(encoding="utf-8-sig", errors="surrogateescape")
    except FileNotFoundError:
        problem = Problem(str(path), None, None, "file not found", fix="check the path")
    except IsADirectoryError:
        problem = Problem(str(path), None, None, "is a folder, not a file",
                          fix="give the .jsonl file inside it")  # fmt: skip
    except PermissionError:
        problem = Problem(str(path), None, None, "cannot be read (permission denied)",
                          fix="check the file's permissions")  # fmt: skip
    raise InputError(problem)


@dataclass(frozen=True, slots=True)
class LineError:
    """Why a line is no JSON value at all: what is wrong, and the fix when the reason has a
    fix of its own (otherwise the reader's: "each line must be one … object")."""

    message: str
    fix: str | None = None

    def problem(self, name: str, number: int, fix: str) -> Problem:
        return Problem(name, number, None, self.message, fix=self.fix or fix)


def not_utf8(line: str) -> LineError | None:
    """Why a line read by :func:`open_lines` is not UTF-8 text (None when it is)."""
    if line.isascii():
        return None
    found = _UNDECODABLE.search(line)
    if found is None:
        return None
    byte = ord(found.group()) - 0xDC00
    return LineError(f"not UTF-8 text (byte 0x{byte:02x} at column {found.start() + 1})",
                     _SAVE_AS_UTF8)  # fmt: skip


def _not_json(error: json.JSONDecodeError) -> LineError:
    return LineError(f"not valid JSON ({error.msg} at column {error.colno})")


def iter_json_lines(path: Path) -> Iterator[tuple[int, Any, LineError | None]]:
    """Yield ``(line, parsed object or None, why it is not JSON or None)``; skip blank
    lines."""
    with open_lines(path) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            if (encoding_error := not_utf8(line)) is not None:
                yield number, None, encoding_error
                continue
            try:
                yield number, json.loads(line), None
            except json.JSONDecodeError as error:
                yield number, None, _not_json(error)


def problems_from_validation(file: str, line: int, error: ValidationError) -> list[Problem]:
    """Turn a pydantic error into one :class:`Problem` per bad field."""
    problems = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or None
        value = item.get("input") if item["type"] != "missing" else None
        message = "is required" if item["type"] == "missing" else item["msg"]
        problems.append(Problem(file, line, field, message, value))
    return problems


def _parse(
    name: str, number: int, data: Any, json_error: LineError | None, model: type[M], kind: str
) -> tuple[M | None, list[Problem]]:
    """One line's record, or the problems that describe why there is none."""
    if json_error is not None:
        return None, [json_error.problem(name, number, f"each line must be one {kind} object")]
    if not isinstance(data, dict):
        return None, [Problem(name, number, None, f"expected a JSON object ({kind})", data)]
    try:
        return model.model_validate(data), []
    except ValidationError as error:
        return None, problems_from_validation(name, number, error)


def load_records(
    path: Path, model: type[M], kind: str
) -> tuple[list[tuple[int, M]], list[Problem]]:
    """Parse every line of ``path`` into ``model``; return the good records and all problems."""
    records: list[tuple[int, M]] = []
    problems: list[Problem] = []
    name = str(path)
    for number, data, json_error in iter_json_lines(path):
        record, found = _parse(name, number, data, json_error, model, kind)
        if record is not None:
            records.append((number, record))
        problems.extend(found)
    return records, problems


def iter_records(
    path: Path, model: type[M], kind: str
) -> Iterator[tuple[int, M | None, list[Problem]]]:
    """Yield ``(line, record or None, problems)`` for each non-blank line, one at a time
    (each parsed by :func:`parse_line`)."""
    name = str(path)
    with open_lines(path) as handle:
        for number, line in enumerate(handle, start=1):
            if not line or line.isspace():
                continue
            yield number, *parse_line(name, number, line, model, kind)


def parse_line(
    name: str, number: int, line: str, model: type[M], kind: str
) -> tuple[M | None, list[Problem]]:
    """One line of ``name`` as a record, or the problems that say why it is not one.

    The line goes straight to pydantic's JSON parser (``model_validate_json``); a line it
    rejects is parsed again the way :func:`load_records` does, so the record (the ``json``
    module reads a few things pydantic's parser does not, such as ``NaN`` or a lone surrogate
    escape) or the problems are exactly those :func:`load_records` would give.
    """
    if (encoding_error := not_utf8(line)) is not None:
        return _parse(name, number, None, encoding_error, model, kind)
    try:
        return model.model_validate_json(line), []
    except ValidationError:
        pass
    try:
        data, json_error = json.loads(line), None
    except json.JSONDecodeError as error:
        data, json_error = None, _not_json(error)
    return _parse(name, number, data, json_error, model, kind)
