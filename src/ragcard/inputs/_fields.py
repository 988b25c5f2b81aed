"""Field types of what ragcard reads from files: strict, so nothing is quietly coerced.

pydantic's default ("lax") mode turns ``"yes"`` into ``True``, ``"0.9"`` into ``0.9`` and
``true`` into ``1``; a typo in an input file must be an error instead. The records of
``questions.jsonl``, ``corpus.jsonl`` and ``responses.jsonl`` and the tables of
``ragcard.toml`` and the thresholds file use these types for their booleans, numbers and dates:

* :data:`Flag` — ``true`` or ``false`` only;
* :data:`Whole` — a JSON/TOML integer only (not ``2.0``, ``"2"`` or ``true``);
* :data:`Number` — an integer or a float, finite (not ``"0.9"``, ``true``, ``NaN``, ``inf``);
* :data:`Day` — a date written ``YYYY-MM-DD`` (a string in JSON, a date in TOML), not a number.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import AllowInfNan, BeforeValidator, Strict

__all__ = ["Day", "Flag", "Number", "Whole"]

Flag = Annotated[bool, Strict()]
Whole = Annotated[int, Strict()]
Number = Annotated[float, Strict(), AllowInfNan(False)]


def _date_text(value: Any) -> Any:
    if isinstance(value, str | dt.date) and not isinstance(value, dt.datetime):
        return value
    raise ValueError("a date is written YYYY-MM-DD (a string in JSON), not a number or a time")


Day = Annotated[dt.date, BeforeValidator(_date_text)]
