"""``ragcard history`` lists recorded runs; ``ragcard ship RUN --by NAME`` marks one shipped.

Which history database: the ``--db`` flag, else ``$RAGCARD_HISTORY_URL``, else the project's
``ragcard-history.sqlite`` (beside its ``eval/`` folder). Both commands only call
:mod:`ragcard.outputs.history`; the table and confirmations go to stdout, errors to stderr (exit 2).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ragcard._cli._common import user_errors
from ragcard.errors import ConfigError, InputError, Problem
from ragcard.outputs._runfolder import check_complete
from ragcard.outputs.history import HistoryStore, RunEntry, default_history_url
from ragcard.redteam.measures import check_shippable
from ragcard.report.runs import differences, pack_parts, run_settings
from ragcard.review.apply import ship_blockers

__all__ = ["HISTORY_URL_ENV", "history_command", "resolve_history_url", "ship_command"]

#: Names the history database when no ``--db`` flag is given.
HISTORY_URL_ENV = "RAGCARD_HISTORY_URL"

_PROJECT_HELP = "project folder holding ragcard.toml, or the file (its history is the default)"
DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar=HISTORY_URL_ENV,
        metavar="URL",
        help="history database: sqlite:///PATH, postgresql+psycopg://USER:PASS@HOST:PORT/DB or "
        f"a file path; --db wins over ${HISTORY_URL_ENV}, which wins over the project's "
        "ragcard-history.sqlite",
    ),
]


def resolve_history_url(project: Path, db: str | None = None) -> str:
    """The history to open: ``db`` (the ``--db`` flag) > ``$RAGCARD_HISTORY_URL`` > the
    project's ``ragcard-history.sqlite`` (``project`` is its folder or its ``ragcard.toml``)."""
    folder = project.parent if project.is_file() else project
    return db or os.environ.get(HISTORY_URL_ENV) or default_history_url(folder)


@user_errors
def history_command(
    project: Annotated[Path, typer.Argument(metavar="PROJECT", help=_PROJECT_HELP)] = Path("."),
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, help="show at most this many runs")] = 20,
) -> None:
    """List the recorded runs, newest first, with what shipped and who shipped it."""
    with HistoryStore(resolve_history_url(project, db)) as store:
        entries = store.runs(limit=limit)
        where = store.url
    if not entries:
        typer.echo(f"No runs recorded in the history at {where}.")
        return
    _print_runs(Console(soft_wrap=True), entries, where)


@user_errors
def ship_command(
    run: Annotated[
        str,
        typer.Argument(
            metavar="RUN",
            help="run id, unique id prefix, or the run's output folder (recorded if new)",
        ),
    ],
    by: Annotated[str, typer.Option("--by", help="who ships it (recorded with the run)")],
    project: Annotated[Path, typer.Option("--project", help=_PROJECT_HELP)] = Path("."),
    db: DbOption = None,
) -> None:
    """Mark a run shipped: later runs of the project compare against it. Refused while the
    project has open critical red-team findings (triage them, or run the red team again)."""
    url = resolve_history_url(project, db)
    with HistoryStore(url) as store:
        folder = Path(run)
        if folder.is_dir():
            check_complete(folder, "ship")
        if (folder / "scorecard.json").is_file() and not _recorded(store, run):
            store.record_run(_read_scorecard(folder / "scorecard.json"), folder)
        entry = store.get(run)
        if entry.shipped_at is None:
            _refuse_unactioned(store, entry)
            check_shippable(url, entry.project)  # open critical red-team findings
            entry = store.mark_shipped(entry.id, by=by)
            verb = "shipped"
        else:
            verb = "already shipped"
    shipped_at = entry.shipped_at.strftime("%Y-%m-%d %H:%M UTC") if entry.shipped_at else "?"
    typer.echo(
        f"{verb}: {entry.id} ({entry.project}, corpus {entry.corpus_version or '?'}, "
        f"decision {entry.decision}) by {entry.shipped_by} at {shipped_at}"
    )


def _print_runs(console: Console, entries: list[RunEntry], where: str) -> None:
    """The runs, newest first: one line each (id, date, decision, who shipped it), then what
    sets the run apart from the others listed; what they all share is said once, above."""
    console.print(f"ragcard history ({where})", highlight=False, markup=False)
    found = differences([_settings(e) for e in entries])
    width = max(console.width, 40)
    if found.common:
        shared = [f"{label} {value}" for label, value in found.common.items()]
        said = f"same in all {len(entries)} runs:" if len(entries) > 1 else "settings:"
        console.print(said, style="dim", highlight=False)
        for line in pack_parts(shared, width, "  "):
            console.print(line, style="dim", highlight=False, markup=False)
    several = len({e.project for e in entries}) > 1
    console.print(f"[bold]{'id':<24}  {'date (UTC)':<16}  {'decision':<8}  shipped by[/]",
                  highlight=False)  # fmt: skip
    for entry, differs in zip(entries, found.each, strict=True):
        colour = "green" if entry.decision == "ship" else "red"
        shipped = f"{entry.shipped_by}, {entry.shipped_at:%Y-%m-%d}" if entry.shipped_at else ""
        console.print(
            f"{escape(entry.id):<24}  {entry.created_at:%Y-%m-%d %H:%M}  "
            f"[{colour}]{escape(entry.decision):<8}[/]  {escape(shipped)}",
            highlight=False,
        )
        if several:  # the project first: it says which runs may be compared at all
            differs = {"project": differs.pop("project", "—"), **differs}
        parts = [f"{label} {value}" for label, value in differs.items()]
        for line in pack_parts(parts, width, "    "):
            console.print(line, highlight=False, markup=False)


def _settings(entry: RunEntry) -> dict[str, str]:
    settings = run_settings(entry.config, _relative(entry.out_dir))
    return {"project": entry.project, **settings}


def _relative(path: Path) -> str:
    """``path`` relative to the working directory when it is below it (shorter to read)."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _refuse_unactioned(store: HistoryStore, entry: RunEntry) -> None:
    """Every answer rated wrong in the run's blind review needs an action before it ships,
    whatever the decision or an override says (docs/metrics.md#measures; ``ragcard review act``)."""
    open_items = ship_blockers(store, entry.id)
    if open_items:
        raise ConfigError(
            f"run {entry.id} cannot ship: {len(open_items)} answer(s) rated wrong in its blind "
            f"review have no action ({', '.join(open_items)}); record each with `ragcard "
            "review act RUN ITEM --action corpus-fix|rule|authored-answer --by NAME --why …`"
        )


def _recorded(store: HistoryStore, run: str) -> bool:
    try:
        store.get(run)
    except ConfigError:
        return False
    return True


def _read_scorecard(path: Path) -> dict[str, object]:
    try:
        scorecard = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:  # unreadable, not UTF-8, not JSON
        raise InputError(Problem(str(path), None, None, f"cannot read it: {error}")) from None
    if not isinstance(scorecard, dict):
        raise InputError(Problem(str(path), None, None, "not a JSON object", type(scorecard)))
    return scorecard
