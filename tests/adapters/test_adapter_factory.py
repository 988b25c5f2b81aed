"""build_adapter: built-in types, entry-point plugins, errors that list the valid choices."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

import ragcard.adapters
from ragcard.adapters import (
    CallableAdapter,
    CommandAdapter,
    HttpAdapter,
    ReplayAdapter,
    adapter_types,
    build_adapter,
)
from ragcard.adapters import factory as factory_module
from ragcard.adapters.base import AgentCall, AgentReply
from ragcard.errors import ConfigError
from ragcard.inputs.responses import AgentResponse


class PluginAdapter:
    """A third-party adapter as a plugin would ship it."""

    name = "echo"

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    @classmethod
    def from_config(cls, options: dict[str, Any]) -> PluginAdapter:
        unknown = set(options) - {"prefix"}
        if unknown:
            raise ConfigError(f"echo: unknown keys {sorted(unknown)}")
        return cls(options.get("prefix", ""))

    async def respond(self, call: AgentCall) -> AgentReply:
        return AgentReply(AgentResponse(answer=self.prefix + call.request["question"]), 0.0)

    async def aclose(self) -> None:
        pass

    def describe(self) -> dict[str, Any]:
        return {"type": "echo", "prefix": self.prefix}


def not_an_adapter(options: dict[str, Any]) -> object:
    return object()


def sync_respond(options: dict[str, Any]) -> object:
    class Sync(PluginAdapter):
        def respond(self, call: AgentCall) -> AgentReply:  # type: ignore[override]
            raise NotImplementedError

    return Sync("")


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    here = f"{__name__}"
    entries = {
        "echo": metadata.EntryPoint("echo", f"{here}:PluginAdapter", "ragcard.adapters"),
        "broken": metadata.EntryPoint("broken", "no_such_plugin_module:X", "ragcard.adapters"),
        "bogus": metadata.EntryPoint("bogus", f"{here}:not_an_adapter", "ragcard.adapters"),
        "syncy": metadata.EntryPoint("syncy", f"{here}:sync_respond", "ragcard.adapters"),
        "http": metadata.EntryPoint("http", f"{here}:not_an_adapter", "ragcard.adapters"),
    }
    monkeypatch.setattr(factory_module, "_entry_points", lambda: entries)


def test_the_public_api_is_pinned() -> None:
    assert sorted(ragcard.adapters.__all__) == sorted(
        [
            "BUILTIN_ADAPTERS",
            "ENTRY_POINT_GROUP",
            "Adapter",
            "AgentCall",
            "AgentReply",
            "CallableAdapter",
            "CommandAdapter",
            "HttpAdapter",
            "NotRecordedError",
            "RateLimitedError",
            "ReplayAdapter",
            "RetrievingAdapter",
            "adapter_types",
            "build_adapter",
            "decode_response",
            "make_reply",
            "parse_response",
        ]
    )
    for name in ragcard.adapters.__all__:
        assert getattr(ragcard.adapters, name) is not None


def test_builds_each_builtin_type(tmp_path: Path) -> None:
    recording = tmp_path / "responses.jsonl"
    recording.write_text('{"item": "A", "answer": "x"}\n', encoding="utf-8")
    assert isinstance(build_adapter({"type": "http", "url": "http://a"}), HttpAdapter)
    assert isinstance(build_adapter({"type": "command", "command": "agent --json"}), CommandAdapter)
    assert isinstance(build_adapter({"type": "replay", "path": str(recording)}), ReplayAdapter)
    adapter = build_adapter(
        {
            "type": "callable",
            "factory": "ragcard.adapters.testing:faulty_agent",
            "options": {"seed": 3, "error_rate": 0.5},
        }
    )
    assert isinstance(adapter, CallableAdapter) and adapter.supports_retrieval


def test_unknown_or_missing_type_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="needs a type: one of callable, command, http, replay"):
        build_adapter({"url": "http://a"})
    with pytest.raises(
        ConfigError,
        match="'htp' is unknown \\(did you mean 'http'\\?\\); valid "
        "types: callable, command, http, replay",
    ):
        build_adapter({"type": "htp"})
    with pytest.raises(ConfigError, match="must be a table"):
        build_adapter(["http"])  # type: ignore[arg-type]


def test_unknown_keys_list_the_valid_keys() -> None:
    with pytest.raises(ConfigError) as caught:
        build_adapter({"type": "http", "url": "http://a", "header": {}})
    message = str(caught.value)
    assert "unknown key 'header' (did you mean 'headers'?)" in message
    assert "Valid keys: type, url, method, headers" in message


@pytest.mark.usefixtures("plugins")
async def test_an_entry_point_plugin_is_built_and_listed() -> None:
    assert adapter_types() == [
        "callable",
        "command",
        "http",
        "replay",
        "bogus",
        "broken",
        "echo",
        "syncy",
    ]
    adapter = build_adapter({"type": "echo", "prefix": "> "})
    assert isinstance(adapter, PluginAdapter)
    call = AgentCall({"question": "hi"}, "A", 1, 1.0)
    assert (await adapter.respond(call)).response.answer == "> hi"
    with pytest.raises(ConfigError, match="echo: unknown keys"):
        build_adapter({"type": "echo", "prefx": "> "})


@pytest.mark.usefixtures("plugins")
def test_broken_plugins_are_reported_by_name() -> None:
    with pytest.raises(ConfigError, match="plugin 'broken' .* could not be loaded"):
        build_adapter({"type": "broken"})
    with pytest.raises(
        ConfigError,
        match="plugin 'bogus' .*not an adapter: it lacks name, respond, aclose, describe",
    ):
        build_adapter({"type": "bogus"})
    with pytest.raises(ConfigError, match="plugin 'syncy'.*async"):
        build_adapter({"type": "syncy"})


@pytest.mark.usefixtures("plugins")
def test_builtin_types_cannot_be_overridden() -> None:
    assert isinstance(build_adapter({"type": "http", "url": "http://a"}), HttpAdapter)
