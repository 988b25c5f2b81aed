from __future__ import annotations

from pathlib import Path

import pytest

from ragcard.decision.thresholds import TEMPLATES, decide, load_thresholds, template_text
from ragcard.errors import ConfigError
from ragcard.metrics.base import MetricSpec, MetricValue


def test_templates_load(tmp_path: Path) -> None:
    for kit in TEMPLATES:
        path = tmp_path / f"{kit}.toml"
        path.write_text(template_text(kit))
        loaded = load_thresholds(path)
        assert loaded.items and all(t.reason for t in loaded.items)
    with pytest.raises(ConfigError, match="choose one of"):
        template_text("nope")


def test_knowledge_base_template_gates_correctness(tmp_path: Path) -> None:
    """Supported but wrong is the classic RAG failure: the kb template gates it out of the box."""
    path = tmp_path / "kb.toml"
    path.write_text(template_text("knowledge-base"))
    gates = {t.measure: t for t in load_thresholds(path).items}
    assert gates["answer_correctness"].comparison == ">=" and gates["answer_correctness"].reason
    assert gates["answer_wrong"].comparison == "<=" and gates["answer_wrong"].reason


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
    assert f"{path}:3 field '[[threshold]] #1 comparison'" in text
    assert f"{path}:1 field '[[threshold]] #1 reason': is required" in text
    assert f"{path}:7 field '[[threshold]] #2 reason'" in text
    assert "each [[threshold]] needs measure, comparison" in text


def test_unknown_measure_lists_valid(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        '[[threshold]]\nmeasure="recal@5"\ncomparison=">="\nvalue=1\ntype="graded"\nreason="r"\n'
    )
    spec = MetricSpec("recall@5", "retrieval", "rate", True, "", "")
    expected = r"t.toml:2 field '\[\[threshold\]\] #1 measure': unknown measure \(got 'recal@5'\) "
    with pytest.raises(ConfigError, match=expected + "— did you mean 'recall@5'\\?"):
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
    from ragcard.decision.thresholds import check_measures

    path = tmp_path / "t.toml"
    line = '[[threshold]]\nmeasure="{}"\ncomparison=">="\nvalue=1\ntype="graded"\nreason="r"\n'
    names = ["recall@5", "recal@5", "flag_accuracy[self_harm]", "flag_acuracy[x]"]
    path.write_text("".join(line.format(name) for name in names))
    known = ("recall@5", "flag_accuracy")
    specs = {name: MetricSpec(name, "l", "rate", True, "", "") for name in known}
    with pytest.raises(ConfigError) as caught:
        check_measures(load_thresholds(path), specs)
    message = str(caught.value)
    assert f"{path}:8 field '[[threshold]] #2 measure': unknown measure (got 'recal@5')" in message
    assert f"{path}:20 field '[[threshold]] #4 measure': unknown measure" in message
    assert "#3" not in message and "#1" not in message
    path.write_text("".join(line.format(name) for name in names[::2]))
    check_measures(load_thresholds(path), specs)  # a breakdown of a known measure is fine


def test_check_measures_with_the_question_sets_labels_refuses_a_label_no_item_has(
    tmp_path: Path,
) -> None:
    from ragcard.decision.thresholds import check_measures

    path = tmp_path / "t.toml"
    line = '[[threshold]]\nmeasure="{}"\ncomparison=">="\nvalue=1\ntype="graded"\nreason="r"\n'
    names = ["flag_accuracy[not_in_record]", "flag_accuracy[not_in_recrod]", "recall@5[typical]"]
    path.write_text("".join(line.format(name) for name in names))
    specs = {n: MetricSpec(n, "l", "rate", True, "", "") for n in ("recall@5", "flag_accuracy")}
    labels = {"flag_accuracy": {"not_in_record", "none"}}
    with pytest.raises(ConfigError) as caught:
        check_measures(load_thresholds(path), specs, labels)
    message = str(caught.value)
    assert (f"{path}:8 field '[[threshold]] #2 measure': no item of the question set has the "
            "label 'not_in_recrod'") in message  # fmt: skip
    assert "did you mean 'not_in_record'? (labels of flag_accuracy: none, not_in_record)" in message
    assert f"{path}:14 field '[[threshold]] #3 measure': recall@5 has no breakdown" in message
    assert "#1" not in message
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


def test_the_decision_line_rounds_as_the_table_does(tmp_path: Path) -> None:
    from ragcard.report.markdown import format_value

    path = tmp_path / "t.toml"
    path.write_text('[[threshold]]\nmeasure="answer_correctness"\ncomparison=">="\n'
                    'value=0.85\ntype="graded"\nreason="r"\n')
    spec = MetricSpec("answer_correctness", "correctness", "rate", True, "", "")
    value = MetricValue(spec, 0.51449, 104, (0.41, 0.61))
    decision = decide(load_thresholds(path), {"answer_correctness": value}, {},
                      {"answer_correctness": spec})
    assert "(got 0.514)" in decision.reasons[0], decision.reasons
    assert format_value(value).startswith("0.514 ")
