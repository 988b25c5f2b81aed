"""``results.jsonl``: one line per item-attempt, appended as attempts finish.

Each line holds the response (or the error, with the agent's raw output), the per-item scores,
the evidence and the diagnosis, so that a run is self-describing, can be re-scored without
calling the agent, and resumes after an interruption without redoing finished attempts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic_core import PydanticSerializationError, from_json, to_json

from ragcard.agent import _secrets
from ragcard.errors import InputError, Problem
from ragcard.inputs.responses import AgentResponse
from ragcard.metrics.base import AttemptFailure
from ragcard.outputs import _writing

__all__ = ["RESULT_SCHEMA", "AttemptRecord", "ResultsLog", "read_results"]

RESULT_SCHEMA = "ragcard.result/1"


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    """What the agent did on one item-attempt, before scoring."""

    item: str
    attempt: int
    response: AgentResponse | None
    failure: AttemptFailure | None
    latency_ms: float | None = None
    first_token_ms: float | None = None
    started_at: str | None = None
    tries: int = 1
    raw: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "schema": RESULT_SCHEMA,
            "item": self.item,
            "attempt": self.attempt,
            "started_at": self.started_at,
            "tries": self.tries,
            "latency_ms": self.latency_ms,
            "first_token_ms": self.first_token_ms,
            "response": self.response.model_dump(mode="json") if self.response else None,
            "error": None,
        }
        if self.failure is not None:
            data["error"] = {
                "kind": self.failure.kind,
                "message": self.failure.message,
                "raw": self.raw,
            }
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AttemptRecord:
        response = data.get("response")
        error = data.get("error")
        return cls(
            item=str(data["item"]),
            attempt=int(data["attempt"]),
            response=AgentResponse.model_validate(response) if response is not None else None,
            failure=AttemptFailure(error["kind"], error["message"]) if error else None,
            latency_ms=data.get("latency_ms"),
            first_token_ms=data.get("first_token_ms"),
            started_at=data.get("started_at"),
            tries=int(data.get("tries", 1)),
            raw=error.get("raw") if error else None,
        )


def read_results(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line, record)`` for each complete line, streamed; a torn last line (a run
    killed while writing) is skipped, any other bad line is an :class:`InputError`.

    Lines are parsed by ``pydantic_core.from_json`` (already installed with pydantic; its
    string cache shares the keys every line repeats: ``compare`` of two 50k runs peaks at a
    third less memory than with ``json``), falling back to ``json`` for what it refuses (a
    lone surrogate escape) so that every line ``json`` reads is still read."""
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if line.isspace():
                continue
            data = _parse_result(line)
            if data is _NOT_JSON:
                if not line.endswith(b"\n"):
                    return  # torn by an interruption: that attempt is simply redone
                raise InputError(
                    Problem(
                        str(path),
                        number,
                        None,
                        "not valid JSON",
                        fix="remove the line, or start afresh with --fresh",
                    )
                )
            if not isinstance(data, dict) or "item" not in data or "attempt" not in data:
                raise InputError(
                    Problem(
                        str(path),
                        number,
                        None,
                        "not a ragcard result line",
                        fix="point --out at a folder of ragcard results",
                    )
                )
            yield number, data


_NOT_JSON = object()


def _parse_result(line: bytes) -> Any:
    """The JSON value of a results line, or ``_NOT_JSON`` when it is not JSON (or not UTF-8,
    or nested past any sensible depth)."""
    try:
        return from_json(line)
    except ValueError:
        pass
    try:
        return json.loads(line)
    except (ValueError, RecursionError):  # (JSONDecodeError and UnicodeDecodeError included)
        return _NOT_JSON


class ResultsLog:
    """Appends result lines after cutting any torn last line.

    With ``flush_each`` (``ragcard run``) every line reaches the file as soon as it is written,
    so a killed run resumes from it; without (``ragcard score``, which has nothing to resume)
    lines are buffered. :meth:`close` flushes and syncs the file either way.
    """

    def __init__(self, path: Path, *, flush_each: bool = True) -> None:
        self.path = path
        self.flush_each = flush_each
        path.parent.mkdir(parents=True, exist_ok=True)
        _cut_torn_tail(path)
        self._handle = path.open("a", encoding="utf-8", buffering=-1 if flush_each else 1 << 20)

    def append(self, record: dict[str, Any]) -> None:
        """Append one record; any secret in it (an answer or an error body that echoes a
        credential) is written as ``***``."""
        self.append_lines(dumps_line(_secrets.scrub_data(record)))

    def append_lines(self, text: str) -> None:
        """Append lines already made by :func:`dumps_line` (each ends with a newline)."""
        if _writing.write_hook is not None:  # crash tests: a kill halfway through a line
            self._handle.write(text[: len(text) // 2])
            self._handle.flush()
            _writing.write_hook("append", self.path)
            text = text[len(text) // 2 :]
        self._handle.write(text)
        if self.flush_each:
            self._handle.flush()

    def close(self) -> None:
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()


def dumps_line(record: dict[str, Any]) -> str:
    """One ``results.jsonl`` line and a newline: compact JSON, UTF-8 kept as is, ``NaN`` and
    ``Infinity`` as Python's ``json`` writes them; written by pydantic-core's serializer (about
    three times faster than ``json.dumps`` on a results line). A string ``json`` can hold but
    UTF-8 cannot (a lone surrogate) is written with ``\\u`` escapes instead; a value JSON has
    no form for raises ``TypeError`` as ``json.dumps`` does."""
    try:
        return to_json(record, inf_nan_mode="constants").decode() + "\n"
    except PydanticSerializationError:
        return json.dumps(record, separators=(",", ":")) + "\n"


def _cut_torn_tail(path: Path) -> None:
    """Cut a last line that lacks its newline (torn by a kill), reading only the file's end."""
    try:
        handle = path.open("r+b")
    except FileNotFoundError:
        return
    with handle:
        end = handle.seek(0, os.SEEK_END)
        position, block = end, 1 << 16
        while position > 0:
            start = max(0, position - block)
            handle.seek(start)
            data = handle.read(position - start)
            if position == end and data.endswith(b"\n"):
                return  # complete
            newline = data.rfind(b"\n")
            if newline >= 0:
                handle.truncate(start + newline + 1)
                return
            position = start
        if end:
            handle.truncate(0)  # one torn line and nothing before it
