"""Sentence vectors on disk: reused bit for bit, never a different result, never a crash."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from ragcard.reference import embeddings
from ragcard.reference.vector_cache import VectorCache, default_cache_path

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "handbook" / "corpus.jsonl"
TEXTS = [json.loads(line)["text"] for line in CORPUS.read_text().splitlines()][:12]


def test_a_vector_does_not_depend_on_its_batch() -> None:
    """What makes a cached vector the one the model would give: padded batches, one text at a
    time, any order — the same bits."""
    encoder = embeddings.load_encoder()
    alone = np.vstack([encoder._encode_batch([text]) for text in TEXTS])
    together = encoder._encode_batch(list(reversed(TEXTS)))[::-1]
    assert np.array_equal(alone, together)


def test_vectors_are_reused_from_disk(tmp_path: Path) -> None:
    encoder = embeddings.load_encoder()
    cache = VectorCache(tmp_path / "v.sqlite3", "model-x", embeddings.DIMENSION)
    original, encoder.cache = encoder.cache, cache
    try:
        first = encoder.encode(TEXTS)
        assert cache.misses == len(TEXTS) and cache.hits == 0
        encoder.cache = reopened = VectorCache(
            tmp_path / "v.sqlite3", "model-x", embeddings.DIMENSION
        )
        again = encoder.encode([*TEXTS, "A sentence never seen."])
        assert reopened.hits == len(TEXTS) and reopened.misses == 1
        assert np.array_equal(first, again[: len(TEXTS)])
        other = VectorCache(tmp_path / "v.sqlite3", "model-y", embeddings.DIMENSION)
        assert other.get(TEXTS) == {}  # keyed by model: another model's vectors are not used
    finally:
        encoder.cache = original


def test_the_cache_can_be_turned_off_and_a_broken_one_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGCARD_VECTOR_CACHE", "off")
    assert default_cache_path() is None
    monkeypatch.setenv("RAGCARD_VECTOR_CACHE", str(tmp_path / "c.sqlite3"))
    assert default_cache_path() == tmp_path / "c.sqlite3"
    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(b"this is not a database" * 100)
    cache = VectorCache(broken, "m", 4)
    assert cache.problem is not None and "broken.sqlite3" in cache.problem
    assert cache.get(["x"]) == {}
    cache.put({"x": np.zeros(4, np.float32)})  # nothing written, nothing raised
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert VectorCache(blocked / "sub" / "v.sqlite3", "m", 4).problem is not None


def test_a_wrong_sized_row_is_ignored(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "v.sqlite3", "m", 4)
    cache.put({"a": np.ones(4, np.float32)})
    with sqlite3.connect(tmp_path / "v.sqlite3") as db:
        db.execute("UPDATE vectors SET vector = ?", (b"\x00" * 3,))
    assert VectorCache(tmp_path / "v.sqlite3", "m", 4).get(["a"]) == {}
