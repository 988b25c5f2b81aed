"""Helpers every adapter shares: configuration checks, secrets, response parsing, deadlines."""

from __future__ import annotations

import asyncio
import difflib
import importlib
import json
import os
import re
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ragcard.adapters.base import AgentReply
from ragcard.agent import _secrets
from ragcard.errors import AgentOutputError, AgentTimeout, ConfigError
from ragcard.inputs.responses import AgentResponse

__all__ = [
    "RAW_LIMIT",
    "decode_json",
    "decode_response",
    "deadline",
    "env_references",
    "expand_env",
    "expand_header",
    "import_target",
    "load_config",
    "make_reply",
    "parse_response",
    "redact_secrets",
    "show_value",
    "truncate",
]

#: Raw agent output kept on errors is cut to about this many characters.
RAW_LIMIT = 4096

M = TypeVar("M", bound=BaseModel)


def import_target(target: str, what: str, search: Sequence[str] = ()) -> tuple[Any, Any]:
    """Import ``"package.module:attribute"``; return ``(object, module)`` or raise ConfigError.

    ``search``: folders put first on the import path before importing (in this order), and kept
    there, so that what the module imports later, at call time, is found too.
    """
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise ConfigError(f"{what} {target!r} must look like 'package.module:function'")
    for folder in reversed(search):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    if search:
        importlib.invalidate_caches()
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or module_name
        if module_name == missing or module_name.startswith(missing + "."):
            looked = f" (looked first in {', '.join(search)})" if search else ""
            fix = f"not installed or not on the Python path{looked}. Fix: install it, put it "
            fix += "in the project folder (beside ragcard.toml), or name its folder in [agent] "
            fix += 'path (e.g. path = ["src"])'
        else:
            fix = f"it needs {missing!r}, which is not installed. Fix: install it"
        raise ConfigError(f"{what} {target!r}: cannot import {module_name!r}: {fix}") from error
    except Exception as error:
        raise ConfigError(
            f"{what} {target!r}: importing {module_name!r} raised "
            f"{type(error).__name__}: {error}. Fix that module"
        ) from error
    found: Any = module
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            public = [n for n, v in vars(module).items() if callable(v) and n[0] != "_"]
            raise ConfigError(
                f"{what} {target!r}: module {module_name!r} has no attribute {attribute!r}; "
                f"it defines: {', '.join(sorted(public)[:25]) or 'no public callables'}"
            ) from None
    return found, module


def load_config(model: type[M], config: Mapping[str, Any], adapter_type: str) -> M:
    """Validate an ``[agent]`` table; unknown keys and bad values become one ConfigError."""
    try:
        return model.model_validate(dict(config))
    except ValidationError as error:
        valid = ["type", *model.model_fields]
        messages = []
        for item in error.errors():
            where = ".".join(str(part) for part in item["loc"])
            if item["type"] == "extra_forbidden":
                close = difflib.get_close_matches(where, valid, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                messages.append(f"unknown key {where!r}{hint}")
            elif where:
                got = show_value(item.get("input"))[:80]
                messages.append(f"{where}: {item['msg']} (got {got})")
            else:
                messages.append(item["msg"].removeprefix("Value error, "))
        problems = "; ".join(messages)
        raise ConfigError(
            f"[agent] (type = {adapter_type!r}): {problems}. Valid keys: {', '.join(valid)}"
        ) from None


_SECRET_NAME = re.compile(r"key|token|secret|passw|auth|credential|cookie", re.IGNORECASE)


def redact_secrets(options: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``options`` with values under secret-looking names replaced by ``***``."""
    shown = {k: redact_secrets(v) if isinstance(v, Mapping) else v for k, v in options.items()}
    return {key: "***" if _SECRET_NAME.search(str(key)) else value for key, value in shown.items()}


_ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_env(template: str, where: str) -> str:
    """Replace ``${NAME}`` with the environment variable; a missing one is a ConfigError.
    Each value is remembered as a secret (:mod:`ragcard.agent._secrets`): scrubbed from everything
    ragcard writes or prints."""

    def value_of(match: re.Match[str]) -> str:
        name = match.group(1)
        value = os.environ.get(name)
        if value is None:
            message = f"{where} refers to ${{{name}}}, which is not set in the environment"
            raise ConfigError(f"{message}; export {name}=… before running")
        _secrets.remember(value)
        return value

    return _ENV_REFERENCE.sub(value_of, template)


def env_references(template: str) -> list[str]:
    """The names of the ``${NAME}`` references in ``template``."""
    return _ENV_REFERENCE.findall(template)


def expand_header(name: str, template: str) -> str:
    """A header value with the environment expanded, refused (ConfigError naming the header
    and the variable, never the value) when HTTP cannot carry it: CR, LF, NUL or another
    control character, a character outside ASCII, or a space or tab at either end."""
    if not name or not name.isascii() or any(c in name for c in "\r\n\x00:() ,;\"\\"):
        raise ConfigError(f"[agent] header name {name!r}: not a valid HTTP header name")
    value = expand_env(template, f"[agent] header {name!r}")
    problem = _secrets.check_header_value(value, name, env_references(template))
    if problem is not None:
        raise ConfigError(problem)
    return value


def truncate(text: str, limit: int = RAW_LIMIT) -> str:
    """Cut ``text`` to ``limit`` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"… [truncated: {len(text)} characters in all]"


def show_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(value)


def parse_response(data: Any, raw: str | None = None) -> AgentResponse:
    """Validate what the agent returned; raise AgentOutputError (keeping ``raw``) if invalid."""
    if isinstance(data, AgentResponse):
        return data
    shown = truncate(raw if raw is not None else show_value(data))
    if not isinstance(data, Mapping):
        raise AgentOutputError(f"expected a response object, got {type(data).__name__}", shown)
    try:
        return AgentResponse.model_validate(dict(data))
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'response'}: {e['msg']}" for e in error.errors()[:5]
        )
        raise AgentOutputError(f"not a valid response: {problems}", shown) from None


def decode_response(text: str) -> AgentResponse:
    """Parse a JSON response body (:func:`parse_response` after ``json.loads``)."""
    return parse_response(decode_json(text), text)


def decode_json(text: str) -> Any:
    """``json.loads`` that raises AgentOutputError with the raw text kept."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise AgentOutputError(
            f"not JSON ({error.msg} at line {error.lineno} column {error.colno})", truncate(text)
        ) from None


def make_reply(
    response: AgentResponse,
    *,
    measured_latency_ms: float,
    measured_first_token_ms: float | None = None,
    raw: str | None = None,
    meta: Mapping[str, Any] | None = None,
) -> AgentReply:
    """An AgentReply whose timings are the agent's own when it reported them, else ours.

    When both exist and differ, ``meta`` keeps both (``reported_latency_ms`` and
    ``measured_latency_ms``, likewise for ``first_token_ms``).
    """
    notes = dict(meta or {})
    latency = _reconcile("latency_ms", response.latency_ms, measured_latency_ms, notes)
    first_token = _reconcile(
        "first_token_ms", response.first_token_ms, measured_first_token_ms, notes
    )
    return AgentReply(
        response, measured_latency_ms if latency is None else latency, first_token, raw, notes
    )


def _reconcile(
    name: str, reported: float | None, measured: float | None, notes: dict[str, Any]
) -> float | None:
    if reported is None:
        return measured
    if measured is not None and reported != measured:
        notes[f"reported_{name}"], notes[f"measured_{name}"] = reported, round(measured, 3)
    return reported


@asynccontextmanager
async def deadline(timeout_s: float | None, what: str) -> AsyncIterator[None]:
    """``asyncio.timeout`` that raises :class:`AgentTimeout` naming what timed out."""
    try:
        async with asyncio.timeout(timeout_s):
            yield
    except TimeoutError:
        raise AgentTimeout(f"{what}: no reply within {timeout_s:g} s") from None
