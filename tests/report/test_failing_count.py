"""The scorecard's failing-items line says why it differs from must_pass_zeros: an item fails
below rubric level 2, must_pass_zeros counts only must-pass items with a level-0 attempt."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ragcard.metrics.base import MetricSpec, MetricValue
from ragcard.report.markdown import _failing_count

SPEC = MetricSpec("must_pass_zeros", "rubric", "count", False, "", "")


def _card(must: int, other: int, zeros: int) -> Any:
    failures = [{"must_pass": True}] * must + [{"must_pass": False}] * other
    return SimpleNamespace(failures=failures,
                           metrics={"must_pass_zeros": MetricValue(SPEC, zeros, 25)})


def test_more_failing_must_pass_items_than_zeros_is_explained() -> None:
    (line,) = _failing_count(_card(13, 20, 1))
    assert line.startswith("33 failing item(s), 13 of them must-pass.")
    assert "`must_pass_zeros` is 1" in line and "below level 2" in line
    assert "level-1 answer fails its item without being a zero" in line


def test_equal_counts_need_no_explanation() -> None:
    assert _failing_count(_card(2, 1, 2)) == ["3 failing item(s), 2 of them must-pass."]
