from __future__ import annotations

from pathlib import Path

import pytest

from ragcard.errors import ConfigError
from ragcard.metrics.base import MetricSpec, MetricValue
from ragcard.thresholds import TEMPLATES, decide, load_thresholds, template_text


def test_templates_load(tmp_path: Path) -> None:
    for kit in TEMPLATES:
        path = tmp_path / f"{kit}.toml"
        path.write_text(template_text(kit))
        loaded = load_thresholds(path)
        assert loaded.items and all(t.reason for t in loaded.items)
    with pytest.raises(ConfigError, match="choose one of"):
        template_text("nope")


def test_bad_threshold_names_field(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        '[[threshold]]\nmeasure="recall@5"\ncomparison="=>"\nvalue=1\n'
        'type="graded"\n\n[[threshold]]\nmeasure="x"\ncomparison=">="\nvalue=1\n'
        'type="must-pass"\n'
    )
    with pytest.raises(ConfigError) as info:
        load_thresholds(path)
    text = str(info.value)
    assert "threshold #1, field 'comparison'" in text
    assert "threshold #1, field 'reason'" in text and "threshold #2, field 'reason'" in text


def test_unknown_measure_lists_valid(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        '[[threshold]]\nmeasure="recal@5"\ncomparison=">="\nvalue=1\ntype="graded"\nreason="r"\n'
    )
    spec = MetricSpec("recall@5", "retrieval", "rate", True, "", "")
    with pytest.raises(ConfigError, match="valid measures: recall@5"):
        decide(load_thresholds(path), {}, {}, {"recall@5": spec})


def test_ship_when_all_met(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        '[[threshold]]\nmeasure="recall@5"\ncomparison=">="\nvalue=0.5\ntype="graded"\nreason="r"\n'
    )
    spec = MetricSpec("recall@5", "retrieval", "rate", True, "", "")
    decision = decide(
        load_thresholds(path),
        {"recall@5": MetricValue(spec, 0.9, 100, (0.83, 0.95))},
        {},
        {"recall@5": spec},
    )
    assert decision.decision == "ship" and decision.results[0].note is None
