"""``ragcard keys new``, ``ragcard sign`` and ``ragcard verify``: thin wrappers of
:mod:`ragcard.outputs.signing`.

``verify`` exits 0 when the signature is valid, 1 when it is not (each changed component is
printed, a tampered signature.json included) or when ``--require-trusted`` (the default when
``$CI`` is set) finds no trusted key, 2 on bad usage or missing files.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Annotated

import typer

from ragcard._cli._common import err, user_errors
from ragcard.errors import ConfigError, ExitCode
from ragcard.inputs.config import load_config
from ragcard.outputs.history import HistoryStore
from ragcard.outputs.signing import new_keypair, sign_run, signature_line, verify_run

__all__ = ["keys_new_command", "sign_command", "verify_command"]



@user_errors
def keys_new_command(
    path: Annotated[Path, typer.Argument(help="where to write the private key (PEM, 0600)")],
    owner: Annotated[str, typer.Option("--owner", help="whose key this is")],
) -> None:
    """Make an Ed25519 signing key; the public key goes beside it as PATH.pub.

    Set RAGCARD_KEY_PASSPHRASE to encrypt the private key.
    """
    public = new_keypair(path, owner=owner)
    err.print(
        f"wrote private key {path} (mode 0600) and public key {public}",
        highlight=False,
        markup=False,
    )
    typer.echo(public)


@user_errors
def sign_command(
    run: Annotated[Path, typer.Argument(help="the run's output folder")],
    key: Annotated[Path, typer.Option("--key", help="your private key (PEM)")],
    by: Annotated[str, typer.Option("--by", help="your name, as it goes on the scorecard")],
    decision: Annotated[str, typer.Option("--decision", help="ship or hold")],
    db: Annotated[str | None, typer.Option(
        "--db",
        help="also record the signature in this run history (the run must be recorded)")] = None,
) -> None:
    """Sign a run's result against the configuration it tested: stamps the signature line into
    scorecard.json and scorecard.md and writes RUN/signature.json over them (RFC 8785)."""
    if decision not in ("ship", "hold"):
        raise ConfigError(f"--decision must be 'ship' or 'hold', not {decision!r}")
    signature = sign_run(run, key, by=by, decision="ship" if decision == "ship" else "hold")
    line = signature_line(run) or ""
    if db:
        with HistoryStore(db) as store:
            store.record_signature(str(run), by, signature.decision,
                                   dt.datetime.fromisoformat(signature.signed_at),
                                   signature.digests.get("scorecard.json", ""))
    typer.echo(line)
    err.print(f"wrote {signature.path}", highlight=False, markup=False)


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _project_keys(project: Path | None) -> list[Path]:
    if project is None:
        return []
    config = load_config(project)
    keys = [config.resolve(path) for path in config.signing.trusted_keys]
    if not keys:
        raise ConfigError(
            f"{config.path}: no trusted keys: add [signing] trusted_keys = [\"keys/ada.pub\"] "
            "(the .pub files of the people who may sign)"
        )
    return keys


@user_errors
def verify_command(
    run: Annotated[Path, typer.Argument(help="the run's output folder")],
    trusted: Annotated[
        list[Path] | None,
        typer.Option("--trusted", help="a public key the signer must hold (repeatable)"),
    ] = None,
    project: Annotated[
        Path | None,
        typer.Option("--project", help="trust the keys of \\[signing] trusted_keys in this "
                     "project's ragcard.toml"),
    ] = None,
    require_trusted: Annotated[
        bool | None,
        typer.Option("--require-trusted/--no-require-trusted",
                     help="fail (exit 1) unless the signing key is a trusted one (default: on "
                     "when $CI is set)"),
    ] = None,
) -> None:
    """Check a run's signature and that nothing it covers has changed; exit 0 valid, 1 not.

    Without trusted keys a valid signature proves integrity (these are the files that key
    signed), not identity (whose key it is)."""
    keys = [*(trusted or ()), *_project_keys(project)]
    required = _in_ci() if require_trusted is None else require_trusted
    result = verify_run(run, trusted_keys=keys)
    who = f"{result.signer} ({result.decision}) at {result.signed_at}"
    key = f"key {result.key_fingerprint[:12]}…"
    if result.trusted:
        key += " (trusted)"
    notes = [f"  note: {note}" for note in result.notes]
    if not result.ok:
        typer.echo(f"INVALID: signature by {who}, {key}")
        for change in result.changed:
            typer.echo(f"  - {change}")
        raise typer.Exit(ExitCode.FAILED)
    if result.trusted:
        typer.echo(f"valid: signed by {who}, {key}")
        typer.echo("  integrity and identity: the files are the ones signed, by a trusted key")
        for line in notes:
            typer.echo(line)
        raise typer.Exit(ExitCode.OK)
    status = "NOT TRUSTED" if required else "valid"
    typer.echo(f"{status}: signed by {who}, {key}")
    typer.echo(
        f"  integrity only: these are the files {key} signed, but nothing says whose key it is "
        f"(\"{result.signer}\" is what the signature claims). Pass --trusted KEY.pub, or list "
        "[signing] trusted_keys in ragcard.toml and pass --project, to check identity"
    )
    for line in notes:
        typer.echo(line)
    if required:
        typer.echo("  --require-trusted: no trusted key was given, so identity is not proven")
        raise typer.Exit(ExitCode.FAILED)
    raise typer.Exit(ExitCode.OK)
