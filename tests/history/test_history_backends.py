"""Opening a history: URLs, the default file, schema versions, a missing driver, a real run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from history_support import MakeScorecard, WriteRun
from typer.testing import CliRunner

from ragcard._cli.main import app as ragcard_app
from ragcard.errors import ConfigError, MissingExtraError
from ragcard.outputs.history import HISTORY_FILE, SCHEMA_VERSION, HistoryStore, default_history_url


def test_default_history_lives_in_the_project_folder(tmp_path: Path) -> None:
    assert default_history_url(tmp_path) == f"sqlite:///{tmp_path.resolve() / HISTORY_FILE}"


def test_a_plain_path_is_sqlite_and_tables_appear_on_first_use(
    tmp_path: Path, write_run: WriteRun, make_scorecard: MakeScorecard
) -> None:
    path = tmp_path / "h.sqlite"
    with HistoryStore(str(path)) as store:
        assert not path.exists() or path.stat().st_size == 0
        assert store.runs() == []
        store.record_run(make_scorecard(), write_run("r"))
    with HistoryStore(f"sqlite:///{path}") as store:  # reopened: the run is still there
        assert len(store.runs()) == 1


def test_schema_version_row_and_a_newer_schema_is_refused(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "h.sqlite"
    with HistoryStore(str(path)) as store:
        store.runs()
    with sqlite3.connect(path) as db:
        assert db.execute("select value from ragcard_meta").fetchall() == [(str(SCHEMA_VERSION),)]
        db.execute("update ragcard_meta set value = ?", (str(SCHEMA_VERSION + 1),))
    db.close()
    with HistoryStore(str(path)) as store, pytest.raises(ConfigError, match="upgrade ragcard"):
        store.runs()


@pytest.mark.parametrize("url", ["mysql://u@h/db", "not a url://"])
def test_unsupported_urls_are_refused(url: str) -> None:
    with pytest.raises(ConfigError, match="SQLite or PostgreSQL"):
        HistoryStore(url)


def test_an_unreachable_database_is_a_config_error(tmp_path: Path) -> None:
    with HistoryStore(str(tmp_path / "no" / "such" / "dir" / "h.sqlite")) as store:
        with pytest.raises(ConfigError, match="cannot use the history"):
            store.runs()


def test_postgres_without_psycopg_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if not installed
    with pytest.raises(MissingExtraError, match=r"ragcard\[postgres\]"):
        HistoryStore("postgresql://u@127.0.0.1:1/db")


def test_records_a_real_scorecard(mini: Path, tmp_path: Path, history_url: str) -> None:
    out = tmp_path / "out"
    args = ["score", "--questions", str(mini / "questions.jsonl"), "--corpus",
            str(mini / "corpus.jsonl"), "--responses", str(mini / "responses.jsonl"),
            "--thresholds", str(mini / "thresholds.toml"), "--out", str(out),
            "--run-date", "2026-01-01", "--quiet"]  # fmt: skip
    result = CliRunner().invoke(ragcard_app, args)
    assert result.exit_code in (0, 1), result.output
    card = json.loads((out / "scorecard.json").read_text())
    with HistoryStore(history_url) as store:
        entry = store.record_run(card, out)
        assert entry.decision == card["decision"]
        assert entry.questions_sha256 == card["config"]["questions"]["sha256"]
        assert entry.corpus_version == card["config"]["corpus"]["version"]
        assert entry.metrics == card["metrics"]
        assert store.get(str(out)).id == entry.id
