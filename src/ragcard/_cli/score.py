"""``ragcard score``: score recorded responses without calling any agent."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ragcard._cli._common import err, user_errors
from ragcard.evaluation import load_inputs, score_responses
from ragcard.report.terminal import print_scorecard


@user_errors
def score_command(
    questions: Annotated[Path, typer.Option("--questions", "-q", help="questions.jsonl")],
    corpus: Annotated[Path, typer.Option("--corpus", "-c", help="corpus.jsonl")],
    responses: Annotated[Path, typer.Option("--responses", "-r", help="responses.jsonl")],
    thresholds: Annotated[Path, typer.Option("--thresholds", "-t", help="thresholds.toml")],
    out: Annotated[Path, typer.Option("--out", help="output folder")] = Path("out"),
    k: Annotated[int, typer.Option(help="cut-off for recall@k and nDCG@k")] = 5,
    run_date: Annotated[
        str | None,
        typer.Option(
            help="date the answers were given (YYYY-MM-DD), for effective dates; default today"
        ),
    ] = None,
    non_abstaining_flag: Annotated[
        list[str] | None,
        typer.Option(help="a flag that does not mean the agent abstained (repeatable)"),
    ] = None,
    quiet: Annotated[bool, typer.Option(help="no scorecard on the terminal")] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="processes that score the file (default: one per core for files of 4 MiB or "
            "more, else 1); the outputs are the same for any number",
        ),
    ] = None,
) -> None:
    """Score recorded responses (SPEC §1.4) and decide ship/hold; exit 0 ship, 1 hold."""
    inputs = load_inputs(questions, corpus, thresholds)
    day = dt.date.fromisoformat(run_date) if run_date else None
    result = score_responses(
        inputs,
        responses,
        out,
        k=k,
        run_date=day,
        non_abstaining_flags=non_abstaining_flag or (),
        workers=workers,
    )
    if not quiet:
        print_scorecard(result.scorecard, Console())
    err.print(f"wrote {out}/scorecard.md, scorecard.json, results.jsonl", markup=False)
    raise typer.Exit(result.exit_code)
