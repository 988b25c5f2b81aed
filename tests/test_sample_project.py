"""``ragcard init --example`` writes a project that runs, prints the next commands, and those
commands work; the minimal agent of each style in docs/agents.md runs against it."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcard import __version__
from ragcard._cli.main import app

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ROOT / "docs" / "agents"
runner = CliRunner()


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    folder = tmp_path / "sample"
    result = runner.invoke(app, ["init", "--example", str(folder)])
    assert result.exit_code == 0, result.output
    return folder


def _with_agent(folder: Path, table: str) -> None:
    """Replace the [agent] table of the sample's ragcard.toml."""
    config = folder / "ragcard.toml"
    text = config.read_text()
    text = re.sub(r"\[agent\]\n.*?(?=\n\[)", table.strip() + "\n", text, flags=re.DOTALL)
    config.write_text(text)


def _run(folder: Path, *extra: str) -> dict[str, object]:
    result = runner.invoke(app, ["run", str(folder), "--no-progress", "--fresh", *extra])
    assert result.exit_code in (0, 1), result.output
    card = json.loads((folder / "out" / "scorecard.json").read_text())
    assert card["errors"]["attempts"] == 0, card["errors"]
    assert card["metrics"]["recall@5"]["value"] == 1.0
    return dict(card)


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"ragcard {__version__}"


def test_init_example_prints_next_commands_that_work(tmp_path: Path) -> None:
    folder = tmp_path / "sample"
    result = runner.invoke(app, ["init", "--example", str(folder)])
    assert result.exit_code == 0, result.output
    for name in ("ragcard.toml", "thresholds.toml", "corpus.jsonl", "questions.jsonl",
                 "my_agent.py"):  # fmt: skip
        assert (folder / name).is_file(), name
    commands = re.findall(r"^  ragcard (.+?)\s+#", result.output, re.MULTILINE)
    assert len(commands) == 3 and "docs/agents.md" in result.output
    for command in commands:  # run, questions check, history — as printed
        done = runner.invoke(app, [*command.split(), *(["--no-progress"] if "run" in command
                                                      else [])])  # fmt: skip
        assert done.exit_code in (0, 1), (command, done.output)
    assert (folder / "out" / "scorecard.json").is_file()
    again = runner.invoke(app, ["init", "--example", str(folder)])
    assert again.exit_code == 2 and "--force" in again.output


def test_init_without_example_says_what_to_write(tmp_path: Path) -> None:
    result = runner.invoke(app, ["init", str(tmp_path / "p")])
    assert result.exit_code == 0, result.output
    assert "questions.jsonl" in result.output and "ragcard init --example" in result.output


def test_the_callable_agent(sample: Path) -> None:
    card = _run(sample)
    assert card["config"]["agent"]["type"] == "callable"


def test_the_ten_question_sample_holds_and_says_what_each_category_needs(sample: Path) -> None:
    result = runner.invoke(app, ["run", str(sample), "--no-progress", "--fresh", "--attempts", "1"])
    assert result.exit_code == 1, result.output
    card = json.loads((sample / "out" / "scorecard.json").read_text())
    (reason,) = [r for r in card["decision_reasons"] if r.startswith("too little evidence")]
    questions = [json.loads(line) for line in (sample / "questions.jsonl").read_text().splitlines()]
    typical = sum(q.get("category") == "typical" for q in questions)
    assert f"typical {typical} (+{20 - typical})" in reason
    assert "[evidence] min_items" in reason and "questions check" in reason
    with (sample / "thresholds.toml").open("a") as thresholds:  # a team's written relaxation
        thresholds.write('\n[evidence]\nmin_items = 1\nreason = "smoke set"\n')
    runner.invoke(app, ["run", str(sample), "--no-progress", "--fresh", "--attempts", "1"])
    card = json.loads((sample / "out" / "scorecard.json").read_text())
    assert not [r for r in card["decision_reasons"] if r.startswith("too little evidence")]


def test_the_command_agent(sample: Path) -> None:
    shutil.copy(AGENTS / "command_agent.py", sample)
    _with_agent(sample, f'[agent]\ntype = "command"\ncommand = [{json.dumps(sys.executable)}, '
                        '"command_agent.py"]')  # fmt: skip
    card = _run(sample, "--attempts", "1")
    assert card["config"]["agent"]["type"] == "command"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_agent(sample: Path) -> Iterator[str]:
    shutil.copy(AGENTS / "http_agent.py", sample)
    port = _free_port()
    server = subprocess.Popen([sys.executable, "http_agent.py", str(port)], cwd=sample)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_http_agent_with_a_json_body_and_with_a_stream(sample: Path, http_agent: str) -> None:
    _with_agent(sample, f'[agent]\ntype = "http"\nurl = "{http_agent}/ask"')
    card = _run(sample, "--attempts", "1")
    assert "first_token_p50_ms" not in card["metrics"]  # one body: no first token
    _with_agent(sample, f'[agent]\ntype = "http"\nurl = "{http_agent}/ask/stream"\n'
                        'stream = "sse"')  # fmt: skip
    card = _run(sample, "--attempts", "1")
    assert "first_token_p50_ms" in card["metrics"]  # streamed: time to first token measured
    results = (sample / "out" / "results.jsonl").read_text().splitlines()
    answers = [json.loads(line)["response"]["answer"] for line in results]
    assert any("[leave@2025#1]" in answer for answer in answers)  # deltas joined


def test_the_replay_agent_reads_its_recording_beside_ragcard_toml(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _run(sample, "--attempts", "1")
    lines = (sample / "out" / "results.jsonl").read_text().splitlines()
    recorded = [{"item": (x := json.loads(line))["item"], "attempt": x["attempt"],
                 **x["response"]} for line in lines]  # fmt: skip
    (sample / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recorded))
    _with_agent(sample, '[agent]\ntype = "replay"\npath = "responses.jsonl"')
    monkeypatch.chdir(tmp_path)  # the recording is found relative to ragcard.toml
    card = _run(sample, "--attempts", "1")
    assert card["config"]["agent"]["type"] == "replay"
