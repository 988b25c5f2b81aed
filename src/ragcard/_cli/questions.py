"""``ragcard questions …``: golden-set tooling (check, split, agreement, import).

Each command parses its options, calls one function of :mod:`ragcard.goldset`, prints the
report (text, or JSON with ``--json``) to stdout and maps the outcome to an exit code:
0 fine, 1 something blocks (``check``) or is still open (``agreement``), 2 bad input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ragcard._cli._common import err, user_errors
from ragcard.errors import ConfigError
from ragcard.goldset import (
    CheckOptions,
    ImportOptions,
    check_file,
    import_logs,
    measure_agreement,
    plan_split,
    render_agreement,
    render_check,
    render_import,
    render_split,
    resolve_targets,
)
from ragcard.goldset.split import write_text_atomically
from ragcard.inputs.config import CONFIG_NAME, Config, load_config
from ragcard.inputs.questions import load_questions

__all__ = ["questions_app"]

questions_app = typer.Typer(
    help="Build and govern the golden question set: check, split, agreement, import.",
    no_args_is_help=True,
    add_completion=False,
)

QuestionsArg = Annotated[
    Path,
    typer.Argument(
        metavar="QUESTIONS",
        help=f"questions.jsonl, or a project folder (the question set its {CONFIG_NAME} names)",
    ),
]
KitOption = Annotated[
    str | None,
    typer.Option(help="knowledge-base or persona; default: inferred from the categories"),
]
TargetsOption = Annotated[
    Path | None,
    typer.Option(
        "--targets",
        help="TOML file: \\[shares] typical = 0.4 …; \\[heldout] share, \\[heldout.shares]",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="print the report as JSON")]


def _project(path: Path) -> Config | None:
    """The project ``path`` is the folder of (None when it is not one)."""
    return load_config(path) if path.is_dir() and (path / CONFIG_NAME).is_file() else None


def _question_file(path: Path) -> Path:
    """``path``, or the question set of the project folder ``path``."""
    project = _project(path)
    return project.resolve(project.project.questions) if project else path


def _emit(data: dict[str, Any] | None, text: str) -> None:
    if data is not None:
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        typer.echo(text, nl=False)


@questions_app.command("check")
@user_errors
def check_command(
    questions: QuestionsArg,
    corpus: Annotated[
        Path | None,
        typer.Option("--corpus", "-c", help="corpus.jsonl: also check gold-wording reuse"),
    ] = None,
    kit: KitOption = None,
    targets: TargetsOption = None,
    near_duplicate: Annotated[
        float, typer.Option(help="word-shingle Jaccard at which two questions are near-duplicates")
    ] = 0.8,
    reuse_share: Annotated[
        float, typer.Option(help="share of a question's content words found in its gold passage")
    ] = 0.8,
    reuse_run: Annotated[
        int, typer.Option(help="length of a word run shared with the gold passage")
    ] = 6,
    as_json: JsonOption = False,
) -> None:
    """Check a question set's composition and quality; exit 0 fine, 1 blocked, 2 bad input."""
    options = CheckOptions(
        near_duplicate=near_duplicate, reuse_share=reuse_share, reuse_run=reuse_run
    )
    project = _project(questions)
    if project is not None:  # a project folder: its question set, corpus and kit by default
        questions = project.resolve(project.project.questions)
        corpus = corpus or project.resolve(project.project.corpus)
        kit = kit or project.project.kit
    report = check_file(questions, corpus, kit=kit, targets=targets, options=options)
    _emit(report.to_dict() if as_json else None, render_check(report))
    raise typer.Exit(report.exit_code)


@questions_app.command("split")
@user_errors
def split_command(
    questions: QuestionsArg,
    out: Annotated[Path | None, typer.Option(help="write the question file here")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="rewrite QUESTIONS")] = False,
    share: Annotated[
        float | None,
        typer.Option(help="held-out share of every category not set in --targets \\[default 0.25]"),
    ] = None,
    targets: TargetsOption = None,
    salt: Annotated[str, typer.Option(help="salt of the hash draw (change it to redraw)")] = "",
    reassign: Annotated[
        bool, typer.Option("--reassign", help="redraw items that already have a split")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Assign dev/heldout by a hash of each id, stable when items are added."""
    if (out is None) == (not in_place):
        raise ConfigError("say where to write: --out FILE or --in-place (exactly one)")
    questions = _question_file(questions)
    resolved = resolve_targets(path=targets, heldout_share=share)
    plan = plan_split(questions, resolved, salt=salt, reassign=reassign)
    destination = questions if in_place else out
    if destination is not None:
        plan.write(destination)
    _emit(plan.to_dict() if as_json else None, render_split(plan, str(destination)))


@questions_app.command("agreement")
@user_errors
def agreement_command(questions: QuestionsArg, as_json: JsonOption = False) -> None:
    """Labeller agreement (Cohen's κ, gold overlap); exit 1 while a disagreement is open."""
    report = measure_agreement(load_questions(_question_file(questions)))
    _emit(report.to_dict() if as_json else None, render_agreement(report))
    raise typer.Exit(report.exit_code)


@questions_app.command("import")
@user_errors
def import_command(
    logs: Annotated[Path, typer.Argument(metavar="LOGS", help="question log: .csv or .jsonl")],
    out: Annotated[Path, typer.Option(help="questions.jsonl skeleton to write")],
    column: Annotated[
        str, typer.Option("--column", "--field", help="CSV column / JSON field of the question")
    ] = "question",
    category_column: Annotated[
        str, typer.Option(help="column / field holding a category guess, if any")
    ] = "category",
    log_format: Annotated[
        str | None, typer.Option("--format", help="csv or jsonl; default: from the extension")
    ] = None,
    n: Annotated[int | None, typer.Option("--n", help="questions to draw; default: all")] = None,
    seed: Annotated[int, typer.Option(help="seed of the draw")] = 0,
    kit: KitOption = None,
    targets: TargetsOption = None,
    near_duplicate: Annotated[
        float, typer.Option(help="word-shingle Jaccard at which two questions are near-duplicates")
    ] = 0.8,
    id_prefix: Annotated[str, typer.Option(help="prefix of the generated ids")] = "LOG-",
    summary: Annotated[
        Path | None, typer.Option(help="also write the summary as JSON here")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Real questions from logs: normalised, deduplicated, personal data removed, sampled."""
    if log_format not in (None, "csv", "jsonl"):
        raise ConfigError(f"--format must be csv or jsonl, got {log_format!r}")
    options = ImportOptions(
        column=column,
        category_column=category_column or None,
        format="csv" if log_format == "csv" else "jsonl" if log_format == "jsonl" else None,
        n=n,
        seed=seed,
        near_duplicate=near_duplicate,
        id_prefix=id_prefix,
        kit=kit,
        targets_file=targets,
    )
    result = import_logs(logs, options)
    write_text_atomically(out, result.to_jsonl())
    if summary is not None:
        write_text_atomically(summary, json.dumps(result.to_dict(), indent=2) + "\n")
    _emit(result.to_dict() if as_json else None, render_import(result, str(out)))
    if not result.questions:
        err.print("no question survived the import: check --column and the log")


@questions_app.command("amend")
@user_errors
def amend_command(
    items: Annotated[
        list[str], typer.Argument(metavar="ID...", help="the item(s) whose labels changed")
    ],
    reason: Annotated[str, typer.Option("--reason", help="why the label was wrong")],
    by: Annotated[str, typer.Option("--by", help="who changed it")],
    project: Annotated[
        Path, typer.Option("--project", help="project folder (its question set and history)")
    ] = Path("."),
    questions: Annotated[
        Path | None,
        typer.Option(
            "--questions", help="a question set scored with `ragcard score`, instead of a project's"
        ),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name", help="with --questions: the --project name given to `ragcard score`"
        ),
    ] = None,
    db: Annotated[
        str | None, typer.Option("--db", envvar="RAGCARD_HISTORY_URL", help="run history URL")
    ] = None,
) -> None:
    """Record why items' gold passages, expected answer, answerability or expected flag
    changed: later runs accept the new labels, and the scorecard lists the amendment."""
    from ragcard.goldset.labellog import amend_items
    from ragcard.outputs.history import HistoryStore, default_history_url
    from ragcard.pipeline.project import project_history_url

    if questions is not None:
        question_set = load_questions(questions)
        key = name or str(questions.resolve())
        url = db or default_history_url(questions.resolve().parent)
    else:
        config = load_config(project)
        question_set = load_questions(config.resolve(config.project.questions))
        key = config.project.name
        url = db or project_history_url(config)
    with HistoryStore(url) as store:
        changes = amend_items(store, key, question_set, items, reason=reason, by=by)
    for change in changes:
        typer.echo(f"amended {change.item}: {change.describe()}")
    err.print(f"recorded by {by.strip()}: {reason.strip()}", markup=False, highlight=False)
