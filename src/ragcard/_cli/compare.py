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
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ragcard._cli._common import EXIT_HOLD, EXIT_SHIP, err, user_errors
from ragcard._writing import write_atomic
from ragcard.baseline import Comparison, compare_runs
from ragcard.errors import ConfigError
from ragcard.report.comparison import format_measure, render_comparison_markdown

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
    table = Table(
        title="Measures", title_justify="left", caption=escape(caption), box=box.SIMPLE_HEAD
    )
    table.show_edge, table.collapse_padding = False, True
    table.add_column("Measure", overflow="fold", ratio=1)  # long names fold, numbers stay whole
    for column in ("Baseline", "Current", "Δ", "95% CI of Δ", "p", "Verdict"):
        table.add_column(column, justify="right", no_wrap=True)
    for m in comparison.measures:
        arrow = "↑" if m.higher_is_better else "↓"
        verdict = f"[{_STYLE[m.verdict]}]{m.verdict}[/]"  # the why is in the reasons below
        table.add_row(escape(f"{m.name} {arrow}"), *format_measure(m), verdict)
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
    for note in comparison.notes:
        console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    colour = "green" if comparison.gate == "pass" else "bold red"
    console.print(f"[{colour}]Gate: {comparison.gate.upper()}[/]")
    for reason in comparison.reasons:
        console.print(f"  • {reason}", highlight=False, markup=False)


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
    raise typer.Exit(EXIT_SHIP if comparison.gate == "pass" else EXIT_HOLD)
