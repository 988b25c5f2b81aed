"""``ragcard import ragas|deepeval FILE``: a Ragas or DeepEval dataset as ragcard inputs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from ragcard._cli._common import err, user_errors
from ragcard.errors import InputError, Problem
from ragcard.inputs.interop import Imported, import_deepeval, import_ragas, write_imported

import_app = typer.Typer(
    help="Import the datasets kept for Ragas or DeepEval as questions, corpus and responses "
    "(docs/import.md).",
    no_args_is_help=True,
)

FileArgument = Annotated[Path, typer.Argument(metavar="FILE", help="the dataset file")]
OutOption = Annotated[
    Path, typer.Option("--out", help="folder for questions.jsonl, corpus.jsonl, responses.jsonl")
]
ForceOption = Annotated[bool, typer.Option(help="overwrite files in --out")]


def _import(reader: Callable[[Path], Imported], file: Path, out: Path, force: bool) -> None:
    if not file.is_file():
        raise InputError([Problem(str(file), None, None, "no such file",
                                  fix="pass the file the library saved")])  # fmt: skip
    imported = reader(file)
    written = write_imported(imported, out, force=force)
    answered = len({r["item"] for r in imported.responses})
    typer.echo(
        f"imported {len(imported.questions)} question(s), {len(imported.passages)} passage(s), "
        f"{len(imported.responses)} response(s) ({answered} question(s) answered) from {file}"
    )
    for path in written:
        typer.echo(f"wrote {path}")
    if imported.notes:
        err.print("could not be mapped as such:", markup=False, highlight=False)
        for note in imported.notes:
            err.print(f"  - {note}", markup=False, highlight=False)
    if imported.responses:
        err.print(
            f"next: ragcard init {out} (a thresholds.toml to check), then: ragcard score -q "
            f"{out}/questions.jsonl -c "
            f"{out}/corpus.jsonl -r {out}/responses.jsonl -t {out}/thresholds.toml --out "
            f"{out}/scored --judge auto",
            markup=False,
            highlight=False,
        )


@import_app.command("ragas")
@user_errors
def ragas_command(
    file: FileArgument, out: OutOption = Path("."), force: ForceOption = False
) -> None:
    """A Ragas EvaluationDataset (to_jsonl, to_csv, or a JSON list of samples)."""
    _import(import_ragas, file, out, force)


@import_app.command("deepeval")
@user_errors
def deepeval_command(
    file: FileArgument, out: OutOption = Path("."), force: ForceOption = False
) -> None:
    """DeepEval goldens and test cases (EvaluationDataset.save_as JSON, JSONL or CSV)."""
    _import(import_deepeval, file, out, force)
