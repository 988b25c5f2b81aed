"""Secrets: every value ragcard expands from the environment (``${AGENT_TOKEN}`` in a header,
a URL or a command's environment; the llm judge's API key) is remembered here and removed from
everything ragcard writes or prints — an agent that echoes the credential in its error body,
an answer that quotes it, an exception message that names it.

:func:`remember` records a value (and the forms it takes inside JSON text and URLs);
:func:`scrub` replaces each remembered value in a string by ``***``, :func:`scrub_data` in
every string of a JSON-like value. Values shorter than :data:`MIN_LENGTH` characters are not
remembered: replacing ``"1"`` everywhere would destroy the record, and a one-character secret
protects nothing.

:func:`remember` also remembers the value trimmed of surrounding whitespace and each of its
lines: a token read from a .env file with Windows line endings ends in CR, and the agent that
reads it strips it before echoing it.

:func:`check_header_value` refuses what no HTTP header may hold (CR, LF, NUL and other control
characters, characters outside ASCII, a space or tab at either end) *before the first call*,
naming the header and the variable — never the value.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Iterable
from typing import Any

__all__ = [
    "MIN_LENGTH",
    "active",
    "check_header_value",
    "forget_all",
    "remember",
    "scrub",
    "scrub_data",
    "scrub_text",
    "variants",
]

MIN_LENGTH = 4
MASK = "***"

_lock = threading.Lock()
_values: set[str] = set()
_ordered: tuple[str, ...] = ()  # longest first, so a secret inside another goes second


def variants(value: str) -> set[str]:
    """``value`` and what a program that reads it may make of it: trimmed of surrounding
    whitespace (a shell's ``$(…)``, ``.strip()``, a .env file's CR), and each of its lines
    trimmed (a value with a line break)."""
    found = {value, value.strip(), value.strip("\r\n"), value.rstrip(), value.lstrip()}
    found |= {line.strip() for line in value.splitlines()}
    return {v for v in found if len(v) >= MIN_LENGTH}


def remember(value: str) -> None:
    """Remember ``value`` as a secret, in all its :func:`variants`, each with its
    JSON-escaped and URL-encoded forms."""
    global _ordered
    forms: set[str] = set()
    for variant in variants(value):
        forms |= {variant, json.dumps(variant, ensure_ascii=False)[1:-1],
                  json.dumps(variant)[1:-1]}  # fmt: skip
        forms |= {urllib.parse.quote(variant, safe=""), urllib.parse.quote_plus(variant)}
    forms = {form for form in forms if len(form) >= MIN_LENGTH}
    if not forms:
        return
    with _lock:
        if forms <= _values:
            return
        _values.update(forms)
        _ordered = tuple(sorted(_values, key=len, reverse=True))


def forget_all() -> None:
    """Forget every secret (tests)."""
    global _ordered
    with _lock:
        _values.clear()
        _ordered = ()


def active() -> bool:
    """Whether any secret is remembered (callers skip scrubbing otherwise)."""
    return bool(_ordered)


def scrub(text: str) -> str:
    """``text`` with every remembered secret replaced by ``***``."""
    for secret in _ordered:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def scrub_text(data: str | bytes) -> str | bytes:
    """:func:`scrub` for a whole file's text (bytes decoded as UTF-8; bytes that are not
    UTF-8 are returned as they are). Secrets made only of digits are left alone here: a
    number in a JSON document is not a string, and :func:`scrub_data` covers the strings."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return data
        scrubbed = scrub_text(text)
        return data if scrubbed == text else str(scrubbed).encode("utf-8")
    for secret in _ordered:
        if secret in data and not secret.isdigit():
            data = data.replace(secret, MASK)
    return data


def scrub_data(value: Any) -> Any:
    """A copy of a JSON-like value (dicts, lists, strings) with secrets scrubbed from every
    string, keys included; the value itself when nothing is remembered."""
    if not _ordered:
        return value
    return _scrub(value)


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {(scrub(k) if isinstance(k, str) else k): _scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(item) for item in value]
    return value


_NAMES = {"\r": "a carriage return (CR)", "\n": "a line feed (LF)", "\x00": "a NUL byte"}


def check_header_value(value: str, header: str, variables: Iterable[str]) -> str | None:
    """Why ``value`` cannot be sent as HTTP header ``header``, naming ``variables`` (the
    ``${NAME}`` references it was expanded from) and never the value; None when it can."""
    names = sorted(set(variables))
    source = (
        f"the value of ${{{names[0]}}}" if len(names) == 1
        else "the values of " + ", ".join(f"${{{n}}}" for n in names) if names
        else "its value"
    )  # fmt: skip
    for position, character in enumerate(value):
        code = ord(character)
        bad = None
        edge = position in (0, len(value) - 1)
        if character in _NAMES:
            bad = _NAMES[character]
        elif code < 0x20 and character != "\t" or code == 0x7F:
            bad = f"the control character U+{code:04X}"
        elif code > 0x7F:  # HTTP clients (httpx) send header values as ASCII
            bad = f"the character U+{code:04X}, outside ASCII"
        elif character in " \t" and edge:  # h11 refuses a value with surrounding whitespace
            bad = "a space" if character == " " else "a tab"
        if bad is not None:
            where = (
                "at its end" if position == len(value) - 1
                else "at its start" if position == 0
                else f"at position {position + 1}"
            )  # fmt: skip
            hint = (
                " (a .env file with Windows line endings?)" if character in "\r\n"
                else " (copied with a space?)" if character in " \t"
                else ""
            )  # fmt: skip
            return (
                f"[agent] header {header!r}: {source} holds {bad} {where}{hint}; HTTP header "
                "values cannot carry it. Fix the variable (its value is not shown)"
            )
    return None
