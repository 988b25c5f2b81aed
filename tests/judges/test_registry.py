"""The judge registry: built-ins by name, plugins through entry points, validated on load."""

from __future__ import annotations

import subprocess
import sys
import types
from collections.abc import Mapping
from importlib import metadata
from typing import Any

import pytest

import ragcard.judges
from ragcard.errors import ConfigError, MissingExtraError
from ragcard.judges import registry
from ragcard.judges.base import JudgeContext, JudgeIdentity, Verdict
from ragcard.judges.fake import FakeJudge
from ragcard.judges.lexical import LexicalJudge


class GoodJudge:
    def __init__(self, options: Mapping[str, Any]) -> None:
        self.identity = JudgeIdentity(name="nli", settings=dict(options))

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> GoodJudge:
        return cls(options)

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        return [Verdict("supported", 1.0) for _ in ctx.claims]


class SyncJudge:
    identity = JudgeIdentity(name="sync")

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> SyncJudge:
        return cls()

    def judge(self, ctx: JudgeContext) -> list[Verdict]:
        return []


class NoFactory:
    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        return []


class WrongIdentity(GoodJudge):
    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> WrongIdentity:
        judge = cls(options)
        judge.identity = "nli"  # type: ignore[assignment]
        return judge


class ReturnsNothing(GoodJudge):
    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> Any:
        return object()


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Entry points served from a module registered for the test; fill the returned dict."""
    module = types.ModuleType("ragcard_test_plugins")
    for cls in (GoodJudge, SyncJudge, NoFactory, WrongIdentity, ReturnsNothing):
        setattr(module, cls.__name__, cls)
    module.not_a_class = lambda options: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ragcard_test_plugins", module)
    declared: dict[str, str] = {}

    def entry_points() -> list[metadata.EntryPoint]:
        return [
            metadata.EntryPoint(name, value, registry.ENTRY_POINT_GROUP)
            for name, value in declared.items()
        ]

    monkeypatch.setattr(registry, "_entry_points", entry_points)
    return declared


def test_builtins_are_listed_in_one_table_and_first() -> None:
    assert list(registry.BUILTIN_JUDGES) == [
        "lexical", "fake", "llm", "local", "embedding", "ensemble"
    ]  # fmt: skip
    assert registry.judge_names()[:4] == ["lexical", "fake", "llm", "local"]


def test_builds_builtin_judges_with_options() -> None:
    lexical = registry.build_judge({"backend": "lexical", "threshold": 0.5})
    assert isinstance(lexical, LexicalJudge) and lexical.identity.threshold == 0.5
    assert isinstance(registry.build_judge({"backend": "fake"}), FakeJudge)


def test_there_is_no_default_judge() -> None:
    with pytest.raises(ConfigError, match="'backend' is required.*lexical, fake, llm, local"):
        registry.build_judge({})


def test_unknown_backend_lists_the_valid_names(plugins: dict[str, str]) -> None:
    plugins["nli"] = "ragcard_test_plugins:GoodJudge"
    with pytest.raises(ConfigError) as caught:
        registry.build_judge({"backend": "gpt"})
    assert "unknown backend 'gpt'" in str(caught.value)
    assert "auto, lexical, fake, llm, local, embedding, ensemble, nli" in str(caught.value)


def test_bad_options_are_all_reported() -> None:
    with pytest.raises(ConfigError) as caught:
        registry.build_judge({"backend": "lexical", "treshold": 0.5, "check_numbers": "yes"})
    assert "unknown option 'treshold'" in str(caught.value)
    assert "'check_numbers' must be bool" in str(caught.value)
    with pytest.raises(ConfigError, match="threshold must be in"):
        registry.build_judge({"backend": "lexical", "threshold": 2})
    with pytest.raises(ConfigError, match="must be float or int"):
        registry.build_judge({"backend": "lexical", "threshold": True})


def test_a_valid_plugin_is_built_with_its_options(plugins: dict[str, str]) -> None:
    plugins["nli"] = "ragcard_test_plugins:GoodJudge"
    judge = registry.build_judge({"backend": "nli", "model": "x"})
    assert isinstance(judge, GoodJudge) and judge.identity.settings == {"model": "x"}
    assert "nli" in registry.judge_names()


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("ragcard_test_plugins:not_a_class", "must point at a class"),
        ("ragcard_test_plugins:NoFactory", "no 'from_config(options)' classmethod"),
        ("ragcard_test_plugins:SyncJudge", "'judge' must be 'async def"),
        ("ragcard_test_plugins:WrongIdentity", "'identity' must be a JudgeIdentity"),
        ("ragcard_test_plugins:ReturnsNothing", "from_config returned object"),
        ("ragcard_test_plugins:Missing", "could not be loaded: AttributeError"),
        ("no_such_module_for_ragcard:Judge", "could not be loaded: ModuleNotFoundError"),
    ],
)
def test_a_bad_plugin_is_named_with_what_is_wrong(
    plugins: dict[str, str], target: str, message: str
) -> None:
    plugins["broken"] = target
    with pytest.raises(ConfigError) as caught:
        registry.build_judge({"backend": "broken"})
    assert f"judge plugin 'broken' ({target}" in str(caught.value)
    assert message in str(caught.value)


def test_a_plugin_may_not_shadow_a_builtin(plugins: dict[str, str]) -> None:
    plugins["lexical"] = "ragcard_test_plugins:GoodJudge"
    with pytest.raises(ConfigError, match="registers the name 'lexical', which is a built-in"):
        registry.build_judge({"backend": "lexical"})
    assert registry.judge_names().count("lexical") == 1


def test_missing_extra_is_the_backends_own_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class NeedsExtra:
        @classmethod
        def from_config(cls, options: Mapping[str, Any]) -> Any:
            raise MissingExtraError("llama-cpp-python", "local", "The local judge")

    module = types.ModuleType("ragcard_test_extra")
    module.NeedsExtra = NeedsExtra  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ragcard_test_extra", module)
    monkeypatch.setattr(registry, "BUILTIN_JUDGES", {"local": "ragcard_test_extra:NeedsExtra"})
    with pytest.raises(MissingExtraError, match=r"pip install 'ragcard\[local\]'"):
        registry.build_judge({"backend": "local"})


def test_a_builtin_module_that_is_absent_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        registry,
        "BUILTIN_JUDGES",
        {
            "lexical": "ragcard.judges.lexical:LexicalJudge",
            "gone": "ragcard.judges.gone_backend:Gone",
        },  # fmt: skip
    )
    with pytest.raises(ConfigError, match="'gone' is not available.*choose one of the others"):
        registry.build_judge({"backend": "gone"})


def test_importing_judges_loads_no_backend() -> None:
    code = (
        "import sys, ragcard.judges; "
        "print(sorted(m for m in sys.modules if m.startswith('ragcard.judges.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    for backend in ("lexical", "fake", "llm", "local"):
        assert f"ragcard.judges.{backend}'" not in loaded


def test_package_all_is_pinned() -> None:
    assert set(ragcard.judges.__all__) == {
        "BUILTIN_JUDGES", "ENTRY_POINT_GROUP", "Evidence", "Judge", "JudgeContext", "JudgeError",
        "JudgeIdentity", "Label", "Verdict", "build_judge", "check_options", "judge_names",
    }  # fmt: skip
    for name in ragcard.judges.__all__:
        assert hasattr(ragcard.judges, name), name
