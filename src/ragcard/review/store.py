"""The review app's own store: ``reviews.sqlite`` in the packet folder.

It holds the reviewers (name, role, the sha256 of their access token — the token itself is
shown once, when it is made) and each reviewer's latest answer per packet item, as JSON. It
never holds the key: the app that serves a packet cannot unblind it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcard.errors import ConfigError

__all__ = ["STORE_FILE", "Reviewer", "ReviewStore", "SavedAnswer"]

STORE_FILE = "reviews.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS reviewers (
    name TEXT PRIMARY KEY, role TEXT NOT NULL, token_sha256 TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    item TEXT NOT NULL, reviewer TEXT NOT NULL REFERENCES reviewers(name),
    data TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (item, reviewer));
"""


@dataclass(frozen=True, slots=True)
class Reviewer:
    name: str
    role: str


@dataclass(frozen=True, slots=True)
class SavedAnswer:
    item: str
    reviewer: str
    data: dict[str, Any]
    updated_at: str


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class ReviewStore:
    """``reviews.sqlite`` of a packet folder (created on first use)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        with self._connect() as conn:
            conn.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                conn = sqlite3.connect(self.path, timeout=10)
            except sqlite3.Error as error:
                raise ConfigError(f"cannot open the review store {self.path}: {error}") from None
            try:
                with conn:
                    yield conn
            finally:
                conn.close()

    def add_reviewer(
        self, name: str, role: str | None = "public", *, new_token: bool = False
    ) -> str | None:
        """Add a reviewer and return their token; for a known reviewer, None (their token
        stands), or with ``new_token`` a fresh token (the old one stops working). ``role``
        None: a known reviewer keeps theirs; a new one is refused (no silent ``public``)."""
        name = name.strip()
        role = role.strip() if role is not None else None
        if not name:
            raise ConfigError("a reviewer needs a name: --reviewer NAME:ROLE")
        token = secrets.token_urlsafe(18)
        now = dt.datetime.now(dt.UTC).isoformat()
        with self._connect() as conn:
            known = conn.execute("SELECT role FROM reviewers WHERE name = ?", (name,)).fetchone()
            if known is None:
                if not role:
                    raise ConfigError(
                        f"reviewer {name!r} has no role: pass --reviewer {name}:ROLE (the role "
                        "decides which restricted passages they may read; `public` for none)"
                    )
                conn.execute("INSERT INTO reviewers VALUES (?, ?, ?, ?)",
                             (name, role, _digest(token), now))  # fmt: skip
                return token
            role = role or known[0]
            if known[0] != role:
                conn.execute("UPDATE reviewers SET role = ? WHERE name = ?", (role, name))
            if not new_token:
                return None
            conn.execute("UPDATE reviewers SET token_sha256 = ? WHERE name = ?",
                         (_digest(token), name))  # fmt: skip
            return token

    def reviewer_by_token(self, token: str) -> Reviewer | None:
        with self._connect() as conn:
            row = conn.execute(
                "SELECT name, role FROM reviewers WHERE token_sha256 = ?", (_digest(token),)
            ).fetchone()
        return Reviewer(row[0], row[1]) if row else None

    def reviewers(self) -> list[Reviewer]:
        with self._connect() as conn:
            rows = conn.execute("SELECT name, role FROM reviewers ORDER BY name").fetchall()
        return [Reviewer(name, role) for name, role in rows]

    def save(self, item: str, reviewer: str, data: dict[str, Any]) -> None:
        """Keep a reviewer's latest answer on an item."""
        now = dt.datetime.now(dt.UTC).isoformat()
        with self._connect() as conn:
            conn.execute(
                "INSERT INTO answers VALUES (?, ?, ?, ?) ON CONFLICT (item, reviewer) DO UPDATE "
                "SET data = excluded.data, updated_at = excluded.updated_at",
                (item, reviewer, json.dumps(data, ensure_ascii=False), now),
            )

    def answers(self, reviewer: str | None = None) -> list[SavedAnswer]:
        """Every saved answer (of one reviewer), by item then reviewer."""
        query = "SELECT item, reviewer, data, updated_at FROM answers"
        args: tuple[str, ...] = ()
        if reviewer is not None:
            query, args = query + " WHERE reviewer = ?", (reviewer,)
        with self._connect() as conn:
            rows = conn.execute(query + " ORDER BY item, reviewer", args).fetchall()
        return [SavedAnswer(i, r, json.loads(d), u) for i, r, d, u in rows]
