"""Plain-text rendering of a meta-evaluation (kept apart from the report data it shows)."""

from __future__ import annotations

from ragcard.judges.metaeval.evaluate import BreakdownRow, DatasetReport, MetaEvaluation
from ragcard.judges.metaeval.metrics import MetricEstimate
from ragcard.report.kappa import kappa_reading

__all__ = ["format_meta_evaluation"]

_LABELS = {
    "balanced_accuracy": "balanced accuracy",
    "f1_unsupported": "F1 (unsupported)",
    "f1_supported": "F1 (supported)",
    "accuracy": "accuracy",
    "auroc": "AUROC",
    "kappa": "Cohen's kappa",
}


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _metric_line(metric: MetricEstimate) -> str:
    interval = f"  [{metric.ci[0]:.3f}, {metric.ci[1]:.3f}]" if metric.ci else ""
    reading = ""
    if metric.name == "kappa" and metric.value is not None:  # Landis & Koch's words
        reading = f"  {kappa_reading(metric.value)} agreement"
    label = _LABELS.get(metric.name, metric.name)
    return f"    {label:<19}{_number(metric.value)}{interval}{reading}"


def _threshold_line(report: DatasetReport) -> str:
    choice = report.threshold
    value = "judge's labels" if choice.value is None else f"{choice.value:.4f}"
    return f"  threshold: {value} — {choice.source}"


def _breakdown_lines(rows: tuple[BreakdownRow, ...]) -> list[str]:
    lines: list[str] = []
    for by in dict.fromkeys(row.by for row in rows):
        lines.append(f"  by {by}:")
        for row in (r for r in rows if r.by == by):
            lines.append(
                f"    {row.key:<42} n={row.n:<5} human supported {row.human_supported:.0%}  "
                f"acc {_number(row.accuracy)}  bal.acc {_number(row.balanced_accuracy)}  "
                f"kappa {_number(row.kappa)}"
                + (f" ({kappa_reading(row.kappa)})" if row.kappa is not None else "")
            )
    return lines


def format_report(report: DatasetReport, breakdowns: bool = True) -> str:
    """One dataset's (or the pool's) figures, with the references next to them."""
    c = report.confusion
    lines = [
        f"{report.title}  [{report.name}]",
        f"  split: {report.split_rule}",
        _threshold_line(report),
        f"  n = {report.n_reported} reported   judge failures: {report.failures}",
        *(f"    {count} × {reason}" for reason, count in report.failure_reasons),
        *(_metric_line(m) for m in report.metrics.values()),
        "  confusion (human rows × judge columns): supported / not supported",
        f"    human supported       {c['tp']:>6} {c['fn']:>6}",
        f"    human not supported   {c['fp']:>6} {c['tn']:>6}",
    ]
    dataset = report.dataset
    if dataset is not None and dataset.references:
        lines.append("  reference figures (not ours; population as stated):")
        for ref in dataset.references:
            shown = " · ".join(f"{_LABELS.get(k, k)} {v:.3f}" for k, v in ref.metrics.items())
            lines.append(f"    {ref.system:<36} {shown}")
            lines.append(f"      on {ref.population}; {ref.source}")
    if breakdowns:
        lines += _breakdown_lines(report.breakdowns)
    if dataset is not None:
        lines += [f"  note: {note}" for note in dataset.notes]
        lines.append(f"  data licence: {dataset.licence}")
        lines.append(f"  credit: {dataset.credit}")
    return "\n".join(lines)


def format_meta_evaluation(evaluation: MetaEvaluation, breakdowns: bool = True) -> str:
    """The whole meta-evaluation: the judge, each dataset, then the pool."""
    identity = evaluation.judge
    threshold = "none" if identity.threshold is None else f"{identity.threshold:g}"
    header = [
        f"judge: {identity.name} (model {identity.model or '-'}, configured threshold "
        f"{threshold}) · {evaluation.date}",
        "positive class for the confusion matrix: supported; intervals: 95% bootstrap (seeded)",
    ]
    blocks = ["\n".join(header)]
    blocks += [format_report(report, breakdowns) for report in evaluation.reports]
    if evaluation.overall is not None:
        blocks.append(format_report(evaluation.overall, breakdowns=False))
    blocks += [f"note: {note}" for note in evaluation.notes]
    return "\n\n".join(blocks) + "\n"
