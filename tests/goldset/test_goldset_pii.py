"""Personal data removal: each kind with positives and look-alikes that must survive."""

from __future__ import annotations

import pytest

from ragcard.goldset import luhn_valid, redact_pii

POSITIVES = [
    ("email", "write to jane.doe+hr@example.co.uk today", "write to [EMAIL] today"),
    ("email", "Mail: J_Smith@mail-server.org.", "Mail: [EMAIL]."),
    ("phone", "call +44 20 7946 0958 now", "call [PHONE] now"),
    ("phone", "call +44 (0)20 7946 0958", "call [PHONE]"),
    ("phone", "ring 0044 20 7946 0958", "ring [PHONE]"),
    ("phone", "my mobile is 07700 900123.", "my mobile is [PHONE]."),
    ("phone", "office (020) 7946 0958", "office [PHONE]"),
    ("phone", "Paris 01 23 45 67 89", "Paris [PHONE]"),
    ("phone", "portable 06.12.34.56.78", "portable [PHONE]"),
    ("phone", "Berlin 030 1234567", "Berlin [PHONE]"),
    ("phone", "Amsterdam 06-12345678", "Amsterdam [PHONE]"),
    ("phone", "+33 6 12 34 56 78", "[PHONE]"),
    ("phone", "on 03/04/2024 call 020 7946 0958", "on 03/04/2024 call [PHONE]"),
    ("uk_ni", "NI number AB 12 34 56 C", "NI number [ID]"),
    ("uk_ni", "NI JG103725D please", "NI [ID] please"),
    ("us_ssn", "SSN 123-45-6789", "SSN [ID]"),
    ("iban", "IBAN GB82 WEST 1234 5698 7654 32 thanks", "IBAN [ID] thanks"),
    ("iban", "DE89370400440532013000", "[ID]"),
    ("card", "card 4111 1111 1111 1111 declined", "card [ID] declined"),
    ("card", "5555-5555-5555-4444", "[ID]"),
    ("card", "amex 378282246310005", "amex [ID]"),
    ("card", "4012888888881881", "[ID]"),
    ("name", "Hi, my name is John Smith and I need help", "Hi, my name is [NAME] and I need help"),
    ("name", "I'm Priya, where is the form?", "I'm [NAME], where is the form?"),
    ("name", "Hello, this is Mark from payroll", "Hello, this is [NAME] from payroll"),
    ("name", "Dear Solène, can I carry over leave?", "Dear [NAME], can I carry over leave?"),
    ("name", "Hi Sarah, quick one", "Hi [NAME], quick one"),
    ("name", "Dr Okafor said I need a note", "Dr [NAME] said I need a note"),
    ("name", "Can I claim this? Thanks, Łukasz", "Can I claim this? Thanks, [NAME]"),
]


@pytest.mark.parametrize(("kind", "text", "expected"), POSITIVES)
def test_personal_data_is_replaced(kind: str, text: str, expected: str) -> None:
    redaction = redact_pii(text)
    assert redaction.text == expected
    assert redaction.counts == {kind: 1}


NEGATIVES = [
    "card 4111 1111 1111 1112 declined",  # fails the Luhn check
    "5555 5555 5555 4445",  # fails the Luhn check
    "on 2024-03-15 at 10:30",
    "from 15/03/2024 to 22/03/2024",
    "on 01-02-2024 10:30",
    "05.06.2023",
    "between 1840-1851",
    "03/04/2024 09:30",
    "order 123456789 costs £1,250.00",
    "version 1.2.3 of form HR-17",
    "SSN 000-12-3456 and 666-12-3456 are never issued",
    "QQ 12 34 56 C is the example NI number, never issued",
    "GB82 WEST 1234 5698 7654 33",  # fails mod-97
    "I did about 50 hours last week for a deadline",
    "I'm pregnant, when do I tell work?",
    "Dear Sir, what is the policy?",
    "Hi Can I get leave?",
    "Is this Harbour?",
    "what is the best Option here",
    "my name's anna",  # lower case: a documented blind spot
    "room 101, floor 3, ext 4",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_look_alikes_survive(text: str) -> None:
    redaction = redact_pii(text)
    assert redaction.text == text
    assert not redaction.counts


def test_counts_per_kind_in_one_text() -> None:
    text = "I'm Ana, a@b.io or b@c.io, +44 20 7946 0958, card 4111111111111111"
    redaction = redact_pii(text)
    assert redaction.text == "I'm [NAME], [EMAIL] or [EMAIL], [PHONE], card [ID]"
    assert redaction.counts == {"name": 1, "email": 2, "phone": 1, "card": 1}


@pytest.mark.parametrize(
    ("number", "valid"),
    [
        ("4111111111111111", True),
        ("4111111111111112", False),
        ("79927398713", True),
        ("79927398710", False),
        ("0", True),
    ],
)
def test_luhn(number: str, valid: bool) -> None:
    assert luhn_valid(number) is valid
