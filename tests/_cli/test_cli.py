"""The CLI: exit codes 0 ship / 1 hold / 2 bad input, and what it writes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import ragcard.aggregation._parallel
from ragcard._cli.main import app

runner = CliRunner()


def score_args(mini: Path, out: Path, thresholds: Path | None = None) -> list[str]:
    return ["score", "--questions", str(mini / "questions.jsonl"), "--corpus",
            str(mini / "corpus.jsonl"), "--responses", str(mini / "responses.jsonl"),
            "--thresholds", str(thresholds or mini / "thresholds.toml"), "--out", str(out),
            "--run-date", "2026-01-01", "--quiet"]


def test_score_holds_with_exit_1(mini: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, score_args(mini, tmp_path))
    assert result.exit_code == 1, result.output
    card = json.loads((tmp_path / "scorecard.json").read_text())
    assert card["decision"] == "hold"
    assert (tmp_path / "scorecard.md").read_text().startswith("# ragcard scorecard")


def test_score_on_two_workers_writes_the_same_results(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (idle threads that earlier tests left behind would make it score in one process)
    monkeypatch.setattr(ragcard.aggregation._parallel.threading, "active_count", lambda: 1)
    one = runner.invoke(app, score_args(mini, tmp_path / "one"))
    two = runner.invoke(app, [*score_args(mini, tmp_path / "two"), "--workers", "2"])
    assert one.exit_code == two.exit_code == 1, two.output
    results = [(tmp_path / name / "results.jsonl").read_bytes() for name in ("one", "two")]
    assert results[0] == results[1]
    assert runner.invoke(app, [*score_args(mini, tmp_path / "z"), "--workers", "0"]).exit_code == 2


def test_score_ships_with_exit_0(mini: Path, tmp_path: Path) -> None:
    lenient = tmp_path / "t.toml"
    lenient.write_text('[[threshold]]\nmeasure="recall@5"\ncomparison=">="\nvalue=0.5\n'
                       'type="graded"\nreason="demo"\n[evidence]\nmin_items=1\nreason="4 items"\n')
    result = runner.invoke(app, score_args(mini, tmp_path / "out", lenient))
    assert result.exit_code == 0, result.output


def test_bad_input_exits_2_listing_every_problem(mini: Path, tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"id": "Q1", "question": "x", "gold": ["nope"]}\n{"id": 3}\n')
    args = score_args(mini, tmp_path / "out")
    args[2] = str(bad)
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "q.jsonl:2" in result.output and "question" in result.output
    assert "Traceback" not in result.output


def test_response_for_unknown_item_exits_2(mini: Path, tmp_path: Path) -> None:
    responses = tmp_path / "r.jsonl"
    responses.write_text('{"item": "ZZZ", "answer": "x"}\n')
    args = score_args(mini, tmp_path / "out")
    args[6] = str(responses)
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "ZZZ" in result.output


def test_init_writes_templates(tmp_path: Path) -> None:
    result = runner.invoke(app, ["init", str(tmp_path / "p"), "--kit", "persona"])
    assert result.exit_code == 0, result.output
    assert "flag_accuracy[self_harm]" in (tmp_path / "p" / "thresholds.toml").read_text()
    again = runner.invoke(app, ["init", str(tmp_path / "p")])
    assert again.exit_code == 2 and "--force" in again.output


def test_run_missing_config_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", str(tmp_path)])
    assert result.exit_code == 2 and "ragcard.toml" in result.output


def test_run_refuses_to_clobber_then_resumes(tmp_path: Path) -> None:
    project = Path(__file__).resolve().parents[2] / "examples" / "handbook"
    out = tmp_path / "out"
    first = runner.invoke(app, ["run", str(project), "--out", str(out), "--attempts", "1",
                                "--no-progress", "--eval-dir", str(tmp_path / "eval")])
    assert first.exit_code in (0, 1), first.output
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 185
    again = runner.invoke(app, ["run", str(project), "--out", str(out), "--attempts", "1"])
    assert again.exit_code == 2 and "--resume" in again.output
    resumed = runner.invoke(app, ["run", str(project), "--out", str(out), "--attempts", "1",
                                  "--resume", "--no-progress", "--eval-dir",
                                  str(tmp_path / "eval")])
    assert resumed.exit_code == first.exit_code
    assert (out / "results.jsonl").read_text().splitlines() == lines  # nothing redone
    changed = runner.invoke(app, ["run", str(project), "--out", str(out), "--attempts", "2",
                                  "--resume", "--no-progress"])
    assert changed.exit_code == 2 and "attempts" in changed.output


def test_terminal_scorecard_and_errors_print_brackets_verbatim(mini: Path, tmp_path: Path) -> None:
    # rich reads "[word]" as a style and "[/word]" as a closing tag: a per-flag measure would
    # lose its flag, a message naming a TOML table its fix, and "[/x]" would crash the print
    per_flag = tmp_path / "t.toml"
    per_flag.write_text('[[threshold]]\nmeasure="flag_accuracy[not_in_record]"\n'
                        'comparison=">="\nvalue=1.0\ntype="must-pass"\nreason="[/x] flags"\n')
    args = [a for a in score_args(mini, tmp_path / "out", per_flag) if a != "--quiet"]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code in (0, 1), result.output
    assert result.output.count("flag_accuracy[not_in_record]") >= 2  # table and decision
    bad = tmp_path / "bad.toml"
    bad.write_text(per_flag.read_text().replace("flag_accuracy[", "flag_acuracy["))
    result = runner.invoke(app, score_args(mini, tmp_path / "out2", bad), env={"COLUMNS": "400"})
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert ("bad.toml:2 field '[[threshold]] #1 measure': unknown measure (got "
            "'flag_acuracy[not_in_record]')") in result.output  # fmt: skip
    assert not (tmp_path / "out2").exists()  # refused before scoring anything


def test_run_refuses_an_unknown_measure_before_calling_the_agent(tmp_path: Path) -> None:
    import shutil

    project = tmp_path / "handbook"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "handbook", project,
                    ignore=shutil.ignore_patterns("eval", "out"))  # fmt: skip
    thresholds = project / "thresholds.toml"
    good = thresholds.read_text()
    thresholds.write_text(good.replace('"recall@5"', '"recal@5"', 1))
    out = tmp_path / "out"
    args = ["run", str(project), "--out", str(out), "--no-progress"]
    result = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    expected = r"thresholds.toml:\d+ field '\[\[threshold\]\] #\d+ measure': unknown measure "
    expected += r"\(got 'recal@5'\) — did you mean 'recall@5'\?"
    assert re.search(expected, result.output)
    assert not (out / "results.jsonl").exists()
    # a label no item of the question set has (its items expect not_in_record)
    typo = '\n[[threshold]]\nmeasure = "flag_accuracy[not_in_recrod]"\ncomparison = ">="\n'
    thresholds.write_text(good + typo + 'value = 1.0\ntype = "must-pass"\nreason = "typo"\n')
    result = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert "no item of the question set has the label 'not_in_recrod'" in result.output
    assert "did you mean 'not_in_record'? (labels of flag_accuracy: not_in_record)" in result.output
    assert not (out / "results.jsonl").exists()


def test_a_path_the_system_refuses_exits_2_without_a_traceback(mini: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = runner.invoke(app, score_args(mini, blocker / "out"))  # --out under a file
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "not a directory" in result.output.lower()
    toml = tmp_path / "ragcard.toml"
    toml.write_bytes('[project]\nname = "caf\xe9"\n'.encode("latin-1"))
    result = runner.invoke(app, ["run", str(tmp_path)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "ragcard.toml:2: not UTF-8 text (byte 0xe9" in result.output


def test_the_terminal_scorecard_says_why_attempts_failed(mini: Path, tmp_path: Path) -> None:
    lines = (mini / "responses.jsonl").read_text().splitlines()
    responses = tmp_path / "r.jsonl"
    responses.write_text("\n".join(x for x in lines if json.loads(x)["item"] != "Q3") + "\n")
    args = [a for a in score_args(mini, tmp_path / "out") if a != "--quiet"]
    args[args.index(str(mini / "responses.jsonl"))] = str(responses)
    result = runner.invoke(app, args, env={"COLUMNS": "300"})
    assert result.exit_code in (0, 1), result.output
    failed = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[-1])
    assert "1 item-attempt(s) failed (not_recorded: 1)" in result.output
    assert "· agent recorded responses · attempts" in result.output  # no "(None)" model
    assert f"  1 × {failed['error']['message']}" in result.output


def test_help_texts_keep_their_brackets() -> None:
    """Typer renders help as rich markup, where "[history]" is a style tag that vanishes: every
    bracket meant literally must be written "\\[" (checked on every command and option)."""
    from rich.markup import render
    from typer.main import get_command

    # (typer's own command objects: typer >= 0.20 bundles click rather than depending on it)
    def walk(command: Any, path: str) -> Iterator[tuple[str, str]]:
        yield path, command.help or ""
        for param in command.params:
            yield f"{path} {param.name}", getattr(param, "help", None) or ""
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, f"{path} {name}")

    lost = {
        where: text
        for where, text in walk(get_command(app), "ragcard")
        if render(text).plain != text.replace("\\[", "[")
    }
    assert not lost, f"help text that rich would cut: {lost}"
    result = runner.invoke(app, ["questions", "check", "--help"], env={"COLUMNS": "300"})
    assert "[shares] typical" in result.output


def test_score_with_a_judge_scores_the_judged_measures(mini: Path, tmp_path: Path) -> None:
    args = score_args(mini, tmp_path / "none")
    without = runner.invoke(app, args)
    assert without.exit_code in (0, 1), without.output
    card = json.loads((tmp_path / "none" / "scorecard.json").read_text())
    assert "faithfulness" not in card["metrics"]  # unscored without a judge, never 0
    args = score_args(mini, tmp_path / "lexical")
    judged = runner.invoke(app, [*args, "--judge", "lexical", "--judge-option", "threshold=0.4"])
    assert judged.exit_code in (0, 1), judged.output
    card = json.loads((tmp_path / "lexical" / "scorecard.json").read_text())
    assert card["config"]["judge"]["name"] == "lexical"
    assert card["config"]["judge"]["threshold"] == 0.4
    assert "faithfulness" in card["metrics"] and "answer_relevance" in card["metrics"]
    for extra, message in (
        (["--judge-option", "threshold=0.4"], "--judge-option goes with --judge NAME"),
        (["--judge", "nope"], "unknown backend 'nope'"),
        (["--judge", "lexical", "--judge-option", "thresold=1"], "unknown option 'thresold'"),
        (["--run-date", "2026/01/01"], "--run-date must be a date written YYYY-MM-DD"),
        (["--judge", "lexical", "--responses", str(tmp_path / "no.jsonl")], "file not found"),
    ):
        refused = runner.invoke(app, [*score_args(mini, tmp_path / "x"), *extra])
        assert refused.exit_code == 2 and message in " ".join(refused.output.split())
        assert not (tmp_path / "x").exists()


def test_messages_and_paths_are_never_wrapped_on_a_narrow_terminal(
    mini: Path, tmp_path: Path
) -> None:
    """A path in an error must survive a copy and paste: rich would wrap it at 40 columns
    (or at 80 when output is not a terminal), splitting ``…/scorecard.json: file`` mid-path."""
    deep = tmp_path / ("a-rather-long-folder-name-" * 3) / "missing-questions.jsonl"
    args = score_args(mini, tmp_path / "out")
    args[2] = str(deep)
    result = runner.invoke(app, args, env={"COLUMNS": "40"})
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if str(deep) in line]
    assert lines, f"the path is not on one line:\n{result.output}"
