"""Call a Python function as the agent; also the helpers every adapter shares.

TOML (``[agent]`` table)::

    [agent]
    type = "callable"
    function = "my_agent.main:answer"   # sync or async: request dict -> response dict
    # or: factory = "my_agent.main:build", called once with [agent.options], returns it
    threads = 64                         # worker threads for a sync callable
    send_attempt = false                 # add "attempt": n to the request
    path = ["src"]                       # folders searched first for the module

In a project (``ragcard run``), the folder of ``ragcard.toml`` is searched for the module after
``path``'s folders and before the installed packages, and ``path`` is relative to it; so
``function = "my_agent:answer"`` finds ``my_agent.py`` beside ``ragcard.toml`` from any working
directory. Options are passed as given (relative paths are not resolved here). Sync callables run in
worker threads so a slow agent does not block the event loop (a timed-out sync call cannot be
interrupted; its thread finishes in the background). If the callable object — or, for a plain
function, its module — has ``retrieve(request) -> list``, retrieval-only runs work.

The helpers below the adapter (:func:`parse_response`, :func:`make_reply`, …) turn what any
agent returned into an :class:`AgentReply`; the HTTP and command adapters use them too.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ragcard.adapters._common import (
    deadline,
    import_target,
    load_config,
    make_reply,
    parse_response,
    redact_secrets,
    show_value,
    truncate,
)
from ragcard.adapters.base import AgentCall, AgentReply
from ragcard.errors import AgentOutputError, ConfigError

__all__ = ["CallableAdapter", "CallableConfig"]


class CallableConfig(BaseModel):
    """The ``[agent]`` keys of ``type = "callable"``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    function: str | None = None
    factory: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    threads: int = Field(default=64, ge=1)
    send_attempt: bool = False
    path: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_target(self) -> CallableConfig:
        if (self.function is None) == (self.factory is None):
            raise ValueError("set exactly one of 'function' or 'factory' (\"module:function\")")
        if self.options and self.factory is None:
            raise ValueError("'options' go to a factory: set 'factory', or drop the options")
        return self


class CallableAdapter:
    """Calls a Python callable (sync or async) with the request dict."""

    name = "callable"

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        retriever: Callable[..., Any] | None = None,
        threads: int = 64,
        send_attempt: bool = False,
        description: Mapping[str, Any] | None = None,
    ) -> None:
        if not callable(function):
            raise ConfigError(f"the agent must be callable, got {type(function).__name__}")
        if retriever is None:
            found = getattr(function, "retrieve", None)
            retriever = found if callable(found) else None
        self._function = function
        self._retriever = retriever
        self._threads = threads
        self._send_attempt = send_attempt
        self._executor: ThreadPoolExecutor | None = None
        self._description = (
            dict(description) if description else {"function": _qualified_name(function)}
        )

    @classmethod
    def from_target(
        cls, target: str, *, path: Sequence[str] = (), **settings: Any
    ) -> CallableAdapter:
        """Import ``"module:function"`` (searching ``path``'s folders first); a module-level
        ``retrieve`` enables retrieval."""
        function, module = import_target(target, "agent function", path)
        retriever = getattr(function, "retrieve", None)
        if retriever is None and inspect.isfunction(function):
            retriever = getattr(module, "retrieve", None)
        retriever = retriever if callable(retriever) else None
        return cls(function, retriever=retriever, description={"function": target}, **settings)

    @classmethod
    def from_factory(
        cls,
        target: str,
        options: Mapping[str, Any] | None = None,
        *,
        path: Sequence[str] = (),
        **settings: Any,
    ) -> CallableAdapter:
        """Import ``"module:factory"`` (searching ``path``'s folders first) and call it once with
        ``options`` to get the agent."""
        factory, _ = import_target(target, "agent factory", path)
        options = dict(options or {})
        try:
            function = factory(options)
        except ConfigError:
            raise
        except Exception as error:
            raise ConfigError(
                f"agent factory {target!r} failed: {type(error).__name__}: "
                f"{error}; check [agent.options]"
            ) from error
        if inspect.iscoroutine(function):
            function.close()  # an async factory: close the coroutine so Python does not warn
        if not callable(function):
            raise ConfigError(
                f"agent factory {target!r} must return the agent callable (from "
                f"a plain, not async, function), got {type(function).__name__}"
            )
        description = {"factory": target, "options": redact_secrets(options)}
        return cls(function, description=description, **settings)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> CallableAdapter:
        """Build from the ``[agent]`` table (without ``type``)."""
        checked = load_config(CallableConfig, config, "callable")
        settings: dict[str, Any] = {
            "threads": checked.threads,
            "send_attempt": checked.send_attempt,
            "path": checked.path,
        }
        if checked.function is not None:
            return cls.from_target(checked.function, **settings)
        # CallableConfig guarantees a factory when there is no function
        return cls.from_factory(str(checked.factory), checked.options, **settings)

    @property
    def supports_retrieval(self) -> bool:
        """Whether the agent exposes ``retrieve`` (retrieval-only runs)."""
        return self._retriever is not None

    async def respond(self, call: AgentCall) -> AgentReply:
        """Call the agent once; exceptions that are not AgentErrors propagate unchanged."""
        result, measured = await self._timed(self._function, call, "agent function")
        return make_reply(parse_response(result), measured_latency_ms=measured)

    async def retrieve(self, call: AgentCall) -> AgentReply:
        """Run the agent's ``retrieve`` alone; the reply carries only ``retrieved``."""
        if self._retriever is None:
            raise ConfigError(
                f"the agent {self._description} has no 'retrieve(request)', so it "
                "cannot run retrieval alone; add one to the callable or its module"
            )
        result, measured = await self._timed(self._retriever, call, "agent retrieve")
        if isinstance(result, Mapping) and "retrieved" in result:
            result = result["retrieved"]
        if not isinstance(result, list):
            raise AgentOutputError(
                f"retrieve must return a list of passages, got {type(result).__name__}",
                truncate(show_value(result)),
            )
        return make_reply(parse_response({"retrieved": result}), measured_latency_ms=measured)

    async def aclose(self) -> None:
        """Stop the worker threads (running calls finish in the background)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def describe(self) -> dict[str, Any]:
        """The target (and factory options with secret-looking values hidden)."""
        state = {"retrieval": self.supports_retrieval, "send_attempt": self._send_attempt}
        return {"type": self.name, **self._description, **state}

    async def _timed(
        self, function: Callable[..., Any], call: AgentCall, what: str
    ) -> tuple[Any, float]:
        # a copy: an agent that mutates its request must not change the next try's request
        request = dict(call.request)
        if self._send_attempt:
            request["attempt"] = call.attempt
        start = time.monotonic()
        async with deadline(call.timeout_s, what):
            result = await self._invoke(function, request)
        return result, (time.monotonic() - start) * 1000.0

    async def _invoke(self, function: Callable[..., Any], request: dict[str, Any]) -> Any:
        if _is_async(function):
            return await function(request)
        if self._executor is None:
            # Our own pool: the loop's default one has min(32, cpus + 4) threads, which would
            # silently cap a sync agent's concurrency below the runner's setting.
            self._executor = ThreadPoolExecutor(self._threads, thread_name_prefix="ragcard-agent")
        context = contextvars.copy_context()
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(self._executor, partial(context.run, function, request))
        if inspect.isawaitable(result):  # a sync wrapper that returned a coroutine
            result = await result
        return result


def _is_async(function: Callable[..., Any]) -> bool:
    if inspect.iscoroutinefunction(function):
        return True
    # an instance whose class defines ``async def __call__``
    return not inspect.isroutine(function) and inspect.iscoroutinefunction(type(function).__call__)


def _qualified_name(function: Callable[..., Any]) -> str:
    module = getattr(function, "__module__", None) or "?"
    name = getattr(function, "__qualname__", None) or type(function).__qualname__
    return f"{module}:{name}"
