"""Shared CLI plumbing: user errors print without a traceback and exit 2."""

from __future__ import annotations

import functools
import logging
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from ragcard.agent._secrets import scrub
from ragcard.errors import ConfigError, ExitCode, InputError, MissingExtraError

P = ParamSpec("P")
R = TypeVar("R")

#: Diagnostics go to stderr; data and the scorecard to stdout. Messages are never wrapped by
#: ragcard (``soft_wrap``): a path or a command in an error must survive a copy and paste, and a
#: log or a pipe must hold the message on one line; the terminal wraps it for the eye.
err = Console(stderr=True, soft_wrap=True)

#: ``--junit FILE`` of ``run`` and ``score`` (``compare`` words its own help).
JunitOption = Annotated[
    Path | None,
    typer.Option(
        "--junit",
        metavar="FILE",
        help="also write JUnit XML for CI: a test case per threshold and per must-pass item, "
        "failures with their evidence (docs/ci.md)",
    ),
]


class _Warnings(logging.Handler):
    """ragcard's warnings (logger ``ragcard``: an unknown category …) as ``warning:`` lines on
    stderr, where the CLI's errors go."""

    def emit(self, record: logging.LogRecord) -> None:
        err.print(f"[yellow]warning:[/] {escape(record.getMessage())}", highlight=False)


def show_warnings() -> None:
    """Print ragcard's warnings on stderr (once installed, for every command)."""
    logger = logging.getLogger("ragcard")
    if not any(isinstance(handler, _Warnings) for handler in logger.handlers):
        logger.addHandler(_Warnings(logging.WARNING))


def user_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Map ragcard's user errors — and the operating system's refusals of a path the user
    gave (a file that cannot be read or written) — to a clear message on stderr and exit
    code 2."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        show_warnings()
        try:
            return command(*args, **kwargs)
        except InputError as error:
            err.print(f"[bold red]error:[/] {escape(scrub(error.render()))}", highlight=False)
            raise typer.Exit(ExitCode.BAD_INPUT) from None
        except (ConfigError, MissingExtraError) as error:
            err.print(f"[bold red]error:[/] {escape(scrub(str(error)))}", highlight=False)
            raise typer.Exit(ExitCode.BAD_INPUT) from None
        except OSError as error:  # a path the user gave: unreadable, unwritable, a folder…
            err.print(f"[bold red]error:[/] {escape(scrub(str(error)))}", highlight=False)
            raise typer.Exit(ExitCode.BAD_INPUT) from None

    return wrapper


def parse_options(pairs: list[str], flag: str = "--option") -> dict[str, Any]:
    """``KEY=VALUE`` pairs (given with ``flag``) → options; each value is read as TOML
    (``0.5``, ``true``, ``"x"``, ``["a"]``, ``{cache = "f"}``), and as a plain string when it is
    not valid TOML."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(
                f"{flag} {pair!r}: expected KEY=VALUE (the value in TOML syntax, e.g. k=10, "
                'faults=["keep_superseded"])'
            )
        try:
            options[key.strip()] = tomllib.loads(f"value = {raw}")["value"]
        except tomllib.TOMLDecodeError:
            options[key.strip()] = raw
    return options
