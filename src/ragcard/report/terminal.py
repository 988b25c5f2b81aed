"""The scorecard on the terminal (rich): decision, thresholds, measures, top causes.

Readable at 80 columns: a measure name is never split (its column is as wide as the longest
name shown), results and reasons wrap between words, the failure causes are blocks of text
rather than a five-column table, and the prose lines wrap at words. Paths and error messages
are printed whole on their own lines (a terminal may fold them; nothing here cuts them).
"""

from __future__ import annotations

from rich import box
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ragcard.decision.thresholds import ThresholdResult
from ragcard.metrics.base import MetricValue
from ragcard.report.markdown import format_value, judge_summary
from ragcard.report.plain import measure_rows
from ragcard.report.scorecard import Scorecard

__all__ = ["print_scorecard"]

_STYLE = {
    "met": "green",
    "missed": "bold red",
    "unscored": "yellow",
    "not_distinguishable": "yellow",
}
_STATUS = {
    "met": "met",
    "missed": "missed",
    "unscored": "not scored",
    "not_distinguishable": "not distinguishable",
}
_STRADDLE = "~"


def _table(title: str | None = None) -> Table:
    return Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        collapse_padding=True,
        pad_edge=False,
    )


def _straddles(result: ThresholdResult) -> bool:
    """Its interval straddles the line (a partial population's note says something else, and
    its status says it: not distinguishable)."""
    return bool(result.note) and result.status in ("met", "missed") and not (
        isinstance(result.result, MetricValue) and result.result.partial
    )


def _threshold_table(title: str, results: list[ThresholdResult]) -> Table:
    table = _table(title)
    table.add_column("Measure", no_wrap=True)
    table.add_column("Threshold", no_wrap=True)
    table.add_column("Result", ratio=1)  # wraps between the value, the interval and n
    table.add_column("Status", no_wrap=True)
    for r in results:
        t = r.threshold
        status = _STATUS[r.status] + (f" {_STRADDLE}" if _straddles(r) else "")
        table.add_row(
            escape(t.measure),
            f"{t.comparison} {t.value:g}",
            escape(format_value(r.result)),
            f"[{_STYLE[r.status]}]{escape(status)}[/]",
        )
    return table


def _thresholds(card: Scorecard) -> list[Table]:
    results = list(card.decision.results)
    must = [r for r in results if r.threshold.type == "must-pass"]
    graded = [r for r in results if r.threshold.type != "must-pass"]
    tables = []
    if must:
        tables.append(_threshold_table("Must-pass thresholds (set before the run)", must))
    if graded:
        tables.append(_threshold_table("Graded thresholds (set before the run)", graded))
    return tables


def _measures(card: Scorecard) -> Table:
    table = _table("Measures by layer")
    table.add_column("Measure", no_wrap=True)
    table.add_column("Result", ratio=1)
    layers = {name: spec.layer for name, spec in card.specs.items()}
    current = None
    for row in measure_rows(card.metrics, layers, card.same_as):
        if row.layer != current:
            current = row.layer
            table.add_row(f"[bold]{escape(row.layer)}[/]", "")
        names = "\n".join(f"  {'= ' if i else ''}{escape(n)}" for i, n in
                          enumerate((row.name, *row.same)))  # fmt: skip
        shown = escape(format_value(row.result))
        if row.same:
            shown += " [dim](the same items and verdicts)[/]"
        table.add_row(names, shown if isinstance(row.result, MetricValue) else f"[dim]{shown}[/]")
    return table


def _causes(card: Scorecard, limit: int = 6) -> RenderableType:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(ratio=1)
    for c in card.causes[:limit]:
        text = Text()
        text.append(f"{c['layer']}: ", style="bold")
        text.append(f"{c['cause']}\n")
        text.append("try: ", style="dim")
        text.append(f"{c['try']}\n")
        text.append("e.g. ", style="dim")
        text.append(", ".join(c["examples"][:4]))
        grid.add_row(f"{c['items']} items", text)
    more = len(card.causes) - limit
    title = Text("Failures by likely cause", style="italic")
    parts: list[RenderableType] = [title, grid]
    if more > 0:
        parts.append(Text(f"… and {more} more cause(s) in scorecard.md", style="dim"))
    return Group(*parts)


def _line(console: Console, text: str, style: str | None = None) -> None:
    """A prose line, wrapped between words at the console's width."""
    console.print(Text(text, style=style or ""), soft_wrap=False)


def print_scorecard(card: Scorecard, console: Console | None = None) -> None:
    """Print the scorecard summary; the full detail is in scorecard.md."""
    console = console or Console(soft_wrap=True)
    header = card.header
    config = card.config
    console.rule(escape(f"ragcard · {header.get('project', '')}"))
    agent = config["agent"]
    model = f" ({agent['model']})" if agent.get("model") else ""  # an agent may report none
    _line(
        console,
        f"corpus {config['corpus'].get('version')} · questions n={config['questions'].get('n')} "
        f"· agent {agent.get('name')}{model} · attempts {config['run'].get('attempts')}",
    )
    _line(console, f"judge: {judge_summary(config['judge'])}")
    override = header.get("override")
    if override:
        _line(
            console,
            f"THRESHOLDS LOOSENED AFTER THEY WERE LOCKED — by {override['by']}: "
            f"{override['reason']}",
            "bold red",
        )
        for found in override["loosened"]:
            _line(console, f"  • {found['measure']}: {found['change']}", "red")
    for table in _thresholds(card):
        console.print(table)
    if any(_straddles(r) for r in card.decision.results):
        _line(console, f"{_STRADDLE} not distinguishable at this sample size: the 95% interval "
              "straddles the threshold", "dim")  # fmt: skip
    console.print(_measures(card))
    if card.causes:
        console.print(_causes(card))
    if card.errors["attempts"]:
        kinds = ", ".join(f"{kind}: {n}" for kind, n in card.errors["by_kind"].items())
        _line(console, f"{card.errors['attempts']} item-attempt(s) failed ({kinds})", "yellow")
        for message, n in card.errors.get("messages", []):
            console.print(f"  {n} × {message}", highlight=False, markup=False)  # whole
    colour = "green" if card.decision.decision == "ship" else "red"
    console.print(f"[bold {colour}]Decision: {card.decision.decision.upper()}[/]")
    reasons = Table.grid(padding=(0, 1))
    reasons.add_column(no_wrap=True)
    reasons.add_column(ratio=1)
    for reason in card.decision.reasons:
        reasons.add_row(f"  [{colour}]•[/]", Text(reason, style=colour))
    console.print(reasons)
