""""Did you mean …?": the closest of the known names to a name that is not one of them."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The known name closest to ``word`` (difflib's ratio at least ``cutoff``), or None."""
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return found[0] if found else None


def did_you_mean(word: str, choices: Iterable[str], what: str = "") -> str:
    """A fix naming the closest choice (``"did you mean 'attempts'?"``), followed by every
    choice when there are few enough to read."""
    names = sorted(set(choices))
    near = closest(word, names)
    listed = f"{what or 'valid names'}: {', '.join(names)}" if len(names) <= 40 else ""
    if near is None:
        return listed or "check the name"
    return f"did you mean {near!r}?" + (f" ({listed})" if listed else "")
