"""``ragcard score``: a response with no answer is an input error unless it abstains;
ragcard's own results.jsonl is recognised and scored again from its responses; every problem
of every file is listed in one round."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from ragcard._cli.main import app

runner = CliRunner()


def score(mini: Path, out: Path, **files: Path) -> tuple[int, str]:
    paths = {name: mini / f"{name}.{'toml' if name == 'thresholds' else 'jsonl'}"
             for name in ("questions", "corpus", "responses", "thresholds")}  # fmt: skip
    paths.update(files)
    args = ["score", "--out", str(out), "--run-date", "2026-01-01", "--quiet"]
    for name, path in paths.items():
        args += [f"--{name}", str(path)]
    result = runner.invoke(app, args, env={"COLUMNS": "400"})
    return result.exit_code, " ".join(result.output.split())


def rewrite_first(mini: Path, tmp_path: Path, change: dict[str, object], drop: str = "") -> Path:
    lines = (mini / "responses.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first.pop(drop, None)
    first.update(change)
    path = tmp_path / "responses.jsonl"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    return path


def test_a_response_with_no_answer_exits_2(mini: Path, tmp_path: Path) -> None:
    responses = rewrite_first(mini, tmp_path, {"output": "the answer, misnamed"}, drop="answer")
    code, output = score(mini, tmp_path / "out", responses=responses)
    assert code == 2, output
    assert (f"{responses}:1 field 'answer': no answer, and the response does not abstain — "
            'record the answer as "answer"') in output  # fmt: skip
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_a_response_that_abstains_needs_no_answer(mini: Path, tmp_path: Path) -> None:
    for change, drop in (({"abstained": True}, "answer"), ({"flag": "not_in_record",
                         "abstained": None}, "answer"), ({"answer": ""}, "")):  # fmt: skip
        responses = rewrite_first(mini, tmp_path, change, drop=drop)
        code, output = score(mini, tmp_path / "out", responses=responses)
        assert code in (0, 1), (change, output)


def test_results_jsonl_is_scored_again_from_its_responses(mini: Path, tmp_path: Path) -> None:
    code, output = score(mini, tmp_path / "first")
    assert code == 1, output
    results = tmp_path / "first" / "results.jsonl"
    code, output = score(mini, tmp_path / "again", responses=results)
    assert code == 1, output
    assert (tmp_path / "again" / "results.jsonl").read_bytes() == results.read_bytes()
    cards = [json.loads((tmp_path / name / "scorecard.json").read_text())
             for name in ("first", "again")]  # fmt: skip
    assert cards[0]["metrics"] == cards[1]["metrics"]
    assert cards[0]["decision"] == cards[1]["decision"]
    # the recall of the re-scored run is not the 0.000 of answers read as ""
    assert cards[1]["metrics"]["recall@5"]["value"] > 0


def test_a_failed_attempt_in_results_jsonl_is_scored_as_that_failure(
    mini: Path, tmp_path: Path
) -> None:
    score(mini, tmp_path / "first")
    lines = (tmp_path / "first" / "results.jsonl").read_text().splitlines()
    failed = json.loads(lines[0])
    failed["response"], failed["error"] = None, {"kind": "timeout", "message": "slow", "raw": None}
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join([json.dumps(failed), *lines[1:]]) + "\n")
    code, output = score(mini, tmp_path / "again", responses=path)
    assert code == 1, output
    again = json.loads((tmp_path / "again" / "results.jsonl").read_text().splitlines()[0])
    assert again["error"]["kind"] == "timeout" and again["response"] is None
    card = json.loads((tmp_path / "again" / "scorecard.json").read_text())
    assert card["metrics"]["agent_error_rate"]["value"] > 0


def test_a_results_file_with_a_line_that_is_not_a_result_is_refused(
    mini: Path, tmp_path: Path
) -> None:
    score(mini, tmp_path / "first")
    results = (tmp_path / "first" / "results.jsonl").read_text()
    path = tmp_path / "mixed.jsonl"
    path.write_text(results + '{"item": "Q1", "attempt": 9, "answer": "x"}\n')
    code, output = score(mini, tmp_path / "again", responses=path)
    assert code == 2 and f"{path}:" in output and "field 'schema': is required" in output


def test_every_problem_of_every_file_in_one_round(mini: Path, tmp_path: Path) -> None:
    folder = tmp_path / "in"
    shutil.copytree(mini, folder)
    questions = folder / "questions.jsonl"
    questions.write_text(questions.read_text().replace('"must_pass": true', '"must_pass": "yes"'))
    corpus = folder / "corpus.jsonl"
    corpus.write_text(corpus.read_text().replace('"effective_from": "2025-01-01"',
                                                 '"effective_from": 1735689600', 1))  # fmt: skip
    thresholds = folder / "thresholds.toml"
    thresholds.write_text(thresholds.read_text().replace("value = 0.7", 'value = "0.7"'))
    responses = folder / "responses.jsonl"
    responses.write_text(responses.read_text() + '{"item": "Q1", "attempt": "4", "answer": "x"}\n')
    code, output = score(folder, tmp_path / "out")
    assert code == 2, output
    for expected in (
        f"{questions}:1 field 'must_pass': Input should be a valid boolean (got 'yes')",
        f"{corpus}:1 field 'effective_from'",
        f"{thresholds}:11 field '[[threshold]] #2 value': Input should be a valid number "
        "(got '0.7')",
        f"{responses}:8 field 'attempt': Input should be a valid integer (got '4')",
    ):
        assert expected in output
    assert not (tmp_path / "out").exists()


def test_measure_problems_and_response_problems_in_one_round(mini: Path, tmp_path: Path) -> None:
    thresholds = tmp_path / "t.toml"
    thresholds.write_text((mini / "thresholds.toml").read_text().replace('"recall@5"', '"recal@5"'))
    responses = rewrite_first(mini, tmp_path, {}, drop="answer")
    code, output = score(mini, tmp_path / "out", thresholds=thresholds, responses=responses)
    assert code == 2, output
    assert "unknown measure (got 'recal@5') — did you mean 'recall@5'?" in output
    assert f"{responses}:1 field 'answer'" in output
