"""Golden file for the rendered scorecard (tests/fixtures/mini → scorecard.golden.md).

Regenerate after an intended change with: RAGCARD_UPDATE_GOLDEN=1 pytest tests/report
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

from ragcard.pipeline.evaluation import load_inputs, score_responses

GOLDEN = Path(__file__).parent / "scorecard.golden.md"


def normalise(text: str, mini: Path) -> str:
    text = text.replace(str(mini), "<fixtures>/mini")
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "<created>", text)
    return re.sub(r"\| ragcard \| [^|]+\|", "| ragcard | <version> |", text)


def test_scorecard_markdown_matches_golden(mini: Path, tmp_path: Path) -> None:
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl",
                         mini / "thresholds.toml")
    score_responses(inputs, mini / "responses.jsonl", tmp_path, run_date=dt.date(2026, 1, 1))
    rendered = normalise((tmp_path / "scorecard.md").read_text(), mini)
    if os.environ.get("RAGCARD_UPDATE_GOLDEN"):
        GOLDEN.write_text(rendered)
    assert rendered == GOLDEN.read_text()
