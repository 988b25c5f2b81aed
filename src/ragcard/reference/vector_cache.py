"""Sentence vectors kept on disk, by model and text, so a corpus is encoded once per model.

A run encodes the same passage sentences again and again: the reference agent indexes the
corpus, the judges read the same passages for every answer, and CI runs the same project on
every change. :class:`VectorCache` keeps each vector in one SQLite file shared by every run on
the machine — ``$RAGCARD_VECTOR_CACHE`` when set (``off`` turns it off), else
``$XDG_CACHE_HOME/ragcard/vectors.sqlite3`` (``~/.cache`` when unset) — keyed by the model's
sha256 and the text's. It changes no result: the encoder gives a text the same vector bit for
bit whatever batch it is encoded in (checked in the tests), so a cached vector is the vector
the encoder would have computed.

A cache that cannot be opened or written (a read-only home, a full disk, a corrupt file) is
skipped with the reason kept in :attr:`VectorCache.problem`; encoding goes on without it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

__all__ = ["VectorCache", "default_cache_path"]

_SCHEMA = """CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL, text_sha256 BLOB NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (model, text_sha256)) WITHOUT ROWID"""
_CHUNK = 500  # keys per SELECT (SQLite's parameter limit is 999 on old builds)


def default_cache_path() -> Path | None:
    """Where the vectors are kept; None when ``$RAGCARD_VECTOR_CACHE`` is ``off``."""
    setting = os.environ.get("RAGCARD_VECTOR_CACHE")
    if setting is not None:
        return None if setting.strip().lower() in ("", "off", "0", "false", "no") else Path(setting)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ragcard" / "vectors.sqlite3"


class VectorCache:
    """Vectors of one model, by text, in a SQLite file (thread-safe)."""

    def __init__(self, path: Path | None, model: str, dimension: int) -> None:
        self.path, self.model, self.dimension = path, model, dimension
        self.problem: str | None = None
        self.hits = self.misses = 0
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute(_SCHEMA)
                self._db.commit()
            except (OSError, sqlite3.Error) as error:
                self._off(f"cannot use {path}: {error}")

    def _off(self, why: str) -> None:
        self.problem = why
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
        self._db = None

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()

    def get(self, texts: Sequence[str]) -> dict[str, NDArray[np.float32]]:
        """The cached vectors of ``texts`` (those it has)."""
        if self._db is None or not texts:
            return {}
        wanted = {self._key(t): t for t in dict.fromkeys(texts)}
        found: dict[str, NDArray[np.float32]] = {}
        keys = list(wanted)
        with self._lock:
            try:
                for start in range(0, len(keys), _CHUNK):
                    chunk = keys[start : start + _CHUNK]
                    marks = ",".join("?" * len(chunk))
                    rows = self._db.execute(
                        f"SELECT text_sha256, vector FROM vectors WHERE model = ? "
                        f"AND text_sha256 IN ({marks})",
                        (self.model, *chunk),
                    ).fetchall()
                    for key, blob in rows:
                        if len(blob) == 4 * self.dimension:  # (a damaged row is ignored)
                            vector = np.frombuffer(blob, dtype=np.float32)
                            found[wanted[bytes(key)]] = vector
            except sqlite3.Error as error:
                self._off(f"cannot read {self.path}: {error}")
                return {}
        self.hits += len(found)
        self.misses += len(wanted) - len(found)
        return found

    def put(self, vectors: dict[str, NDArray[np.float32]]) -> None:
        """Keep ``vectors`` (text → vector)."""
        if self._db is None or not vectors:
            return
        rows = [
            (self.model, self._key(t), np.asarray(v, dtype=np.float32).tobytes())
            for t, v in vectors.items()
        ]
        with self._lock:
            try:
                self._db.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?)", rows)
                self._db.commit()
            except sqlite3.Error as error:
                self._off(f"cannot write {self.path}: {error}")

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
