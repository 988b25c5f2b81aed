"""``ragcard trec QRELS RUN`` — trec_eval-compatible scoring of a TREC run file.

Only parses options, calls :mod:`ragcard.trec`, and prints: results to stdout, notes and errors
to stderr. Bad input exits with code 2 and a message, never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragcard.errors import ConfigError, ExitCode, InputError
from ragcard.trec import evaluate, format_trec, read_qrels, read_run

__all__ = ["trec_command"]


def trec_command(
    qrels: Annotated[
        Path,
        typer.Argument(metavar="QRELS", help="TREC qrels file: 'qid iter docno rel' per line."),
    ],
    run: Annotated[
        Path,
        typer.Argument(
            metavar="RUN", help="TREC run file: 'qid Q0 docno rank score runid' per line."
        ),
    ],
    measures: Annotated[
        list[str] | None,
        typer.Option(
            "-m",
            "--measure",
            metavar="MEASURE",
            help="Measure in trec_eval syntax, repeatable: -m map -m P.5,10 -m ndcg_cut.10; "
            "sets: official (default), all_trec.",
        ),
    ] = None,
    per_query: Annotated[
        bool, typer.Option("-q", "--per-query", help="Also print a line per query.")
    ] = False,
    complete: Annotated[
        bool,
        typer.Option(
            "-c",
            "--complete",
            help="Average over every query in the qrels; queries missing from the run score 0.",
        ),
    ] = False,
    max_results: Annotated[
        int | None,
        typer.Option(
            "-M", "--max-results", metavar="N", help="Score only the first N results per query."
        ),
    ] = None,
    relevance_level: Annotated[
        int,
        typer.Option(
            "-l",
            "--relevance-level",
            metavar="LEVEL",
            help="Lowest grade counted as relevant by binary measures.",
        ),
    ] = 1,
) -> None:
    """Score a TREC run against qrels, exactly as trec_eval does, in trec_eval's output format."""
    bad: list[InputError] = []  # both files are read, so that every bad line is listed
    try:
        qrels_data = read_qrels(qrels)
    except InputError as in_qrels:
        bad.append(in_qrels)
    try:
        run_file = read_run(run)
    except InputError as in_run:
        bad.append(in_run)
    for problem in bad:
        typer.echo(f"ragcard trec: {problem}", err=True)
    if bad:
        raise typer.Exit(ExitCode.BAD_INPUT)
    try:
        result = evaluate(
            qrels_data,
            run_file.scores,
            measures,
            per_query=per_query,
            complete=complete,
            max_results=max_results,
            relevance_level=relevance_level,
            run_id=run_file.run_id,
        )
    except (InputError, ConfigError) as error:
        typer.echo(f"ragcard trec: {error}", err=True)
        raise typer.Exit(ExitCode.BAD_INPUT) from None
    if result.not_implemented:
        typer.echo(
            "ragcard trec: not computed (not implemented): " + ", ".join(result.not_implemented),
            err=True,
        )
    typer.echo(format_trec(result), nl=False)
