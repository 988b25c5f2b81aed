"""The signed bytes are RFC 8785 (JCS) canonical JSON, checked against the RFC's own vectors."""

from __future__ import annotations

import json
import struct

import pytest

from ragcard.outputs._signing_files import canonical


def test_the_rfc_8785_section_3_2_2_example() -> None:
    text = (
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
        ' "literals": [null, true, false]}'
    )
    expected = (
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    )
    assert canonical(json.loads(text)) == expected.encode("utf-8")


def test_the_rfc_8785_section_3_2_3_sorting_example() -> None:
    keys = ["\u20ac", "\r", "\ufb33", "1", "\U0001f600", "\u0080", "\u00f6"]
    value = {key: "x" for key in keys}
    ordered = list(json.loads(canonical(value)))
    assert ordered == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]


@pytest.mark.parametrize(
    ("ieee", "expected"),
    [  # RFC 8785 Appendix B
        ("0000000000000000", "0"), ("8000000000000000", "0"),
        ("0000000000000001", "5e-324"), ("8000000000000001", "-5e-324"),
        ("7fefffffffffffff", "1.7976931348623157e+308"),
        ("ffefffffffffffff", "-1.7976931348623157e+308"),
        ("4340000000000000", "9007199254740992"), ("c340000000000000", "-9007199254740992"),
        ("4430000000000000", "295147905179352830000"),
        ("44b52d02c7e14af5", "9.999999999999997e+22"), ("44b52d02c7e14af6", "1e+23"),
        ("44b52d02c7e14af7", "1.0000000000000001e+23"),
        ("444b1ae4d6e2ef4e", "999999999999999700000"),
        ("444b1ae4d6e2ef4f", "999999999999999900000"), ("444b1ae4d6e2ef50", "1e+21"),
        ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"), ("3eb0c6f7a0b5ed8d", "0.000001"),
        ("41b3de4355555553", "333333333.3333332"), ("41b3de4355555554", "333333333.33333325"),
        ("41b3de4355555555", "333333333.3333333"), ("41b3de4355555556", "333333333.3333334"),
        ("41b3de4355555557", "333333333.33333343"),
        ("becbf647612f3696", "-0.0000033333333333333333"),
        ("43143ff3c1cb0959", "1424953923781206.2"),
    ],
)  # fmt: skip
def test_the_rfc_8785_appendix_b_numbers(ieee: str, expected: str) -> None:
    (number,) = struct.unpack(">d", bytes.fromhex(ieee))
    assert canonical(number) == expected.encode()


@pytest.mark.parametrize("ieee", ["7fffffffffffffff", "7ff0000000000000"])  # NaN, Infinity
def test_non_finite_numbers_have_no_canonical_form(ieee: str) -> None:
    (number,) = struct.unpack(">d", bytes.fromhex(ieee))
    with pytest.raises(ValueError):
        canonical(number)


def test_what_python_json_writes_differently_is_canonical_here() -> None:
    """The audit's cases: json.dumps writes 1.0, 1e-07 and NaN; JCS 1, 1e-7 and refuses."""
    assert canonical({"b": 1.0, "a": 0.1 + 0.2}) == b'{"a":0.30000000000000004,"b":1}'
    assert canonical({"y": 1e-7}) == b'{"y":1e-7}'
    assert list(json.loads(canonical({"\ue000": 1, "\U0001f600": 2}))) == ["\U0001f600", "\ue000"]
