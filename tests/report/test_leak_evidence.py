"""docs/metrics.md#measures: each leak is listed with its evidence — passage ids, channels, who may
see the
passage, counts and a hash of the matched content — and never the restricted text."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from ragcard.pipeline.evaluation import load_inputs, score_responses


def test_the_scorecard_lists_each_leak_with_its_evidence(mini: Path, tmp_path: Path) -> None:
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    score_responses(inputs, mini / "responses.jsonl", tmp_path, run_date=dt.date(2026, 1, 1))
    card = json.loads((tmp_path / "scorecard.json").read_text())
    assert card["metrics"]["access_leaks"]["value"] == len(card["leaks"]) == 1
    leak = card["leaks"][0]
    assert leak["item"] == "Q4" and leak["attempts"] == [1]
    (passage,) = leak["passages"]
    assert passage["id"] == "pay@2025#1" and passage["access"] == ["manager", "hr"]
    assert passage["channels"] == ["content", "retrieved"]
    assert passage["restricted_figures"] == 2 and len(passage["match_sha256"]) == 12
    markdown = (tmp_path / "scorecard.md").read_text()
    section = markdown[markdown.index("## Access leaks"):]
    assert "| Q4 | 1 | pay@2025#1 | content, retrieved | manager, hr | " in section
    assert "2 figures, sha256 " in section
    restricted = "Salary band L3 runs from £58,000 to £72,000"
    assert restricted not in markdown and "58,000" not in markdown
