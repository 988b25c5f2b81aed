"""Build an adapter from the ``[agent]`` table of ``ragcard.toml``.

``type`` picks the adapter: the built-ins (``callable``, ``command``, ``http``, ``replay``)
or a third-party type registered in the ``ragcard.adapters`` entry-point group::

    # a plugin's pyproject.toml
    [project.entry-points."ragcard.adapters"]
    grpc = "ragcard_grpc:GrpcAdapter"

The entry point names a class with ``from_config(options)`` or a function ``(options) ->
Adapter``; ``options`` is the ``[agent]`` table without ``type``. What it builds is checked
against the :class:`~ragcard.adapters.base.Adapter` protocol at once, so a broken plugin is
reported by name before the run starts. Built-in names cannot be overridden.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

from ragcard.adapters.base import Adapter
from ragcard.adapters.callable import CallableAdapter
from ragcard.adapters.command import CommandAdapter
from ragcard.adapters.http import HttpAdapter
from ragcard.adapters.replay import ReplayAdapter
from ragcard.errors import ConfigError

__all__ = ["BUILTIN_ADAPTERS", "ENTRY_POINT_GROUP", "adapter_types", "build_adapter"]

#: Entry-point group that third-party adapter types register in.
ENTRY_POINT_GROUP = "ragcard.adapters"

#: The built-in adapter types: name -> builder taking the table without ``type``.
BUILTIN_ADAPTERS: Mapping[str, Callable[[Mapping[str, Any]], Adapter]] = {
    "callable": CallableAdapter.from_config,
    "command": CommandAdapter.from_config,
    "http": HttpAdapter.from_config,
    "replay": ReplayAdapter.from_config,
}

_PROTOCOL_MEMBERS = ("name", "respond", "aclose", "describe")


def _entry_points() -> dict[str, metadata.EntryPoint]:
    return {entry.name: entry for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def adapter_types() -> list[str]:
    """Every ``type`` ``build_adapter`` accepts: built-ins first, then plugins."""
    plugins = sorted(name for name in _entry_points() if name not in BUILTIN_ADAPTERS)
    return [*BUILTIN_ADAPTERS, *plugins]


def build_adapter(spec: Mapping[str, Any]) -> Adapter:
    """The adapter the ``[agent]`` table describes; a :class:`ConfigError` says what is wrong."""
    if not isinstance(spec, Mapping):
        raise ConfigError(f"[agent] must be a table, got {type(spec).__name__}")
    kind = spec.get("type")
    options = {key: value for key, value in spec.items() if key != "type"}
    if not isinstance(kind, str) or not kind:
        raise ConfigError(f"[agent] needs a type: one of {', '.join(adapter_types())}")
    builder = BUILTIN_ADAPTERS.get(kind)
    if builder is not None:
        return builder(options)
    plugins = _entry_points()
    if kind not in plugins:
        valid = adapter_types()
        close = difflib.get_close_matches(kind, valid, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(
            f"[agent] type {kind!r} is unknown{hint}; valid types: "
            f"{', '.join(valid)}. A third-party type must be installed and "
            f"registered in the {ENTRY_POINT_GROUP!r} entry-point group"
        )
    return _build_plugin(plugins[kind], options)


def _build_plugin(entry: metadata.EntryPoint, options: dict[str, Any]) -> Adapter:
    where = f"adapter plugin {entry.name!r} ({entry.value})"
    try:
        loaded = entry.load()
    except Exception as error:
        raise ConfigError(
            f"{where} could not be loaded: {type(error).__name__}: {error}; "
            "reinstall the package that provides it"
        ) from error
    builder = getattr(loaded, "from_config", loaded)
    if not callable(builder):
        raise ConfigError(
            f"{where} is a {type(loaded).__name__}: it must be a class with "
            "from_config(options) or a function (options) -> Adapter"
        )
    try:
        adapter = builder(options)
    except ConfigError:
        raise
    except Exception as error:
        raise ConfigError(
            f"{where} failed to build from [agent]: {type(error).__name__}: {error}"
        ) from error
    missing = [member for member in _PROTOCOL_MEMBERS if not hasattr(adapter, member)]
    if missing or not isinstance(adapter, Adapter):
        raise ConfigError(
            f"{where} built a {type(adapter).__name__}, which is not an adapter: "
            f"it lacks {', '.join(missing)}"
        )
    if not inspect.iscoroutinefunction(adapter.respond):
        raise ConfigError(f"{where}: respond must be an async method (async def respond)")
    return adapter
