"""``ragcard import ragas|deepeval FILE`` round-trips datasets written by each library's own
documented example code (benchmarks/interop_export.py).

The files in tests/fixtures/interop were written by that script with ragas 0.4.3 and deepeval
4.3.1; the live tests regenerate them with the libraries, when a Python that has them is
given (RAGCARD_RAGAS_PYTHON, RAGCARD_DEEPEVAL_PYTHON, or .venv-ragas / .venv-deepeval at the
repository root), and skip saying how otherwise.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "interop"
EXPORT = ROOT / "benchmarks" / "interop_export.py"
runner = CliRunner()

_spec = importlib.util.spec_from_file_location("interop_export", EXPORT)
assert _spec is not None and _spec.loader is not None
_export = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_export)
ROWS: list[dict[str, Any]] = _export.ROWS


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _import(library: str, file: Path, out: Path) -> str:
    result = runner.invoke(app, ["import", library, str(file), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result.output


def _check_round_trip(library: str, out: Path) -> None:
    questions = _lines(out / "questions.jsonl")
    corpus = {p["id"]: p["text"] for p in _lines(out / "corpus.jsonl")}
    responses = _lines(out / "responses.jsonl")
    assert [q["question"] for q in questions] == [row["question"] for row in ROWS]
    assert [q["expected_answer"] for q in questions] == [row["reference"] for row in ROWS]
    by_item = {r["item"]: r for r in responses}
    assert [r["attempt"] for r in responses] == [1, 1, 1]
    for question, row in zip(questions, ROWS, strict=True):
        response = by_item[question["id"]]
        assert response["answer"] == row["answer"]
        assert [corpus[pid] for pid in response["retrieved"]] == row["contexts"]
        if library == "ragas":  # its own context ids are kept
            assert response["retrieved"] == row["ids"]
    gold = {q["id"]: [corpus[g] for g in q.get("gold", [])] for q in questions}
    if library == "ragas":  # reference_contexts: the first context, none for the dog
        assert list(gold.values()) == [ROWS[0]["contexts"][:1], ROWS[1]["contexts"][:1], []]
    else:  # DeepEval's context is the ideal retrieval context
        assert list(gold.values()) == [row["contexts"] for row in ROWS]


CASES = [("ragas", "ragas.jsonl"), ("ragas", "ragas.csv"), ("deepeval", "deepeval.json"),
         ("deepeval", "deepeval.jsonl"), ("deepeval", "deepeval.csv")]  # fmt: skip


@pytest.mark.parametrize(("library", "name"), CASES)
def test_import_round_trips_the_librarys_own_file(library: str, name: str, tmp_path: Path) -> None:
    said = _import(library, FIXTURES / name, tmp_path / "out")
    _check_round_trip(library, tmp_path / "out")
    assert "could not be mapped as such" in said and "answerable:" in said and "asker:" in said
    if library == "deepeval" and name != "deepeval.json":
        assert "joins the contexts of a row with '|'" in said


def test_the_imported_files_score(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _import("ragas", FIXTURES / "ragas.jsonl", out)
    assert runner.invoke(app, ["init", str(out)]).exit_code == 0  # thresholds to check
    result = runner.invoke(app, [
        "score", "-q", str(out / "questions.jsonl"), "-c", str(out / "corpus.jsonl"),
        "-r", str(out / "responses.jsonl"), "-t", str(out / "thresholds.toml"),
        "--out", str(out / "scored"), "--judge", "lexical", "--quiet", "--no-progress",
    ])  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    card = json.loads((out / "scored" / "scorecard.json").read_text())
    assert card["metrics"]["recall@5"]["n"] == 2  # two items have a gold passage


@pytest.mark.parametrize(("library", "name"), [("ragas", "ragas.jsonl"),
                                               ("deepeval", "deepeval.json")])
def test_init_on_an_import_leaves_out_gates_it_can_never_score(
    library: str, name: str, tmp_path: Path
) -> None:
    """An import has no must-pass, currency-trap or unanswerable items and cites nothing: the
    template's gates on those would hold every run, so init comments them out, saying why."""
    out = tmp_path / "out"
    _import(library, FIXTURES / name, out)
    made = runner.invoke(app, ["init", str(out)])
    assert made.exit_code == 0, made.output
    for measure in ("must_pass_zeros", "superseded_answers_currency_traps",
                    "correct_abstention", "citation_accuracy"):
        assert f"left out the gate on {measure}" in made.output
    result = runner.invoke(app, [
        "score", "-q", str(out / "questions.jsonl"), "-c", str(out / "corpus.jsonl"),
        "-r", str(out / "responses.jsonl"), "-t", str(out / "thresholds.toml"),
        "--out", str(out / "scored"), "--judge", "lexical", "--quiet", "--no-progress",
    ])  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    reasons = json.loads((out / "scored" / "scorecard.json").read_text())["decision_reasons"]
    assert not [r for r in reasons if "not scored" in r], reasons
    text = (out / "thresholds.toml").read_text()
    assert "# Left out by `ragcard init`: the question set has no must-pass items" in text
    assert '\nmeasure = "answer_correctness"' in text  # what an import can score stays


def test_what_cannot_be_imported_is_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"user_input": "q?"}\nnot json\n')
    result = runner.invoke(app, ["import", "ragas", str(bad), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "bad.jsonl:2" in result.output
    missing = runner.invoke(app, ["import", "deepeval", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "no such file" in missing.output
    out = tmp_path / "twice"
    _import("ragas", FIXTURES / "ragas.jsonl", out)
    again = runner.invoke(app, ["import", "ragas", str(FIXTURES / "ragas.jsonl"),
                                "--out", str(out)])  # fmt: skip
    assert again.exit_code == 2 and "--force" in again.output


def _python(library: str) -> Path:
    given = os.environ.get(f"RAGCARD_{library.upper()}_PYTHON")
    python = Path(given) if given else ROOT / f".venv-{library}" / "bin" / "python"
    if not python.is_file():
        pytest.skip(
            f"{library} is not installed for this test: python3 -m venv .venv-{library} && "
            f".venv-{library}/bin/pip install "
            + ("-r benchmarks/requirements-ragas.txt" if library == "ragas" else "deepeval==4.3.1")
            + f" (or set RAGCARD_{library.upper()}_PYTHON)"
        )
    return python


@pytest.mark.parametrize("library", ["ragas", "deepeval"])
def test_live_round_trip_with_the_library(library: str, tmp_path: Path) -> None:
    python = _python(library)
    written = tmp_path / "written"
    subprocess.run([str(python), str(EXPORT), library, str(written)], check=True,
                   capture_output=True, timeout=600)  # fmt: skip
    for lib, name in CASES:
        if lib != library:
            continue
        _import(library, written / name, tmp_path / name)
        _check_round_trip(library, tmp_path / name)
        _import(library, FIXTURES / name, tmp_path / f"committed-{name}")
        for file in ("questions.jsonl", "corpus.jsonl", "responses.jsonl"):
            assert (tmp_path / name / file).read_text() == (
                tmp_path / f"committed-{name}" / file).read_text()  # fmt: skip
