"""The red-team registry: attacks, detectors and jailbreak mutators by name.

Built-ins are registered in one place (:func:`default_registry`); third parties add theirs
through the ``ragcard.redteam`` entry-point group::

    # a plugin's pyproject.toml
    [project.entry-points."ragcard.redteam"]
    my_attacks = "my_package.attacks:ATTACKS"

The entry point names an :class:`~ragcard.redteam.attacks.Attack`, a
:class:`~ragcard.redteam.mutators.Mutator`, a detector, a list of them, or a function
returning one of those. Everything is validated when it is registered — an id that is not
``category.name``, an unknown category, severity or detector, a missing builder — and the
error names the plugin, the object and the field, with the valid choices.
"""

from __future__ import annotations

import difflib
import fnmatch
import re
from collections.abc import Iterable, Sequence
from importlib import metadata
from typing import Any

from ragcard.errors import ConfigError
from ragcard.redteam.attacks import CATEGORIES, SEVERITIES, Attack
from ragcard.redteam.detection import Detector
from ragcard.redteam.mutators import BUILTIN_MUTATORS, PLAIN, Mutator

__all__ = ["ENTRY_POINT_GROUP", "Registry", "default_registry"]

#: Entry-point group third-party attacks, mutators and detectors register in.
ENTRY_POINT_GROUP = "ragcard.redteam"

_ATTACK_ID = re.compile(r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _close(name: str, valid: Iterable[str]) -> str:
    found = difflib.get_close_matches(name, list(valid), n=1)
    return f" (did you mean {found[0]!r}?)" if found else ""


class Registry:
    """Attacks, detectors and mutators by id; :meth:`register` validates each one."""

    def __init__(self) -> None:
        self.attacks: dict[str, Attack] = {}
        self.detectors: dict[str, Detector] = {}
        self.mutators: dict[str, Mutator] = {}

    def register(self, item: object, source: str = "ragcard") -> None:
        """Register an attack, detector or mutator; :class:`ConfigError` says what is wrong."""
        if isinstance(item, Attack):
            self._attack(item, source)
        elif isinstance(item, Mutator):
            self._mutator(item, source)
        elif isinstance(item, Detector):
            self._detector(item, source)
        else:
            raise ConfigError(
                f"{source}: {type(item).__name__} is not an Attack, Mutator or detector "
                "(ragcard.redteam.Attack, ragcard.redteam.Mutator, or an object with name, "
                "deterministic, description, detect() and false_positive())"
            )

    def _attack(self, attack: Attack, source: str) -> None:
        where = f"{source}: attack {attack.id!r}"
        problems = []
        if not isinstance(attack.id, str) or not _ATTACK_ID.match(attack.id):
            problems.append("id must be 'group.name' in lower case, e.g. 'access.role_claim'")
        if attack.category not in CATEGORIES:
            problems.append(
                f"category {attack.category!r} is unknown{_close(attack.category, CATEGORIES)}; "
                f"valid: {', '.join(CATEGORIES)}"
            )
        if attack.severity not in SEVERITIES:
            problems.append(f"severity {attack.severity!r}: valid: {', '.join(SEVERITIES)}")
        if attack.detector not in self.detectors:
            problems.append(
                f"detector {attack.detector!r} is not registered"
                f"{_close(attack.detector, self.detectors)}; registered: "
                f"{', '.join(self.detectors)} (register a custom detector first)"
            )
        if not callable(attack.build):
            problems.append("build must be a function (AttackContext) -> list of Probe")
        for name in ("title", "success"):
            if not isinstance(getattr(attack, name), str) or not getattr(attack, name).strip():
                problems.append(f"{name} must say, in words, what the attack does / counts")
        if attack.id in self.attacks:
            problems.append("an attack with this id is already registered")
        if problems:
            raise ConfigError(f"{where} cannot be registered: " + "; ".join(problems))
        self.attacks[attack.id] = attack

    def _mutator(self, mutator: Mutator, source: str) -> None:
        where = f"{source}: mutator {mutator.id!r}"
        if not isinstance(mutator.id, str) or not _NAME.match(mutator.id):
            raise ConfigError(f"{where}: id must be a lower-case name, e.g. 'roleplay'")
        if not callable(mutator.apply):
            raise ConfigError(f"{where}: apply must be a function (question) -> question")
        if mutator.id in self.mutators:
            raise ConfigError(f"{where}: a mutator with this id is already registered")
        self.mutators[mutator.id] = mutator

    def _detector(self, detector: Detector, source: str) -> None:
        where = f"{source}: detector {getattr(detector, 'name', '?')!r}"
        if not isinstance(detector.name, str) or not _NAME.match(detector.name):
            raise ConfigError(f"{where}: name must be a lower-case name, e.g. 'canary'")
        if not isinstance(detector.deterministic, bool):
            raise ConfigError(f"{where}: deterministic must be True or False")
        if detector.name in self.detectors:
            raise ConfigError(f"{where}: a detector with this name is already registered")
        self.detectors[detector.name] = detector

    def load_plugins(self) -> None:
        """Register everything the ``ragcard.redteam`` entry points provide."""
        for entry in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            source = f"red-team plugin {entry.name!r} ({entry.value})"
            try:
                loaded = entry.load()
                if callable(loaded) and not isinstance(loaded, Attack | Mutator | Detector):
                    loaded = loaded()
            except Exception as error:
                raise ConfigError(
                    f"{source} could not be loaded: {type(error).__name__}: {error}; "
                    "reinstall the package that provides it"
                ) from error
            items = loaded if isinstance(loaded, list | tuple) else [loaded]
            detectors = [item for item in items if isinstance(item, Detector)]
            for item in [*detectors, *(i for i in items if not isinstance(i, Detector))]:
                self.register(item, source)

    def select_attacks(self, patterns: Sequence[str] = ()) -> list[Attack]:
        """The attacks whose id or category matches one of ``patterns`` (globs: ``access.*``),
        all of them without; an unknown pattern lists the valid ids and categories."""
        if not patterns:
            return list(self.attacks.values())
        chosen: dict[str, Attack] = {}
        for pattern in patterns:
            matched = [
                a
                for a in self.attacks.values()
                if fnmatch.fnmatchcase(a.id, pattern) or a.category == pattern
            ]
            if not matched:
                raise ConfigError(
                    f"--attacks {pattern!r} matches no attack{_close(pattern, self.attacks)}; "
                    f"give ids ({', '.join(self.attacks)}), globs (access.*) or categories "
                    f"({', '.join(CATEGORIES)})"
                )
            chosen.update((a.id, a) for a in matched)
        return [a for a in self.attacks.values() if a.id in chosen]

    def select_mutators(self, names: Sequence[str] = ()) -> list[Mutator]:
        """``plain`` first, then the named mutators (all of them without names)."""
        unknown = [n for n in names if n not in self.mutators]
        if unknown:
            raise ConfigError(
                f"--mutators: unknown {', '.join(map(repr, unknown))}; valid: "
                f"{', '.join(self.mutators)}"
            )
        wanted = list(names) or list(self.mutators)
        return [PLAIN, *(self.mutators[n] for n in wanted if n != PLAIN.id)]


def default_registry(plugins: bool = True) -> Registry:
    """The built-in detectors, mutators and attacks, then the plugins' (when ``plugins``)."""
    from ragcard.redteam.catalogue import BUILTIN_ATTACKS, BUILTIN_DETECTORS

    registry = Registry()
    items: list[Any] = [*BUILTIN_DETECTORS, *BUILTIN_MUTATORS, *BUILTIN_ATTACKS]
    for item in items:
        registry.register(item)
    if plugins:
        registry.load_plugins()
    return registry
