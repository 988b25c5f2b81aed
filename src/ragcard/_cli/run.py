"""``ragcard run CONFIG``: call the agent on the question set, score, decide."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ragcard._cli._common import JunitOption, err, parse_options, user_errors
from ragcard._cli._crash import report_judge_crash
from ragcard._cli.compare import print_comparison
from ragcard.errors import ConfigError
from ragcard.pipeline.running import run_evaluation
from ragcard.report.junit import comparison_suites, run_suites, write_junit
from ragcard.report.terminal import print_scorecard


def _override(override: bool, reason: str | None) -> str | None:
    if reason and not override:
        raise ConfigError("--reason goes with --override-thresholds")
    if override and not (reason and reason.strip()):
        raise ConfigError('--override-thresholds needs --reason "why"')
    return reason if override else None


@user_errors
def run_command(
    config: Annotated[
        Path, typer.Argument(help="project folder holding ragcard.toml, or the file")
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", help='output folder (default: \\[run] out, "out" beside ragcard.toml)'
        ),
    ] = None,
    resume: Annotated[bool, typer.Option(help="continue an interrupted run in --out")] = False,
    fresh: Annotated[bool, typer.Option(help="replace earlier results in --out")] = False,
    attempts: Annotated[
        int | None, typer.Option(help="attempts per item (default: \\[run] attempts, 3)")
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(help="parallel agent calls (default: \\[run] concurrency, 8)")
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option(
            "--option", "-o", help="agent option KEY=VALUE, e.g. -o 'faults=[\"keep_superseded\"]'"
        ),
    ] = None,
    retrieval_only: Annotated[
        bool,
        typer.Option(
            "--retrieval-only", help="call only the agent's retrieval and score retrieval"
        ),
    ] = False,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
    eval_dir: Annotated[
        Path | None,
        typer.Option(
            help="where the run is saved as <date>-<corpus_version>-<model>.jsonl "
            "(default: \\[run] eval_dir)"
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="run history URL (default: $RAGCARD_HISTORY_URL, \\[history] url, or "
            "ragcard-history.sqlite beside ragcard.toml)",
        ),
    ] = None,
    override_thresholds: Annotated[
        bool,
        typer.Option(
            "--override-thresholds",
            help="run although thresholds are looser than the locked "
            "ones (needs --reason; shown in red on the scorecard)",
        ),
    ] = False,
    reason: Annotated[str | None, typer.Option(help="why the override is justified")] = None,
    by: Annotated[str | None, typer.Option(help="who runs it (default: the OS user)")] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            help="compare with 'shipped' (the last shipped run) or a run id/folder; a failing "
            "regression gate exits 1"
        ),
    ] = None,
    junit: JunitOption = None,
) -> None:
    """Run the agent of a project on its questions, score every layer and decide ship/hold."""
    if attempts is not None and attempts < 3:
        err.print(
            f"[yellow]warning:[/] {attempts} attempt(s) per item: must-pass checks use "
            "the worst of fewer than 3 runs"
        )
    result = run_evaluation(
        config,
        out_dir=out,
        resume=resume,
        fresh=fresh,
        agent_options=parse_options(option or []),
        attempts=attempts,
        concurrency=concurrency,
        retrieval_only=retrieval_only,
        progress=progress,
        eval_dir=eval_dir,
        history_url=db,
        override_reason=_override(override_thresholds, reason),
        by=by,
        baseline=baseline,
    )
    print_scorecard(result.scorecard, Console(soft_wrap=True))
    if result.comparison is not None:
        print_comparison(result.comparison, Console(soft_wrap=True))
        err.print(
            f"wrote {result.out_dir}/comparison.md (fit for a pull-request comment)", markup=False
        )
    err.print(
        f"wrote {result.out_dir}/scorecard.md, scorecard.json, results.jsonl"
        + (f"; run saved as {result.eval_path}" if result.eval_path else ""),
        markup=False,
    )
    if junit is not None:
        suites = run_suites(result.out_dir)
        if result.comparison is not None:
            suites += comparison_suites(result.comparison, result.out_dir)
        err.print(f"wrote {write_junit(suites, junit)}", markup=False, highlight=False)
    if result.crashes is not None:
        fix = (f"`ragcard run {config} --resume --out {result.out_dir}` rescores them "
               "without calling the agent again")  # fmt: skip
        raise typer.Exit(report_judge_crash(result.crashes, fix, err))
    raise typer.Exit(result.exit_code)
