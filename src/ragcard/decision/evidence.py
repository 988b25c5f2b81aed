"""Enough evidence to decide: a question set too small to measure cannot ship.

A category under ``min_items`` items (20 by default: one failure then moves its rate by at
most 5 points) is what ``ragcard questions check`` calls BLOCKED; a run on such a set holds,
and the reason says how many items each category still needs (docs/metrics.md#decision).
A set with no categories is judged as one group. The minimum can be lowered only in the
thresholds file, with a reason (``[evidence] min_items``), so the relaxation is written
before the run and recorded with the thresholds' hash.

A graded gate met only at its point estimate (its 95% interval straddles the line) does not
hold the run, but the note says about how many items would tell (:func:`items_to_tell`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

__all__ = ["MIN_ITEMS", "UNCATEGORISED", "items_to_tell", "small_categories", "too_small"]

#: Smallest category a rate may rest on (one failure moves it by at most 5 points).
MIN_ITEMS = 20
UNCATEGORISED = "uncategorised"


def small_categories(categories: Iterable[str | None], min_items: int) -> dict[str, int]:
    """Each category with fewer than ``min_items`` items → its count, in first-seen order.
    Uncategorised items form a category of their own only when no item has one."""
    counts = Counter(category or UNCATEGORISED for category in categories)
    if len(counts) > 1:
        counts.pop(UNCATEGORISED, None)  # (questions check warns about them separately)
    return {name: n for name, n in counts.items() if n < min_items}


def too_small(categories: Iterable[str | None], min_items: int = MIN_ITEMS) -> str | None:
    """The hold reason for a set with categories under ``min_items`` items, else None."""
    small = small_categories(categories, min_items)
    if not small:
        return None
    needs = ", ".join(f"{name} {n} (+{min_items - n})" for name, n in small.items())
    missing = sum(min_items - n for n in small.values())
    return (
        f"too little evidence to decide: {len(small)} {_categories(len(small))} "
        f"fewer than {min_items} items ({needs}); add the {missing} item(s) shown, or lower "
        "[evidence] min_items in the thresholds file, with a reason (`ragcard questions check` "
        "lists them)"
    )


def _categories(count: int) -> str:
    return "category has" if count == 1 else "categories have"


def items_to_tell(value: float, bound: float, line: float, n: int) -> int | None:
    """About how many items would make an interval that reaches ``bound`` from ``value``
    clear ``line`` (its half-width shrinks as 1/√n); None when ``value`` is on the line."""
    gap = abs(value - line)
    if gap <= 0 or n <= 0:
        return None
    return math.ceil(n * (abs(value - bound) / gap) ** 2)
