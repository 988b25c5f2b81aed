"""A finding of a golden-set check: what is wrong, how much it matters, which items."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["SEVERITY_ORDER", "Finding", "Severity"]

#: ``blocking`` makes the set unfit to gate a release; ``warning`` deserves a look;
#: ``info`` is worth knowing.
Severity = Literal["blocking", "warning", "info"]
SEVERITY_ORDER = {"blocking": 0, "warning": 1, "info": 2}


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong (or worth knowing) about a question set, naming its items.

    ``items`` is empty only for findings about the set as a whole (e.g. nothing held out).
    """

    severity: Severity
    code: str
    message: str
    items: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "items": list(self.items),
        }
