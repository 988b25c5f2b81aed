"""Hand-made run folders: a ``scorecard.json`` and a ``results.jsonl`` with just the fields the
regression gate reads, so each test states the items it needs and nothing else."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

SPECS = {
    "recall@5": {"layer": "retrieval", "kind": "rate", "higher_is_better": True},
    "mrr@10": {"layer": "retrieval", "kind": "mean", "higher_is_better": True},
    "false_abstention": {"layer": "abstention", "kind": "rate", "higher_is_better": False},
    "access_leaks": {"layer": "access", "kind": "count", "higher_is_better": False},
    "latency_p50_ms": {"layer": "latency", "kind": "quantile", "higher_is_better": False},
}

#: One attempt of one item: ``(item, passed, scores)`` plus optional keys in a mapping.
Attempt = Mapping[str, Any]
MakeRun = Callable[..., Path]


def attempt(
    item: str,
    passed: bool = True,
    *,
    attempt_no: int = 1,
    must_pass: bool = False,
    category: str = "typical",
    symptoms: Sequence[str] = (),
    **scores: float,
) -> dict[str, Any]:
    """One results.jsonl line; score names use ``_at_`` for ``@`` (``recall_at_5``)."""
    return {
        "schema": "ragcard.result/1",
        "item": item,
        "attempt": attempt_no,
        "category": category,
        "split": "dev",
        "must_pass": must_pass,
        "passed": passed,
        "scores": {name.replace("_at_", "@"): value for name, value in scores.items()},
        "evidence": {"rubric_zero": list(symptoms)} if symptoms else {},
        "diagnosis": [
            {"layer": "x", "symptom": s, "cause": "c", "fix": "f", "rule": "r"} for s in symptoms
        ],
        "error": None,
    }


def write_run(
    folder: Path,
    lines: Sequence[Attempt],
    *,
    questions_sha: str = "a" * 64,
    questions_version: str = "qs-1",
    corpus_version: str = "c-1",
    k: int = 5,
    attempts: int = 1,
    specs: Mapping[str, Mapping[str, Any]] = SPECS,
) -> Path:
    """Write a run folder; ``metrics`` lists every spec some line scores (values unused)."""
    folder.mkdir(parents=True, exist_ok=True)
    scored = {name for line in lines for name in line["scores"]}
    card = {
        "schema": "ragcard.scorecard/1",
        "created_at": "2026-01-01T00:00:00+00:00",
        "decision": "ship",
        "config": {
            "questions": {"sha256": questions_sha, "version": questions_version, "n": 0},
            "corpus": {"sha256": corpus_version * 8, "version": corpus_version},
            "run": {"k": k, "attempts": attempts},
        },
        "metrics": {name: {"value": 0.0, "n": 1} for name in specs if name in scored},
        "metric_specs": {name: dict(spec) for name, spec in specs.items()},
    }
    (folder / "scorecard.json").write_text(json.dumps(card), encoding="utf-8")
    with (folder / "results.jsonl").open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")
    return folder


@pytest.fixture
def make_run(tmp_path: Path) -> MakeRun:
    """``make_run("base", lines, **options)`` writes ``tmp_path/base`` and returns it."""

    def make(name: str, lines: Sequence[Attempt], **options: Any) -> Path:
        return write_run(tmp_path / name, lines, **options)

    return make


@pytest.fixture
def line() -> Callable[..., dict[str, Any]]:
    """The :func:`attempt` line builder, as a fixture (test modules cannot import conftest)."""
    return attempt
