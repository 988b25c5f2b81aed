"""Scorecard sections that stages after scoring add to the header: the blind review
(``review``, :mod:`ragcard.review`), the human baseline (``human_baseline``) and the label
amendments (``amendments``, :mod:`ragcard.goldset.labellog`). :func:`header_sections`
renders them for ``scorecard.md``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["amendment_lines", "header_sections", "human_lines"]


def _cell(value: object) -> str:
    text = "—" if value is None or value == "" else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def amendment_lines(amendments: list[dict[str, Any]]) -> list[str]:
    """The label amendments since the last shipped run, as a Markdown section."""
    lines = [
        "## Label amendments since the last shipped run",
        "",
        "Gold labels changed on purpose, each recorded with who and why "
        "(`ragcard questions amend`).",
        "",
        "| Item | Changed | From | To | By | Why | When |",
        "|---|---|---|---|---|---|---|",
    ]
    for a in amendments:
        shown = {k: json.dumps(a.get(k, {}), ensure_ascii=False) for k in ("from", "to")}
        lines.append(
            f"| {_cell(a.get('item'))} | {_cell(', '.join(a.get('fields', [])))} | "
            f"{_cell(shown['from'])} | {_cell(shown['to'])} | {_cell(a.get('by'))} | "
            f"{_cell(a.get('reason'))} | {_cell(a.get('at'))} |"
        )
    return lines


def human_lines(block: Mapping[str, Any]) -> list[str]:
    """The human baseline beside the agent, measure by measure."""
    lines = [
        "## Human baseline",
        "",
        str(block.get("line", "")),
        "",
        f"The people's answers ({_cell(block.get('responses'))}) scored with the same rubric, "
        f"layers and judge; their run: `{_cell(block.get('folder'))}` (decision "
        f"{block.get('decision')}; `ragcard compare` it with this run for the paired tests).",
        "",
        "| Measure | People | Agent | Items | Agent vs people |",
        "|---|---|---|---|---|",
    ]
    for row in block.get("measures", []):
        lines.append(
            f"| `{row['name']}` | {row['people']:.3f} | {row['agent']:.3f} | {row['n']} | "
            f"{_cell(row.get('verdict'))} |"
        )
    return lines


def header_sections(header: Mapping[str, Any]) -> list[str]:
    """The Markdown sections of the header blocks present (none: an empty list)."""
    from ragcard.review.render import review_markdown

    out: list[str] = []
    amendments = header.get("amendments")
    if isinstance(amendments, list) and amendments:
        out += ["", *amendment_lines(amendments)]
    review = header.get("review")
    if isinstance(review, Mapping):
        out += ["", *review_markdown(review)]
    human = header.get("human_baseline")
    if isinstance(human, Mapping):
        out += ["", *human_lines(human)]
    return out
