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
    with pytest.raises(ConfigError, match=r"unknown measure in threshold 1 \('recal@5'\).*"
                                          "Measures of this run: recall@5"):  # fmt: skip
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


def test_check_measures_names_the_file_and_every_unknown_threshold(tmp_path: Path) -> None:
    from ragcard.thresholds import check_measures

    path = tmp_path / "t.toml"
    line = '[[threshold]]\nmeasure="{}"\ncomparison=">="\nvalue=1\ntype="graded"\nreason="r"\n'
    names = ["recall@5", "recal@5", "flag_accuracy[self_harm]", "flag_acuracy[x]"]
    path.write_text("".join(line.format(name) for name in names))
    known = ("recall@5", "flag_accuracy")
    specs = {name: MetricSpec(name, "l", "rate", True, "", "") for name in known}
    with pytest.raises(ConfigError) as caught:
        check_measures(load_thresholds(path), specs)
    message = str(caught.value)
    assert message.startswith(f"{path}: unknown measure in threshold 2 ('recal@5'), ")
    assert "threshold 4 ('flag_acuracy[x]')" in message and "threshold 3" not in message
    path.write_text("".join(line.format(name) for name in names[::2]))
    check_measures(load_thresholds(path), specs)  # a breakdown of a known measure is fine


def test_check_measures_with_the_question_sets_labels_refuses_a_label_no_item_has(
    tmp_path: Path,
) -> None:
    from ragcard.thresholds import check_measures

    path = tmp_path / "t.toml"
    line = '[[threshold]]\nmeasure="{}"\ncomparison=">="\nvalue=1\ntype="graded"\nreason="r"\n'
    names = ["flag_accuracy[not_in_record]", "flag_accuracy[not_in_recrod]", "recall@5[typical]"]
    path.write_text("".join(line.format(name) for name in names))
    specs = {n: MetricSpec(n, "l", "rate", True, "", "") for n in ("recall@5", "flag_accuracy")}
    labels = {"flag_accuracy": {"not_in_record", "none"}}
    with pytest.raises(ConfigError) as caught:
        check_measures(load_thresholds(path), specs, labels)
    message = str(caught.value)
    assert message.startswith(f"{path}: threshold 2 ('flag_accuracy[not_in_recrod]'): no item")
    assert "(labels of flag_accuracy: none, not_in_record)" in message
    assert "threshold 3 ('recall@5[typical]'): recall@5 has no breakdown" in message
    assert "threshold 1 " not in message
    check_measures(load_thresholds(path), specs)  # without labels (decide): not checked
    path.write_text(line.format(names[0]))
    check_measures(load_thresholds(path), specs, labels)


def test_a_thresholds_file_that_is_not_utf8_or_is_a_folder(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    body = '[[threshold]]\nmeasure="recall@5"\ncomparison=">="\nvalue=1\ntype="graded"\n'
    path.write_bytes(body.encode() + 'reason="café"\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match=r"t.toml:6: not UTF-8 text \(byte 0xe9 at column 12\)"):
        load_thresholds(path)
    path.write_bytes(b"\xef\xbb\xbf" + body.encode() + b'reason="r"\n')  # a byte-order mark
    loaded = load_thresholds(path)
    assert loaded.items[0].measure == "recall@5"
    import hashlib

    assert loaded.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()  # the bytes parsed
    with pytest.raises(ConfigError, match="is a folder, not a file"):
        load_thresholds(tmp_path)
