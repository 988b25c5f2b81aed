"""Line-oriented input: read JSON Lines with line numbers, validate each line, collect problems.

Every loader in ragcard goes through :func:`load_records` (or, to stream a large file one record
at a time, :func:`iter_records`) so that a bad line is always reported with file, line and
field, and a load lists *all* bad lines before failing.

Reads are bounded (:mod:`ragcard.inputs._limits`): only a regular file is read (a device, a pipe or
a folder is refused before reading, whatever symlink points at it), a line stops at
:data:`~ragcard.inputs._limits.MAX_LINE_CHARS` and a file at its size limit; a record nested too
deep, an integer too long or a non-finite number anywhere in it (unknown fields included) is a
problem of its line, never a traceback or a ``NaN`` written back out.
"""

from __future__ import annotations

import functools
import json
import re
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, TypeVar

from pydantic import BaseModel, ValidationError

from ragcard.errors import InputError, Problem
from ragcard.inputs._limits import (
    MAX_DEPTH,
    MAX_INT_DIGITS,
    MAX_JSONL_BYTES,
    MAX_LINE_CHARS,
    Path_,
    dotted,
    first_unbounded,
    not_a_regular_file,
)

__all__ = [
    "LineError",
    "iter_json_lines",
    "iter_records",
    "load_records",
    "not_utf8",
    "open_lines",
    "parse_line",
    "problems_from_validation",
    "read_lines",
    "unbounded_problem",
    "VALIDATION_FIXES",
]

M = TypeVar("M", bound=BaseModel)


#: A byte that is not UTF-8, as ``surrogateescape`` decodes it.
_UNDECODABLE = re.compile("[\udc80-\udcff]")
_SAVE_AS_UTF8 = "save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8 IN > OUT)"


def open_lines(path: Path, limit: int = MAX_JSONL_BYTES) -> TextIO:
    """``path`` opened for reading as UTF-8 text (a leading byte-order mark is skipped; bytes
    that are not UTF-8 reach each line, which :func:`not_utf8` then reports); a missing
    file, a folder, a device, a pipe, a file over ``limit`` bytes or an unreadable file is an
    :class:`InputError`. Read it with :func:`read_lines`, which bounds each line."""
    try:
        why = not_a_regular_file(path, limit)
        if why is None:
            return path.open(encoding="utf-8-sig", errors="surrogateescape")
        if why.startswith("is a folder"):
            problem = Problem(str(path), None, None, "is a folder, not a file",
                              fix="give the .jsonl file inside it")  # fmt: skip
        elif why.startswith("is a"):
            problem = Problem(str(path), None, None, why,
                              fix="give the path of a regular file (a symlink to a device is "
                              "refused too)")  # fmt: skip
        else:
            problem = Problem(str(path), None, None, why, fix="split the file into smaller ones")
    except FileNotFoundError:
        problem = Problem(str(path), None, None, "file not found", fix="check the path")
    except PermissionError:
        problem = Problem(str(path), None, None, "cannot be read (permission denied)",
                          fix="check the file's permissions")  # fmt: skip
    except OSError as error:  # a symlink loop, a name too long …
        problem = Problem(str(path), None, None, f"cannot be read ({error.strerror or error})",
                          fix="check the path")  # fmt: skip
    raise InputError(problem)


def read_lines(path: Path, limit: int = MAX_JSONL_BYTES) -> Iterator[tuple[int, str | LineError]]:
    """Yield ``(line number, text)`` for each non-blank line of ``path`` (opened with
    :func:`open_lines`), or ``(line number, LineError)`` for a line longer than
    :data:`~ragcard.inputs._limits.MAX_LINE_CHARS` (the rest of it is skipped, never held) and,
    last, for the line where the file passes ``limit`` characters while being read (a file
    that grows, or a special file that reports no size)."""
    with open_lines(path, limit) as handle:
        readline, number, total, longest = handle.readline, 0, 0, MAX_LINE_CHARS
        while line := readline(longest + 1):
            number += 1
            total += len(line)
            if len(line) > longest and not line.endswith("\n"):
                yield number, _too_long(longest)
                while (rest := readline(longest)) and not rest.endswith("\n"):
                    total += len(rest)
                    if total > limit:
                        break
                total += len(rest)
            elif not line.isspace():
                yield number, line
            if total > limit:
                yield number, LineError(f"the file passes the limit of {limit:,} characters here",
                                        "split the file into smaller ones")  # fmt: skip
                return


@dataclass(frozen=True, slots=True)
class LineError:
    """Why a line is no JSON value at all: what is wrong, and the fix when the reason has a
    fix of its own (otherwise the reader's: "each line must be one … object")."""

    message: str
    fix: str | None = None

    def problem(self, name: str, number: int, fix: str) -> Problem:
        return Problem(name, number, None, self.message, fix=self.fix or fix)


def _too_long(limit: int) -> LineError:
    return LineError(
        f"line longer than {limit:,} characters",
        "put one record on each line; a record this long is not a question, passage or response",
    )


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


def decode_line(line: str) -> tuple[Any, LineError | None]:
    """``line`` parsed by the ``json`` module, or why it is not JSON; nesting too deep for the
    parser and integers too long for Python to read are reasons too, never exceptions."""
    try:
        return json.loads(line), None
    except json.JSONDecodeError as error:
        return None, _not_json(error)
    except RecursionError:
        return None, LineError(f"nested deeper than {MAX_DEPTH} levels",
                               "flatten the record")  # fmt: skip
    except ValueError:  # int() refuses more than sys.get_int_max_str_digits() digits
        return None, LineError(f"an integer of more than {MAX_INT_DIGITS} digits",
                               f"write numbers with at most {MAX_INT_DIGITS} digits")  # fmt: skip


def iter_json_lines(path: Path) -> Iterator[tuple[int, Any, LineError | None]]:
    """Yield ``(line, parsed object or None, why it is not JSON or None)``; skip blank
    lines."""
    for number, line in read_lines(path):
        if isinstance(line, LineError):
            yield number, None, line
        elif (encoding_error := not_utf8(line)) is not None:
            yield number, None, encoding_error
        else:
            yield number, *decode_line(line)


#: The fix of each kind of pydantic error (the message already says what was expected).
VALIDATION_FIXES = {
    "missing": "add the field",
    "bool_type": "write true or false, without quotes",
    "int_type": "write a whole number, without quotes",
    "int_from_float": "write a whole number, without quotes",
    "float_type": "write a number, without quotes",
    "finite_number": "write a finite number (JSON has no NaN or Infinity), or null",
    "string_type": "write the value as a string in double quotes",
    "list_type": "write a list: [ … ]",
    "dict_type": "write an object: { … }",
    "model_type": "write an object: { … }",
    "model_attributes_type": "write an object: { … }",
    "literal_error": "use one of the values listed",
    "enum": "use one of the values listed",
    "date_from_datetime_inexact": "write the date alone, YYYY-MM-DD",
    "date_from_datetime_parsing": "write the date as YYYY-MM-DD",
    "date_parsing": "write the date as YYYY-MM-DD",
    "value_error": "correct the value as the message says",
    "string_too_short": "give a value that is not empty",
    "string_too_long": "shorten the value",
    "greater_than_equal": "use a value within the bound",
    "greater_than": "use a value within the bound",
    "less_than_equal": "use a value within the bound",
    "less_than": "use a value within the bound",
    "too_long": "shorten the list",
    "extra_forbidden": "remove the field or correct its name",
}


def problems_from_validation(file: str, line: int | None, error: ValidationError) -> list[Problem]:
    """Turn a pydantic error into one :class:`Problem` per bad field, each with its fix."""
    problems = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or None
        value = item.get("input") if item["type"] != "missing" else None
        message = "is required" if item["type"] == "missing" else item["msg"]
        message = message.removeprefix("Value error, ")
        fix = VALIDATION_FIXES.get(item["type"])
        problems.append(Problem(file, line, field, message, value, fix=fix))
    return problems


# ---------------------------------------------------------------- values no field type bounds

_ANY, _MODEL, _MODELS = "any", "model", "models"


def _kind_of(annotation: Any) -> str | None:
    """How a field's value may hold unbounded JSON: anything (``Any``, ``dict[str, Any]``,
    ``list[Any]``), a model, a list of models — or nothing (a typed scalar)."""
    if annotation is Any:
        return _ANY
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        kinds = {kind for arg in args if (kind := _kind_of(arg)) is not None}
        return min(kinds) if kinds else None  # "any" < "model" < "models"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _MODEL
    if origin in (list, dict, tuple):
        inner = {_kind_of(arg) for arg in args}
        if _ANY in inner:
            return _ANY
        return _MODELS if inner & {_MODEL, _MODELS} else None
    return None


@functools.cache
def _loose_fields(model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """The fields of ``model`` whose values no type bounds, and how to walk each."""
    fields = []
    for name, info in model.model_fields.items():
        kind = _kind_of(info.annotation)
        if kind is not None:
            fields.append((name, kind))
    return tuple(fields)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The model classes an annotation names (``list[str | GoldPassage]`` → GoldPassage)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in typing.get_args(annotation) for model in _models_in(arg)]


@functools.cache
def _deep_fields(model: type[BaseModel]) -> frozenset[str]:
    """The fields of ``model`` holding models that have loose fields of their own (their
    unknown fields are checked either way)."""
    return frozenset(
        name
        for name, _kind in _loose_fields(model)
        if any(_loose_fields(inner) for inner in _models_in(model.model_fields[name].annotation))
    )


def _unbounded_in(record: BaseModel, prefix: Path_, depth: int) -> tuple[Path_, str, str] | None:
    extra = record.__pydantic_extra__
    if extra:
        found = first_unbounded((((*prefix, key), value) for key, value in extra.items()), depth)
        if found is not None:
            return found
    for name, kind in _loose_fields(type(record)):
        value = getattr(record, name)
        if not value:
            continue
        if kind == _ANY:
            found = first_unbounded([((*prefix, name), value)], depth)
        elif kind == _MODEL:
            found = _unbounded_in(value, (*prefix, name), depth + 1)
        else:
            found = _unbounded_items(value, (*prefix, name), depth + 1)
        if found is not None:
            return found
    return None


def _unbounded_items(values: Any, path: Path_, depth: int) -> tuple[Path_, str, str] | None:
    items = values.items() if isinstance(values, dict) else enumerate(values)
    for key, value in items:
        if isinstance(value, BaseModel):
            found = _unbounded_in(value, (*path, key), depth + 1)
            if found is not None:
                return found
    return None


_INT_BOUND = 10**MAX_INT_DIGITS


def _clean(value: Any, depth: int) -> bool:
    """True when ``value`` (at nesting level ``depth``) breaks no bound: the fast check of
    every record (a plain walk, no paths), the same rules as
    :func:`~ragcard.inputs._limits.unbounded_values`."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is float:
        return bool(value - value == 0.0)  # False for NaN and both infinities
    if kind is int:
        return bool(-_INT_BOUND < value < _INT_BOUND)
    if kind is dict or kind is list:
        if depth >= MAX_DEPTH:
            return False
        for item in value.values() if kind is dict else value:
            if not _clean(item, depth + 1):
                return False
    return True


def _clean_model(record: BaseModel, depth: int) -> bool:
    extra = record.__pydantic_extra__
    if extra:
        for value in extra.values():
            if not _clean(value, depth):
                return False
    for name, kind in _loose_fields(type(record)):
        value = getattr(record, name)
        if not value:
            continue
        if kind == _ANY:
            if not _clean(value, depth):
                return False
        elif kind == _MODEL:
            if not _clean_model(value, depth + 1):
                return False
        elif not _clean_items(value, depth + 2, name in _deep_fields(type(record))):
            return False
    return True


def _clean_items(value: Any, depth: int, deep: bool) -> bool:
    """The models of a list (or dict) field: their unknown fields, and their own loose fields
    when ``deep`` (``isinstance`` on a model class is slow: only then)."""
    for item in value.values() if isinstance(value, dict) else value:
        extra = getattr(item, "__pydantic_extra__", None)
        if extra:
            for inner in extra.values():
                if not _clean(inner, depth):
                    return False
        if deep and isinstance(item, BaseModel) and not _clean_model(item, depth):
            return False
    return True


def unbounded_problem(name: str, number: int, record: BaseModel) -> Problem | None:
    """The problem of a validated record whose unknown fields (or fields of any type, such as
    ``meta``) hold a non-finite number, an integer too long or nesting too deep."""
    if _clean_model(record, 1):
        return None
    found = _unbounded_in(record, (), 1)
    if found is None:
        return None
    path, why, fix = found
    return Problem(name, number, dotted(path), why, fix=fix)


def _parse(
    name: str, number: int, data: Any, json_error: LineError | None, model: type[M], kind: str
) -> tuple[M | None, list[Problem]]:
    """One line's record, or the problems that describe why there is none."""
    if json_error is not None:
        return None, [json_error.problem(name, number, f"each line must be one {kind} object")]
    if not isinstance(data, dict):
        return None, [Problem(name, number, None, f"expected a JSON object ({kind})", data)]
    found = first_unbounded((((key,), value) for key, value in data.items()), 1)
    if found is not None:
        path, why, fix = found
        return None, [Problem(name, number, dotted(path), why, fix=fix)]
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
    for number, record, found in iter_records(path, model, kind):
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
    for number, line in read_lines(path):
        if isinstance(line, LineError):
            yield number, None, [line.problem(name, number, f"each line must be one {kind} object")]
        else:
            yield number, *parse_line(name, number, line, model, kind)


def parse_line(
    name: str, number: int, line: str, model: type[M], kind: str
) -> tuple[M | None, list[Problem]]:
    """One line of ``name`` as a record, or the problems that say why it is not one.

    The line goes straight to pydantic's JSON parser (``model_validate_json``), and the values
    no field type bounds (unknown fields, ``Any``) are checked; a line it rejects is parsed
    again by the ``json`` module (which reads a few things pydantic's parser does not, such as
    ``NaN`` or a lone surrogate escape), every value checked before the model validates it.
    Either way the record or the problems are the same.
    """
    if (encoding_error := not_utf8(line)) is not None:
        return _parse(name, number, None, encoding_error, model, kind)
    try:
        record = model.model_validate_json(line)
    except ValidationError:
        pass
    else:
        problem = unbounded_problem(name, number, record)
        return (record, []) if problem is None else (None, [problem])
    return _parse(name, number, *decode_line(line), model, kind)
