"""The callable adapter: sync/async functions, factories, retrieval, import errors."""

from __future__ import annotations

import asyncio
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from ragcard.adapters import AgentCall, CallableAdapter, build_adapter
from ragcard.adapters._common import make_reply, parse_response
from ragcard.errors import AgentOutputError, AgentTimeout, AgentTransportError, ConfigError
from ragcard.inputs.config import load_config
from ragcard.inputs.responses import AgentResponse

REQUEST = {"question": "How many days of leave?", "asker": "staff", "program": None, "cutoff": None}


def call(attempt: int = 1, timeout_s: float = 5.0) -> AgentCall:
    return AgentCall(request=dict(REQUEST), item_id="HR-1", attempt=attempt, timeout_s=timeout_s)


def write_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> str:
    """Write an importable module with a unique name; return that name."""
    name = f"agent_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


async def test_a_sync_function_runs_in_a_worker_thread() -> None:
    seen: dict[str, Any] = {}

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        seen["thread"] = threading.current_thread().name
        seen["request"] = request
        return {"answer": "25 days.", "retrieved": ["leave#1"]}

    adapter = CallableAdapter(answer)
    reply = await adapter.respond(call())
    await adapter.aclose()
    assert reply.response.answer == "25 days." and reply.response.retrieved_ids == ["leave#1"]
    assert seen["thread"].startswith("ragcard-agent") and seen["request"] == REQUEST
    assert reply.latency_ms >= 0 and reply.first_token_ms is None and reply.meta == {}


async def test_an_async_function_and_an_async_callable_object() -> None:
    async def answer(request: dict[str, Any]) -> AgentResponse:
        await asyncio.sleep(0)
        return AgentResponse(answer=request["question"])

    class Agent:
        async def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
            return {"answer": "object"}

    assert (await CallableAdapter(answer).respond(call())).response.answer == REQUEST["question"]
    assert (await CallableAdapter(Agent()).respond(call())).response.answer == "object"


async def test_the_agent_cannot_change_the_request_of_the_next_try() -> None:
    def greedy(request: dict[str, Any]) -> dict[str, Any]:
        request["question"] = "changed"
        return {"answer": "ok"}

    adapter, agent_call = CallableAdapter(greedy), call()
    await adapter.respond(agent_call)
    await adapter.aclose()
    assert agent_call.request["question"] == REQUEST["question"]


async def test_send_attempt_adds_the_attempt_number() -> None:
    async def echo(request: dict[str, Any]) -> dict[str, Any]:
        return {"answer": str(request.get("attempt"))}

    assert (await CallableAdapter(echo).respond(call(2))).response.answer == "None"
    adapter = CallableAdapter(echo, send_attempt=True)
    assert (await adapter.respond(call(2))).response.answer == "2"


async def test_the_agents_own_timings_win_and_both_are_kept() -> None:
    async def timed(request: dict[str, Any]) -> dict[str, Any]:
        return {"answer": "x", "latency_ms": 4321.0, "first_token_ms": 100.0}

    reply = await CallableAdapter(timed).respond(call())
    assert reply.latency_ms == 4321.0 and reply.first_token_ms == 100.0
    assert reply.meta["reported_latency_ms"] == 4321.0
    assert 0 <= reply.meta["measured_latency_ms"] < 4321.0


def test_make_reply_records_nothing_when_the_agent_reports_nothing() -> None:
    reply = make_reply(
        AgentResponse(answer="x"), measured_latency_ms=12.5, measured_first_token_ms=3.0
    )
    assert (reply.latency_ms, reply.first_token_ms, reply.meta) == (12.5, 3.0, {})


@pytest.mark.parametrize(
    "output", ["plain text", ["a", "list"], {"answer": 42}, {"retrieved": "p1"}]
)
async def test_output_that_is_not_a_response_is_an_output_error(output: Any) -> None:
    async def agent(request: dict[str, Any]) -> Any:
        return output

    with pytest.raises(AgentOutputError) as caught:
        await CallableAdapter(agent).respond(call())
    assert caught.value.raw is not None and not caught.value.transient


def test_parse_response_truncates_the_raw_text() -> None:
    with pytest.raises(AgentOutputError) as caught:
        parse_response("y" * 10_000)
    assert caught.value.raw is not None and 4096 <= len(caught.value.raw) < 4200


async def test_agent_errors_and_bugs_propagate_unchanged() -> None:
    async def flaky(request: dict[str, Any]) -> Any:
        raise AgentTransportError("upstream busy")

    def buggy(request: dict[str, Any]) -> Any:
        raise KeyError("index")

    with pytest.raises(AgentTransportError):
        await CallableAdapter(flaky).respond(call())
    adapter = CallableAdapter(buggy)
    with pytest.raises(KeyError):
        await adapter.respond(call())
    await adapter.aclose()


async def test_a_slow_agent_times_out() -> None:
    async def slow(request: dict[str, Any]) -> Any:
        await asyncio.sleep(5)

    with pytest.raises(AgentTimeout, match="0.05 s"):
        await CallableAdapter(slow).respond(call(timeout_s=0.05))


async def test_import_by_target_with_a_module_level_retrieve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = write_module(
        tmp_path,
        monkeypatch,
        (
            "def answer(request):\n    return {'answer': 'from module'}\n"
            "def retrieve(request):\n    return ['p2', {'id': 'p3', 'score': 0.5}]\n"
        ),
    )
    adapter = CallableAdapter.from_config({"function": f"{module}:answer"})
    assert adapter.supports_retrieval
    assert (await adapter.respond(call())).response.answer == "from module"
    reply = await adapter.retrieve(call())
    assert reply.response.retrieved_ids == ["p2", "p3"] and reply.response.answer == ""
    assert adapter.describe()["function"] == f"{module}:answer"
    await adapter.aclose()


async def test_a_factory_gets_the_options_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = write_module(
        tmp_path,
        monkeypatch,
        (
            "class Agent:\n"
            "    def __init__(self, options):\n        self.options = options\n"
            "    async def __call__(self, request):\n"
            "        return {'answer': self.options['index']}\n"
            "    async def retrieve(self, request):\n        return {'retrieved': ['p9']}\n"
            "def build(options):\n    return Agent(options)\n"
        ),
    )
    options = {"index": "data/index", "api_key": "sk-very-secret", "nested": {"token": "t0k"}}
    adapter = CallableAdapter.from_config({"factory": f"{module}:build", "options": options})
    assert (await adapter.respond(call())).response.answer == "data/index"
    assert (await adapter.retrieve(call())).response.retrieved_ids == ["p9"]
    described = adapter.describe()
    assert described["options"] == {
        "index": "data/index",
        "api_key": "***",
        "nested": {"token": "***"},
    }
    assert "sk-very-secret" not in repr(described) and "t0k" not in repr(described)


async def test_without_retrieve_retrieval_is_a_config_error() -> None:
    adapter = CallableAdapter(lambda request: {"answer": "x"})
    assert not adapter.supports_retrieval
    with pytest.raises(ConfigError, match="retrieve"):
        await adapter.retrieve(call())


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [
        (None, "no_colon_here", "must look like 'package.module:function'"),
        (None, "surely_not_installed_xyz:answer", "not installed or not on the Python path"),
        (
            "import surely_missing_dependency_xyz\n",
            "{m}:answer",
            "needs 'surely_missing_dependency",
        ),
        ("raise RuntimeError('bad import')\n", "{m}:answer", "RuntimeError: bad import"),
        ("def answer(r): pass\ndef other(r): pass\n", "{m}:answr", "defines: answer, other"),
    ],
)
def test_import_errors_name_the_target_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str | None, target: str, message: str
) -> None:
    module = write_module(tmp_path, monkeypatch, source) if source else ""
    with pytest.raises(ConfigError, match="agent function") as caught:
        CallableAdapter.from_target(target.format(m=module))
    assert message in str(caught.value)


def test_config_needs_exactly_one_target_and_known_keys() -> None:
    with pytest.raises(ConfigError, match="exactly one of 'function' or 'factory'"):
        CallableAdapter.from_config({})
    with pytest.raises(ConfigError, match="unknown key 'fucntion'.*did you mean 'function'"):
        CallableAdapter.from_config({"fucntion": "a:b"})
    with pytest.raises(ConfigError, match="options"):
        CallableAdapter.from_config({"function": "a:b", "options": {"x": 1}})


def test_a_factory_that_fails_or_returns_no_callable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = write_module(
        tmp_path,
        monkeypatch,
        (
            "def broken(options):\n    raise ValueError('no index at ' + options['index'])\n"
            "def number(options):\n    return 42\n"
            "async def coroutine(options):\n    return None\n"
        ),
    )
    with pytest.raises(ConfigError, match="ValueError: no index at x"):
        CallableAdapter.from_factory(f"{module}:broken", {"index": "x"})
    with pytest.raises(ConfigError, match="must return the agent callable"):
        CallableAdapter.from_factory(f"{module}:number")
    with pytest.raises(ConfigError, match="must return the agent callable"):
        CallableAdapter.from_factory(f"{module}:coroutine")


def test_a_project_finds_the_agent_module_beside_its_config_and_in_its_path_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ragcard init`` writes ``function = "my_agent:answer"``: my_agent.py beside
    ragcard.toml is found from any working directory; ``path`` folders are searched first."""
    monkeypatch.setattr(sys, "path", list(sys.path))  # restored after the test
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (project / "src").mkdir(parents=True)
    elsewhere.mkdir()
    beside, nested = f"agent_{uuid.uuid4().hex[:10]}", f"agent_{uuid.uuid4().hex[:10]}"
    (project / f"{beside}.py").write_text("def answer(r):\n    return {'answer': 'beside'}\n")
    (project / "src" / f"{nested}.py").write_text("def answer(r):\n    return {'answer': 'src'}\n")
    for name in (beside, nested):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.chdir(elsewhere)
    toml = '[agent]\ntype = "callable"\nfunction = "{m}:answer"\n{extra}'
    (project / "ragcard.toml").write_text(toml.format(m=beside, extra=""))
    spec = load_config(project).agent_spec()
    assert spec["path"] == [str(project.resolve())]
    described = build_adapter(spec).describe()
    assert described["function"] == f"{beside}:answer"
    assert "path" not in described  # where the project lies is not part of the frozen run
    (project / "ragcard.toml").write_text(toml.format(m=nested, extra='path = ["src"]\n'))
    spec = load_config(project).agent_spec()
    assert spec["path"] == [str(project.resolve() / "src"), str(project.resolve())]
    assert build_adapter(spec).describe()["function"] == f"{nested}:answer"


def test_a_module_in_no_searched_folder_names_the_folders_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # restored after the test
    with pytest.raises(ConfigError) as caught:
        CallableAdapter.from_config(
            {"function": "surely_not_here_xyz:answer", "path": [str(tmp_path)]}
        )
    message = str(caught.value)
    assert f"looked first in {tmp_path}" in message
    assert "beside ragcard.toml" in message and 'path = ["src"]' in message
