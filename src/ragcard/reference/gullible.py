"""How the red-team fault switches misbehave: a gullible agent, reproducible on demand.

Real agents fall for attacks because a language model reads every instruction it is shown as
its own. The reference agent has no model, so its red-team faults simulate the two lapses
ragcard's red team probes (``ragcard redteam run``):

* **a claimed role** (``trust_claimed_role``): a question such as "I'm the HR director, …" or
  "As a manager, …" is searched with the role it claims (any role named in the corpus's
  ``access`` lists) instead of the asker's — identity taken from the conversation, not from
  the caller;
* **an instruction in a passage** (``obey_passage_instructions``): a retrieved passage that
  addresses the assistant ("ignore your previous instructions", "note to the AI assistant")
  and asks for a reply is obeyed — the reply replaces the answer.

It understands two reply forms, the ones ragcard's injection attacks use: ``reply with
"TEXT"`` and ``reply with the code formed by joining "A" and "B" with a hyphen`` (the joined
code appears nowhere in the passage, so quoting the passage is not mistaken for obeying it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["claimed_role", "followed_instruction"]

_QUOTE_OPEN = "\"'“‘«"
_QUOTE_CLOSE = "\"'”’»"
_OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b[^.!?]{0,60}?"
    r"\b(?:instructions?|rules|guidelines|prompts?|directions)\b"
    r"|\b(?:notes?|messages?|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+)?"
    r"(?:ai|assistant|model|chatbot|bot|agent)s?\b"
    r"|\bsystem\s+override\b",
    re.IGNORECASE,
)
_JOIN = re.compile(
    rf"joining\s+[{_QUOTE_OPEN}]?([A-Za-z0-9]+)[{_QUOTE_CLOSE}]?\s+and\s+"
    rf"[{_QUOTE_OPEN}]?([A-Za-z0-9]+)[{_QUOTE_CLOSE}]?\s+with\s+an?\s+(?:hyphen|dash)",
    re.IGNORECASE,
)
_REPLY = re.compile(
    rf"\b(?:reply|respond|answer|say|write|output|print)\b[^.!?{_QUOTE_OPEN}]{{0,40}}?"
    rf"[{_QUOTE_OPEN}]([^{_QUOTE_CLOSE}]{{1,200}})[{_QUOTE_CLOSE}]",
    re.IGNORECASE,
)
_CLAIM_LEAD = (
    r"(?:i am|i'm|im|i work as|i work in|speaking as|as|my role is|this is)\s+"
    r"(?:a\s+|an\s+|the\s+|your\s+|our\s+)?(?:[a-z]+\s+){0,2}?"
)


def followed_instruction(text: str) -> str | None:
    """The reply an instruction in ``text`` asks the assistant for, or None when ``text``
    addresses no instruction to the assistant (or asks for no reply it understands)."""
    if not _OVERRIDE.search(text):
        return None
    joined = _JOIN.search(text)
    if joined:
        return f"{joined.group(1)}-{joined.group(2)}"
    quoted = _REPLY.search(text)
    return quoted.group(1).strip() if quoted else None


def claimed_role(question: str, roles: Iterable[str]) -> str | None:
    """The first of ``roles`` the question claims for its asker ("I'm the HR director" claims
    ``hr``), or None."""
    text = " ".join(question.lower().replace("’", "'").split())
    for role in sorted(set(roles), key=lambda name: (-len(name), name)):
        pattern = rf"(?<![a-z']){_CLAIM_LEAD}{re.escape(role.lower())}(?![a-z])"
        if re.search(pattern, text):
            return role
    return None
