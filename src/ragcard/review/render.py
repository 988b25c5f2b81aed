"""The blind review as the scorecard shows it: one line, and a Markdown section."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

__all__ = ["review_line", "review_markdown"]


def _cell(value: object) -> str:
    text = "—" if value is None or value == "" else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def review_line(block: Mapping[str, Any]) -> str:
    """'blind review (packet pk-…, 2 reviewers): 48 answers rated — 45 accurate, 2 minor,
    1 wrong (1 policy); controls 5/5 accurate; κ 0.71'."""
    measures = block.get("measures", {})
    count = {r: int(measures.get(f"review_{r}", {}).get("value", 0)) for r in
             ("accurate", "minor", "wrong")}  # fmt: skip
    categories = Counter(w.get("category") or "uncategorised" for w in block.get("wrong", []))
    where = ", ".join(f"{n} {c}" for c, n in sorted(categories.items()))
    reviewers = block.get("reviewers", [])
    parts = [
        f"blind review (packet {block.get('packet')}, {len(reviewers)} reviewer"
        f"{'' if len(reviewers) == 1 else 's'}): {block.get('rated', 0)} answers rated — "
        f"{count['accurate']} accurate, {count['minor']} minor, {count['wrong']} wrong"
        + (f" ({where})" if where else "")
    ]
    control = measures.get("review_control_agreement")
    if control:
        agreed = round(control["value"] * control["n"])
        parts.append(f"controls {agreed}/{control['n']} rated accurate")
    kappa = measures.get("review_kappa")
    parts.append(f"κ {kappa['value']:.2f}" if kappa else "κ n/a")
    judge = measures.get("judge_human_agreement")
    if judge:
        parts.append(f"judge-human κ {judge['value']:.2f} (n={judge['n']})")
    open_items = [w["item"] for w in block.get("wrong", []) if not w.get("action")]
    if open_items:
        parts.append(f"{len(open_items)} wrong without an action")
    after = block.get("after_ship")
    if after:  # a shipped run's decision changed by this import: said on every surface
        parts.append(f"imported after the run shipped: decision {after['was']} → "
                     f"{after['now']} by {after['by']} ({after['reason']})")  # fmt: skip
    return "; ".join(parts)


def review_markdown(block: Mapping[str, Any]) -> list[str]:
    """The scorecard's "Blind review" section."""
    lines = ["## Blind review", "", review_line(block), ""]
    lines.append(
        f"Packet `{block.get('packet')}`, imported {block.get('imported_at')} by "
        f"{_cell(block.get('imported_by'))}; reviewers: "
        f"{', '.join(block.get('reviewers', [])) or '—'}. An answer counts at the most "
        "severe rating any reviewer gave it; controls (authored answers) are excluded from the "
        "counts."
    )
    for name, reason in block.get("unscored", {}).items():
        lines.append(f"- `{name}` not scored: {_cell(reason)}")
    for pair in block.get("pairs", []):
        kappa = "n/a" if pair.get("kappa") is None else f"{pair['kappa']:.2f}"
        lines.append(
            f"- {' & '.join(pair['reviewers'])}: κ {kappa}, agreed on {pair['agreed']} of "
            f"{pair['n']} answers both rated"
        )
    for note in block.get("notes", []):
        lines.append(f"- {_cell(note)}")
    wrong = block.get("wrong", [])
    if wrong:
        lines += [
            "",
            "Every answer rated wrong must become a corpus fix, a rule or an authored answer "
            "before the run ships:",
            "",
            "| Item | Category | Must-pass | Rated wrong by | Comments | Action |",
            "|---|---|---|---|---|---|",
        ]
        for w in wrong:
            action = w.get("action")
            shown = (
                f"{action['action']} by {action['by']}: {action['why']}"
                if action
                else "**none yet — ship is refused**"
            )
            lines.append(
                f"| {_cell(w['item'])} | {_cell(w.get('category'))} | "
                f"{'yes' if w.get('must_pass') else ''} | {_cell(', '.join(w['reviewers']))} | "
                f"{_cell(' / '.join(w.get('comments', [])))} | {_cell(shown)} |"
            )
    return lines
