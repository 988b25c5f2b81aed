"""``ragcard run`` with the ``llm`` judge when its server dies mid-run, then ``--resume``.

The acceptance of the judges issue, end to end through the CLI: a real llama-cpp-python server
(SmolLM2-135M, transport only: its verdicts are not checked) is killed after it has answered a
few judge calls. The run still finishes: the items whose judging failed are marked with a judge
error in ``results.jsonl`` and counted on the scorecard, never scored as zero. With the server
back, ``ragcard run --resume`` calls the agent for nothing, takes the verdicts already given
from the judge's cache, asks the server only for the rest, and leaves no judge failure.
Skipped, saying why, where ``test_llm_server`` is (no llama-cpp-python[server] or no model);
the ``server`` fixture is in this folder's conftest.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from llama_server import Server, why_skip
from typer.testing import CliRunner

from ragcard._cli.main import app

pytestmark = pytest.mark.skipif(why_skip() is not None, reason=why_skip() or "")

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini"
CALL_DONE = '"POST /v1/chat/completions HTTP/1.1" 200'
runner = CliRunner()


def _project(folder: Path, port: int) -> Path:
    folder.mkdir()
    for name in ("questions.jsonl", "corpus.jsonl", "responses.jsonl", "thresholds.toml"):
        shutil.copy(MINI / name, folder / name)
    responses, cache = folder / "responses.jsonl", folder / "judge-cache.sqlite3"
    (folder / "ragcard.toml").write_text(
        f"""[project]
name = "mini, judged by an llm server"
kit = "knowledge-base"
questions = "questions.jsonl"
corpus = "corpus.jsonl"
thresholds = "thresholds.toml"
corpus_version = "mini-1"

[agent]
type = "replay"
path = "{responses}"

[judge]
backend = "llm"
base_url = "http://127.0.0.1:{port}/v1"
model = "smollm2"
response_format = "json_object_schema"
cache = "{cache}"
concurrency = 1
max_retries = 1
backoff_s = 0.05
backoff_max_s = 0.2
timeout_s = 600

[run]
attempts = 1
concurrency = 2
run_date = "2026-01-01"
""",
        encoding="utf-8",
    )
    return folder


def _calls_done(server: Server) -> int:
    return server.log.read_text(errors="replace").count(CALL_DONE)


def _kill_after(server: Server, calls: int, stop: threading.Event) -> threading.Thread:
    """Kill the server (from another thread) once it has answered ``calls`` judge calls."""

    def watch() -> None:
        while not stop.is_set():
            if _calls_done(server) >= calls:
                server.kill()
                return
            time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def _lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_a_judge_server_killed_mid_run_then_resume_completes_from_cache_and_server(
    server: Server, tmp_path: Path
) -> None:
    project = _project(tmp_path / "project", server.port)
    out = project / "out"
    stop = threading.Event()
    watcher = _kill_after(server, 2, stop)
    try:
        first = runner.invoke(app, ["run", str(project), "--out", str(out), "--no-progress"])
    finally:
        stop.set()
        watcher.join(timeout=10)
    assert first.exit_code in (0, 1), first.output
    lines = _lines(out)
    failed = {line["item"] for line in lines if "judge_error" in line}
    judged = {line["item"] for line in lines} - failed
    assert len(lines) == 6 and failed and judged  # died mid-run: some judged, some not
    card = json.loads((out / "scorecard.json").read_text())
    assert card["config"]["judge"]["failures"] == len(failed)
    for line in lines:
        if line["item"] in failed:  # unscored with the reason, never a zero
            assert "faithfulness" not in line["scores"]
            assert "judge failed" in json.dumps(line["unscored"])

    server.start()  # back up, on the same port
    before = _calls_done(server)
    resumed = runner.invoke(
        app, ["run", str(project), "--out", str(out), "--resume", "--no-progress"]
    )
    assert resumed.exit_code in (0, 1), resumed.output
    again = _lines(out)
    assert len(again) == 6 and not any("judge_error" in line for line in again)
    assert not any("judge failed" in json.dumps(line["unscored"]) for line in again)
    judge = json.loads((out / "scorecard.json").read_text())["config"]["judge"]
    assert judge["failures"] == 0
    usage = judge["usage"]
    assert usage["cache_hits"] >= 1  # what the first run had judged came from the cache …
    answered = _calls_done(server) - before  # … the rest from the server
    assert 0 < answered <= usage["calls"] and usage["judgements"] > 0
