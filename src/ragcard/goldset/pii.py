"""Remove personal data from logged questions before anyone labels them.

Each match is replaced with a typed placeholder — ``[EMAIL]``, ``[PHONE]``, ``[ID]``,
``[NAME]`` — and counted by kind. Rules run in a fixed order, most specific first, so that a
card number is never half-eaten by the phone rule.

What the rules see:

- e-mail addresses;
- IBANs (mod-97 checked), payment card numbers (13–19 digits, Luhn checked), US social
  security numbers (``123-45-6789``), UK National Insurance numbers (``QQ 12 34 56 C``);
- phone numbers written internationally (``+44 …``, ``0044 …``) or in the national form of
  the UK and most of the EU (a leading 0, 9–12 digits); dates and times are left alone;
- names introduced by "my name is", "I'm", "I am", "this is", "call me", after a title
  ("Dr", "Mrs") or in a salutation or sign-off ("Dear X", "Hi X,", "Thanks, X").

:data:`LIMITATIONS` says what they cannot see; a human still reads the sample before it is
shared.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["LIMITATIONS", "PLACEHOLDERS", "Redaction", "luhn_valid", "redact_pii"]

#: Kind of personal data → placeholder written in its place.
PLACEHOLDERS = {
    "email": "[EMAIL]",
    "iban": "[ID]",
    "card": "[ID]",
    "us_ssn": "[ID]",
    "uk_ni": "[ID]",
    "phone": "[PHONE]",
    "name": "[NAME]",
}

LIMITATIONS = (
    "names without an introducing phrase ('ask Sarah about it'), in lower case, or standing "
    "alone as a surname are not seen",
    "'I'm', 'I am' and 'this is' count only at the start of a sentence or clause; there a "
    "capitalised word after them is taken for a name ('I'm Irish'): over-redaction, the "
    "safe side",
    "street addresses, postcodes, dates of birth, employee or order numbers, licence plates "
    "and passport numbers are not removed",
    "phone numbers in national formats outside the UK/EU without a leading 0 or '+' "
    "(e.g. US '555-123-4567') are not seen",
    "National Insurance numbers written in lower case, and identifiers of other countries, "
    "are not seen",
)


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum used by payment card numbers."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _iban_valid(text: str) -> bool:
    compact = text.replace(" ", "").upper()
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return 15 <= len(compact) <= 34 and int(number) % 97 == 1


def _card_valid(text: str) -> bool:
    digits = _digits(text)
    return 13 <= len(digits) <= 19 and luhn_valid(digits)


def _ssn_valid(text: str) -> bool:
    digits = _digits(text)
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


_NI_BAD_PREFIXES = {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}


def _ni_valid(text: str) -> bool:
    prefix = text[:2]
    return (
        prefix not in _NI_BAD_PREFIXES and prefix[0] not in "DFIQUV" and prefix[1] not in "DFIOQUV"
    )


_DATE = re.compile(r"^(?:\d{1,2}([./-])\d{1,2}\1(?:\d{4}|\d{2})|\d{4}([./-])\d{1,2}\2\d{1,2})$")


def _phone_valid(text: str) -> bool:
    candidate = text.strip()
    if _DATE.match(candidate):
        return False
    digits = _digits(candidate)
    if candidate.startswith("+"):
        return 8 <= len(digits) <= 15
    if digits.startswith("00"):
        return 10 <= len(digits) <= 17
    return digits.startswith("0") and 9 <= len(digits) <= 12


_Rule = tuple[str, re.Pattern[str], Callable[[str], bool] | None]

_RULES: tuple[_Rule, ...] = (
    ("email", re.compile(r"[\w.%+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b"), None),
    (
        "iban",
        re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"),
        _iban_valid,
    ),
    (
        "card",
        re.compile(
            r"(?<![\d+])(?:[2-6]\d{3}([ -]?)\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?"
            r"|3[47]\d{2}([ -]?)\d{6}\2\d{5}|[2-6]\d{12,18})(?!\d)"
        ),
        _card_valid,
    ),
    ("us_ssn", re.compile(r"(?<![\d-])\d{3}([- ])\d{2}\1\d{4}(?![\d-])"), _ssn_valid),
    ("uk_ni", re.compile(r"\b[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"), _ni_valid),
    (
        "phone",
        re.compile(
            # Not a date: a phone number never starts where a date does.
            r"(?<![\w+./-])(?!\d{1,2}([./-])\d{1,2}\1(?:\d{4}|\d{2})(?![./-]?\d))"
            r"(?!\d{4}([./-])\d{1,2}\2\d{1,2}(?!\d))"
            r"(?:\+ ?|\()?\d(?:[ ().\-/]{0,2}\d){7,17}\)?(?![\w:])"
        ),
        _phone_valid,
    ),
)

# Names: a capitalised word (any script), up to three of them.
_NAME_WORD = r"[^\W\d_][\w'’-]*"
_NAME = rf"(?P<name>{_NAME_WORD}(?: {_NAME_WORD}){{0,2}})"
_START = r"(?:^|(?<=[.!?,;:]) ?)"
_NAME_RULES = (
    re.compile(rf"\b(?i:my name is|my name's|call me) {_NAME}"),
    re.compile(rf"{_START}(?i:i'm|i’m|i am|this is) {_NAME}"),
    re.compile(rf"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.? {_NAME}"),
    re.compile(rf"{_START}(?:Hi|Hello|Hey) {_NAME}(?=[,!:]| [-–—])"),
    re.compile(rf"{_START}Dear {_NAME}"),
    re.compile(
        rf"{_START}(?i:thanks|thank you|regards|kind regards|best wishes|cheers|best),? "
        rf"{_NAME}[.!]?$"
    ),
)
# Capitalised words that follow those phrases without being names.
_NOT_NAMES = frozenset(
    """
    a an the i i'm not just so very really still also currently here there back new sure sorry
    afraid able unable going trying looking writing asking wondering working leaving based
    off on in at from with for about regarding re urgent please thanks thank hello hi hey good
    morning afternoon evening all team everyone everybody folks colleagues sir madam
    manager hr it support admin pregnant sick ill unwell part full monday tuesday wednesday
    thursday friday saturday sunday january february march april may june july august
    september october november december
    """.split()
)


def _is_name_word(word: str) -> bool:
    return word[0].isupper() and not word.isupper() and word.casefold() not in _NOT_NAMES


def _name_span(match: re.Match[str]) -> tuple[int, int] | None:
    """The span of the leading run of name words in the match, or ``None``."""
    start = match.start("name")
    end = start
    for word in match.group("name").split(" "):
        if not _is_name_word(word.rstrip("'’-")):
            break
        end += len(word) + (1 if end > start else 0)
    return (start, end) if end > start else None


@dataclass(frozen=True, slots=True)
class Redaction:
    """A text with its personal data replaced, and how many of each kind were removed."""

    text: str
    counts: Counter[str]


def _replace(text: str, spans: list[tuple[int, int, str]]) -> str:
    for start, end, placeholder in sorted(spans, reverse=True):
        text = text[:start] + placeholder + text[end:]
    return text


def redact_pii(text: str) -> Redaction:
    """Replace personal data in ``text`` with typed placeholders (see the module docstring)."""
    counts: Counter[str] = Counter()
    for kind, pattern, valid in _RULES:
        spans = [
            (m.start(), m.end(), PLACEHOLDERS[kind])
            for m in pattern.finditer(text)
            if valid is None or valid(m.group(0))
        ]
        counts[kind] += len(spans)
        text = _replace(text, spans)
    names: list[tuple[int, int, str]] = []
    for pattern in _NAME_RULES:
        for match in pattern.finditer(text):
            span = _name_span(match)
            if span and not any(s < span[1] and span[0] < e for s, e, _ in names):
                names.append((*span, PLACEHOLDERS["name"]))
    counts["name"] += len(names)
    return Redaction(_replace(text, names), +counts)
