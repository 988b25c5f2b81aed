"""Coverage gates the decision: failed attempts hold unless accepted, must-pass items with a
failed attempt hold, partial populations are never "met" and always say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcard.aggregation.coverage import Coverage
from ragcard.decision.thresholds import Thresholds, decide, load_thresholds
from ragcard.metrics.base import MetricSpec, MetricValue
from ragcard.pipeline.evaluation import load_inputs, score_responses
from ragcard.report.markdown import format_value

RATE = MetricSpec("recall@5", "retrieval", "rate", True, "", "")
LEAKS = MetricSpec("access_leaks", "access", "count", False, "", "")
ERRORS = MetricSpec("agent_error_rate", "operations", "rate", False, "", "")
SPECS = {s.name: s for s in (RATE, LEAKS, ERRORS)}


def thresholds(tmp_path: Path, *blocks: str) -> Thresholds:
    path = tmp_path / "t.toml"
    path.write_text("".join(f"[[threshold]]\n{b}\nreason = \"r\"\n\n" for b in blocks))
    return load_thresholds(path)


GRADED = 'measure = "recall@5"\ncomparison = ">="\nvalue = 0.9\ntype = "graded"'
NO_LEAK = 'measure = "access_leaks"\ncomparison = "<="\nvalue = 0\ntype = "must-pass"'
FEW_ERRORS = 'measure = "agent_error_rate"\ncomparison = "<="\nvalue = 0.05\ntype = "must-pass"'


def coverage(failed: int = 0, attempts: int = 100, **fields: object) -> Coverage:
    values: dict[str, object] = {
        "attempts": attempts, "failed_attempts": failed,
        "by_kind": {"transport": failed} if failed else {}, "lost": (),
        "must_pass_failed": {}, "missing": {},
    }  # fmt: skip
    return Coverage(**{**values, **fields})  # type: ignore[arg-type]


def test_a_failed_attempt_holds_unless_a_threshold_accepts_failures(tmp_path: Path) -> None:
    metrics = {"recall@5": MetricValue(RATE, 0.95, 100, (0.9, 0.98)),
               "agent_error_rate": MetricValue(ERRORS, 0.01, 100, (0.0, 0.05))}
    held = decide(thresholds(tmp_path, GRADED), metrics, {}, SPECS, coverage=coverage(1))
    assert held.decision == "hold"
    assert held.reasons == (
        "1 of 100 item-attempts failed (transport 1), and no agent_error_rate threshold says "
        "how many failures are acceptable: fix the agent, or add one (must-pass, with a reason)",
    )
    accepted = thresholds(tmp_path, GRADED, FEW_ERRORS)
    assert decide(accepted, metrics, {}, SPECS, coverage=coverage(1)).decision == "ship"
    clean = decide(thresholds(tmp_path, GRADED), metrics, {}, SPECS, coverage=coverage(0))
    assert clean.decision == "ship"


def test_the_error_threshold_names_the_failure_count(tmp_path: Path) -> None:
    metrics = {"agent_error_rate": MetricValue(ERRORS, 0.951, 170, (0.9, 0.97))}
    found = coverage(485, 510, by_kind={"transport": 480, "timeout": 5})
    decision = decide(thresholds(tmp_path, FEW_ERRORS), metrics, {}, SPECS, coverage=found)
    assert decision.reasons == (
        "must-pass agent_error_rate <= 0.05 missed (got 0.951): 485 of 510 item-attempts "
        "failed (transport 480, timeout 5)",
    )


def test_a_must_pass_item_with_a_failed_attempt_holds(tmp_path: Path) -> None:
    metrics = {"agent_error_rate": MetricValue(ERRORS, 0.01, 100, (0.0, 0.05))}
    found = coverage(1, must_pass_failed={"HR-7": 1})
    decision = decide(thresholds(tmp_path, FEW_ERRORS), metrics, {}, SPECS, coverage=found)
    assert decision.decision == "hold"
    assert "must-pass item(s) with a failed attempt: HR-7 (1 failed)" in decision.reasons[0]


@pytest.mark.parametrize(
    ("value", "n", "of", "status"),
    [
        (1.0, 25, 170, "not_distinguishable"),  # the lost 145 could all be misses
        (0.95, 99, 100, "not_distinguishable"),  # even one missing item: never "met"
        (0.5, 25, 30, "missed"),  # 5 perfect answers lift 0.5 on 25 only to 0.583
        (0.8, 90, 100, "missed"),  # 10 perfect answers reach 0.82 < 0.9
        (0.89, 90, 100, "not_distinguishable"),  # below the line, but 10 could lift it to 0.901
    ],
)
def test_a_graded_threshold_on_a_partial_population_is_never_met(
    tmp_path: Path, value: float, n: int, of: int, status: str
) -> None:
    result = MetricValue(RATE, value, n, (0.0, 1.0), coverage=(n, of))
    decision = decide(thresholds(tmp_path, GRADED), {"recall@5": result}, {}, SPECS)
    assert decision.results[0].status == status and decision.decision == "hold"
    assert f"computed on {n} of {of} items" in (decision.results[0].note or "")


def test_a_count_that_already_misses_is_missed_whatever_is_missing(tmp_path: Path) -> None:
    leaks = MetricValue(LEAKS, 2.0, 25, coverage=(25, 170))
    result = decide(thresholds(tmp_path, NO_LEAK), {"access_leaks": leaks}, {}, SPECS).results[0]
    assert result.status == "missed"
    none = MetricValue(LEAKS, 0.0, 25, coverage=(25, 170))  # the "0 of 25, met"
    result = decide(thresholds(tmp_path, NO_LEAK), {"access_leaks": none}, {}, SPECS).results[0]
    assert result.status == "not_distinguishable"


def test_coverage_is_shown_with_the_value() -> None:
    partial = MetricValue(RATE, 1.0, 25, (0.86, 1.0), coverage=(25, 170))
    shown = "1.000 [0.860, 1.000] (n=25, on 25 of 170 items: 145 never answered)"
    assert format_value(partial) == shown
    assert partial.to_json()["coverage"] == {"of": 170, "missing": 145}
    leaks = MetricValue(LEAKS, 0.0, 25, coverage=(25, 170))
    assert format_value(leaks) == "0 of 25 (on 25 of 170 items: 145 never answered)"
    assert "coverage" not in MetricValue(RATE, 1.0, 25, (0.86, 1.0)).to_json()


def test_recorded_responses_missing_items_hold_and_show_their_coverage(
    mini: Path, tmp_path: Path
) -> None:
    """A responses file that lacks two items: their attempts are failures (not_recorded), the
    measures they belong to show 'on n of N', and the run holds with the count."""
    lines = (mini / "responses.jsonl").read_text().splitlines()
    kept = [line for line in lines if json.loads(line)["item"] not in ("Q1", "Q2")]
    responses = tmp_path / "responses.jsonl"
    responses.write_text("\n".join(kept) + "\n")
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    card = score_responses(inputs, responses, tmp_path / "out").scorecard.to_json()
    assert card["decision"] == "hold"
    assert card["coverage"]["failed_attempts"] == 2
    assert card["coverage"]["lost_items"] == ["Q1", "Q2"]
    assert any("2 of" in r and "not_recorded 2" in r for r in card["decision_reasons"])
    assert card["metrics"]["recall@5"]["coverage"]["missing"] == 2  # both have gold passages
    assert "coverage" not in card["metrics"]["correct_abstention"]  # neither is unanswerable
    recall = next(t for t in card["thresholds"] if t["measure"] == "recall@5")
    assert recall["status"] in ("not_distinguishable", "missed")
    assert card["metrics"]["latency_p50_ms"]["coverage"]["missing"] == 2  # attempts
    # per split too: Q1 is in dev; Q2, the held-out part's only answerable item, is lost
    assert card["splits"]["dev"]["recall@5"]["coverage"]["missing"] == 1
    assert "recall@5" not in card["splits"]["heldout"]


def test_a_measure_whose_every_item_was_lost_says_so() -> None:
    from ragcard.metrics.base import Unscored

    spec = MetricSpec("correct_abstention", "abstention", "rate", True, "", "")
    found = coverage(6, missing={"correct_abstention": 2})
    shown = found.apply({"correct_abstention": Unscored(spec, "no unanswerable item")})
    assert shown["correct_abstention"] == Unscored(
        spec, "its 2 item(s) never answered: every attempt failed"
    )
    # a reason the scorer found on the items themselves is true already, and kept
    told = Unscored(spec, "every attempt failed (4 attempts): the agent gave no answer to score")
    assert found.apply({"correct_abstention": told})["correct_abstention"] == told
