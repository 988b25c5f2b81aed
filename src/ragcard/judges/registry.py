"""Which judge backends exist, and how a ``[judge]`` table becomes a judge.

Built-in backends are listed once, in :data:`BUILTIN_JUDGES`, by import path, and imported
only when asked for: building a ``lexical`` judge never imports the LLM client. Third parties
add backends through the ``ragcard.judges`` entry-point group::

    [project.entry-points."ragcard.judges"]
    my-nli = "my_package.judge:MyJudge"

A backend is a class with ``from_config(options) -> Judge``. A plugin is checked when it is
loaded (a class, with ``from_config`` and an ``async def judge``) and again when it has built
its judge (the :class:`~ragcard.judges.base.Judge` protocol with a
:class:`~ragcard.judges.base.JudgeIdentity`); each error names the plugin and what is wrong.

There is no default backend: a configuration without ``backend`` is an error, so nothing ever
calls a paid API behind the user's back. ``backend = "auto"`` is the best *offline* judge,
``ensemble`` (:func:`resolve_backend`), whatever else is installed: its packages are part of the
default install, and a broken install is an error that says how to repair it — never a silent
switch to another judge, which would change the decision. The judge it builds records its own
name, never "auto".
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from ragcard.errors import ConfigError, RagcardError
from ragcard.judges.base import Judge, JudgeIdentity

__all__ = [
    "AUTO",
    "AUTO_BACKEND",
    "BUILTIN_JUDGES",
    "ENTRY_POINT_GROUP",
    "build_judge",
    "check_options",
    "judge_names",
    "resolve_backend",
]

#: The built-in backends: name → "module:Class". The only place they are registered.
BUILTIN_JUDGES: Mapping[str, str] = {
    "lexical": "ragcard.judges.lexical:LexicalJudge",
    "fake": "ragcard.judges.fake:FakeJudge",
    "llm": "ragcard.judges.llm:LlmJudge",
    "local": "ragcard.judges.local:LocalJudge",
    "embedding": "ragcard.judges.embedding:EmbeddingJudge",
    "ensemble": "ragcard.judges.ensemble:EnsembleJudge",
}

#: The backend name that resolves to the best offline judge installed.
AUTO = "auto"

#: The entry-point group third-party judge backends register under.
ENTRY_POINT_GROUP = "ragcard.judges"


def _entry_points() -> list[metadata.EntryPoint]:
    """The installed ``ragcard.judges`` entry points (a seam tests replace)."""
    return list(metadata.entry_points(group=ENTRY_POINT_GROUP))


def judge_names() -> list[str]:
    """Every backend name that ``build_judge`` accepts: built-ins first, then plugins, sorted."""
    plugins = sorted({ep.name for ep in _entry_points()} - set(BUILTIN_JUDGES))
    return [*BUILTIN_JUDGES, *plugins]


#: What ``backend = "auto"`` resolves to, on every install.
AUTO_BACKEND = "ensemble"


def resolve_backend(spec: Mapping[str, Any]) -> dict[str, Any]:
    """``spec`` with ``backend = "auto"`` replaced by :data:`AUTO_BACKEND`; any other spec
    unchanged. ``auto`` takes no options: name the backend to set them."""
    resolved = dict(spec)
    if resolved.get("backend") != AUTO:
        return resolved
    extra = sorted(key for key in resolved if key != "backend")
    if extra:
        raise ConfigError(
            f"judge: backend 'auto' takes no options (got {', '.join(extra)}); name the "
            f"backend ({AUTO_BACKEND}) to set options"
        )
    resolved["backend"] = AUTO_BACKEND
    return resolved


def build_judge(spec: Mapping[str, Any]) -> Judge:
    """Build the judge a ``[judge]`` table describes: ``backend`` plus the backend's options.

    Raises:
        ConfigError: no ``backend``, an unknown one (the message lists the valid names), a
            plugin that does not satisfy the judge protocol, or options the backend rejects.
        MissingExtraError: the backend's optional dependencies are not installed (raised by
            the backend itself, with the ``pip install`` hint).
    """
    spec = resolve_backend(spec)
    backend = spec.get("backend")
    if not isinstance(backend, str) or not backend:
        raise ConfigError(
            "judge: 'backend' is required (there is no default judge); "
            f"choose one of: {', '.join([AUTO, *judge_names()])}"
        )
    options = {key: value for key, value in spec.items() if key != "backend"}
    if backend in BUILTIN_JUDGES:
        _refuse_shadowing_plugin(backend)
        factory = _load_builtin(backend)
        return _checked_judge(factory.from_config(options), f"built-in judge '{backend}'")
    plugin = next((ep for ep in _entry_points() if ep.name == backend), None)
    if plugin is None:
        raise ConfigError(
            f"judge: unknown backend '{backend}'; choose one of: "
            f"{', '.join([AUTO, *judge_names()])}"
        )
    label = _plugin_label(plugin)
    factory = _load_plugin(plugin, label)
    try:
        built = factory.from_config(options)
    except (RagcardError, KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as error:  # sys.exit(0) in a plugin must not end ragcard with 0
        raise PluginCrash(label, "from_config", error) from error
    return _checked_judge(built, label)


class PluginCrash(RuntimeError):
    """A plugin raised something other than ragcard's own errors (a bug in it, ``sys.exit``,
    a ``BaseException`` subclass): the CLI exits 3 naming the plugin (``blame``)."""

    def __init__(self, blame: str, where: str, error: BaseException) -> None:
        super().__init__(f"{blame} crashed in {where}: {type(error).__name__}: {error}")
        self.blame = blame


def judge_label(judge: object) -> str:
    """Which code a judge is, for an error message: its plugin's entry point and distribution,
    or the class of a built-in judge."""
    cls = type(judge)
    value = f"{cls.__module__}:{cls.__qualname__}"
    points = _entry_points()
    for entry_point in points:
        if entry_point.value == value:
            return _plugin_label(entry_point)
    for entry_point in points:  # (a class re-exported under another module's name)
        with contextlib.suppress(Exception):
            if entry_point.value not in BUILTIN_JUDGES.values() and entry_point.load() is cls:
                return _plugin_label(entry_point)
    name = getattr(getattr(judge, "identity", None), "name", cls.__name__)
    kind = "built-in judge" if value in BUILTIN_JUDGES.values() else "judge"
    return f"{kind} '{name}' ({value})"


def _load_builtin(name: str) -> Any:
    module_name, _, attribute = BUILTIN_JUDGES[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name:
            raise ConfigError(
                f"judge: backend '{name}' is not available in this installation "
                f"({module_name} is missing); choose one of the others: "
                f"{', '.join(n for n in judge_names() if n != name)}"
            ) from None
        # A dependency of the backend is missing and the backend did not say which extra
        # provides it; say what is missing rather than show a traceback.
        raise ConfigError(
            f"judge: backend '{name}' needs the '{error.name}' package, which is not installed"
        ) from None
    return getattr(module, attribute)


def _refuse_shadowing_plugin(name: str) -> None:
    # Neither silently replacing a built-in nor silently ignoring the plugin: the user must
    # know which code judges their run.
    for entry_point in _entry_points():
        if entry_point.name == name:
            raise ConfigError(
                f"judge: {_plugin_label(entry_point)} registers the name '{name}', which is a "
                "built-in backend; rename the plugin's entry point"
            )


def _plugin_label(entry_point: metadata.EntryPoint) -> str:
    distribution = getattr(entry_point, "dist", None)
    source = f" from distribution '{distribution.name}'" if distribution is not None else ""
    return f"judge plugin '{entry_point.name}' ({entry_point.value}{source})"


def _load_plugin(entry_point: metadata.EntryPoint, label: str) -> Any:
    try:
        factory = entry_point.load()
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as error:  # any failure while importing is the plugin's to fix
        raise ConfigError(
            f"{label}: could not be loaded: {type(error).__name__}: {error}"
        ) from None
    problems: list[str] = []
    if not inspect.isclass(factory):
        problems.append(f"must point at a class, got {type(factory).__name__}")
    else:
        if not callable(getattr(factory, "from_config", None)):
            problems.append("has no 'from_config(options)' classmethod")
        judge_method = getattr(factory, "judge", None)
        if judge_method is None:
            problems.append("has no 'judge' method")
        elif not inspect.iscoroutinefunction(judge_method):
            problems.append("'judge' must be 'async def judge(self, ctx) -> list[Verdict]'")
    if problems:
        raise ConfigError(f"{label}: does not satisfy the judge protocol: {'; '.join(problems)}")
    return factory


def _checked_judge(judge: object, label: str) -> Judge:
    if not isinstance(judge, Judge):
        raise ConfigError(
            f"{label}: from_config returned {type(judge).__name__}, which lacks 'identity' or "
            "'judge'; it must satisfy the ragcard.judges.Judge protocol"
        )
    if not isinstance(judge.identity, JudgeIdentity):
        raise ConfigError(
            f"{label}: 'identity' must be a JudgeIdentity, got {type(judge.identity).__name__}"
        )
    return judge


def check_options(
    backend: str, options: Mapping[str, Any], allowed: Mapping[str, type | tuple[type, ...]]
) -> dict[str, Any]:
    """Check a backend's options against ``allowed`` (name → accepted type(s)).

    Reports every unknown name and every wrong type in one :class:`ConfigError` (a
    configuration file rejects what it does not know, so a typo never silently changes
    nothing). ``bool`` is never accepted where a number is expected.
    """
    problems: list[str] = []
    for key, value in options.items():
        if key not in allowed:
            problems.append(f"unknown option '{key}' (allowed: {', '.join(sorted(allowed))})")
            continue
        expected = allowed[key]
        types = expected if isinstance(expected, tuple) else (expected,)
        wrong_bool = isinstance(value, bool) and bool not in types
        if wrong_bool or not isinstance(value, types):
            names = " or ".join(t.__name__ for t in types)
            problems.append(f"option '{key}' must be {names}, got {value!r}")
    if problems:
        raise ConfigError(f"judge '{backend}': " + "; ".join(problems))
    return dict(options)
