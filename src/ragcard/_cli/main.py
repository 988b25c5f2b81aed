"""The ``ragcard`` command: subcommands registered here, each defined in its own module."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from ragcard import __version__
from ragcard._cli._crash import report_internal_error
from ragcard._cli.compare import compare_command
from ragcard._cli.governance import stale_command, thresholds_app
from ragcard._cli.history import history_command, ship_command
from ragcard._cli.importing import import_app
from ragcard._cli.init import init_command
from ragcard._cli.judges import judges_app
from ragcard._cli.judges_local import install_local_command
from ragcard._cli.questions import questions_app
from ragcard._cli.redteam import redteam_app
from ragcard._cli.report import report_command
from ragcard._cli.review import review_app
from ragcard._cli.run import run_command
from ragcard._cli.score import score_command
from ragcard._cli.signing import keys_new_command, sign_command, verify_command
from ragcard._cli.trec import trec_command


class _Ragcard(typer.Typer):
    """The command line: an exception that is not one of ragcard's own errors (those exit 2 in
    each command) is a bug, reported on one line with its traceback saved to a file, and exits
    3 — never 1, which means HOLD."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as error:  # everything else is ragcard's own defect (or a plugin's)
            sys.exit(report_internal_error(error))


app = _Ragcard(
    name="ragcard",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"ragcard {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="print the version"),
    ] = False,
) -> None:
    """Is this knowledge agent good enough to ship — and if not, what is broken? Exit codes: 0
    ship, 1 hold, 2 bad input or usage (every problem listed with file:line, field, value and
    fix), 3 internal error (a bug in ragcard; the traceback is saved to a log file named on
    stderr). The file formats, measures and agent contract: docs/ in the repository
    (docs/README.md)."""


app.command("run")(run_command)
app.command("score")(score_command)
app.command("init")(init_command)
app.command("trec", context_settings={"allow_interspersed_args": True})(trec_command)
app.command("compare")(compare_command)
app.command("history")(history_command)
app.command("ship")(ship_command)
app.command("stale")(stale_command)
app.command("report")(report_command)
app.add_typer(thresholds_app, name="thresholds")
app.command("sign")(sign_command)
app.command("verify")(verify_command)

keys_app = typer.Typer(help="Signing keys.", no_args_is_help=True)
keys_app.command("new")(keys_new_command)
app.add_typer(keys_app, name="keys")
judges_app.command("install-local")(install_local_command)
app.add_typer(judges_app, name="judges", help="Judges: measure them against human labels.")
app.add_typer(questions_app, name="questions", help="Golden-set tooling: check, split, "
              "agreement, import, amend.")
app.add_typer(import_app, name="import")
app.add_typer(review_app, name="review", help="People in the loop: blind review, the grading "
              "queue, the human baseline.")
app.add_typer(redteam_app, name="redteam")
