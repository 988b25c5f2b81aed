from __future__ import annotations

from pathlib import Path

import pytest

from ragcard.decision.governance import changes, declared_inputs, frozen_configuration, loosened
from ragcard.errors import ConfigError


def t(measure: str, comparison: str, value: float, kind: str = "graded") -> dict:
    return {
        "measure": measure,
        "comparison": comparison,
        "value": value,
        "type": kind,
        "reason": "r",
    }


def test_loosened_finds_every_kind_of_loosening() -> None:
    locked = [
        t("recall@5", ">=", 0.9),
        t("access_leaks", "<=", 0, "must-pass"),
        t("false_abstention", "<=", 0.05),
        t("rubric_mean", ">=", 2.5),
        t("faithfulness", ">=", 0.95),
    ]
    current = [
        t("recall@5", ">=", 0.85),
        t("access_leaks", "<=", 0, "graded"),
        t("false_abstention", "<=", 0.10),
        t("rubric_mean", ">=", 2.7),
    ]
    found = {f["measure"]: f["change"] for f in loosened(locked, current)}
    assert found == {
        "recall@5": "lowered from 0.9 to 0.85",
        "access_leaks": "demoted from must-pass to graded",
        "false_abstention": "raised from 0.05 to 0.1",
        "faithfulness": "removed",
    }


def test_raising_the_bar_is_allowed() -> None:
    locked = [t("recall@5", ">=", 0.9), t("access_leaks", "<=", 1, "graded")]
    current = [
        t("recall@5", ">", 0.95),
        t("access_leaks", "<=", 0, "must-pass"),
        t("new_measure", ">=", 0.1),
    ]
    assert loosened(locked, current) == []


def test_changes_name_what_differs(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("You are helpful.")

    def frozen(version: str, k1: float) -> dict:
        return frozen_configuration(
            questions={"sha256": "a" * 64, "path": "/x/q.jsonl"},
            corpus={"sha256": "b" * 64, "version": version, "path": "/x/c.jsonl"},
            thresholds={"sha256": "c" * 64},
            agent_config={"type": "http", "url": "u"},
            agent_settings={"model": "m1", "index": {"k1": k1}},
            inputs=declared_inputs({"prompt.txt": prompt}),
            judge={"name": "none"},
            run={"k": 5},
        )

    before = frozen("2025.1", 1.5)
    prompt.write_text("You are terse.")
    after = frozen("2025.2", 1.2)
    found = changes(before, after)
    assert "corpus version: 2025.1 → 2025.2" in found
    assert "agent setting index.k1: 1.5 → 1.2" in found
    assert any(line.startswith("declared input") and line.endswith("changed") for line in found)
    assert changes(before, before) == []
    assert before["sha256"] != after["sha256"]


def test_missing_declared_input(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="declared input"):
        declared_inputs({"nope.txt": tmp_path / "nope.txt"})
