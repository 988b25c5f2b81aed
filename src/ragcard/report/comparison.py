"""The regression gate's comparison as a pull-request comment (and cells for the terminal)."""

from __future__ import annotations

from ragcard.decision.baseline import Comparison, MeasureComparison

__all__ = ["format_measure", "render_comparison_markdown"]


def format_measure(m: MeasureComparison) -> tuple[str, str, str, str, str]:
    """Display cells for baseline, current, delta, 95% CI of the delta and p; shared by the
    markdown and terminal renderers."""
    delta = f"{m.delta:+g}" if m.kind == "count" else f"{m.delta:+.3f}"
    ci = "—" if m.ci is None else f"[{m.ci[0]:+.3f}, {m.ci[1]:+.3f}]"
    p = "—" if m.p_value is None else ("<0.001" if m.p_value < 0.001 else f"{m.p_value:.3f}")
    return m.show(m.baseline), m.show(m.current), delta, ci, p


_MARK = {"regressed": "❌ regressed", "worse": "⚠️ worse", "improved": "✅ improved"}


def _row(*cells: str) -> str:
    return "| " + " | ".join(x.replace("|", "\\|").replace("\n", " ") for x in cells) + " |"


def render_comparison_markdown(comparison: Comparison, max_flips: int = 50) -> str:
    """A summary for a pull-request comment: verdict, measures, flipped items, comparability."""
    c, b, n = comparison, comparison.baseline, comparison.current
    lines = [f"## ragcard regression gate: {'✅ pass' if c.gate == 'pass' else '❌ fail'}", ""]
    lines += [f"- {r}" for r in c.reasons] or ["No must-pass item and no measure regressed."]
    lines += [
        "", f"Baseline `{b.path}` ({b.decision}, {b.created_at}) → current `{n.path}` "
        f"({n.decision}, {n.created_at}): question set {n.questions_version}, "
        f"{c.items_compared} items compared, significance level {c.alpha:g}.", "",
        "### Measures", "",
        _row("Measure", "Baseline", "Current", "Δ", "95% CI of Δ", "p", "Tolerance", "Verdict"),
        "|---" * 8 + "|",
    ]  # fmt: skip
    for m in c.measures:
        name = f"`{m.name}` {'↑' if m.higher_is_better else '↓'}"
        verdict = f"{_MARK.get(m.verdict, m.verdict)}: {m.reason}"
        lines.append(_row(name, *format_measure(m), f"{m.tolerance:g}", verdict))
    down = len(c.regressions)
    lines += ["", f"### Flipped items: {down} pass→fail, {len(c.flips) - down} fail→pass", ""]
    if c.flips:
        lines += [_row("Item", "Category", "Must-pass", "Change", "Symptoms"), "|---" * 5 + "|"]
    for f in c.flips[:max_flips]:
        must = "**yes**" if f.must_pass else ""
        symptoms = "; ".join(f.symptoms) or "—"
        lines.append(_row(f"`{f.item}`", f.category or "—", must, f.change, symptoms))
    if len(c.flips) > max_flips:
        lines.append(f"\n… and {len(c.flips) - max_flips} more flipped item(s).")
    lines += [] if c.flips else ["No item changed verdict."]
    lines += ["", "### Comparability", ""]
    lines += [f"- {note}" for note in c.notes] or [
        f"- Same question set (sha256 {n.questions_sha256[:12]}), corpus {n.corpus_version}, "
        f"k={n.k}."
    ]
    return "\n".join(lines) + "\n"
