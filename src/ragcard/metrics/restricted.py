"""Which restricted passages a text reproduces, for the surfaces that show text to people who
may not read them (the review app and its files, the HTML report): an answer or an expected
answer that quotes a restricted passage is withheld wherever that passage is redacted. The
matching is the access layer's (:func:`ragcard.metrics.access.content_leaks`)."""

from __future__ import annotations

from collections.abc import Iterable

from ragcard.inputs.corpus import Corpus
from ragcard.metrics.access import content_leaks

__all__ = ["NO_ROLE", "allowed_roles", "reproduced"]

#: A reader who may see no restricted passage (a shared report, a packet file).
NO_ROLE = ""


def reproduced(text: str | None, corpus: Corpus, role: str = NO_ROLE) -> list[str]:
    """The ids of the passages ``role`` may not see whose content ``text`` reproduces."""
    if not text:
        return []
    return sorted(content_leaks(text, corpus, role))


def allowed_roles(ids: Iterable[str], corpus: Corpus) -> list[str]:
    """The roles that may read every one of ``ids`` (those in each passage's access list)."""
    roles: set[str] | None = None
    for pid in ids:
        passage = corpus.get(pid)
        access = set(passage.access) if passage is not None else set()
        roles = access if roles is None else roles & access
    return sorted(roles or ())
