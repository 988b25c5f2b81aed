"""The scorecard on the terminal (rich): decision, thresholds, measures, top causes."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ragcard.metrics.base import MetricValue
from ragcard.report.markdown import format_value, judge_summary
from ragcard.report.scorecard import Scorecard

__all__ = ["print_scorecard"]

_STYLE = {
    "met": "green",
    "missed": "bold red",
    "unscored": "yellow",
    "not_distinguishable": "yellow",
}


def _thresholds(card: Scorecard) -> Table:
    table = Table(title="Thresholds (set before the run)", title_justify="left")
    table.add_column("Measure", overflow="fold")  # a canonical name is shown whole, if folded
    for column in ("Threshold", "Result", "Must-pass", "Status"):
        table.add_column(column)
    for r in card.decision.results:
        t = r.threshold
        status = r.status + (f" ({r.note})" if r.note else "")
        table.add_row(
            escape(t.measure),
            f"{t.comparison} {t.value:g}",
            escape(format_value(r.result)),
            "yes" if t.type == "must-pass" else "",
            f"[{_STYLE[r.status]}]{escape(status)}[/]",
        )
    return table


def _measures(card: Scorecard) -> Table:
    table = Table(title="Measures by layer", title_justify="left")
    table.add_column("Layer")
    table.add_column("Measure", overflow="fold")
    table.add_column("Result")
    for name, result in card.metrics.items():
        shown = escape(format_value(result))
        table.add_row(
            card.specs[name].layer,
            escape(name),
            shown if isinstance(result, MetricValue) else f"[dim]{shown}[/]",
        )
    return table


def _causes(card: Scorecard, limit: int = 6) -> Table:
    table = Table(title="Failures by likely cause", title_justify="left")
    for column in ("Layer", "Likely cause", "Items", "Try", "Examples"):
        table.add_column(column)
    for c in card.causes[:limit]:
        cells = (c["layer"], c["cause"], str(c["items"]), c["try"], ", ".join(c["examples"][:4]))
        table.add_row(*(escape(cell) for cell in cells))
    return table


def print_scorecard(card: Scorecard, console: Console | None = None) -> None:
    """Print the scorecard summary; the full detail is in scorecard.md."""
    console = console or Console(soft_wrap=True)
    header = card.header
    config = card.config
    console.rule(escape(f"ragcard · {header.get('project', '')}"))
    agent = config["agent"]
    model = f" ({agent['model']})" if agent.get("model") else ""  # an agent may report none
    console.print(
        f"corpus {config['corpus'].get('version')} · questions n={config['questions'].get('n')} "
        f"· agent {agent.get('name')}{model} · attempts {config['run'].get('attempts')}",
        markup=False,
    )
    console.print(f"judge: {judge_summary(config['judge'])}", highlight=False, markup=False)
    override = header.get("override")
    if override:
        said = escape(f"{override['by']}: {override['reason']}")
        console.print(f"[bold red]THRESHOLDS LOOSENED AFTER THEY WERE LOCKED — by {said}[/]",
                      highlight=False)  # fmt: skip
        for found in override["loosened"]:
            change = escape(f"{found['measure']}: {found['change']}")
            console.print(f"[red]  • {change}[/]", highlight=False)
    console.print(_thresholds(card))
    console.print(_measures(card))
    if card.causes:
        console.print(_causes(card))
    if card.errors["attempts"]:
        console.print(
            f"[yellow]{card.errors['attempts']} item-attempt(s) failed: "
            f"{escape(str(card.errors['by_kind']))}[/]"
        )
        for message, n in card.errors.get("messages", []):
            console.print(f"  {n} × {message}", highlight=False, markup=False)
    colour = "green" if card.decision.decision == "ship" else "red"
    console.print(f"[bold {colour}]Decision: {card.decision.decision.upper()}[/]")
    for reason in card.decision.reasons:
        console.print(f"  [{colour}]• {escape(reason)}[/]")
