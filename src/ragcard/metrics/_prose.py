"""What an answer says, for content matching: its text without citation markers and without
the passage ids it names, so that ``[annual-leave@2025#1.1]`` never counts as the figures
"2025" and "1.1" (docs/agents.md documents inline markers as a way to cite)."""

from __future__ import annotations

import re
from collections.abc import Container

from ragcard.inputs.responses import strip_markers

__all__ = ["is_bare_year", "prose"]

#: A token that could be a passage id: word characters joined by id punctuation, with one of
#: ``@ #`` at least (``annual-leave@2025#1.1``, ``doc#A1``).
_ID_LIKE = re.compile(r"[\w.:/\-]*[@#][\w.:/@#\-]*")
_YEAR = re.compile(r"(?:1[5-9]|2[01])\d\d")


def prose(answer: str, ids: Container[str] = ()) -> str:
    """``answer`` without inline markers and without the bare mentions of ``ids``."""
    text = strip_markers(answer)
    if "@" in text or "#" in text:
        text = _ID_LIKE.sub(lambda m: _unless_id(m.group(0), ids), text)
    return text


def _unless_id(token: str, ids: Container[str]) -> str:
    bare = token.rstrip(".,;:")
    return token[len(bare) :] if bare in ids else token


def is_bare_year(figure: str) -> bool:
    """``2025``: a year said alone names an edition or a date, not a restricted figure."""
    return _YEAR.fullmatch(figure) is not None
