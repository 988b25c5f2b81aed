"""``ragcard thresholds lock`` and ``ragcard stale``: the configuration a result stands for."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ragcard._cli._common import err, user_errors
from ragcard.errors import ExitCode
from ragcard.pipeline.project import lock_project_thresholds, stale_inputs
from ragcard.review.due import review_due

_PROJECT = typer.Argument(help="project folder holding ragcard.toml, or the file")
_DB = typer.Option("--db", help="run history URL (default: $RAGCARD_HISTORY_URL, \\[history] "
                   "url, or ragcard-history.sqlite beside ragcard.toml)")

thresholds_app = typer.Typer(help="Thresholds fixed before the run.", no_args_is_help=True)


@thresholds_app.command("lock")
@user_errors
def lock_command(
    project: Annotated[Path, _PROJECT] = Path("."),
    by: Annotated[str, typer.Option("--by", help="who locks them")] = "",
    db: Annotated[str | None, _DB] = None,
) -> None:
    """Lock the project's thresholds for its question set: later runs may raise them, never
    loosen them (without --override-thresholds --reason, shown on the scorecard)."""
    if not by.strip():
        raise typer.BadParameter("say who locks the thresholds: --by NAME")
    lock = lock_project_thresholds(project, by, db)
    err.print(f"locked {len(lock.thresholds)} threshold(s) (sha256 "
              f"{lock.thresholds_sha256[:12]}) for question set {lock.questions_sha256[:12]} "
              f"by {lock.locked_by} at {lock.locked_at:%Y-%m-%d %H:%M} UTC", highlight=False)


@user_errors
def stale_command(
    project: Annotated[Path, _PROJECT] = Path("."),
    db: Annotated[str | None, _DB] = None,
) -> None:
    """Exit 1, naming what changed, when a frozen input differs from the last recorded run
    (for CI: a change cannot ship without a fresh full run), or a blind review is due (the
    corpus, a prompt or the model changed since the last review); exit 0 when nothing
    changed."""
    last, found = stale_inputs(project, db)
    found = [*found, *review_due(project, db)]
    if found:
        where = f" since run {last.id}" if last is not None else ""
        err.print(f"[bold red]stale[/]{escape(where)}:", highlight=False)
        for line in found:
            err.print(f"  - {line}", highlight=False, markup=False)
        raise typer.Exit(ExitCode.FAILED)
    if last is not None:
        err.print(f"up to date with run {last.id} ({last.created_at:%Y-%m-%d %H:%M} UTC)",
                  highlight=False)
