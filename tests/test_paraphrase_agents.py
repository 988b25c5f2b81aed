"""Issue 15's acceptance: an agent that paraphrases correct answers passes with every offline
judge; one that changes a single amount fails on correctness and faithfulness.

Recorded responses for eight handbook items, each citing its gold passage, are scored with
the handbook's corpus and questions (``ragcard score``'s code) under each offline judge.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from ragcard.judges import build_judge
from ragcard.pipeline.evaluation import load_inputs, score_responses

HANDBOOK = Path(__file__).resolve().parents[1] / "examples" / "handbook"

# item → (a paraphrase of the right answer, the same answer with one amount changed)
ANSWERS = {
    "HB-0001": (
        "If you work full time you get 25 days of paid annual leave each holiday year, plus "
        "the public holidays of the country that holds your contract.",
        "If you work full time you get 28 days of paid annual leave each holiday year, plus "
        "the public holidays of the country that holds your contract.",
    ),
    "HB-0002": (
        "Your holiday year runs from 1 January to 31 December.",
        "Your holiday year runs from 1 April to 31 March.",
    ),
    "HB-0005": (
        "Yes: during the December benefits window you may sell up to 3 days of leave back to "
        "the company, but not below the statutory minimum.",
        "Yes: during the December benefits window you may sell up to 5 days of leave back to "
        "the company, but not below the statutory minimum.",
    ),
    "HB-0008": (
        "After probation you get full salary for up to 20 working days of sickness absence in "
        "a rolling 12-month period, then half salary for a further 20 working days.",
        "After probation you get full salary for up to 30 working days of sickness absence in "
        "a rolling 12-month period, then half salary for a further 20 working days.",
    ),
    "HB-0013": (
        "You are expected in your contractual office on your team's two anchor days each week.",
        "You are expected in your contractual office on your team's three anchor days each week.",
    ),
    "HB-0019": (
        "For your own car you claim 45p per mile for the first 10,000 business miles in a tax "
        "year and 25p per mile after that.",
        "For your own car you claim 40p per mile for the first 10,000 business miles in a tax "
        "year and 25p per mile after that.",
    ),
    "HB-0028": (
        "Yes, you may order peripherals such as a keyboard or mouse from the Helm catalogue, up "
        "to £150 (€175) in any three-year period, without further approval.",
        "Yes, you may order peripherals such as a keyboard or mouse from the Helm catalogue, up "
        "to £250 (€175) in any three-year period, without further approval.",
    ),
    "HB-0031": (
        "Yes: private medical insurance with Meridian Health covers you from your first day, "
        "with a £100 (€100) excess per policy year.",
        "Yes: private medical insurance with Meridian Health covers you from your first day, "
        "with a £200 (€100) excess per policy year.",
    ),
}

THRESHOLDS = """
[[threshold]]
measure = "answer_correctness"
comparison = ">="
value = 0.9
type = "graded"
reason = "right answers"

[[threshold]]
measure = "faithfulness"
comparison = ">="
value = 0.9
type = "graded"
reason = "supported answers"

[evidence]
min_items = 1
reason = "eight handbook questions: a test of the judges, not a release decision"
"""


def _score(tmp_path: Path, judge: str, which: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    questions = {json.loads(line)["id"]: json.loads(line) for line in
                 (HANDBOOK / "questions.jsonl").read_text().splitlines()}  # fmt: skip
    subset = tmp_path / "questions.jsonl"
    subset.write_text("".join(json.dumps(questions[i]) + "\n" for i in ANSWERS))
    responses = tmp_path / "responses.jsonl"
    lines = []
    for item, answers in ANSWERS.items():
        gold = [g if isinstance(g, str) else g["id"] for g in questions[item]["gold"]]
        cited = [{"id": gold[0], "sentence": 0}]
        lines.append({"item": item, "attempt": 1, "answer": answers[which], "retrieved": gold,
                      "citations": cited, "abstained": False})  # fmt: skip
    responses.write_text("".join(json.dumps(line) + "\n" for line in lines))
    thresholds = tmp_path / "thresholds.toml"
    thresholds.write_text(THRESHOLDS)
    inputs = load_inputs(subset, HANDBOOK / "corpus.jsonl", thresholds)
    out = tmp_path / f"{judge}-{which}"
    score_responses(inputs, responses, out, run_date=dt.date(2026, 6, 1),
                    judge=build_judge({"backend": judge}))  # fmt: skip
    card = json.loads((out / "scorecard.json").read_text())
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return card, results


@pytest.mark.parametrize("judge", ["lexical", "embedding", "ensemble"])
def test_paraphrased_right_answers_pass(tmp_path: Path, judge: str) -> None:
    card, results = _score(tmp_path, judge, 0)
    failing = {r["item"]: r["diagnosis"] for r in results if not r["passed"]}
    assert not failing, failing
    assert card["decision"] == "ship", card["decision_reasons"]
    assert card["metrics"]["answer_correctness"]["value"] == 1.0


@pytest.mark.parametrize("judge", ["lexical", "embedding", "ensemble"])
def test_one_changed_amount_fails_on_correctness_and_faithfulness(
    tmp_path: Path, judge: str
) -> None:
    card, results = _score(tmp_path, judge, 1)
    for row in results:
        assert not row["passed"], row["item"]
        assert row["evidence"]["correctness"]["verdict"] == "wrong", row["evidence"]["correctness"]
        assert row["evidence"]["rubric_level"] == 0
        if row["item"] != "HB-0005":  # blind spot: "5" is in the same passage sentence ("buy
            # up to 5 extra days … sell up to 3"), so no support judge sees the changed figure
            assert row["scores"]["faithfulness"] < 1.0, row["item"]
    assert card["decision"] == "hold"
    assert card["metrics"]["answer_wrong"]["value"] == 1.0
