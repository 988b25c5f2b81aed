"""A judge plugin that crashes never makes an attempt vanish and never ships: under ``run`` and
``score`` every attempt is written (results.jsonl, the scorecard, the eval record), the crash
is recorded on each answer it hit, the decision holds and the command exits 3 naming the
judge; ``run --resume`` then rescores those answers without calling the agent again. A plugin
that calls ``sys.exit(0)`` or raises a ``BaseException`` subclass gives the same exit 3."""

from __future__ import annotations

import json
import shutil
import sys
import types
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from ragcard._cli.main import app
from ragcard.judges import registry
from ragcard.judges.base import JudgeContext, JudgeIdentity, Verdict

AGENT = """
import os


def answer(request):  # (imported once per process: where it logs is read at each call)
    with open(os.environ["CRASH_AGENT_CALLS"], "a") as calls:
        calls.write(request["question"] + "\\n")
    return {"answer": "You get 25 days of annual leave.", "retrieved": ["leave@2025#1"]}
"""


class Crash(BaseException):
    """Not an ``Exception``: what a plugin's own control flow might raise."""


class CrashingJudge:
    """Crashes the way ``mode`` says; ``mode = "ok"`` judges every claim supported."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.identity = JudgeIdentity(name="crashing", model="1")

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> CrashingJudge:
        return cls(str(options.get("mode", "raise")))

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        mode = Path(self.mode).read_text().strip() if Path(self.mode).is_file() else self.mode
        if mode == "raise":
            raise RuntimeError("boom in the plugin")
        if mode == "exit":
            sys.exit(0)
        if mode == "base":
            raise Crash("a plugin's BaseException")
        return [Verdict("supported", 1.0) for _ in ctx.claims]


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    module = types.ModuleType("ragcard_crash_plugins")
    module.CrashingJudge = CrashingJudge  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ragcard_crash_plugins", module)
    point = metadata.EntryPoint(
        "crashing", "ragcard_crash_plugins:CrashingJudge", registry.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(registry, "_entry_points", lambda: [point])
    monkeypatch.setenv("CRASH_AGENT_CALLS", str(tmp_path / "calls"))


def project(mini: Path, folder: Path, mode: str) -> Path:
    folder.mkdir()
    for name in ("questions.jsonl", "corpus.jsonl", "responses.jsonl"):
        shutil.copy(mini / name, folder / name)
    (folder / "thresholds.toml").write_text(
        '[[threshold]]\nmeasure = "recall@5"\ncomparison = ">="\nvalue = 0\ntype = "graded"\n'
        'reason = "anything"\n'
    )
    (folder / "crash_agent.py").write_text(AGENT)
    (folder / "ragcard.toml").write_text(
        '[project]\nname = "crash"\n\n[agent]\ntype = "callable"\n'
        'function = "crash_agent:answer"\n\n'
        f'[judge]\nbackend = "crashing"\nmode = "{mode}"\n\n'
        "[run]\nattempts = 2\nconcurrency = 3\nrun_date = 2026-01-01\n"
    )
    return folder


def invoke(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """The command as a shell runs it (``app()``: an internal error exits 3 there)."""
    with pytest.raises(SystemExit) as exited:
        app(args, prog_name="ragcard")
    captured = capsys.readouterr()
    return int(exited.value.code or 0), " ".join((captured.out + captured.err).split())


def run(folder: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    args = ["run", str(folder), "--out", str(folder / "out"), "--no-progress",
            "--eval-dir", str(folder / "eval"), *extra]  # fmt: skip
    return invoke(args, capsys)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("mode", ["raise", "exit", "base"])
def test_a_crashing_judge_under_run_loses_no_attempt_and_exits_3(
    plugin: None,
    mini: Path,
    tmp_path: Path,
    mode: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("RAGCARD_CRASH_DIR", str(tmp_path / "crashes"))
    folder = project(mini, tmp_path / "p", mode)
    code, output = run(folder, capsys)
    assert code == 3, output
    assert "judge plugin 'crashing'" in output and "--resume" in output, output
    assert "never retrieved" not in output
    results = lines(folder / "out" / "results.jsonl")
    questions = lines(folder / "questions.jsonl")
    assert {(r["item"], r["attempt"]) for r in results} == {
        (q["id"], a) for q in questions for a in (1, 2)
    }
    assert all(r["judge_error"].startswith("judge crashed: ") for r in results)
    card = json.loads((folder / "out" / "scorecard.json").read_text())
    assert card["decision"] == "hold"
    assert card["config"]["judge"]["crashes"]["answers"] == len(results)
    assert any("judge crashed" in r for r in card["decision_reasons"])
    assert "judge crashed" in (folder / "out" / "scorecard.md").read_text()
    (record,) = (folder / "eval").glob("*.jsonl")
    assert len(lines(record)) == len(results)
    assert list((tmp_path / "crashes").glob("crash-*.log"))  # the traceback, for the plugin


def test_resume_rescores_the_crashed_answers_without_calling_the_agent(
    plugin: None,
    mini: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("RAGCARD_CRASH_DIR", str(tmp_path / "crashes"))
    mode = tmp_path / "mode"
    mode.write_text("raise")
    folder = project(mini, tmp_path / "p", str(mode))
    code, output = run(folder, capsys)
    assert code == 3, output
    calls = (tmp_path / "calls").read_text().splitlines()
    mode.write_text("ok")  # the plugin is fixed
    code, output = run(folder, capsys, "--resume")
    assert code in (0, 1), output
    assert (tmp_path / "calls").read_text().splitlines() == calls  # no new agent call
    results = lines(folder / "out" / "results.jsonl")
    assert len(results) == 2 * len(lines(folder / "questions.jsonl"))
    assert not any("judge_error" in r for r in results)
    card = json.loads((folder / "out" / "scorecard.json").read_text())
    assert "crashes" not in card["config"]["judge"]


@pytest.mark.parametrize("mode", ["raise", "exit", "base"])
def test_a_crashing_judge_under_score_keeps_every_answer_and_exits_3(
    plugin: None,
    mini: Path,
    tmp_path: Path,
    mode: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("RAGCARD_CRASH_DIR", str(tmp_path / "crashes"))
    out = tmp_path / "out"
    args = ["score", "--questions", str(mini / "questions.jsonl"), "--corpus",
            str(mini / "corpus.jsonl"), "--responses", str(mini / "responses.jsonl"),
            "--thresholds", str(mini / "thresholds.toml"), "--out", str(out),
            "--judge", "crashing", "--judge-option", f'mode="{mode}"', "--run-date", "2026-01-01",
            "--db", f"sqlite:///{tmp_path / 'h.sqlite'}"]  # fmt: skip
    code, output = invoke(args, capsys)
    assert code == 3, output
    assert "judge plugin 'crashing'" in output
    results = lines(out / "results.jsonl")
    assert len(results) >= len(lines(mini / "responses.jsonl"))
    assert any(r.get("judge_error", "").startswith("judge crashed: ") for r in results)
    card = json.loads((out / "scorecard.json").read_text())
    assert card["decision"] == "hold"


def test_a_plugin_that_exits_while_it_is_built_exits_3(
    plugin: None,
    mini: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("RAGCARD_CRASH_DIR", str(tmp_path / "crashes"))

    def exiting(cls: type, options: Mapping[str, Any]) -> Any:
        sys.exit(0)

    monkeypatch.setattr(CrashingJudge, "from_config", classmethod(exiting))
    folder = project(mini, tmp_path / "p", "ok")
    code, output = run(folder, capsys)
    assert code == 3, output
    assert "judge plugin 'crashing'" in output and "from_config" in output


def test_a_stage_after_the_judge_that_raises_ends_the_run_with_exit_3(
    plugin: None,
    mini: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A layer that raises while an attempt is scored in the background is never dropped: the
    run stops with exit 3 and its traceback, and writes no scorecard that could ship."""
    from ragcard.aggregation._scorer import AttemptScorer

    monkeypatch.setenv("RAGCARD_CRASH_DIR", str(tmp_path / "crashes"))
    fold = AttemptScorer.fold

    def failing(self: AttemptScorer, record: Any, judged: Any) -> dict[str, Any]:
        if record.item == "Q2":
            raise ZeroDivisionError("a layer's bug (planted)")
        return fold(self, record, judged)

    monkeypatch.setattr(AttemptScorer, "fold", failing)
    folder = project(mini, tmp_path / "p", "ok")
    code, output = run(folder, capsys)
    assert code == 3, output
    assert "ZeroDivisionError: a layer's bug (planted)" in output
    assert "never retrieved" not in output
    assert not (folder / "out" / "scorecard.json").exists()
