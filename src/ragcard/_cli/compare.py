"""``ragcard compare BASELINE CURRENT``: the regression gate between two runs.

Exit 0 when the gate passes, 1 when it fails (a must-pass item or a measure regressed), 2 on bad
input (a missing run, different question sets, a malformed ``--tolerance``).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ragcard._cli._common import err, user_errors
from ragcard.decision.baseline import Comparison, compare_runs
from ragcard.errors import ConfigError, ExitCode
from ragcard.outputs._writing import write_atomic
from ragcard.report.comparison import format_measure, render_comparison_markdown
from ragcard.report.junit import comparison_suites, write_junit

_STYLE = {"regressed": "bold red", "worse": "yellow", "improved": "green", "unchanged": "dim"}


def parse_tolerances(pairs: list[str]) -> tuple[dict[str, float], float]:
    """``["recall@5=0.02", "0.01"]`` → ``({"recall@5": 0.02}, 0.01)``: a bare value is the
    tolerance of every measure not named. Raises :class:`ConfigError` on a malformed pair."""
    named: dict[str, float] = {}
    default = 0.0
    for pair in pairs:
        name, sep, value = pair.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if (sep and not name.strip()) or not number >= 0:
            raise ConfigError(
                f"--tolerance {pair!r}: expected MEASURE=VALUE with VALUE >= 0 in the measure's "
                'own units (e.g. --tolerance "recall@5=0.02"), or a bare VALUE for every measure'
            )
        if sep:
            named[name.strip()] = number
        else:
            default = number
    return named, default


_COLUMNS = ("Baseline", "Current", "Δ", "95% CI of Δ", "p", "Verdict")
_WIDTHS = (8, 7, 7, 16, 6, 9)  # the widest a cell of each column gets, header included


def _measures_table(comparison: Comparison, width: int, caption: str) -> RenderableType:
    """One row per measure when the names fit beside the numbers; on a narrower terminal each
    measure's name gets a line of its own above its numbers (a name is never split)."""
    names = [f"{m.name} {'↑' if m.higher_is_better else '↓'}" for m in comparison.measures]
    longest = max((len(name) for name in names), default=7)
    if longest + sum(_WIDTHS) + 2 * len(_WIDTHS) > width:
        return _stacked(comparison, names, caption)
    table = Table(title="Measures", title_justify="left", caption=caption, box=box.SIMPLE_HEAD)
    table.show_edge, table.collapse_padding = False, True
    table.add_column("Measure", no_wrap=True)
    for column in _COLUMNS:
        table.add_column(column, justify="right", no_wrap=True)
    for name, m in zip(names, comparison.measures, strict=True):
        verdict = f"[{_STYLE[m.verdict]}]{m.verdict}[/]"  # the why is in the reasons below
        table.add_row(escape(name), *format_measure(m), verdict)
    return table


def _numbers(header: bool = False) -> Table:
    grid = Table.grid(padding=(0, 0, 0, 2))
    for size in _WIDTHS:
        grid.add_column(justify="right", no_wrap=True, min_width=size + 2, max_width=size + 2)
    if header:
        grid.add_row(*(f"[bold]{column}[/]" for column in _COLUMNS))
    return grid


def _stacked(comparison: Comparison, names: list[str], caption: str) -> RenderableType:
    """The measures table for a narrow terminal: the name, then its numbers below it."""
    parts: list[RenderableType] = [Text("Measures", style="italic"), _numbers(header=True)]
    for name, m in zip(names, comparison.measures, strict=True):
        row = _numbers()
        row.add_row(*format_measure(m), f"[{_STYLE[m.verdict]}]{m.verdict}[/]")
        parts += [Text(name, style="bold"), row]
    parts.append(Text.from_markup(f"[dim]{caption}[/]"))
    return Group(*parts)


def print_comparison(comparison: Comparison, console: Console, max_flips: int = 20) -> None:
    """The gate on the terminal: measures, flipped items (regressions first), notes, verdict."""
    b, c = comparison.baseline, comparison.current
    console.rule("ragcard · regression gate")
    console.print(
        f"baseline {b.path} ({b.decision}) → current {c.path} ({c.decision}) · questions "
        f"{c.questions_version} · {comparison.items_compared} items compared",
        highlight=False,
        markup=False,
    )
    tolerances = Counter(m.tolerance for m in comparison.measures)
    usual = tolerances.most_common(1)[0][0] if tolerances else 0.0
    others = ", ".join(
        f"{m.name} {m.tolerance:g}" for m in comparison.measures if m.tolerance != usual
    )
    caption = f"tolerance {usual:g}" + (f", except {others}" if others else "")
    table = _measures_table(comparison, console.width, escape(caption))
    console.print(table)
    if comparison.flips:
        flips = Table(
            title="Flipped items (pass→fail first)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            show_edge=False,
        )
        for column in ("Item", "Category", "Must-pass", "Change", "Symptoms"):
            flips.add_column(column)
        for f in comparison.flips[:max_flips]:
            change = f"[{'bold red' if f.regressed else 'green'}]{f.change}[/]"
            must = "[bold]yes[/]" if f.must_pass else ""
            symptoms = escape("; ".join(f.symptoms))
            flips.add_row(escape(f.item), escape(f.category or ""), must, change, symptoms)
        console.print(flips)
        if len(comparison.flips) > max_flips:
            console.print(f"… and {len(comparison.flips) - max_flips} more flipped item(s)")
    for note in comparison.notes:  # wrapped between words at the terminal's width
        console.print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=False)
    colour = "green" if comparison.gate == "pass" else "bold red"
    console.print(f"[{colour}]Gate: {comparison.gate.upper()}[/]")
    for reason in comparison.reasons:
        console.print(f"  • {reason}", highlight=False, markup=False, soft_wrap=False)


@user_errors
def compare_command(
    baseline: Annotated[
        Path, typer.Argument(help="output folder of the baseline run, e.g. the last shipped one")
    ],
    current: Annotated[Path, typer.Argument(help="output folder of the run to check")],
    tolerance: Annotated[
        list[str] | None,
        typer.Option(
            "--tolerance",
            help="allowed worsening before the gate fails, in the measure's units, e.g. "
            '--tolerance "recall@5=0.02" (repeatable); a bare VALUE applies to every measure '
            "not named (default 0)",
        ),
    ] = None,
    markdown: Annotated[
        Path | None,
        typer.Option("--markdown", metavar="FILE", help="also write a pull-request summary"),
    ] = None,
    junit: Annotated[
        Path | None,
        typer.Option(
            "--junit",
            metavar="FILE",
            help="also write JUnit XML for CI: a test case per measure and per must-pass item "
            "of the current run, regressions as failures (docs/ci.md)",
        ),
    ] = None,
) -> None:
    """Compare a run with a baseline run: fail when a must-pass item or a measure regressed."""
    tolerances, default = parse_tolerances(tolerance or [])
    comparison = compare_runs(baseline, current, tolerances=tolerances, default_tolerance=default)
    print_comparison(comparison, Console(soft_wrap=True))
    if markdown is not None:
        try:
            markdown.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(markdown, render_comparison_markdown(comparison))
        except OSError as error:
            raise ConfigError(f"--markdown {markdown}: cannot write it ({error})") from None
        err.print(f"wrote {markdown}", highlight=False)
    if junit is not None:
        written = write_junit(comparison_suites(comparison, current), junit)
        err.print(f"wrote {written}", markup=False, highlight=False)
    raise typer.Exit(ExitCode.OK if comparison.gate == "pass" else ExitCode.HOLD)
