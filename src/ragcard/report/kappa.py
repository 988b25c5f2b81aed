"""Cohen's κ in plain words, beside the figure wherever one is printed.

A leaf module (no ragcard imports): the judge's calibration line, the labeller agreement
report and the scorecards all use it.
"""

from __future__ import annotations

__all__ = ["KAPPA_SCALE", "KAPPA_SOURCE", "kappa_reading", "with_kappa_reading"]

#: Landis & Koch (1977), "The measurement of observer agreement for categorical data": the
#: usual words for Cohen's κ. Upper bounds, inclusive, on κ rounded to two decimals; below 0
#: (agreement worse than chance) is "poor".
KAPPA_SCALE = (
    (0.20, "slight"),
    (0.40, "fair"),
    (0.60, "moderate"),
    (0.80, "substantial"),
    (1.0, "almost perfect"),
)
KAPPA_SOURCE = "Landis & Koch"


def kappa_reading(kappa: float | None) -> str:
    """``0.2`` → ``"slight"``, ``0.68`` → ``"substantial"``; ``"n/a"`` when κ is undefined.
    Below 0 (agreement worse than chance) is ``"poor"``."""
    if kappa is None or kappa != kappa:  # None or NaN
        return "n/a"
    shown = round(kappa, 2)
    if shown < 0:
        return "poor"
    for upper, word in KAPPA_SCALE:
        if shown <= upper:
            return word
    return KAPPA_SCALE[-1][1]


def with_kappa_reading(kappa: float | None, digits: int = 2) -> str:
    """``"0.20 (slight)"``: κ with its reading beside it."""
    if kappa is None or kappa != kappa:
        return "n/a"
    return f"{kappa:.{digits}f} ({kappa_reading(kappa)})"
