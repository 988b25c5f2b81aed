"""The bounds ragcard puts on what it reads, so that hostile or broken input is refused with a
message instead of a traceback, a hang or a value quietly accepted.

Files: an input must be a regular file (a device such as ``/dev/zero``, a FIFO or a socket is
refused before it is read, whatever symlink points at it), and reading stops at a size limit.
JSON: nesting, integer size and non-finite numbers are bounded in every record, unknown fields
included. Run settings: each number in ``[run]`` has an upper bound (a typo such as
``attempts = 1000000000`` must not run for ever).

The figures are far above anything a real question set, corpus, response file or configuration
needs; each error names the limit it hit.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_ATTEMPTS",
    "MAX_CONCURRENCY",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_JSONL_BYTES",
    "MAX_K",
    "MAX_LATENCY_MS",
    "MAX_LINE_CHARS",
    "MAX_NAME_CHARS",
    "MAX_RETRIES",
    "MAX_SCORE",
    "MAX_SENTENCE",
    "MAX_TIMEOUT_S",
    "MAX_TOML_BYTES",
    "dotted",
    "first_unbounded",
    "not_a_regular_file",
    "unbounded_values",
]

#: A JSON Lines input (questions, corpus, responses) may hold at most this many bytes.
MAX_JSONL_BYTES = 4 << 30
#: One line of a JSON Lines input may hold at most this many characters.
MAX_LINE_CHARS = 16 << 20
#: A TOML file (ragcard.toml, thresholds) may hold at most this many bytes.
MAX_TOML_BYTES = 1 << 20
#: Arrays and objects (tables) nested deeper than this are refused.
MAX_DEPTH = 64
#: Integers with more digits than this are refused (Python's own limit for reading one is 4,300).
MAX_INT_DIGITS = 100
#: Upper bounds of the ``[run]`` settings and of the numbers in records.
MAX_ATTEMPTS = 100
MAX_CONCURRENCY = 1024
MAX_TIMEOUT_S = 86_400.0
MAX_RETRIES = 20
MAX_K = 1000
MAX_SENTENCE = 1_000_000
#: A recorded latency (ms) or retrieval score beyond these is not a measurement.
MAX_LATENCY_MS = 86_400_000.0
MAX_SCORE = 1e15
#: A name (project, corpus version …) longer than this is refused.
MAX_NAME_CHARS = 200

_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def not_a_regular_file(path: Path, limit: int) -> str | None:
    """Why ``path`` cannot be read as an input file (None when it can): it is a device, a pipe,
    a socket or a folder (symlinks followed), or larger than ``limit`` bytes. A missing or
    unreadable file raises the usual :class:`OSError`."""
    mode = os.stat(path)
    if not stat.S_ISREG(mode.st_mode):
        kind = next((name for test, name in _KINDS if test(mode.st_mode)), "not a regular file")
        return f"is {kind}, not a regular file"
    if mode.st_size > limit:
        return f"is {mode.st_size:,} bytes, over the limit of {limit:,} bytes"
    return None


_INT_BOUND = 10**MAX_INT_DIGITS

#: The fix of each kind of unbounded value.
_FIX_NUMBER = "write a finite number (NaN and infinities are not values), or leave it out"
_FIX_INT = f"write it with at most {MAX_INT_DIGITS} digits (an identifier: as a string)"
_FIX_DEPTH = f"flatten the value: no record needs more than {MAX_DEPTH} levels"


def _scalar_problem(value: object) -> tuple[str, str] | None:
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value!r} is not a finite number", _FIX_NUMBER
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _INT_BOUND:
        return f"an integer of more than {MAX_INT_DIGITS} digits", _FIX_INT
    return None


Path_ = tuple[str | int, ...]


def unbounded_values(
    values: Iterable[tuple[Path_, Any]], depth: int = 0
) -> Iterator[tuple[Path_, str, str]]:
    """Each ``(path, why, fix)`` among ``(path, value)`` pairs whose value breaks a bound: a
    non-finite float, an integer of more than :data:`MAX_INT_DIGITS` digits, or nesting
    deeper than :data:`MAX_DEPTH` (``depth``: how deep the values already are). Walks lists
    and dicts without recursion; nothing below a value nested too deep is visited."""
    stack: list[tuple[Path_, Any, int]] = [(path, value, depth) for path, value in values]
    stack.reverse()
    while stack:
        path, value, level = stack.pop()
        if isinstance(value, dict | list):
            if level + 1 > MAX_DEPTH:
                yield path, f"nested deeper than {MAX_DEPTH} levels", _FIX_DEPTH
                continue
            items = value.items() if isinstance(value, dict) else enumerate(value)
            children = [((*path, key), item, level + 1) for key, item in items]
            stack.extend(reversed(children))
        elif isinstance(value, float | int):
            found = _scalar_problem(value)
            if found is not None:
                yield (path, *found)


def first_unbounded(
    values: Iterable[tuple[Path_, Any]], depth: int = 0
) -> tuple[Path_, str, str] | None:
    """The first of :func:`unbounded_values`, or None."""
    return next(unbounded_values(values, depth), None)


def dotted(path: Path_) -> str:
    """``("meta", "x", 0)`` → ``"meta.x[0]"``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
