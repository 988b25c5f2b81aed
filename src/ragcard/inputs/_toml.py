"""Reading ragcard's TOML files (``ragcard.toml``, thresholds): bounded, every value checked,
and every problem placed on its line.

:func:`read_toml` reads a regular file of at most :data:`~ragcard.inputs._limits.MAX_TOML_BYTES`
(never a device), parses it, and refuses what TOML allows but no setting means: ``inf`` and
``nan``, integers of more than :data:`~ragcard.inputs._limits.MAX_INT_DIGITS` digits, nesting deeper
than :data:`~ragcard.inputs._limits.MAX_DEPTH`. :meth:`TomlFile.line_of` finds the line of a key
(``("run", "attempts")``, ``("threshold", 2, "value")``) so that a pydantic error, an unknown
key or a bad value is reported as ``ragcard.toml:14`` rather than "threshold 3".
:func:`validation_problems` turns a pydantic error into those problems, with a "did you
mean" for an unknown key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ragcard._suggest import did_you_mean
from ragcard.errors import ConfigFileError, Problem
from ragcard.inputs._files import read_file
from ragcard.inputs._jsonl import VALIDATION_FIXES
from ragcard.inputs._limits import MAX_DEPTH, MAX_INT_DIGITS, dotted, unbounded_values

__all__ = ["TomlFile", "read_toml", "table_problems", "unique", "validation_problems"]

Key = str | int

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r"\"(?:[^\"\\]|\\.)*\"|'[^']*'"
_KEY = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_ARRAY_HEADER = re.compile(rf"\s*\[\[\s*({_DOTTED})\s*\]\]")
_HEADER = re.compile(rf"\s*\[\s*({_DOTTED})\s*\]")
_ASSIGN = re.compile(rf"\s*({_DOTTED})\s*=")
_PART = re.compile(_KEY)
_AT_LINE = re.compile(r"\(at line (\d+), column \d+\)")


def _parts(dotted: str) -> tuple[str, ...]:
    parts = []
    for part in _PART.findall(dotted):
        if part[:1] in "\"'":
            part = part[1:-1]
        parts.append(part)
    return tuple(parts)


def _index_lines(text: str) -> list[tuple[int, tuple[Key, ...]]]:
    """``(line, key path)`` of every table header and key of ``text``: a line-based reading
    of TOML as people write it (headers, ``key = value``, dotted keys); lines inside
    multi-line strings are skipped. Array-of-tables elements get their index in the path."""
    entries: list[tuple[int, tuple[Key, ...]]] = []
    arrays: dict[tuple[Key, ...], int] = {}
    table: tuple[Key, ...] = ()
    in_string: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if in_string is not None:
            if line.count(in_string) % 2 == 1:
                in_string = None
            continue
        if (found := _ARRAY_HEADER.match(line)) is not None:
            parts = _parts(found.group(1))
            path = (*_resolve(parts[:-1], arrays), parts[-1])
            arrays[path] = arrays.get(path, -1) + 1
            table = (*path, arrays[path])
            entries.append((number, table))
        elif (found := _HEADER.match(line)) is not None:
            table = _resolve(_parts(found.group(1)), arrays)
            entries.append((number, table))
        elif (found := _ASSIGN.match(line)) is not None:
            entries.append((number, (*table, *_parts(found.group(1)))))
            rest = line[found.end() :]
            for quote in ('"""', "'''"):
                if rest.count(quote) % 2 == 1:
                    in_string = quote
    return entries


def _resolve(parts: tuple[str, ...], arrays: dict[tuple[Key, ...], int]) -> tuple[Key, ...]:
    """A header's path with the current index of every array of tables it goes through."""
    path: tuple[Key, ...] = ()
    for part in parts:
        path = (*path, part)
        if path in arrays:
            path = (*path, arrays[path])
    return path


@dataclass(frozen=True, slots=True)
class TomlFile:
    """A parsed TOML file: its bytes (hashed by callers), its data, and where each key is."""

    path: Path
    raw: bytes
    text: str
    data: dict[str, Any]
    _entries: list[tuple[int, tuple[Key, ...]]] = field(default_factory=list)

    def line_of(self, keys: Sequence[Key]) -> int | None:
        """The line of the key at ``keys`` or, when it has none of its own (inside an inline
        table or a list), the line of its nearest parent that has one."""
        best: tuple[int, int] | None = None  # (matched length, line)
        wanted = tuple(keys)
        for number, path in self._entries:
            if wanted[: len(path)] == path and (best is None or len(path) > best[0]):
                best = (len(path), number)
        if best is None:  # an array of tables: the first element's header
            below = (number for number, path in self._entries if path[: len(wanted)] == wanted)
            return next(below, None)
        return best[1]

    def problem(
        self, keys: Sequence[Key], message: str, value: object = None, fix: str | None = None
    ) -> Problem:
        """A :class:`Problem` of this file at the line of ``keys``, the field named as in
        TOML (``[run] attempts``, ``[[threshold]] #3 value``)."""
        return Problem(str(self.path), self.line_of(keys), _field(keys), message, value, fix)


def _field(keys: Sequence[Key]) -> str | None:
    if not keys:
        return None
    head, rest = str(keys[0]), tuple(keys[1:])
    if rest and isinstance(rest[0], int):
        head, rest = f"[[{head}]] #{rest[0] + 1}", rest[1:]
    elif rest:
        head = f"[{head}]"
    else:
        return head
    return f"{head} {dotted(rest)}" if rest else head


def _table_name(keys: Sequence[Key]) -> str:
    if not keys:
        return "the file"
    if len(keys) == 1:
        return f"[{keys[0]}]"
    return _field(keys) or "the file"


def _syntax_problem(path: Path, error: Exception) -> Problem:
    message = str(error)
    found = _AT_LINE.search(message)
    line = int(found.group(1)) if found else None
    message = _AT_LINE.sub("", message).strip()
    return Problem(str(path), line, None, f"not valid TOML: {message}",
                   fix="fix the TOML syntax (https://toml.io)")  # fmt: skip


def read_toml(path: Path) -> tuple[TomlFile, list[Problem]]:
    """Read and parse ``path``: the file, and a problem for each unbounded value in it (a
    non-finite number, an integer too long, nesting too deep), with its line. A missing file
    raises :class:`FileNotFoundError` (the caller says what belongs there); a file that cannot
    be read, or bad syntax, is a :class:`ConfigFileError` with its line."""
    raw, text = read_file(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigFileError(_syntax_problem(path, error)) from None
    except RecursionError:
        raise ConfigFileError(
            Problem(str(path), None, None, f"nested deeper than {MAX_DEPTH} levels",
                    fix="flatten the arrays and tables")  # fmt: skip
        ) from None
    except ValueError:  # an integer too long for int()
        raise ConfigFileError(
            Problem(str(path), None, None, f"an integer of more than {MAX_INT_DIGITS} digits",
                    fix="write numbers with fewer digits")  # fmt: skip
        ) from None
    toml = TomlFile(path, raw, text, data, _index_lines(text))
    problems = [
        toml.problem(keys, why, fix=fix)
        for keys, why, fix in unbounded_values(_keyed(data), depth=0)
    ]
    return toml, problems


def unique(problems: list[Problem]) -> list[Problem]:
    """``problems`` in line order, without a second problem of the same line and field (a
    value refused as unbounded is not also reported as the wrong type)."""
    problems = sorted(problems, key=lambda p: (p.file, p.line or 0))
    seen: set[tuple[int | None, str | None]] = set()
    kept = []
    for problem in problems:
        key = (problem.line, problem.field)
        if key not in seen or problem.field is None:
            seen.add(key)
            kept.append(problem)
    return kept


def _keyed(data: dict[str, Any]) -> Iterator[tuple[tuple[Key, ...], Any]]:
    return (((key,), value) for key, value in data.items())


def validation_problems(
    toml: TomlFile, prefix: Sequence[Key], error: ValidationError, model: type[BaseModel]
) -> list[Problem]:
    """One problem per pydantic error of the table at ``prefix`` validated as ``model``, each
    on its line, an unknown key with the closest known one."""
    problems = []
    for item in error.errors():
        loc = (*prefix, *item["loc"])
        kind = item["type"]
        if kind == "extra_forbidden":
            name = str(item["loc"][-1])
            owner = _owner(model, item["loc"][:-1])
            where = _table_name(loc[:-1])
            problems.append(
                toml.problem(loc, f"unknown key {name!r} in {where}",
                             fix=did_you_mean(name, owner, "known keys"))  # fmt: skip
            )
            continue
        value = None if kind == "missing" else item.get("input")
        message = "is required" if kind == "missing" else item["msg"].removeprefix("Value error, ")
        problems.append(toml.problem(loc, message, value, VALIDATION_FIXES.get(kind)))
    return problems


def _owner(model: type[BaseModel], loc: Sequence[Key]) -> list[str]:
    """The field names of the (nested) model that holds ``loc``."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        info = getattr(current, "model_fields", {}).get(part)
        if info is None:
            break
        annotation = info.annotation
        inner = getattr(annotation, "__args__", None)
        if inner and not isinstance(annotation, type):
            annotation = next((a for a in inner if hasattr(a, "model_fields")), annotation)
        current = annotation
    return list(getattr(current, "model_fields", {}))


def table_problems(
    toml: TomlFile, known: Sequence[str], what: str = "tables"
) -> list[Problem]:
    """A problem for each top-level key of ``toml`` that is not in ``known``."""
    return [
        Problem(str(toml.path), toml.line_of((key,)), _top_name(key, value),
                "unknown key" if _top_name(key, value) == key else "unknown table",
                fix=did_you_mean(key, known, what))  # fmt: skip
        for key, value in toml.data.items()
        if key not in known
    ]


def _top_name(key: str, value: Any) -> str:
    if isinstance(value, dict):
        return f"[{key}]"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return f"[[{key}]]"
    return key
