"""``ragcard score``: score recorded responses without calling any agent."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ragcard._cli._common import JunitOption, err, parse_options, user_errors
from ragcard._cli._crash import report_judge_crash
from ragcard.aggregation.scoring import default_layers, metric_specs
from ragcard.errors import ConfigError
from ragcard.goldset.labellog import checked_labels
from ragcard.inputs._limits import MAX_K
from ragcard.outputs.history import HistoryStore, default_history_url
from ragcard.pipeline.evaluation import load_inputs, score_responses, scoring_settings
from ragcard.pipeline.project import judge_from_spec
from ragcard.report.junit import run_suites, write_junit
from ragcard.report.terminal import print_scorecard


@user_errors
def score_command(
    questions: Annotated[Path, typer.Option("--questions", "-q", help="questions.jsonl")],
    corpus: Annotated[Path, typer.Option("--corpus", "-c", help="corpus.jsonl")],
    responses: Annotated[Path, typer.Option("--responses", "-r", help="responses.jsonl")],
    thresholds: Annotated[Path, typer.Option("--thresholds", "-t", help="thresholds.toml")],
    out: Annotated[Path, typer.Option("--out", help="output folder")] = Path("out"),
    k: Annotated[
        int, typer.Option(min=1, max=MAX_K, help="cut-off for recall@k and nDCG@k")
    ] = 5,
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
            max=256,
            help="processes that score the file (default: one per core for files of 4 MiB or "
            "more, else 1); the outputs are the same for any number",
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            help="judge for faithfulness, citation accuracy, relevance and the rubric: auto, "
            "lexical, ensemble, embedding, local, llm or a plugin's name (default: none, so "
            "those measures are unscored)",
        ),
    ] = None,
    progress: Annotated[
        bool, typer.Option(help="show a progress bar while the judge works (with --judge)")
    ] = True,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            envvar="RAGCARD_HISTORY_URL",
            help="history holding the question set's label log (default: "
            "$RAGCARD_HISTORY_URL, else ragcard-history.sqlite beside the question set)",
        ),
    ] = None,
    project: Annotated[
        str | None,
        typer.Option(
            help="name of the question set in the label log (default: the questions file's "
            "path)"
        ),
    ] = None,
    judge_option: Annotated[
        list[str] | None,
        typer.Option(
            help="KEY=VALUE for the judge, as in a \\[judge] table (value read as TOML; "
            "repeatable), e.g. --judge-option base_url=http://127.0.0.1:8080/v1",
        ),
    ] = None,
    junit: JunitOption = None,
) -> None:
    """Score recorded responses (docs/formats.md#responsesjsonl) and decide ship/hold; exit 0
    ship, 1 hold."""
    if judge_option and judge is None:
        raise ConfigError("--judge-option goes with --judge NAME")
    day = _date(run_date) if run_date else None
    chosen = None
    if judge is not None:
        options = parse_options(judge_option or [], "--judge-option")
        chosen = judge_from_spec({**options, "backend": judge})
    try:
        settings = scoring_settings(day, k, non_abstaining_flag or (), False, chosen)
        specs = metric_specs(default_layers(), settings)
        inputs = load_inputs(
            questions,
            corpus,
            thresholds,
            non_abstaining_flags=non_abstaining_flag or (),
            responses=responses,  # every problem of the four files in one round
            specs=specs,
        )
        history = db or default_history_url(questions.resolve().parent)
        with HistoryStore(history) as store:
            key = project or str(questions.resolve())
            amended = checked_labels(store, key, inputs.questions)
        result = score_responses(
            inputs,
            responses,
            out,
            k=k,
            run_date=day,
            non_abstaining_flags=non_abstaining_flag or (),
            judge=chosen,
            workers=workers,
            progress=progress,
            header={"amendments": amended} if amended else None,
        )
    finally:
        close = getattr(chosen, "close", None)
        if callable(close):  # a local model, an LLM backend's cache
            close()
    if not quiet:
        print_scorecard(result.scorecard, Console(soft_wrap=True))
    err.print(f"wrote {out}/scorecard.md, scorecard.json, results.jsonl", markup=False)
    if junit is not None:
        err.print(f"wrote {write_junit(run_suites(out), junit)}", markup=False, highlight=False)
    if result.crashes is not None:
        fix = "run the same `ragcard score` command again (it rescores every answer)"
        raise typer.Exit(report_judge_crash(result.crashes, fix, err))
    raise typer.Exit(result.exit_code)


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"--run-date must be a date written YYYY-MM-DD, got {text!r}") from None
