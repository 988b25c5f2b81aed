"""Every deterministic metric on a hand-checked fixture (tests/fixtures/mini).

Expected values were computed by hand from the fixture; comments show the arithmetic.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from ragcard.pipeline.evaluation import load_inputs, score_responses


@pytest.fixture
def card(mini: Path, tmp_path: Path) -> dict:
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    result = score_responses(
        inputs, mini / "responses.jsonl", tmp_path, run_date=dt.date(2026, 1, 1)
    )
    assert result.exit_code == 1
    return json.loads((tmp_path / "scorecard.json").read_text())


def value(card: dict, name: str) -> float:
    return card["metrics"][name]["value"]


def test_retrieval_metrics(card: dict) -> None:
    # answerable items with gold: Q1 (two attempts), Q2, Q5, Q6
    assert value(card, "recall@5") == pytest.approx(0.75)  # Q5 misses
    assert card["metrics"]["recall@5"]["n"] == 4
    # Q1 mean(1, 1/2), Q2 1/2, Q5 0, Q6 1
    assert value(card, "mrr@10") == pytest.approx((0.75 + 0.5 + 0 + 1) / 4)
    # Q1 mean(1, 1/log2 3); Q2 grade 2 at rank 2: (2/log2 3)/2; Q5 0; Q6 1
    q1 = (1 + 1 / 1.5849625007) / 2
    assert value(card, "ndcg@5") == pytest.approx((q1 + 1 / 1.5849625007 + 0 + 1) / 4, abs=1e-6)
    # all six items; Q3/Q4 have no gold: ID recall 1; Q3 both empty: precision 1; Q4 0
    assert value(card, "id_recall") == pytest.approx(5 / 6, abs=1e-6)
    assert value(card, "id_precision") == pytest.approx((0.5 + 0.5 + 1 + 0 + 0 + 0.5) / 6, abs=1e-6)


def test_citation_currency_access(card: dict) -> None:
    # citing answers: Q1 valid, Q2 valid, Q5 unknown id, Q6 cites a source after the cutoff
    assert value(card, "citation_validity") == pytest.approx(0.5)
    assert card["metrics"]["citation_validity"]["n"] == 4
    assert value(card, "superseded_answers") == 1  # Q2 cites leave@2023#2 and says "5 days"
    assert value(card, "superseded_answers_currency_traps") == 1
    assert "ci" not in card["metrics"]["access_leaks"]
    assert value(card, "access_leaks") == 1  # Q4: employee got a manager passage
    assert value(card, "b_attribution") == 0  # Q6 states tier-B content as fact


def test_abstention_and_flags(card: dict) -> None:
    assert value(card, "correct_abstention") == 0.5  # Q3 abstained, Q4 answered
    assert value(card, "false_abstention") == 0.0
    assert value(card, "flag_accuracy") == 0.5
    assert card["breakdowns"]["flag_accuracy"]["not_in_record"]["value"] == 0.5
    assert value(card, "must_pass_zeros") == 1  # Q4 leaked; Q1 fine


def test_unscored_is_absent_with_reason(card: dict) -> None:
    for name in ("faithfulness", "citation_accuracy", "rubric_mean", "first_token_p50_ms"):
        assert name not in card["metrics"]
        assert card["unscored"][name]


def test_latency_quantiles(card: dict) -> None:
    # seven attempts: 50, 80, 90, 100, 120, 200, 300 ms
    assert value(card, "latency_p50_ms") == 100
    assert value(card, "latency_p95_ms") == pytest.approx(270)


def test_decision_and_thresholds(card: dict) -> None:
    assert card["decision"] == "hold"
    status = {t["measure"]: t["status"] for t in card["thresholds"]}
    assert status == {
        "access_leaks": "missed",
        "recall@5": "met",
        "faithfulness": "unscored",
        "flag_accuracy[not_in_record]": "met",
    }
    recall = next(t for t in card["thresholds"] if t["measure"] == "recall@5")
    assert "not distinguishable" in recall["note"]


def test_diagnosis_names_causes(card: dict) -> None:
    causes = {c["cause"]: c["examples"] for c in card["diagnosis"]}
    assert causes["filtering after ranking"] == ["Q4"]
    assert causes["old versions still indexed"] == ["Q2"]
    assert causes["vector search alone"] == ["Q5"]
    assert causes["the cutoff is not enforced at retrieval"] == ["Q6"]
    failing = {f["item"] for f in card["failures"]}
    assert failing == {"Q2", "Q4", "Q5", "Q6"}


def test_results_lines_carry_scores_and_diagnosis(mini: Path, tmp_path: Path) -> None:
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    score_responses(inputs, mini / "responses.jsonl", tmp_path, run_date=dt.date(2026, 1, 1))
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(lines) == 7
    q4 = next(x for x in lines if x["item"] == "Q4")
    assert q4["passed"] is False
    leak = q4["evidence"]["leaks"][0]
    assert leak["id"] == "pay@2025#1" and set(leak["channels"]) == {"retrieved", "content"}
    assert "58,000" not in json.dumps(q4["evidence"])  # evidence is redacted
    assert "58,000" not in (tmp_path / "scorecard.md").read_text()
    assert {d["layer"] for d in q4["diagnosis"]} >= {"access", "abstention"}
    q1 = [x for x in lines if x["item"] == "Q1"]
    assert all(x["passed"] for x in q1)


def test_flaky_items_listed_with_attempts_side_by_side(mini: Path, tmp_path: Path) -> None:
    lines = (mini / "responses.jsonl").read_text().splitlines()
    flaky = json.loads(lines[1])  # Q1 attempt 2: the gold passage drops out of the list
    flaky["retrieved"] = ["leave@2025#2"]
    flaky["citations"] = []
    responses = tmp_path / "r.jsonl"
    responses.write_text("\n".join([lines[0], json.dumps(flaky), *lines[2:]]) + "\n")
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    result = score_responses(inputs, responses, tmp_path / "out", run_date=dt.date(2026, 1, 1))
    card = result.scorecard.to_json()
    (row,) = card["flaky"]
    assert row["item"] == "Q1" and row["must_pass"] is True
    assert row["attempts"]["1"] == "pass" and row["attempts"]["2"].startswith("fail: ")
    assert card["metrics"]["recall@5"]["value"] == pytest.approx((0.5 + 1 + 0 + 1) / 4)
    assert "## Flaky items" in (tmp_path / "out" / "scorecard.md").read_text()
