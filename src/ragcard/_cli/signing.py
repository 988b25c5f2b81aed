"""``ragcard keys new``, ``ragcard sign`` and ``ragcard verify``: thin wrappers of
:mod:`ragcard.signing`.

``verify`` exits 0 when the signature is valid, 1 when it is not (each changed component is
printed), 2 on bad usage or missing files.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated

import typer

from ragcard._cli._common import err, user_errors
from ragcard.errors import ConfigError
from ragcard.history import HistoryStore
from ragcard.report.stamp import stamp_signed
from ragcard.signing import new_keypair, sign_run, signature_line, verify_run

__all__ = ["keys_new_command", "sign_command", "verify_command"]

EXIT_VALID, EXIT_INVALID = 0, 1


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
    """Sign a run's result against the configuration it tested; writes RUN/signature.json."""
    if decision not in ("ship", "hold"):
        raise ConfigError(f"--decision must be 'ship' or 'hold', not {decision!r}")
    signature = sign_run(run, key, by=by, decision="ship" if decision == "ship" else "hold")
    line = signature_line(run) or ""
    stamp_signed(run, line)
    if db:
        with HistoryStore(db) as store:
            store.record_signature(str(run), by, signature.decision,
                                   dt.datetime.fromisoformat(signature.signed_at),
                                   signature.digests.get("scorecard", ""))
    typer.echo(line)
    err.print(f"wrote {signature.path}", highlight=False, markup=False)


@user_errors
def verify_command(
    run: Annotated[Path, typer.Argument(help="the run's output folder")],
    trusted: Annotated[
        list[Path] | None,
        typer.Option("--trusted", help="a public key the signer must hold (repeatable)"),
    ] = None,
) -> None:
    """Check a run's signature and that nothing it covers has changed; exit 0 valid, 1 not."""
    result = verify_run(run, trusted_keys=trusted or ())
    who = f"{result.signer} ({result.decision}) at {result.signed_at}"
    key = f"key {result.key_fingerprint[:12]}…"
    if result.trusted:
        key += " (trusted)"
    if result.ok:
        typer.echo(f"valid: signed by {who}, {key}")
        raise typer.Exit(EXIT_VALID)
    typer.echo(f"INVALID: signature by {who}, {key}")
    for change in result.changed:
        typer.echo(f"  - {change}")
    raise typer.Exit(EXIT_INVALID)
