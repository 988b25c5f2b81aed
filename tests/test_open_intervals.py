"""Quantile intervals with an open end: in scorecard.json, on the terminal and in the
markdown, and in the decision (a p95 gate is never met by an interval with no upper end)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.decision.thresholds import Thresholds, decide, load_thresholds
from ragcard.metrics.base import MetricSpec, MetricValue
from ragcard.report.markdown import format_value

P95 = MetricSpec("latency_p95_ms", "latency", "quantile", False, "p95", "none", quantile=0.95)
RATE = MetricSpec("recall@5", "retrieval", "rate", True, "", "")


def _gate(
    tmp_path: Path, comparison: str, value: float, measure: str = "latency_p95_ms"
) -> Thresholds:
    path = tmp_path / "t.toml"
    path.write_text(
        f'[[threshold]]\nmeasure="{measure}"\ncomparison="{comparison}"\nvalue={value}\n'
        'type="graded"\nreason="fast enough"\n'
    )
    return load_thresholds(path)


def test_an_open_upper_end_never_meets_an_upper_limit(tmp_path: Path) -> None:
    open_p95 = MetricValue(P95, 480.0, 30, (410.0, math.inf), observed=(90.0, 530.0))
    decision = decide(
        _gate(tmp_path, "<=", 2000), {"latency_p95_ms": open_p95}, {}, {P95.name: P95}
    )
    result = decision.results[0]
    assert decision.decision == "hold" and result.status == "missed"
    assert result.note is not None and "cannot bound p95 from above" in result.note
    assert "at least 72 are needed" in result.note
    assert decision.reasons == (
        "graded latency_p95_ms <= 2000 missed (got 480 ms, but 30 value(s) cannot bound p95 from "
        "above (its 95% interval is open); at least 72 are needed)",
    )
    # a lower limit only needs the lower end, which the data gives
    assert (
        decide(_gate(tmp_path, ">=", 100), {P95.name: open_p95}, {}, {P95.name: P95}).decision
        == "ship"
    )
    # the same point estimate with a bounded interval meets the gate
    bounded = MetricValue(P95, 480.0, 100, (410.0, 520.0), observed=(90.0, 530.0))
    assert (
        decide(_gate(tmp_path, "<=", 2000), {P95.name: bounded}, {}, {P95.name: P95}).decision
        == "ship"
    )


def test_an_open_lower_end_never_meets_a_lower_limit(tmp_path: Path) -> None:
    p50 = MetricSpec("latency_p50_ms", "latency", "quantile", False, "p50", "none", quantile=0.5)
    median = MetricValue(p50, 200.0, 4, (-math.inf, math.inf), observed=(100.0, 300.0))
    for comparison in (">=", "==", "<"):
        decision = decide(
            _gate(tmp_path, comparison, 150, p50.name), {p50.name: median}, {}, {p50.name: p50}
        )
        assert decision.results[0].status == "missed", comparison
    assert "at least 6 are needed" in (decision.results[0].note or "")


def test_scorecard_json_keeps_ci_for_bounded_intervals_only() -> None:
    assert MetricValue(P95, 480.0, 100, (410.0, 520.0), observed=(90.0, 530.0)).to_json() == {
        "value": 480.0, "n": 100, "ci": [410.0, 520.0],
    }  # fmt: skip
    assert MetricValue(P95, 480.0, 30, (410.0, math.inf), observed=(90.0, 530.0)).to_json() == {
        "value": 480.0, "n": 30, "ci_open": {"low": 410.0, "high": None, "min": 90.0, "max": 530.0},
    }  # fmt: skip
    both = MetricValue(P95, 200.0, 1, (-math.inf, math.inf), observed=(200.0, 200.0)).to_json()
    assert both["ci_open"] == {"low": None, "high": None, "min": 200.0, "max": 200.0}
    assert MetricValue(RATE, 0.9, 10, (0.6, 0.98)).to_json()["ci"] == [0.6, 0.98]


def test_reports_show_an_open_end_as_beyond_the_observed_values() -> None:
    assert format_value(MetricValue(P95, 480.0, 30, (410.0, math.inf), observed=(90.0, 530.0))) == (
        "480 ms [410, > 530] (n=30)"
    )
    single = MetricValue(P95, 200.0, 1, (-math.inf, math.inf), observed=(200.0, 200.0))
    assert format_value(single) == (
        "200 ms [< 200, > 200] (n=1)"
    )
    assert format_value(MetricValue(P95, 480.0, 100, (410.0, 520.0), observed=(90.0, 530.0))) == (
        "480 ms [410, 520] (n=100)"
    )


def test_a_p95_gate_on_seven_attempts_holds_everywhere(mini: Path, tmp_path: Path) -> None:
    gate = tmp_path / "t.toml"
    gate.write_text('[[threshold]]\nmeasure="latency_p95_ms"\ncomparison="<="\nvalue=10000\n'
                    'type="graded"\nreason="fast enough"\n')  # fmt: skip
    args = ["score", "-q", str(mini / "questions.jsonl"), "-c", str(mini / "corpus.jsonl"),
            "-r", str(mini / "responses.jsonl"), "-t", str(gate), "--out", str(tmp_path / "out"),
            "--run-date", "2026-01-01"]  # fmt: skip
    result = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert result.exit_code == 1, result.output  # hold: 270 ms is under 10 s, but not shown
    assert "[120, > 300]" in result.output and "cannot bound p95 from above" in result.output
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    p95 = card["metrics"]["latency_p95_ms"]
    assert "ci" not in p95
    assert p95["ci_open"] == {"low": 120.0, "high": None, "min": 50.0, "max": 300.0}
    assert card["metrics"]["latency_p50_ms"]["ci"] == [50.0, 300.0]  # 7 values bound a median
    assert card["thresholds"][0]["status"] == "missed"
    markdown = (tmp_path / "out" / "scorecard.md").read_text()
    assert "270 ms [120, > 300] (n=7)" in markdown and "cannot bound p95 from above" in markdown


def test_scorecard_json_reads_back_to_the_same_values() -> None:
    """What a review import or an action reads back from scorecard.json is what was written:
    open ends, the observed extremes and coverage included (they were once dropped)."""
    values = [
        MetricValue(P95, 480.0, 30, (410.0, math.inf), observed=(90.0, 530.0)),
        MetricValue(P95, 200.0, 1, (-math.inf, math.inf), observed=(200.0, 200.0)),
        MetricValue(P95, 480.0, 100, (410.0, 520.0), observed=(90.0, 530.0)),
        MetricValue(RATE, 0.9, 10, (0.6, 0.98), coverage=(10, 25)),
        MetricValue(RATE, 0.5, 4),
    ]
    for value in values:
        shown = value.to_json()
        back = MetricValue.from_json(value.spec, shown)
        assert back.to_json() == shown
        assert back.ci == value.ci and back.coverage == value.coverage
    assert MetricValue.from_json(P95, values[0].to_json()).observed == (90.0, 530.0)
