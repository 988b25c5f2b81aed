"""A bug in ragcard exits 3 (never 1, which means HOLD), with a one-line hint on stderr and
the traceback saved to a log file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ragcard._cli.score
from ragcard._cli._crash import crash_dirs
from ragcard._cli.main import app
from ragcard.errors import ExitCode


def _boom(*args: object, **kwargs: object) -> None:
    raise ZeroDivisionError("division by zero (planted)")


def _score(mini: Path, out: Path) -> list[str]:
    return ["score", "-q", str(mini / "questions.jsonl"), "-c", str(mini / "corpus.jsonl"),
            "-r", str(mini / "responses.jsonl"), "-t", str(mini / "thresholds.toml"),
            "--out", str(out), "--quiet"]  # fmt: skip


def test_internal_error_exits_3_with_a_log(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RAGCARD_CRASH_DIR", str(tmp_path / "crashes"))
    monkeypatch.setattr(ragcard._cli.score, "load_inputs", _boom)
    with pytest.raises(SystemExit) as exited:
        app(_score(mini, tmp_path / "out"), prog_name="ragcard")
    assert exited.value.code == ExitCode.INTERNAL == 3
    err = capsys.readouterr().err
    assert "internal error" in err and "ZeroDivisionError: division by zero (planted)" in err
    assert len(err.strip().splitlines()) == 1  # one line, no traceback on the terminal
    logs = list((tmp_path / "crashes").glob("crash-*.log"))
    assert len(logs) == 1 and str(logs[0]) in err
    text = logs[0].read_text()
    assert "Traceback (most recent call last)" in text and "_boom" in text


def test_user_errors_still_exit_2(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RAGCARD_CRASH_DIR", str(tmp_path / "crashes"))
    args = _score(mini, tmp_path / "out")
    args[2] = str(tmp_path / "missing.jsonl")
    with pytest.raises(SystemExit) as exited:
        app(args, prog_name="ragcard")
    assert exited.value.code == 2
    assert not (tmp_path / "crashes").exists()


def test_unwritable_log_folder_prints_the_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("RAGCARD_CRASH_DIR", str(blocker / "sub"))
    monkeypatch.setattr(ragcard._cli.score, "load_inputs", _boom)
    with pytest.raises(SystemExit) as exited:
        app(_score(tmp_path, tmp_path / "out"), prog_name="ragcard")
    assert exited.value.code == 3
    err = capsys.readouterr().err
    assert "traceback below" in err and "Traceback (most recent call last)" in err


def test_default_log_folder_is_the_state_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGCARD_CRASH_DIR", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", "/somewhere/state")
    assert crash_dirs()[0] == Path("/somewhere/state/ragcard/crashes")


def test_console_script_exits_3_on_a_crash(tmp_path: Path) -> None:
    code = (
        "import sys, ragcard._cli.score as s\n"
        "def boom(*a, **k): raise RuntimeError('planted')\n"
        "s.load_inputs = boom\n"
        "from ragcard._cli.main import app\n"
        "sys.argv = ['ragcard', 'score', '-q', 'q', '-c', 'c', '-r', 'r', '-t', 't']\n"
        "app()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"RAGCARD_CRASH_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
                          check=False)  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert "RuntimeError: planted" in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.glob("crash-*.log"))


def test_help_documents_the_exit_codes() -> None:
    from typer.testing import CliRunner

    shown = " ".join(CliRunner().invoke(app, ["--help"]).output.split())
    for code in ("0 ship", "1 hold", "2 bad input", "3 internal error"):
        assert code in shown
