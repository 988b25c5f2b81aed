"""Plain-text renderings of the golden-set reports (the data lives in the report objects;
``to_dict()`` gives the JSON form)."""

from __future__ import annotations

from collections.abc import Sequence

from ragcard.goldset.agreement import AgreementReport, ItemLabels
from ragcard.goldset.check import CheckReport
from ragcard.goldset.findings import Finding
from ragcard.goldset.importing import ImportResult
from ragcard.goldset.split import SplitPlan
from ragcard.report.kappa import kappa_reading

__all__ = ["render_agreement", "render_check", "render_import", "render_split"]

_ITEMS_SHOWN = 12


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _number(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _reading(kappa: float | None) -> str:
    """' (moderate)': Landis & Koch's word for κ, when there is one."""
    return "" if kappa is None else f" ({kappa_reading(kappa)})"


def _items(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_ITEMS_SHOWN])
    if len(items) > _ITEMS_SHOWN:
        shown += f", … ({len(items)} items)"
    return shown


def _finding(finding: Finding) -> str:
    text = f"  [{finding.severity}] {finding.code}: {finding.message}"
    return text + (f"\n      items: {_items(finding.items)}" if finding.items else "")


def render_check(report: CheckReport) -> str:
    """The composition table, then every finding, then the verdict."""
    kit = report.targets.kit or "none"
    lines = [
        f"{report.source}: {report.total} items; kit {kit}; targets from {report.targets.source}",
        "",
        f"{'category':<16}{'items':>6}{'share':>8}{'target':>8}{'held out':>14}{'must-pass':>11}",
    ]
    for row in report.categories:
        held = f"{row.heldout} ({row.heldout_share:.0%})"
        lines.append(
            f"{row.category:<16}{row.count:>6}{row.share:>8.1%}{_percent(row.target):>8}"
            f"{held:>14}{row.must_pass:>11}"
        )
    share = report.heldout / report.total if report.total else 0.0
    held = f"{report.heldout} ({share:.0%})"
    lines.append(f"{'total':<16}{report.total:>6}{'':>16}{held:>14}{report.must_pass:>11}")
    lines.append("")
    if report.reuse is None:
        lines.append("gold wording not checked (no --corpus given)")
    lines.append(
        f"{len(report.duplicates)} duplicate group(s), {len(report.near_duplicates)} "
        f"near-duplicate pair(s)"
        + ("" if report.reuse is None else f", {len(report.reuse)} question(s) reuse gold wording")
    )
    lines += [_finding(finding) for finding in report.findings]
    verdict = "BLOCKED" if report.blocking else "OK"
    lines.append(
        f"\n{verdict}: {len(report.blocking)} blocking finding(s), "
        f"{len(report.warnings)} warning(s)"
    )
    return "\n".join(lines) + "\n"


def render_split(plan: SplitPlan, written_to: str | None) -> str:
    """Held-out share per category against its target, and what changed."""
    lines = [
        f"{plan.source}: {plan.total} items, salt {plan.salt!r}",
        f"{'category':<16}{'items':>6}{'held out':>10}{'share':>8}{'target':>8}{'kept':>6}"
        f"{'drawn':>7}",
    ]
    for row in plan.rows:
        lines.append(
            f"{row.category:<16}{row.count:>6}{row.heldout:>10}{row.share:>8.1%}"
            f"{row.target:>8.1%}{row.kept:>6}{row.assigned:>7}"
        )
    share = plan.heldout / plan.total if plan.total else 0.0
    lines.append(f"{'total':<16}{plan.total:>6}{plan.heldout:>10}{share:>8.1%}")
    changed = f"{len(plan.changed)} item(s) changed"
    if plan.changed:
        changed += f": {_items(plan.changed)}"
    lines.append(changed)
    if written_to:
        lines.append(f"wrote {written_to}")
    return "\n".join(lines) + "\n"


def _labels(item: ItemLabels) -> str:
    parts = [
        f"{by}: answerable={answerable}, gold=[{', '.join(gold)}]"
        for by, answerable, gold in item.labels
    ]
    return "; ".join(parts)


def render_agreement(report: AgreementReport) -> str:
    """Pairwise κ and gold agreement, then open disagreements, then resolved items."""
    lines = [f"{report.source}: {report.labelled} item(s) with two or more labels"]
    for pair in report.pairs:
        lines.append(
            f"  {pair.first} vs {pair.second}: {pair.items} shared item(s); answerable κ "
            f"{_number(pair.kappa)}{_reading(pair.kappa)} "
            f"(raw agreement {_percent(pair.answerable_agreement)}, "
            f"{pair.answerable_items} item(s)); gold Jaccard {_number(pair.gold_jaccard)}, "
            f"exact {_percent(pair.gold_exact)} ({pair.gold_items} item(s))"
        )
    if report.pairs:
        lines.append(
            f"  all pairs: gold Jaccard {_number(report.gold_jaccard)}, "
            f"exact {_percent(report.gold_exact)}"
        )
    lines.append(f"\nopen disagreements ({len(report.disagreements)}):")
    for item in report.disagreements:
        where = f" (line {item.line})" if item.line else ""
        lines.append(f"  {item.item}{where} — {', '.join(item.differs)}: {_labels(item)}")
    lines.append(f"\nresolved ({len(report.resolved)}):")
    for item in report.resolved:
        resolution = item.resolution
        if resolution is not None:
            lines.append(f"  {item.item} — by {resolution.by}: {resolution.reason}")
    return "\n".join(lines) + "\n"


def render_import(result: ImportResult, written_to: str | None) -> str:
    """What was read, removed and drawn, and what the personal-data rules cannot see."""
    removed = ", ".join(f"{kind} {n}" for kind, n in sorted(result.removed.items())) or "none"
    lines = [
        f"{result.source}: {result.rows} row(s); {result.missing} without a question, "
        f"{result.empty} empty",
        f"duplicates removed: {result.exact_duplicates} exact, {result.near_duplicates} near",
        f"personal data removed: {removed}",
        f"{result.unique} unique question(s); sampled {len(result.questions)} "
        f"({result.sampling}, seed {result.seed})",
    ]
    if result.quotas:
        sampled = result.sampled_by_category()
        for name, quota in result.quotas.items():
            lines.append(f"  {name:<16} quota {quota:>4}  drawn {sampled.get(name, 0):>4}")
    lines.append("not detected (check the sample by eye):")
    lines += [f"  - {limitation}" for limitation in result.limitations]
    if written_to:
        lines.append(f"wrote {written_to}")
    return "\n".join(lines) + "\n"
