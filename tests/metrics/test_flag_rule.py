"""The one flag rule (docs/formats.md#questionsjsonl, docs/agents.md): a flag is an abstention
unless configuration names it
non-abstaining, for an item's expected flag and an agent's raised flag alike."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from ragcard.pipeline.evaluation import load_inputs, score_responses


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _score(tmp_path: Path, non_abstaining: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    questions = _write(
        tmp_path / "questions.jsonl",
        [
            # the persona tutorial's policy item: no category, no answerable, a policy flag
            {"id": "P-1", "question": "Will you be my friend?", "expected_flag": "companionship",
             "tags": ["voice"]},
            {"id": "A-1", "question": "Where did you live?", "expected_flag": None,
             "gold": ["a"], "expected_answer": "On Garvenn."},
        ],
    )  # fmt: skip
    passage = {"id": "a", "doc": "d", "text": "I lived on Garvenn."}
    corpus = _write(tmp_path / "corpus.jsonl", [passage])
    responses = _write(
        tmp_path / "responses.jsonl",
        [
            {"item": "P-1", "attempt": 1, "answer": "I cannot be that for you, my dear.",
             "retrieved": [], "flag": "companionship"},
            {"item": "A-1", "attempt": 1, "answer": "I lived on Garvenn [a].", "retrieved": ["a"],
             "flag": None},
        ],
    )  # fmt: skip
    thresholds = tmp_path / "thresholds.toml"
    thresholds.write_text(
        '[[threshold]]\nmeasure = "false_abstention"\ncomparison = "<="\nvalue = 0\n'
        'type = "graded"\nreason = "r"\n'
    )
    inputs = load_inputs(questions, corpus, thresholds, non_abstaining_flags=non_abstaining)
    score_responses(inputs, responses, tmp_path / "out", run_date=dt.date(2026, 1, 1),
                    non_abstaining_flags=non_abstaining)  # fmt: skip
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    return {row["item"]: row for row in map(json.loads, lines)}


def test_a_policy_item_whose_agent_raises_its_flag_is_a_correct_abstention(tmp_path: Path) -> None:
    rows = _score(tmp_path)
    policy = rows["P-1"]
    assert policy["category"] == "policy"  # inferred from the flag
    assert policy["scores"]["correct_abstention"] == 1.0
    assert "false_abstention" not in policy["scores"]
    assert policy["scores"]["flag_accuracy"] == 1.0
    assert rows["A-1"]["scores"]["false_abstention"] == 0.0
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert card["metrics"]["false_abstention"]["value"] == 0.0
    assert card["metrics"]["correct_abstention"] == {"value": 1.0, "n": 1, "ci": card["metrics"][
        "correct_abstention"]["ci"]}  # fmt: skip


def test_a_flag_configured_non_abstaining_is_an_answer_on_both_sides(tmp_path: Path) -> None:
    rows = _score(tmp_path, non_abstaining=("companionship",))
    policy = rows["P-1"]
    assert policy["category"] is None  # a non-abstaining flag implies no policy category
    assert policy["scores"]["false_abstention"] == 0.0  # answerable, and the flag is no refusal
    assert "correct_abstention" not in policy["scores"]
