"""What the model-backed judges share: their options, a persistent cache, a call ledger.

:class:`JudgeCache` is one SQLite file. The key of a judgement is the sha256 of the backend's
model, the prompt version and the canonical inputs (claims, passages with their ids, the
question): an unchanged rerun finds every answer there and makes no call at all, and a change to
any of them (a new prompt version included) misses. Verdicts are stored as the model gave them;
the decision threshold is applied when they are read, so changing it needs no new calls.

:class:`Ledger` counts calls, cache hits and misses, tokens, cost and failures;
:meth:`Ledger.snapshot` gives the frozen :class:`JudgeStats` the scorecard shows.

:class:`ChatOptions` are the ``[judge]`` keys every chat backend takes and
:func:`load_options` validates a backend's table into one :class:`ConfigError`.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcard.errors import ConfigError
from ragcard.judges.base import JudgeContext, Verdict

__all__ = [
    "ChatOptions",
    "JudgeCache",
    "JudgeStats",
    "Ledger",
    "cache_key",
    "default_cache_path",
    "estimate_tokens",
    "load_options",
]

M = TypeVar("M", bound=BaseModel)
_SECRET_KEY = re.compile(r"api_?key|secret|passw|^token$|^key$|auth", re.IGNORECASE)


class ChatOptions(BaseModel):
    """``[judge]`` keys every chat backend takes (``cache``: true, false, or a file path)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: float = Field(default=0.5, ge=0, le=1)
    parse_retries: int = Field(default=2, ge=0)
    seed: int | None = 0
    max_tokens: int | None = Field(default=None, gt=0)
    cache: bool | str = True


def load_options(model: type[M], options: Mapping[str, Any], backend: str) -> M:
    """Validate a ``[judge]`` table; every bad key and value goes into one ConfigError."""
    given = {k: v for k, v in options.items() if k not in ("backend", "type")}
    try:
        return model.model_validate(given)
    except ValidationError as error:
        valid = list(model.model_fields)
        messages = []
        for item in error.errors():
            where = ".".join(str(part) for part in item["loc"])
            if item["type"] == "extra_forbidden" and _SECRET_KEY.search(where):
                messages.append(
                    f"{where!r}: secrets are read from the environment only; "
                    "set api_key_env = 'NAME_OF_THE_VARIABLE'"
                )
            elif item["type"] == "extra_forbidden":
                close = difflib.get_close_matches(where, valid, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                messages.append(f"unknown option {where!r}{hint}")
            else:
                got = item.get("input")
                shown = "" if got is None else f" (got {got!r})"[:90]
                messages.append(f"{where or 'options'}: {item['msg']}{shown}")
        raise ConfigError(
            f"judge '{backend}': {'; '.join(messages)}. Valid options: {', '.join(valid)}"
        ) from None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    verdicts TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/ragcard/judge-cache.sqlite3`` (``~/.cache`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ragcard" / "judge-cache.sqlite3"


def cache_key(model: str, prompt_version: str, ctx: JudgeContext, task: str | None = None) -> str:
    """sha256 of the model, the prompt version, the task (``task``, else ``ctx.task``) and the
    canonical inputs of ``ctx``. The task is left out for support, so that support keys stay
    what they were before tasks existed."""
    canonical: dict[str, Any] = {
        "model": model,
        "prompt_version": prompt_version,
        "claims": list(ctx.claims),
        "passages": [[p.id, p.text] for p in ctx.passages],
        "question": ctx.question,
    }
    task = task or ctx.task
    if task != "support":
        canonical["task"] = task
    if ctx.reference is not None:  # (absent otherwise, so older keys stay what they were)
        canonical["reference"] = ctx.reference
    text = json.dumps(canonical, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _to_json(verdicts: list[Verdict]) -> str:
    rows = [
        {
            "label": v.label,
            "score": v.score,
            "passage_id": v.passage_id,
            "span": list(v.span) if v.span else None,
            "reason": v.reason,
            **({"grade": v.grade} if v.grade is not None else {}),
        }
        for v in verdicts
    ]
    return json.dumps(rows, ensure_ascii=False)


def _from_json(text: str) -> list[Verdict]:
    rows: list[dict[str, Any]] = json.loads(text)
    return [
        Verdict(
            row["label"],
            float(row["score"]),
            row.get("passage_id"),
            tuple(row["span"]) if row.get("span") else None,
            row.get("reason"),
            row.get("grade"),
        )
        for row in rows
    ]


class JudgeCache:
    """Verdicts by :func:`cache_key`, in one SQLite file shared by every run on the machine.

    Safe to use from several threads and processes (WAL journal; writes are upserts). Counts
    its hits and misses. ``path=":memory:"`` keeps nothing between instances (tests).
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        with self._lock, self._db:
            if str(self.path) != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
        self.hits = 0
        self.misses = 0
        self.errors = 0

    def get(self, key: str) -> list[Verdict] | None:
        """The verdicts stored under ``key``, or None (counted as a hit or a miss).

        A database error (a locked or damaged file) counts as a miss and in ``errors``: the
        cache only ever saves calls, it never fails a judgement.
        """
        try:
            with self._lock:
                row = self._db.execute("SELECT verdicts FROM verdicts WHERE key = ?", (key,))
                found = row.fetchone()
        except sqlite3.Error:
            self.errors += 1
            found = None
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        return _from_json(found[0])

    def put(self, key: str, model: str, prompt_version: str, verdicts: list[Verdict]) -> None:
        """Store ``verdicts`` under ``key`` (replacing what was there); an error is counted."""
        try:
            with self._lock, self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?)",
                    (key, model, prompt_version, _to_json(verdicts), time.time()),
                )
        except sqlite3.Error:
            self.errors += 1

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT COUNT(*) FROM verdicts").fetchone()
        return int(count)

    def close(self) -> None:
        """Close the database file."""
        with self._lock:
            self._db.close()


@dataclass(frozen=True, slots=True)
class JudgeStats:
    """What a model-backed judge spent: the scorecard's judge line.

    ``calls`` counts requests sent (retries included); ``judgements`` the answers judged by the
    model (cache misses that succeeded); ``failures`` the answers that ended in a JudgeError.
    ``tokens_estimated`` is true when some token counts were estimated (the server reported no
    usage); ``cost`` is None when no prices were configured.
    """

    calls: int = 0
    judgements: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    retries: int = 0
    invalid_outputs: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False
    cost: float | None = None
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """A plain dict for results and scorecards."""
        return asdict(self)


def estimate_tokens(text: str) -> int:
    """A rough token count (4 characters a token) for replies that report no usage."""
    return -(-len(text) // 4)


class Ledger:
    """Mutable counters behind :class:`JudgeStats` (one per judge instance)."""

    def __init__(
        self,
        price_prompt_per_1k: float | None = None,
        price_completion_per_1k: float | None = None,
    ) -> None:
        self.price_prompt_per_1k = price_prompt_per_1k
        self.price_completion_per_1k = price_completion_per_1k
        self.calls = self.judgements = self.retries = self.invalid_outputs = self.failures = 0
        self.prompt_tokens = self.completion_tokens = 0
        self.tokens_estimated = False
        self.seconds = 0.0

    def add_usage(self, prompt_tokens: int, completion_tokens: int, estimated: bool) -> None:
        """Count one reply's tokens (``estimated``: by :func:`estimate_tokens`)."""
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.tokens_estimated = self.tokens_estimated or estimated

    def cost(self) -> float | None:
        """Cost from the per-1k-token prices, or None when neither price is set."""
        if self.price_prompt_per_1k is None and self.price_completion_per_1k is None:
            return None
        prompt = (self.price_prompt_per_1k or 0.0) * self.prompt_tokens / 1000
        completion = (self.price_completion_per_1k or 0.0) * self.completion_tokens / 1000
        return round(prompt + completion, 6)

    def snapshot(self, cache: JudgeCache | None) -> JudgeStats:
        """The counters now, with ``cache``'s hits and misses."""
        return JudgeStats(
            calls=self.calls,
            judgements=self.judgements,
            cache_hits=cache.hits if cache is not None else 0,
            cache_misses=cache.misses if cache is not None else 0,
            retries=self.retries,
            invalid_outputs=self.invalid_outputs,
            failures=self.failures,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            tokens_estimated=self.tokens_estimated,
            cost=self.cost(),
            seconds=round(self.seconds, 3),
        )
