"""The command adapter: JSON over stdin/stdout, exits, timeouts, bad output."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from ragcard.adapters import AgentCall, CommandAdapter
from ragcard.errors import AgentOutputError, AgentTimeout, AgentTransportError, ConfigError

AGENT = Path(__file__).parents[1] / "_scripts" / "command_agent.py"
REQUEST = {"question": "How many days of leave?", "asker": "staff", "program": None, "cutoff": None}


def call(attempt: int = 1, timeout_s: float = 10.0) -> AgentCall:
    return AgentCall(request=dict(REQUEST), item_id="HR-1", attempt=attempt, timeout_s=timeout_s)


def agent(mode: str, *args: str, **options: object) -> CommandAdapter:
    return CommandAdapter([sys.executable, str(AGENT), mode, *args], **options)  # type: ignore[arg-type]


async def test_request_on_stdin_response_on_stdout() -> None:
    reply = await agent("echo", send_attempt=True).respond(call(attempt=2))
    assert reply.response.answer == f"echo: {REQUEST['question']}"
    assert reply.response.retrieved_ids == ["p1"]
    assert reply.response.meta["request"] == {**REQUEST, "attempt": 2}
    assert reply.latency_ms > 0 and reply.first_token_ms is None


async def test_a_command_string_is_split_like_a_shell_would() -> None:
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} echo"
    adapter = CommandAdapter.from_config({"command": command})
    assert adapter.config.command == [sys.executable, str(AGENT), "echo"]
    assert (await adapter.respond(call())).response.answer.startswith("echo:")


async def test_a_non_zero_exit_carries_the_stderr_tail() -> None:
    with pytest.raises(AgentTransportError) as caught:
        await agent("fail").respond(call())
    message = str(caught.value)
    assert "exited with status 3" in message and "index not found" in message
    assert not caught.value.transient  # by default a failing command is not retried
    assert caught.value.raw is not None and len(caught.value.raw) <= 2000
    with pytest.raises(AgentTransportError) as caught:
        await agent("fail", retry_on_exit=True).respond(call())
    assert caught.value.transient


async def test_a_timeout_kills_the_process(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    started = time.monotonic()
    with pytest.raises(AgentTimeout, match="0.5 s"):
        await agent("sleep", str(pid_file), timeout=0.5).respond(call())
    assert time.monotonic() - started < 5
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_stdout_that_is_not_a_response_keeps_the_raw_text() -> None:
    with pytest.raises(AgentOutputError, match="stdout is not a response") as caught:
        await agent("garbage").respond(call())
    assert caught.value.raw == "this is not json\n"


async def test_logs_before_the_json_line_are_tolerated() -> None:
    assert (await agent("noisy").respond(call())).response.answer == "after the logs"


async def test_the_agents_own_latency_wins() -> None:
    reply = await agent("reports").respond(call())
    assert reply.latency_ms == 1234.5 and "measured_latency_ms" in reply.meta


async def test_env_is_expanded_at_call_time_and_described_by_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    adapter = agent("env", "AGENT_KEY", env={"AGENT_KEY": "${RAGCARD_TEST_KEY}"})
    with pytest.raises(ConfigError, match="RAGCARD_TEST_KEY"):
        await adapter.respond(call())
    monkeypatch.setenv("RAGCARD_TEST_KEY", "k-123-secret")
    assert (await adapter.respond(call())).response.answer == "set"
    described = adapter.describe()
    assert described["env"] == ["AGENT_KEY"] and "k-123-secret" not in json.dumps(described)


async def test_a_missing_program_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="'no-such-agent-binary' not found"):
        await CommandAdapter(["no-such-agent-binary"]).respond(call())


def test_config_errors() -> None:
    with pytest.raises(ConfigError, match="unknown key 'retry'"):
        CommandAdapter.from_config({"command": "x", "retry": True})
    with pytest.raises(ConfigError, match="command"):
        CommandAdapter.from_config({"command": []})


async def test_cancelling_the_call_kills_the_process_too(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.5):  # the runner's timeout, not the adapter's
            await agent("sleep", str(pid_file)).respond(call(timeout_s=30))
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


async def test_in_a_project_the_command_runs_beside_ragcard_toml_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragcard.adapters import build_adapter
    from ragcard.inputs.config import load_config

    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (project / "agents").mkdir(parents=True)
    elsewhere.mkdir()
    script = "import json, os\nprint(json.dumps({'answer': os.getcwd()}))\n"
    (project / "agent.py").write_text(script)
    (project / "agents" / "agent.py").write_text(script)
    monkeypatch.chdir(elsewhere)
    toml = '[agent]\ntype = "command"\ncommand = [{python}, "agent.py"]\n{extra}'
    python = json.dumps(sys.executable)
    for extra, folder in (("", project), ('cwd = "agents"\n', project / "agents")):
        (project / "ragcard.toml").write_text(toml.format(python=python, extra=extra))
        adapter = build_adapter(load_config(project).agent_spec())
        assert (await adapter.respond(call())).response.answer == str(folder.resolve())
