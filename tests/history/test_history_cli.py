"""``history`` and ``ship`` on a small app that registers them the way ``_cli/main.py`` will."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from history_support import MakeScorecard, WriteRun
from typer.testing import CliRunner

from ragcard._cli.history import HISTORY_URL_ENV, history_command, ship_command
from ragcard.outputs.history import HISTORY_FILE, HistoryStore

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
app.command("history")(history_command)
app.command("ship")(ship_command)
runner = CliRunner()


@pytest.fixture(autouse=True)
def no_history_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(HISTORY_URL_ENV, raising=False)


def test_history_of_an_empty_project(tmp_path: Path) -> None:
    result = runner.invoke(app, ["history", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "No runs recorded" in result.output
    assert (tmp_path / HISTORY_FILE).is_file()  # the default history, beside eval/


def test_ship_a_run_folder_then_list_it(
    tmp_path: Path, write_run: WriteRun, make_scorecard: MakeScorecard
) -> None:
    out = write_run("r1", corpus_version="2026-11")
    shipped = runner.invoke(app, ["ship", str(out), "--by", "ada", "--project", str(tmp_path)])
    assert shipped.exit_code == 0, shipped.output
    assert "shipped:" in shipped.output and "by ada" in shipped.output
    again = runner.invoke(app, ["ship", str(out), "--by", "bob", "--project", str(tmp_path)])
    assert again.exit_code == 0 and "already shipped" in again.output and "by ada" in again.output
    listing = runner.invoke(app, ["history", str(tmp_path)], env={"COLUMNS": "160"})
    assert listing.exit_code == 0, listing.output
    with HistoryStore(str(tmp_path / HISTORY_FILE)) as store:
        entry = store.runs()[0]
    for text in (entry.id, "ship", "2026-11", "qs-1", "ada"):
        assert text in listing.output


def test_ship_refuses_a_hold_and_an_unknown_run_with_exit_2(
    tmp_path: Path, write_run: WriteRun
) -> None:
    held = write_run("held", decision="hold")
    refused = runner.invoke(app, ["ship", str(held), "--by", "ada", "--project", str(tmp_path)])
    assert refused.exit_code == 2 and "override" in refused.output
    assert "--override-thresholds" in " ".join(refused.output.split())  # how to record one
    assert "Traceback" not in refused.output
    unknown = runner.invoke(app, ["ship", "2099", "--by", "ada", "--project", str(tmp_path)])
    assert unknown.exit_code == 2 and "no run '2099'" in unknown.output


def test_db_flag_wins_over_the_environment_which_wins_over_the_default(
    tmp_path: Path, write_run: WriteRun, make_scorecard: MakeScorecard
) -> None:
    flag, env = tmp_path / "flag.sqlite", tmp_path / "env.sqlite"
    with HistoryStore(str(env)) as store:
        in_env = store.record_run(make_scorecard(), write_run("env"))
    with HistoryStore(str(flag)) as store:
        in_flag = store.record_run(make_scorecard(project="persona"), write_run("flag"))
    environ = {HISTORY_URL_ENV: f"sqlite:///{env}", "COLUMNS": "160"}
    from_env = runner.invoke(app, ["history", str(tmp_path)], env=environ)
    assert in_env.id in from_env.output and in_flag.id not in from_env.output
    from_flag = runner.invoke(app, ["history", str(tmp_path), "--db", str(flag)], env=environ)
    assert in_flag.id in from_flag.output and in_env.id not in from_flag.output
    assert not (tmp_path / HISTORY_FILE).exists()  # the default was never opened


def test_a_bad_db_url_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["history", str(tmp_path), "--db", "mysql://u@h/db"])
    assert result.exit_code == 2 and "SQLite or PostgreSQL" in result.output


def test_history_says_what_differs_between_runs_and_what_they_share(
    tmp_path: Path, make_scorecard: MakeScorecard
) -> None:
    """The README's fault runs: the same project, corpus and judge; only the agent's faults
    option and the output folder tell them apart (issue 11 item 5)."""
    with HistoryStore(str(tmp_path / HISTORY_FILE)) as store:
        for name, faults in (("plain", None), ("leaky", ["filter_after_ranking"]),
                             ("stale", ["keep_superseded"])):  # fmt: skip
            card = make_scorecard(created_at=f"2026-11-29T23:5{len(name)}:00+00:00")
            options = {"corpus": "corpus.jsonl", **({"faults": faults} if faults else {})}
            card["config"]["agent"]["options"] = options
            if name == "stale":
                card["config"]["judge"] = {"name": "lexical", "threshold": 0.74}
            out = tmp_path / "out" / name
            out.mkdir(parents=True)
            store.record_run(card, out)
    result = runner.invoke(app, ["history", str(tmp_path)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert "same in all 3 runs:" in text and "corpus 2026-11" in text and "agent replay" in text
    assert "agent faults filter_after_ranking" in text and "agent faults keep_superseded" in text
    assert "agent faults not set" in text  # the plain run
    assert "judge lexical threshold 0.74" in text and "judge none" in text
    for name in ("plain", "leaky", "stale"):
        assert re.search(rf"out \S*out/{name}\b", text), name
    long = [line for line in text.splitlines() if len(line) > 80]
    # only a path, whole on its own line, may be longer than the terminal
    assert all(line.startswith("ragcard history (") or line.strip().count(" ") == 1
               for line in long), long  # fmt: skip
