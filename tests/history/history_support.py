"""Plain helpers for the history tests (a module of its own: ``conftest`` is not importable
by name once several test folders have one)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

QSHA = "a" * 64

MakeScorecard = Callable[..., dict[str, Any]]
WriteRun = Callable[..., Path]


def scorecard(
    created_at: str = "2026-11-29T23:54:43+00:00",
    decision: str = "ship",
    project: str = "handbook",
    questions_sha: str = QSHA,
    corpus_version: str = "2026-11",
    **extra: Any,
) -> dict[str, Any]:
    """A minimal scorecard.json body in the shape ragcard writes (docs/formats.md#resultsjsonl)."""
    return {
        "schema": "ragcard.scorecard/1",
        "project": project,
        "kit": "knowledge-base",
        "created_at": created_at,
        "decision": decision,
        "config": {
            "questions": {"path": "questions.jsonl", "sha256": questions_sha, "n": 6,
                          "version": "qs-1"},
            "corpus": {"path": "corpus.jsonl", "sha256": "c" * 64, "passages": 9,
                       "version": corpus_version},
            "thresholds": {"path": "thresholds.toml", "sha256": "t" * 64},
            "agent": {"name": "replay", "model": "m-1"},
            "judge": {"name": "none"},
            "run": {"attempts": 3, "k": 5},
        },
        "metrics": {"recall@5": {"value": 0.9, "n": 6, "ci": [0.6, 1.0]}},
        **extra,
    }  # fmt: skip
