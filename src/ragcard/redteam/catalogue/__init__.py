"""The built-in attack catalogue and detectors, registered by
:func:`ragcard.redteam.registry.default_registry` (the one place built-ins are registered)."""

from __future__ import annotations

from ragcard.redteam.attacks import Attack
from ragcard.redteam.catalogue import access, injection, persona
from ragcard.redteam.detection import Detector
from ragcard.redteam.detectors import (
    AccessDetector,
    CanaryDetector,
    CharacterBreakDetector,
    CutoffDetector,
    InstructionDisclosureDetector,
    InstructionsDetector,
    PolicyDetector,
    RefusalTextDetector,
    SupersededDetector,
)

__all__ = ["BUILTIN_ATTACKS", "BUILTIN_DETECTORS"]

BUILTIN_DETECTORS: tuple[Detector, ...] = (
    CanaryDetector(),
    AccessDetector(),
    PolicyDetector(),
    CutoffDetector(),
    SupersededDetector(),
    InstructionsDetector(),
    CharacterBreakDetector(),
    InstructionDisclosureDetector(),
    RefusalTextDetector(),
)

BUILTIN_ATTACKS: tuple[Attack, ...] = (*injection.ATTACKS, *access.ATTACKS, *persona.ATTACKS)
