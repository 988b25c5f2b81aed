"""Plain words for the reports: settings as one line, measures as rows.

Shared by :mod:`.markdown` and :mod:`.terminal`, so a figure reads the same wherever it is
printed (κ readings: :mod:`.kappa`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ragcard.metrics.base import MetricValue, Unscored

__all__ = ["MeasureRow", "measure_rows", "plain_settings"]


def plain_settings(value: Any) -> str:
    """Settings as words for a header line: ``{"keyword": {"engine": "bm25s", "k1": 1.5}}`` →
    ``"keyword: engine bm25s, k1 1.5"``; lists joined by commas; never JSON, never escapes."""
    if isinstance(value, Mapping):
        parts = []
        for key, inner in value.items():
            if isinstance(inner, Mapping):
                parts.append(f"{key}: {_inner(inner)}")
            else:
                parts.append(f"{key} {_scalar(inner)}")
        return " · ".join(parts) if parts else "—"
    return _scalar(value)


def _inner(value: Mapping[str, Any]) -> str:
    return ", ".join(
        f"{key} ({_inner(inner)})" if isinstance(inner, Mapping) else f"{key} {_scalar(inner)}"
        for key, inner in value.items()
    )


def _scalar(value: Any) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(_scalar(v) for v in value) if value else "none"
    if isinstance(value, Mapping):
        return _inner(value)
    return str(value)


@dataclass(frozen=True, slots=True)
class MeasureRow:
    """One row of a measures table: the measure, the measures with the very same item values
    (shown with it, not as rows of their own), and the result."""

    layer: str
    name: str
    same: tuple[str, ...]
    result: MetricValue | Unscored


def measure_rows(
    metrics: Mapping[str, MetricValue | Unscored],
    layers: Mapping[str, str],
    same_as: Mapping[str, str],
) -> Iterator[MeasureRow]:
    """The measures in order, each measure that repeats an earlier one folded into its row."""
    twins: dict[str, list[str]] = {}
    for later, earlier in same_as.items():
        twins.setdefault(earlier, []).append(later)
    for name, result in metrics.items():
        if name in same_as and same_as[name] in metrics:
            continue
        yield MeasureRow(layers.get(name, ""), name, tuple(twins.get(name, ())), result)
