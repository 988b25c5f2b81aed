"""compare_runs on small hand-made run folders: one behaviour of the gate per test."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragcard.decision.baseline import PASS_RATE, compare_runs
from ragcard.errors import ConfigError, InputError
from ragcard.report.comparison import render_comparison_markdown

Line = Callable[..., dict[str, Any]]
MakeRun = Callable[..., Path]


def _items(line: Line, n: int = 40, **scores: float) -> list[dict[str, Any]]:
    return [line(f"Q{i:03d}", True, **scores) for i in range(n)]


def _measure(comparison: Any, name: str) -> Any:
    return next(m for m in comparison.measures if m.name == name)


def test_identical_runs_pass(make_run: MakeRun, line: Line) -> None:
    lines = _items(line, recall_at_5=1.0, mrr_at_10=0.5, access_leaks=0.0)
    lines.append(line("Q900", False, symptoms=["gold passage not in the top 5"], recall_at_5=0.0))
    result = compare_runs(make_run("a", lines), make_run("b", lines))
    assert result.gate == "pass" and result.reasons == () and result.flips == ()
    assert {m.verdict for m in result.measures} == {"unchanged"}
    assert _measure(result, PASS_RATE).p_value == 1.0
    assert result.items_compared == 41


def test_must_pass_regression_fails_the_gate_and_is_listed_first(
    make_run: MakeRun, line: Line
) -> None:
    base = [line("A1"), line("B1"), line("C1", False, symptoms=["false abstention"]),
            line("MP1", must_pass=True, category="currency_trap")]  # fmt: skip
    cur = [line("A1", False, symptoms=["gold passage not in the top 5"]), line("B1"), line("C1"),
           line("MP1", False, must_pass=True, category="currency_trap",
                symptoms=["answer from a superseded version"])]  # fmt: skip
    result = compare_runs(make_run("base", base), make_run("cur", cur))
    assert result.gate == "fail"
    assert [(f.item, f.change, f.must_pass) for f in result.flips] == [
        ("MP1", "pass→fail", True), ("A1", "pass→fail", False), ("C1", "fail→pass", False)
    ]  # fmt: skip
    assert result.flips[0].symptoms == ("answer from a superseded version",)
    assert result.flips[2].symptoms == ("false abstention",)  # what the fix cured
    assert [f.item for f in result.must_pass_regressions] == ["MP1"]
    assert "must-pass" in result.reasons[0] and "MP1" in result.reasons[0]
    # Two down, one up out of four items is no evidence of a worse pass rate by itself.
    assert _measure(result, PASS_RATE).verdict == "worse"


def test_a_significant_drop_beyond_tolerance_fails(make_run: MakeRun, line: Line) -> None:
    base = _items(line, mrr_at_10=1.0)
    cur = [line(f"Q{i:03d}", True, mrr_at_10=0.5 if i < 30 else 1.0) for i in range(40)]
    result = compare_runs(make_run("a", base), make_run("b", cur), tolerances={"mrr@10": 0.02})
    mrr = _measure(result, "mrr@10")
    assert (mrr.verdict, mrr.n, mrr.tolerance) == ("regressed", 40, 0.02)
    assert mrr.delta == pytest.approx(-0.375)
    assert mrr.p_value is not None and mrr.p_value < 0.001
    assert mrr.ci is not None and mrr.ci[1] < -0.02
    assert result.gate == "fail" and result.reasons[0].startswith("mrr@10 regressed")


def test_a_small_drop_within_tolerance_passes(make_run: MakeRun, line: Line) -> None:
    base = _items(line, mrr_at_10=0.8, recall_at_5=1.0)
    # Every item loses 0.01 (significant), within a tolerance of 0.02.
    cur = _items(line, mrr_at_10=0.79, recall_at_5=1.0)
    result = compare_runs(make_run("a", base), make_run("b", cur), default_tolerance=0.02)
    mrr = _measure(result, "mrr@10")
    assert mrr.verdict == "worse" and "within tolerance" in mrr.reason
    assert mrr.p_value is not None and mrr.p_value < 0.05
    assert result.gate == "pass"


def test_a_drop_that_is_not_significant_passes(make_run: MakeRun, line: Line) -> None:
    base = _items(line, recall_at_5=1.0)
    cur = _items(line, recall_at_5=1.0)
    cur[0]["scores"]["recall@5"] = 0.0  # one item of 40: noise, not evidence
    result = compare_runs(make_run("a", base), make_run("b", cur))
    recall = _measure(result, "recall@5")
    assert recall.verdict == "worse" and "not significant" in recall.reason
    assert result.gate == "pass"


def test_any_count_increase_beyond_tolerance_fails(make_run: MakeRun, line: Line) -> None:
    base = _items(line, access_leaks=0.0)
    cur = _items(line, access_leaks=0.0)
    cur[7]["scores"]["access_leaks"] = 1.0
    a, b = make_run("a", base), make_run("b", cur)
    leaks = _measure(compare_runs(a, b), "access_leaks")
    assert (leaks.baseline, leaks.current, leaks.verdict, leaks.items) == (0, 1, "regressed",
                                                                            ("Q007",))  # fmt: skip
    assert leaks.ci is None and leaks.p_value is None  # counts are not tested: any rise counts
    assert compare_runs(a, b, tolerances={"access_leaks": 1}).gate == "pass"


def test_direction_comes_from_the_metric_spec(make_run: MakeRun, line: Line) -> None:
    low, high = _items(line, false_abstention=0.0), _items(line, false_abstention=1.0)
    worse = compare_runs(make_run("a", low), make_run("b", high))
    assert _measure(worse, "false_abstention").verdict == "regressed"
    better = compare_runs(make_run("c", high), make_run("d", low))
    assert _measure(better, "false_abstention").verdict == "improved"
    assert better.gate == "pass"


def test_the_worst_attempt_decides_an_item_and_scores_are_averaged(
    make_run: MakeRun, line: Line
) -> None:
    base = [line("Q1", True, attempt_no=n, mrr_at_10=1.0) for n in (1, 2, 3)]
    cur = [line("Q1", n != 2, attempt_no=n, mrr_at_10=0.0 if n == 2 else 1.0) for n in (1, 2, 3)]
    result = compare_runs(make_run("a", base, attempts=3), make_run("b", cur, attempts=3))
    assert [f.item for f in result.regressions] == ["Q1"]
    assert _measure(result, "mrr@10").current == pytest.approx(2 / 3)


def test_different_question_sets_are_refused_with_the_reason(make_run: MakeRun, line: Line) -> None:
    base = [line("Q1"), line("Q2"), line("Q3", must_pass=False)]
    cur = [line("Q1"), line("Q3", must_pass=True), line("Q4")]
    a = make_run("a", base, questions_sha="1" * 64, questions_version="qs-1")
    b = make_run("b", cur, questions_sha="2" * 64, questions_version="qs-2")
    with pytest.raises(ConfigError) as caught:
        compare_runs(a, b)
    message = str(caught.value)
    for expected in ("qs-1", "qs-2", "1" * 12, "2" * 12, "only in the baseline (1): Q2",
                     "only in the current run (1): Q4", "Q3 (must_pass False→True)"):  # fmt: skip
        assert expected in message


def test_same_items_with_a_different_hash_are_still_refused(make_run: MakeRun, line: Line) -> None:
    a = make_run("a", [line("Q1")], questions_sha="1" * 64)
    b = make_run("b", [line("Q1")], questions_sha="2" * 64)
    with pytest.raises(ConfigError, match="wording, gold passages or expected answers changed"):
        compare_runs(a, b)


def test_items_only_in_one_run_are_noted_and_left_out(make_run: MakeRun, line: Line) -> None:
    base = [line("Q1", recall_at_5=1.0), line("Q2", recall_at_5=1.0)]
    cur = [line("Q1", recall_at_5=1.0), line("Q3", False, recall_at_5=0.0)]  # e.g. interrupted
    result = compare_runs(make_run("a", base), make_run("b", cur))
    assert (result.only_in_baseline, result.only_in_current) == (("Q2",), ("Q3",))
    assert result.items_compared == 1 and result.gate == "pass"
    assert any("only in the baseline" in n and "Q2" in n for n in result.notes)
    assert any("only in the current run" in n and "Q3" in n for n in result.notes)


def test_runs_without_a_common_item_are_refused(make_run: MakeRun, line: Line) -> None:
    with pytest.raises(ConfigError, match="no item in both"):
        compare_runs(make_run("a", [line("Q1")]), make_run("b", [line("Q2")]))


def test_corpus_k_and_attempts_differences_are_noted(make_run: MakeRun, line: Line) -> None:
    a = make_run("a", [line("Q1")], corpus_version="c-1", k=5, attempts=3)
    b = make_run("b", [line("Q1")], corpus_version="c-2", k=10, attempts=1)
    notes = " | ".join(compare_runs(a, b).notes)
    assert "corpus differs: baseline c-1" in notes and "k differs: baseline 5, current 10" in notes
    assert "attempts per item differ" in notes


def test_quantiles_and_one_sided_metrics_are_not_gated(make_run: MakeRun, line: Line) -> None:
    base = [line("Q1", latency_p50_ms=10.0, mrr_at_10=1.0)]
    cur = [line("Q1", latency_p50_ms=900.0)]
    result = compare_runs(make_run("a", base), make_run("b", cur))
    assert [m.name for m in result.measures] == [PASS_RATE]
    assert any("mrr@10: scored in only one run" in n for n in result.notes)
    assert any("not gated" in n and "latency_p50_ms" in n for n in result.notes)


def test_missing_runs_are_reported_together(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        compare_runs(tmp_path / "nope", tmp_path / "gone")
    text = caught.value.render()
    assert "nope/scorecard.json" in text and "gone/results.jsonl" in text
    assert "ragcard run" in text  # the fix


def test_bad_options_are_refused(make_run: MakeRun, line: Line) -> None:
    a = make_run("a", [line("Q1", recall_at_5=1.0)])
    with pytest.raises(ConfigError, match=r"unknown measure.*recal@5.*recall@5"):
        compare_runs(a, a, tolerances={"recal@5": 0.02})
    with pytest.raises(ConfigError, match="tolerances must be >= 0"):
        compare_runs(a, a, tolerances={"recall@5": -0.1})
    with pytest.raises(ConfigError, match="alpha"):
        compare_runs(a, a, alpha=1.5)


def test_markdown_puts_the_verdict_first(make_run: MakeRun, line: Line) -> None:
    base = [line("Q1", recall_at_5=1.0), line("MP", must_pass=True, recall_at_5=1.0)]
    leak = line("MP", False, must_pass=True, symptoms=["leak | restricted"], recall_at_5=1.0)
    cur = [line("Q1", recall_at_5=1.0), leak]
    result = compare_runs(make_run("a", base), make_run("b", cur, corpus_version="c-9"))
    text = render_comparison_markdown(result)
    assert text.startswith("## ragcard regression gate: ❌ fail\n")
    assert text.index("must-pass") < text.index("### Measures") < text.index("### Flipped")
    assert "| `recall@5` ↑ | 1.000 | 1.000 | +0.000 |" in text
    assert "| `MP` | typical | **yes** | pass→fail | leak \\| restricted |" in text
    assert "### Comparability" in text and "corpus differs" in text
    json.dumps(result.to_json())  # plain data, ready for the history store
