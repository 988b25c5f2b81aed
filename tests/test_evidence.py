"""Enough evidence to decide (docs/metrics.md#decision): small sets hold, saying what they
need; the minimum is lowered only in the thresholds file, with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcard.decision.evidence import items_to_tell, small_categories, too_small
from ragcard.decision.thresholds import decide, inspect_thresholds, load_thresholds
from ragcard.metrics.base import MetricSpec, MetricValue

GATE = '[[threshold]]\nmeasure="recall@5"\ncomparison=">="\nvalue=0.9\ntype="graded"\nreason="r"\n'
SPEC = MetricSpec("recall@5", "retrieval", "rate", True, "", "")


def test_small_categories_are_counted_and_uncategorised_only_alone() -> None:
    categories = ["typical"] * 25 + ["paraphrase"] * 3 + [None] * 2
    assert small_categories(categories, 20) == {"paraphrase": 3}
    assert small_categories([None] * 7, 20) == {"uncategorised": 7}
    assert small_categories(["typical"] * 20, 20) == {}


def test_the_reason_says_what_each_small_category_needs() -> None:
    reason = too_small(["typical"] * 4 + ["paraphrase"] + ["typical"] * 30, 20)
    assert reason is not None
    assert "1 category has fewer than 20 items (paraphrase 1 (+19))" in reason
    assert "add the 19 item(s)" in reason
    assert str(too_small(["a"] * 3 + ["b"] * 2, 20)).startswith(
        "too little evidence to decide: 2 categories have fewer than 20 items "
        "(a 3 (+17), b 2 (+18))"
    )
    assert too_small(["a"] * 20) is None


def test_items_to_tell_scales_the_interval_as_one_over_root_n() -> None:
    # 10 items at 0.95 with the lower end at 0.646: the gap to 0.9 is 0.05, the half-width
    # 0.304, so about 10 × (0.304 / 0.05)² ≈ 370 items would put the interval above 0.9
    assert items_to_tell(0.95, 0.646, 0.9, 10) == 370
    assert items_to_tell(0.9, 0.8, 0.9, 10) is None


def test_a_straddling_gate_says_how_large_a_sample_would_tell(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(GATE)
    met = MetricValue(SPEC, 0.95, 10, (0.646, 0.99))
    decision = decide(load_thresholds(path), {"recall@5": met}, {}, {"recall@5": SPEC})
    assert decision.results[0].status == "met"
    assert "straddles" in str(decision.results[0].note)
    assert "a sample of about 370 (now 10) would tell" in str(decision.results[0].note)
    missed = MetricValue(SPEC, 0.85, 40, (0.72, 0.93))
    decision = decide(load_thresholds(path), {"recall@5": missed}, {}, {"recall@5": SPEC})
    assert decision.decision == "hold" and "about 103 (now 40)" in str(decision.results[0].note)
    # 0.048 against <= 0.05 (the demo's false_abstention): no practical sample, and it says so
    close = MetricValue(SPEC, 0.899, 145, (0.85, 0.93))
    decision = decide(load_thresholds(path), {"recall@5": close}, {}, {"recall@5": SPEC})
    note = str(decision.results[0].note)
    assert "so close to the threshold that only about 139,345 items (now 145)" in note, note


def test_the_minimum_is_lowered_in_the_thresholds_file_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(GATE + '\n[evidence]\nmin_items = 5\nreason = "CI smoke set"\n')
    thresholds = load_thresholds(path)
    assert thresholds.evidence.min_items == 5 and thresholds.evidence.reason == "CI smoke set"
    default = tmp_path / "d.toml"
    default.write_text(GATE)
    assert load_thresholds(default).evidence.min_items == 20


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ("[evidence]\nmin_items = 5\n", "without a reason"),
        ('[evidence]\nmin_items = 0\nreason = "x"\n', "greater than or equal to 1"),
        ('[evidence]\nmin_items = 2.5\nreason = "x"\n', "integer"),
        ('[evidence]\nmin_items = true\nreason = "x"\n', "integer"),
        ('[evidence]\nmin_items = 99999999999999999\nreason = "x"\n', "less than or equal"),
        ('[evidence]\nmin_itmes = 5\nreason = "x"\n', "min_items"),
        ('evidence = 5\n', "must be a table"),
    ],
)
def test_a_bad_evidence_table_is_refused_at_its_line(
    tmp_path: Path, table: str, says: str
) -> None:
    path = tmp_path / "t.toml"
    path.write_text(table + "\n" + GATE if table.startswith("evidence =") else GATE + "\n" + table)
    thresholds, problems = inspect_thresholds(path)
    assert thresholds is None and problems
    text = " ".join(f"{p.field} {p.message} {p.fix}" for p in problems)
    assert says in text, text
    assert all(p.line is not None for p in problems), problems
