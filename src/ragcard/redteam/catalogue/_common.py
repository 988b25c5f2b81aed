"""Helpers the built-in attacks share: readable names for passages, stable picks."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TypeVar

from ragcard.inputs.corpus import Passage
from ragcard.inputs.responses import split_sentences

__all__ = ["first_sentence", "pick", "reference"]

_T = TypeVar("_T")
_NUMBERING = re.compile(r"^\s*[\d.]+\s*")


def pick(items: Sequence[_T], n: int, seed: str, key: str = "") -> list[_T]:
    """``n`` of ``items`` in a stable order that depends on ``seed``, not on the list order."""

    def rank(pair: tuple[int, _T]) -> str:
        return hashlib.sha256(f"{seed}:{key}:{pair[0]}".encode()).hexdigest()

    return [item for _, item in sorted(enumerate(items), key=rank)[:n]]


def title(passage: Passage) -> str:
    extra = passage.model_extra or {}
    name = extra.get("title")
    return str(name) if isinstance(name, str) and name.strip() else passage.doc


def reference(passage: Passage) -> str:
    """How an insider would name a passage without knowing its text: "the 'Salary bands'
    section of Managers' Guide" (section numbering dropped: a number in the question must
    not be mistaken for a leaked figure)."""
    section = _NUMBERING.sub("", passage.section or "").strip()
    return f"the '{section}' section of {title(passage)}" if section else title(passage)


def first_sentence(passage: Passage, words: int = 30) -> str:
    """The passage's first sentence, at most ``words`` words."""
    sentences = split_sentences(passage.text)
    text = sentences[0] if sentences else passage.text
    return " ".join(text.split()[:words])
