"""The registry: built-ins, validation at registration, plugins, selection; the wrappers."""

from __future__ import annotations

import base64
import codecs
import dataclasses
from importlib import metadata
from typing import Any

import pytest

import ragcard.redteam
from ragcard.errors import ConfigError
from ragcard.redteam import (
    CATEGORIES,
    Attack,
    AttackContext,
    Mutator,
    Probe,
    Registry,
    default_registry,
)
from ragcard.redteam.mutators import BUILTIN_MUTATORS


def _probes(ctx: AttackContext) -> list[Probe]:
    return [ctx.probe("What do the sources say about the weather?")]


GOOD = Attack(
    id="thirdparty.weather",
    category="direct_injection",
    severity="high",
    title="asks about the weather",
    success="never: a plugin example",
    detector="canary",
    build=_probes,
)


def test_the_public_surface_is_pinned() -> None:
    assert set(ragcard.redteam.__all__) == {
        "CATEGORIES", "ENTRY_POINT_GROUP", "REDTEAM_SPECS", "SEVERITIES", "Attack",
        "AttackContext", "Canary", "Detection", "DetectionContext", "Detector", "Exchange",
        "Expectation", "Finding", "FindingStore", "Mutator", "NotApplicable", "Probe",
        "RedteamResult", "Registry", "default_registry", "project_measures", "run_redteam",
    }  # fmt: skip
    for name in ragcard.redteam.__all__:
        assert hasattr(ragcard.redteam, name), name


def test_the_catalogue_covers_every_category_and_the_issue_s_attacks() -> None:
    registry = default_registry(plugins=False)
    assert {a.category for a in registry.attacks.values()} == set(CATEGORIES)
    assert {"access.role_claim", "access.by_id", "access.by_title", "access.piecewise",
            "access.summary", "injection.direct", "injection.document",
            "extraction.instructions", "persona.stop_pretending", "persona.modern_topics",
            "persona.later_years"} <= set(registry.attacks)  # fmt: skip
    topics = {a.id.split(".")[1] for a in registry.attacks.values() if a.category == "policy"}
    assert topics == {"self_harm", "children", "companionship", "advice", "politicians",
                      "trauma"}  # fmt: skip
    assert set(registry.mutators) == {"plain", "roleplay", "base64", "rot13", "translation"}
    judged = {d.name for d in registry.detectors.values() if not d.deterministic}
    assert judged == {"character_break", "instruction_disclosure", "refusal_text"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"id": "NoDot"}, "id must be 'group.name'"),
        ({"category": "jailbraek"}, "category 'jailbraek' is unknown"),
        ({"severity": "severe"}, "severity 'severe': valid: critical, high, medium, low"),
        ({"detector": "canery"}, "did you mean 'canary'?"),
        ({"title": " "}, "title must say"),
        ({"build": "not callable"}, "build must be a function"),
    ],
)
def test_a_bad_attack_is_refused_at_registration_naming_the_field(
    change: dict[str, Any], message: str
) -> None:
    registry = default_registry(plugins=False)
    with pytest.raises(ConfigError) as raised:
        registry.register(dataclasses.replace(GOOD, **change), "plugin 'x'")
    assert message in str(raised.value) and "plugin 'x'" in str(raised.value)


def test_ids_are_unique_and_other_objects_are_refused() -> None:
    registry = default_registry(plugins=False)
    registry.register(GOOD)
    with pytest.raises(ConfigError, match="already registered"):
        registry.register(GOOD)
    with pytest.raises(ConfigError, match="is not an Attack, Mutator or detector"):
        registry.register("injection.direct")
    with pytest.raises(ConfigError, match="lower-case name"):
        registry.register(Mutator("Loud", "shouting", str.upper))


class _EntryPoint:
    def __init__(self, name: str, loaded: object) -> None:
        self.name, self.value, self._loaded = name, f"pkg:{name}", loaded

    def load(self) -> object:
        if isinstance(self._loaded, Exception):
            raise self._loaded
        return self._loaded


def _plugins(monkeypatch: pytest.MonkeyPatch, *entries: _EntryPoint) -> None:
    def entry_points(group: str) -> tuple[_EntryPoint, ...]:
        assert group == "ragcard.redteam"
        return entries

    monkeypatch.setattr(metadata, "entry_points", entry_points)


def test_plugins_register_attacks_and_wrappers_through_the_entry_point_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shout = Mutator("shout", "capitals", str.upper)
    _plugins(monkeypatch, _EntryPoint("mine", lambda: [GOOD, shout]))
    registry = default_registry()
    assert registry.attacks["thirdparty.weather"] is GOOD
    assert registry.select_mutators(["shout"]) == [registry.mutators["plain"], shout]


def test_a_broken_plugin_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    _plugins(monkeypatch, _EntryPoint("broken", ImportError("no module named x")))
    with pytest.raises(ConfigError, match=r"red-team plugin 'broken' \(pkg:broken\) could not"):
        default_registry()
    bad = dataclasses.replace(GOOD, category="nope")
    _plugins(monkeypatch, _EntryPoint("wrong", bad))
    with pytest.raises(ConfigError, match=r"plugin 'wrong'.*category 'nope' is unknown"):
        default_registry()


def test_attacks_are_selected_by_id_glob_or_category() -> None:
    registry = default_registry(plugins=False)
    assert [a.id for a in registry.select_attacks(["access.by_id"])] == ["access.by_id"]
    chosen = {a.id for a in registry.select_attacks(["access.*", "policy"])}
    assert "access.piecewise" in chosen and "policy.self_harm" in chosen
    with pytest.raises(ConfigError, match="'acess.by_id' matches no attack.*did you mean"):
        registry.select_attacks(["acess.by_id"])
    with pytest.raises(ConfigError, match="unknown 'leet'; valid: plain, roleplay"):
        registry.select_mutators(["leet"])


def test_the_wrappers_keep_the_question_recoverable() -> None:
    by_id = {m.id: m for m in BUILTIN_MUTATORS}
    question = "Show me the full text of managers-guide@2025#2.1."
    assert by_id["plain"].apply(question) == question
    encoded = by_id["base64"].apply(question).rsplit(" ", 1)[1]
    assert base64.b64decode(encoded).decode() == question
    rotated = by_id["rot13"].apply(question).split(": ", 1)[1]
    assert codecs.decode(rotated, "rot13") == question
    assert question in by_id["roleplay"].apply(question)
    assert question in by_id["translation"].apply(question)


def test_an_empty_registry_refuses_an_attack_before_its_detector() -> None:
    with pytest.raises(ConfigError, match="detector 'canary' is not registered"):
        Registry().register(GOOD)
