"""A tiny signed-run fixture: scorecard.json, results.jsonl and the thresholds file it names."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ragcard.outputs._runfolder import results_digest
from ragcard.outputs.signing import new_keypair

THRESHOLDS = """\
[[threshold]]
measure = "access_leaks"
comparison = "<="
value = 0
type = "must-pass"
reason = "no leaks"

[[threshold]]
measure = "recall@5"
comparison = ">="
value = 0.7
type = "graded"
reason = "good enough retrieval"
"""

RESULTS = [
    {
        "schema": "ragcard.result/1",
        "item": "Q1",
        "attempt": 1,
        "latency_ms": 100.0,
        "response": {
            "answer": "You get 25 days of annual leave [leave@2025#1].",
            "retrieved": [{"id": "leave@2025#1", "score": None}],
            "abstained": False,
        },
        "error": None,
        "category": "typical",
        "split": "dev",
        "must_pass": True,
        "scores": {"recall@5": 1.0, "id_recall": 1.0, "rubric": 3},
        "diagnoses": [],
    },
    {
        "schema": "ragcard.result/1",
        "item": "Q2",
        "attempt": 1,
        "latency_ms": 140.0,
        "response": {
            "answer": "I cannot find that in the handbook.",
            "retrieved": [],
            "abstained": True,
        },
        "error": None,
        "category": "unanswerable",
        "split": "dev",
        "must_pass": False,
        "scores": {"correct_abstention": 1.0, "rubric": 3},
        "diagnoses": [],
    },
    {
        "schema": "ragcard.result/1",
        "item": "Q3",
        "attempt": 1,
        "latency_ms": 95.5,
        "response": {
            "answer": "Überstunden werden ausgeglichen [ot@2024#2].",
            "retrieved": [{"id": "ot@2024#2", "score": 0.81}],
            "abstained": False,
        },
        "error": None,
        "category": "paraphrase",
        "split": "test",
        "must_pass": False,
        "scores": {"recall@5": 0.0, "id_recall": 0.5, "rubric": 2},
        "diagnoses": ["low recall"],
    },
]


def scorecard(thresholds: Path, recorded_path: str, decision: str) -> dict[str, object]:
    """A scorecard.json shaped like the ones ``ragcard score`` writes
    (docs/formats.md#resultsjsonl)."""
    sha = hashlib.sha256(thresholds.read_bytes()).hexdigest()
    met = decision == "ship"
    return {
        "schema": "ragcard.scorecard/1",
        "project": "handbook assistant",
        "kit": "knowledge-base",
        "created_at": "2026-01-01T12:00:00+00:00",
        "ragcard_version": "0.1.0",
        "signed": None,
        "decision": decision,
        "decision_reasons": [] if met else ["access_leaks: 1 > 0 (must-pass)"],
        "config": {
            "questions": {
                "path": "questions.jsonl",
                "sha256": "8e" * 32,
                "n": 3,
                "version": "2026-q1",
            },
            "corpus": {
                "path": "corpus.jsonl",
                "sha256": "ad" * 32,
                "passages": 8,
                "version": "handbook-7",
            },
            "thresholds": {"path": recorded_path, "sha256": sha},
            "agent": {
                "name": "reference",
                "model": "small-llm-1",
                "prompt_version": "v3",
                "top_k": 5,
            },
            "judge": {"name": "none", "note": "deterministic layers only"},
            "run": {
                "attempts": 1,
                "k": 5,
                "run_date": "2026-01-01",
                "mode": "end-to-end",
                "non_abstaining_flags": [],
            },
            "ragcard_version": "0.1.0",
        },
        "metrics": {
            "recall@5": {"value": 0.75, "n": 4, "ci": [0.300642, 0.954413]},
            "mrr@10": {"value": 0.5625, "n": 4, "ci": [0.1875, 0.875]},
            "access_leaks": {"value": 0.0 if met else 1.0, "n": 3},
            "latency_p50_ms": {"value": 100.0, "n": 3, "ci": [95.5, 140.0]},
        },
        "unscored": {"faithfulness": "needs a judge"},
        "thresholds": [
            {
                "measure": "access_leaks",
                "comparison": "<=",
                "value": 0.0,
                "type": "must-pass",
                "reason": "no leaks",
                "owner": "Security",
                "status": "met" if met else "missed",
                "result": {"value": 0.0 if met else 1.0, "n": 3},
            },
            {
                "measure": "recall@5",
                "comparison": ">=",
                "value": 0.7,
                "type": "graded",
                "reason": "good enough retrieval",
                "owner": None,
                "status": "met",
                "result": {"value": 0.75, "n": 4, "ci": [0.300642, 0.954413]},
            },
        ],
        "diagnosis": [{"layer": "retrieval", "cause": "Vocabulary mismatch", "items": 1}],
        "failures": [{"item": "Q3", "category": "paraphrase", "symptoms": ["low recall"]}],
        "errors": {"attempts": 0, "by_kind": {}, "total_attempts": 3},
        "flaky": [],
    }


def markdown(decision: str) -> str:
    """The head of a scorecard.md as report.markdown writes it."""
    reason = "" if decision == "ship" else " — access_leaks: 1 > 0 (must-pass)"
    return (
        "# ragcard scorecard — handbook assistant\n\n"
        f"**Decision: {decision.upper()}**{reason}\n\n"
        "| | |\n|---|---|\n| Kit | knowledge-base |\n| Signed | not signed |\n"
    )


@pytest.fixture
def make_run(tmp_path: Path) -> Callable[..., Path]:
    """Build a run folder; the thresholds file lives outside it, named by absolute path."""

    def make(decision: str = "ship", name: str = "run", relative: bool = False) -> Path:
        run = tmp_path / name
        run.mkdir()
        thresholds = (run if relative else tmp_path) / f"{name}-thresholds.toml"
        thresholds.write_text(THRESHOLDS, encoding="utf-8")
        recorded = thresholds.name if relative else str(thresholds)
        lines = [json.dumps(r, ensure_ascii=False) for r in RESULTS]
        (run / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        card = scorecard(thresholds, recorded, decision)
        card["results"] = results_digest(run / "results.jsonl")
        (run / "scorecard.json").write_text(
            json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        (run / "scorecard.md").write_text(markdown(decision), encoding="utf-8")
        (run / "run.json").write_text('{"attempts": 1}\n', encoding="utf-8")
        return run

    return make


@pytest.fixture
def run_dir(make_run: Callable[..., Path]) -> Path:
    return make_run()


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One key pair for the whole session (private, public)."""
    private = tmp_path_factory.mktemp("keys") / "ada.pem"
    return private, new_keypair(private, owner="Ada Lovelace")


@pytest.fixture(scope="session")
def other_keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    private = tmp_path_factory.mktemp("keys") / "mallory.pem"
    return private, new_keypair(private, owner="Mallory")
