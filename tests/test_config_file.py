"""ragcard.toml and thresholds files: every problem listed at once, each on its TOML line with
its key, value and fix; unknown keys with the closest known one; no coercion, no non-finite
numbers, bounded values and bounded reads."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ragcard.decision.thresholds import load_thresholds
from ragcard.errors import ConfigError, ConfigFileError, InputError, Problem
from ragcard.inputs._toml import read_toml
from ragcard.inputs.config import load_config

THRESHOLD = '[[threshold]]\nmeasure = "recall@5"\ncomparison = ">="\n{value}\ntype = "graded"\n' \
            'reason = "r"\n'  # fmt: skip


def config_problems(tmp_path: Path, text: str) -> list[Problem]:
    (tmp_path / "ragcard.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigFileError) as info:
        load_config(tmp_path)
    return info.value.problems


def threshold_problems(tmp_path: Path, text: str) -> list[Problem]:
    path = tmp_path / "thresholds.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigFileError) as info:
        load_thresholds(path)
    return info.value.problems


def test_an_unknown_key_names_its_line_and_the_closest_key(tmp_path: Path) -> None:
    (problem,) = config_problems(tmp_path, '[project]\nname = "x"\n\n[run]\nk = 5\nattemps = 3\n')
    assert (problem.file, problem.line, problem.field) == (
        str(tmp_path / "ragcard.toml"), 6, "[run] attemps")  # fmt: skip
    assert problem.message == "unknown key 'attemps' in [run]"
    assert problem.fix is not None and problem.fix.startswith("did you mean 'attempts'?")
    assert "Extra inputs are not permitted" not in str(problem)


def test_an_unknown_table_names_its_line_and_the_closest_table(tmp_path: Path) -> None:
    (problem,) = config_problems(tmp_path, '[project]\nname = "x"\n\n[histroy]\nurl = "x"\n')
    assert (problem.line, problem.field, problem.message) == (4, "[histroy]", "unknown table")
    assert str(problem.fix).startswith("did you mean 'history'?")


@pytest.mark.parametrize(
    ("setting", "field", "value"),
    [
        ('attempts = "2"', "[run] attempts", "2"),
        ("attempts = 2.0", "[run] attempts", 2.0),
        ("attempts = true", "[run] attempts", True),
        ("attempts = 1000000000", "[run] attempts", 1000000000),
        ("attempts = 0", "[run] attempts", 0),
        ("concurrency = 100000", "[run] concurrency", 100000),
        ("timeout_s = true", "[run] timeout_s", True),
        ('timeout_s = "60"', "[run] timeout_s", "60"),
        ("timeout_s = 1e12", "[run] timeout_s", 1e12),
        ("retries = 1000", "[run] retries", 1000),
        ("k = 0", "[run] k", 0),
        ("k = 1000000", "[run] k", 1000000),
        ('run_date = 20260101', "[run] run_date", 20260101),
        ("seed = -1", "[run] seed", -1),
    ],
)
def test_run_settings_are_typed_and_bounded(
    tmp_path: Path, setting: str, field: str, value: object
) -> None:
    (problem,) = config_problems(tmp_path, f'[project]\nname = "x"\n\n[run]\n{setting}\n')
    assert (problem.line, problem.field, problem.value) == (5, field, value)
    assert problem.fix


@pytest.mark.parametrize("literal", ["inf", "-inf", "+inf", "nan", "-nan"])
def test_non_finite_numbers_are_refused_anywhere_in_ragcard_toml(
    tmp_path: Path, literal: str
) -> None:
    text = '[project]\nname = "x"\n[agent]\ntype = "http"\nurl = "http://x"\n[agent.options]\n'
    text += f"t = {literal}\n"
    (problem,) = config_problems(tmp_path, text)
    assert (problem.line, problem.field) == (7, "[agent] options.t")
    assert "not a finite number" in problem.message


def test_a_huge_project_name_is_refused_quickly(tmp_path: Path) -> None:
    start = time.monotonic()
    with pytest.raises(ConfigError, match="over the limit of 1,048,576 bytes"):
        (tmp_path / "ragcard.toml").write_text('[project]\nname = "' + "x" * 10_000_000 + '"\n')
        load_config(tmp_path)
    assert time.monotonic() - start < 5
    (problem,) = config_problems(tmp_path, '[project]\nname = "' + "x" * 500 + '"\n')
    assert (problem.line, problem.field) == (2, "[project] name") and problem.fix


@pytest.mark.parametrize("depth", [70, 5000])
def test_deeply_nested_toml_is_a_problem_not_a_recursion_error(tmp_path: Path, depth: int) -> None:
    text = '[project]\nname = "x"\n[agent]\ntype = "http"\nx = ' + "[" * depth + "]" * depth + "\n"
    problems = config_problems(tmp_path, text)
    assert any("nested deeper than 64 levels" in p.message for p in problems)


def test_a_huge_integer_is_a_problem(tmp_path: Path) -> None:
    text = '[project]\nname = "x"\n[agent]\nx = ' + "9" * 5000 + "\n"
    problems = config_problems(tmp_path, text)
    assert any("more than 100 digits" in p.message for p in problems)


@pytest.mark.parametrize("name", ["ragcard.toml", "thresholds.toml"])
def test_a_symlink_to_dev_zero_is_refused_at_once(tmp_path: Path, name: str) -> None:
    (tmp_path / name).symlink_to("/dev/zero")
    start = time.monotonic()
    with pytest.raises(ConfigError, match="is a character device, not a regular file"):
        load_config(tmp_path) if name == "ragcard.toml" else load_thresholds(tmp_path / name)
    assert time.monotonic() - start < 1


def test_every_problem_of_ragcard_toml_in_one_round(tmp_path: Path) -> None:
    text = ('[project]\nname = "x"\nkit = "knowledge"\n\n[run]\nattempts = "2"\nattemps = 1\n'
            'timeout_s = nan\n\n[histroy]\n\n[baseline]\ndefault_tolerance = -1\n')  # fmt: skip
    problems = config_problems(tmp_path, text)
    assert [(p.line, p.field) for p in problems] == [
        (3, "[project] kit"), (6, "[run] attempts"), (7, "[run] attemps"),
        (8, "[run] timeout_s"), (10, "[histroy]"), (13, "[baseline] default_tolerance"),
    ]  # fmt: skip
    assert all(p.fix for p in problems)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("value = inf", "inf is not a finite number"),
        ("value = -inf", "-inf is not a finite number"),
        ("value = nan", "nan is not a finite number"),
        ("value = true", "Input should be a valid number"),
        ('value = "0.9"', "Input should be a valid number"),
        ("value = [0.9]", "Input should be a valid number"),
        ("value = 90", "recall@5 is a share between 0 and 1, the value 90 is not"),
    ],
)
def test_a_threshold_value_must_be_a_finite_number(
    tmp_path: Path, value: str, message: str
) -> None:
    path = tmp_path / "thresholds.toml"
    path.write_text(THRESHOLD.format(value=value))
    if "share" in message:
        from ragcard.decision.thresholds import check_measures
        from ragcard.metrics.base import MetricSpec

        spec = MetricSpec("recall@5", "retrieval", "rate", True, "", "")
        with pytest.raises(ConfigFileError) as info:
            check_measures(load_thresholds(path), {"recall@5": spec})
        (problem,) = info.value.problems
        assert problem.line == 2  # the threshold's measure line
    else:
        (problem,) = threshold_problems(tmp_path, THRESHOLD.format(value=value))
        assert (problem.line, problem.field) == (4, "[[threshold]] #1 value")
    assert message in problem.message and problem.fix


def test_threshold_typos_are_listed_with_lines_and_closest_names(tmp_path: Path) -> None:
    text = THRESHOLD.format(value="value = 1") + "ownr = 'me'\n\n" + \
        THRESHOLD.format(value="value = 1").replace("comparison", "comparision") + \
        "\n[[treshold]]\nmeasure = 'x'\n"  # fmt: skip
    problems = threshold_problems(tmp_path, text)
    shown = [(p.line, p.field, p.message) for p in problems]
    assert shown == [
        (7, "[[threshold]] #1 ownr", "unknown key 'ownr' in [[threshold]] #1"),
        (9, "[[threshold]] #2 comparison", "is required"),
        (11, "[[threshold]] #2 comparision", "unknown key 'comparision' in [[threshold]] #2"),
        (16, "[[treshold]]", "unknown table"),
    ]
    hints = [str(p.fix).split("?")[0] for p in problems if p.fix and "?" in p.fix]
    assert hints == ["did you mean 'owner'", "did you mean 'comparison'",
                     "did you mean 'threshold'"]  # fmt: skip


def test_a_thresholds_error_is_both_an_input_and_a_config_error(tmp_path: Path) -> None:
    problems = threshold_problems(tmp_path, "[[threshold]]\n")
    assert problems and isinstance(ConfigFileError(problems), InputError | ConfigError)


def test_lines_of_dotted_keys_inline_tables_and_multiline_strings(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_text('a = """\nb = 1\n"""\nrun.k = 3\n[agent]\nheaders = { A = "x" }\n'
                    "[[t]]\nv = 1\n[[t]]\n  v = 2\n[t.sub]\nw = 3\n")  # fmt: skip
    toml, problems = read_toml(path)
    assert problems == []
    assert toml.line_of(("b",)) is None  # inside a multi-line string
    assert toml.line_of(("run", "k")) == 4
    assert toml.line_of(("agent", "headers", "A")) == 6
    assert toml.line_of(("t", 0, "v")) == 8 and toml.line_of(("t", 1, "v")) == 10
    assert toml.line_of(("t", 1, "sub", "w")) == 12
    assert toml.line_of(("t",)) == 7


def test_a_toml_syntax_error_names_its_line(tmp_path: Path) -> None:
    (problem,) = config_problems(tmp_path, '[project]\nname = "x"\nkit = \n')
    assert problem.line == 3 and problem.message.startswith("not valid TOML") and problem.fix
