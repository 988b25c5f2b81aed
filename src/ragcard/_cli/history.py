"""``ragcard history`` lists recorded runs; ``ragcard ship RUN --by NAME`` marks one shipped.

Which history database: the ``--db`` flag, else ``$RAGCARD_HISTORY_URL``, else the project's
``ragcard-history.sqlite`` (beside its ``eval/`` folder). Both commands only call
:mod:`ragcard.history`; the table and confirmations go to stdout, errors to stderr (exit 2).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ragcard._cli._common import user_errors
from ragcard._runfolder import check_complete
from ragcard.errors import ConfigError, InputError, Problem
from ragcard.history import HistoryStore, RunEntry, default_history_url

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
    Console(soft_wrap=True).print(_runs_table(entries, where))


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
    """Mark a run shipped: later runs of the project compare against it."""
    with HistoryStore(resolve_history_url(project, db)) as store:
        folder = Path(run)
        if folder.is_dir():
            check_complete(folder, "ship")
        if (folder / "scorecard.json").is_file() and not _recorded(store, run):
            store.record_run(_read_scorecard(folder / "scorecard.json"), folder)
        entry = store.get(run)
        if entry.shipped_at is None:
            entry = store.mark_shipped(entry.id, by=by)
            verb = "shipped"
        else:
            verb = "already shipped"
    shipped_at = entry.shipped_at.strftime("%Y-%m-%d %H:%M UTC") if entry.shipped_at else "?"
    typer.echo(
        f"{verb}: {entry.id} ({entry.project}, corpus {entry.corpus_version or '?'}, "
        f"decision {entry.decision}) by {entry.shipped_by} at {shipped_at}"
    )


def _runs_table(entries: list[RunEntry], where: str) -> Table:
    several_projects = len({e.project for e in entries}) > 1
    table = Table(title=escape(f"ragcard history ({where})"), title_justify="left")
    table.add_column("id", no_wrap=True)
    if several_projects:
        table.add_column("project")
    table.add_column("date (UTC)", no_wrap=True)  # whole: hashes and names give way first
    table.add_column("decision", no_wrap=True)
    for name in ("corpus", "question set", "shipped by"):
        table.add_column(name, overflow="fold")
    for e in entries:
        decision = f"[green]{e.decision}[/]" if e.decision == "ship" else f"[red]{e.decision}[/]"
        shipped = f"{e.shipped_by}, {e.shipped_at:%Y-%m-%d}" if e.shipped_at else ""
        version = e.config.get("questions", {}).get("version") or e.questions_sha256[:12]
        cells = [escape(e.id), *([escape(e.project)] if several_projects else [])]
        cells += [f"{e.created_at:%Y-%m-%d %H:%M}", decision, escape(e.corpus_version or "?")]
        table.add_row(*cells, escape(str(version)), escape(shipped))
    return table


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
