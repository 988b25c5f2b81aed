"""A category that no kit defines is allowed (docs/formats.md#categories) but warned about, with
the closest
known category: a typo such as ``curency_trap`` must not pass silently."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.inputs.questions import load_questions


def test_a_misspelt_category_is_warned_with_the_closest_one(
    mini: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text((mini / "questions.jsonl").read_text().replace("currency_trap", "curency_trap"))
    with caplog.at_level(logging.WARNING, logger="ragcard"):
        loaded = load_questions(path)
    (warning,) = loaded.warnings
    assert (warning.file, warning.line, warning.field, warning.value) == (
        str(path), 2, "category", "curency_trap")  # fmt: skip
    assert str(warning.fix).startswith("did you mean 'currency_trap'?")
    assert [r.getMessage() for r in caplog.records] == [str(warning)]


def test_a_category_of_ones_own_is_warned_without_a_guess(mini: Path, tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text((mini / "questions.jsonl").read_text().replace('"typical"', '"billing"'))
    (warning,) = load_questions(path).warnings
    assert "did you mean" not in str(warning.fix) and "1 item(s) (lines 1)" in warning.message


def test_known_categories_give_no_warning(mini: Path) -> None:
    assert load_questions(mini / "questions.jsonl").warnings == ()


def test_the_cli_prints_the_warning_before_scoring(mini: Path, tmp_path: Path) -> None:
    folder = tmp_path / "in"
    shutil.copytree(mini, folder)
    questions = folder / "questions.jsonl"
    questions.write_text(questions.read_text().replace("currency_trap", "curency_trap"))
    result = CliRunner().invoke(app, [
        "score", "-q", str(questions), "-c", str(folder / "corpus.jsonl"), "-r",
        str(folder / "responses.jsonl"), "-t", str(folder / "thresholds.toml"), "--out",
        str(tmp_path / "out"), "--quiet"], env={"COLUMNS": "400"})  # fmt: skip
    assert result.exit_code == 1, result.output
    output = " ".join(result.output.split())
    assert (f"warning: {questions}:2 field 'category': not a category of either kit"
            in output and "did you mean 'currency_trap'?" in output)  # fmt: skip
