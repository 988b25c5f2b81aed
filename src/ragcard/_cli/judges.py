"""``ragcard judges …`` — meta-evaluate a judge against human labels; train the ensemble.

``ragcard judges evaluate --judge lexical --dataset wice-100 --dataset begin`` runs the judge
over the named human-labelled sets and prints, per dataset and pooled, n, balanced accuracy,
F1, AUROC, Cohen's κ and the confusion matrix with intervals, the threshold and the part it was
tuned on, and the published reference figures. Only parses options and calls
:mod:`ragcard.judges.metaeval`: figures to stdout, diagnostics to stderr, bad input exits 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ragcard._cli._common import err, parse_options, user_errors
from ragcard.errors import ConfigError, ExitCode
from ragcard.judges.base import Judge
from ragcard.judges.metaeval import (
    DEFAULT_DATA_DIR,
    ThresholdMode,
    calibration_line,
    evaluate_judge,
    format_meta_evaluation,
    load_datasets,
    save_calibration,
)
from ragcard.judges.metaeval.examples import SPLIT_SEED
from ragcard.judges.registry import build_judge

__all__ = [
    "evaluate_command",
    "judges_app",
    "parse_threshold",
    "train_ensemble_command",
]

judges_app = typer.Typer(
    name="judges",
    help="Judges: measure a judge's agreement with human labels before trusting it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


DataDir = Annotated[
    Path, typer.Option("--data-dir", help="Folder holding wice/, begin/, faithbench/.")
]


@judges_app.callback()
def judges_callback() -> None:
    """Judges: measure a judge's agreement with human labels before trusting it."""
    # A callback keeps `evaluate` a named subcommand (Typer collapses a lone command).


def parse_threshold(text: str) -> ThresholdMode:
    """``tune`` | ``judge`` | a number in [0, 1]."""
    if text == "tune":
        return "tune"
    if text == "judge":
        return "judge"
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise ConfigError(
            f"--threshold must be 'tune', 'judge' or a number in [0, 1], got {text!r}"
        )
    return value


@judges_app.command("evaluate")
@user_errors
def evaluate_command(
    judge: Annotated[str, typer.Option("--judge", help="Judge backend, e.g. lexical.")],
    options: Annotated[
        list[str] | None,
        typer.Option("--option", metavar="KEY=VALUE", help="Judge option, repeatable."),
    ] = None,
    datasets: Annotated[
        list[str] | None,
        typer.Option(
            "--dataset",
            metavar="NAME|PATH.jsonl",
            help="wice (all 358 claims), wice-100 (published subset), begin, faithbench, "
            "clapnq-relevance (the relevance task), demo-correctness (the correctness task), "
            "contrast (minimal contrasts and faithful rewrites of supported sentences), "
            "or your labels file (support, relevance or correctness labels); repeatable. "
            "Default: wice-100, begin, faithbench.",
        ),
    ] = None,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    limit: Annotated[
        int | None,
        typer.Option("--limit", metavar="N", help="First N examples of each part only."),
    ] = None,
    threshold: Annotated[
        str,
        typer.Option(
            "--threshold",
            help="tune (on the dev part, report the test part), judge (the judge's own "
            "labels), or a number.",
        ),
    ] = "tune",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the dev/test hash split.")] = (
        SPLIT_SEED
    ),
    save: Annotated[
        Path | None, typer.Option("--save", help="Write the calibration JSON here.")
    ] = None,
    breakdowns: Annotated[
        bool, typer.Option("--breakdowns/--no-breakdowns", help="Per length/group/position.")
    ] = True,
    split: Annotated[
        str | None,
        typer.Option("--split", metavar="dev|test", help="contrast: the part reported (test)."),
    ] = None,
    misses: Annotated[
        int, typer.Option("--misses", metavar="N", help="contrast: print N misses per kind.")
    ] = 0,
) -> None:
    """Measure a judge against human labels: per dataset and pooled, with intervals."""
    mode = parse_threshold(threshold)
    built = build_judge({"backend": judge, **parse_options(options or [])})
    names = datasets or ["wice-100", "begin", "faithbench"]
    if "contrast" in names:
        _evaluate_contrast(built, names, data_dir, split or "test", misses, seed, limit, save)
        return
    if split is not None or misses:
        raise ConfigError("--split and --misses are options of --dataset contrast")
    if any(_correctness_set(name) for name in names):
        _evaluate_correctness(built, names, seed, save)
        return
    loaded = load_datasets(names, data_dir, limit, seed)
    if save is not None and any(dataset.task != "support" for dataset in loaded):
        raise ConfigError(
            "--save writes a calibration, which is of support; relevance figures are printed, "
            "not saved (drop --save)"
        )
    evaluation = evaluate_judge(built, loaded, threshold=mode)
    typer.echo(format_meta_evaluation(evaluation, breakdowns), nl=False)
    reports = evaluation.reports
    if not any(r.n_reported for r in reports) and any(r.failures for r in reports):
        err.print(
            "[bold red]error:[/] the judge scored no example (its failures are listed above); "
            "nothing is saved",
            highlight=False,
        )
        raise typer.Exit(ExitCode.FAILED)
    if save is not None:
        record = save_calibration(evaluation, save)
        err.print(
            f"calibration written to {save}: {calibration_line(record)}",
            highlight=False,
            markup=False,
        )


def _correctness_set(name: str) -> bool:
    from ragcard.judges.metaeval.correctness import BUILTIN_CORRECTNESS, is_correctness_labels

    return name in BUILTIN_CORRECTNESS or (
        name.endswith(".jsonl") and is_correctness_labels(Path(name))
    )


def _evaluate_correctness(judge: Judge, names: list[str], seed: int, save: Path | None) -> None:
    """``judges evaluate`` on correctness labels: the judge's grades against the reader's."""
    from ragcard.judges.base import answers_task
    from ragcard.judges.metaeval.correctness import (
        correctness_line,
        correctness_record,
        evaluate_correctness,
        format_correctness,
        load_correctness,
    )
    from ragcard.outputs._writing import write_atomic

    if not all(_correctness_set(name) for name in names):
        raise ConfigError(
            "correctness labels and support or relevance labels judge different tasks; "
            "evaluate each in its own run"
        )
    if save is not None and len(names) > 1:
        raise ConfigError("--save keeps one correctness evaluation: give one --dataset")
    if not answers_task(judge, "correctness"):
        raise ConfigError(f"judge '{judge.identity.name}' does not answer the correctness task")
    for name in names:
        title, examples = load_correctness(name, seed)
        evaluation = evaluate_correctness(judge, title, examples)
        typer.echo(format_correctness(evaluation))
        if save is not None:
            record = correctness_record(evaluation, judge.identity.tasks.get("correctness"))
            write_atomic(save, (json.dumps(record, indent=1) + "\n").encode("utf-8"))
            err.print(f"correctness calibration written to {save}: {correctness_line(record)}",
                      highlight=False, markup=False)  # fmt: skip


def _evaluate_contrast(
    judge: Judge,
    names: list[str],
    data_dir: Path,
    split: str,
    misses: int,
    seed: int,
    limit: int | None,
    save: Path | None,
) -> None:
    """``judges evaluate --dataset contrast``: the share of each kind the judge gets right."""
    from ragcard.judges.metaeval.contrast_data import build_contrast, limit_sources
    from ragcard.judges.metaeval.contrast_report import evaluate_contrast, format_contrast
    from ragcard.judges.metaeval.examples import Part

    if len(set(names)) > 1:
        raise ConfigError("the contrast benchmark is evaluated in its own run: give it alone")
    if save is not None:
        raise ConfigError("--save writes a calibration; the contrast figures are printed only")
    if split not in ("dev", "test"):
        raise ConfigError(f"--split must be dev or test, got {split!r}")
    if misses < 0:
        raise ConfigError(f"--misses must be at least 0, got {misses}")
    contrast = build_contrast(data_dir, seed)
    for message in contrast.skipped:
        err.print(f"[yellow]note:[/] {message}", highlight=False)
    if not contrast.items:
        raise ConfigError(
            f"no contrast data under {data_dir} and no bundled examples: pass --data-dir "
            "pointing at the folder that holds clapnq/, wice/ and begin/"
        )
    if limit is not None:
        if limit < 1:
            raise ConfigError(f"--limit must be at least 1, got {limit}")
        contrast = limit_sources(contrast, limit)
    part: Part = "dev" if split == "dev" else "test"
    typer.echo(format_contrast(evaluate_contrast(judge, contrast, part), misses), nl=False)


@judges_app.command("train-ensemble")
@user_errors
def train_ensemble_command(
    out: Annotated[Path, typer.Option("--out", help="Write the weights JSON here.")],
    datasets: Annotated[
        list[str] | None,
        typer.Option(
            "--dataset",
            metavar="NAME|PATH.jsonl",
            help="Train on this dataset's dev part (never its reported part); repeatable. "
            "Default: begin, wice-100 (its 258 unreported claims). FaithBench is refused "
            "(evaluation only).",
        ),
    ] = None,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    features: Annotated[
        list[str] | None,
        typer.Option("--feature", help="Use only these features; repeatable. Default: all."),
    ] = None,
    l2: Annotated[float, typer.Option("--l2", help="L2 penalty (standardised).")] = 10.0,
    llm_vote: Annotated[
        bool, typer.Option("--llm-vote", help="Add the local LLM judge's vote (slow).")
    ] = False,
    llm_options: Annotated[
        list[str] | None,
        typer.Option("--llm-option", metavar="KEY=VALUE", help="Local judge option."),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", metavar="N", help="First N examples of each part.")
    ] = None,
) -> None:
    """Train the ensemble judge's weights on labelled data and write them as JSON."""
    from ragcard.judges.ensemble_train import format_weights, train_weights

    names = datasets or ["begin", "wice-100"]
    options = parse_options(llm_options or [], "--llm-option")
    model = train_weights(names, data_dir, features, l2, llm_vote, options, limit)
    model.save(out)
    typer.echo(format_weights(model, out), nl=False)


if __name__ == "__main__":  # `python -m ragcard._cli.judges evaluate …` before it is registered
    judges_app()
