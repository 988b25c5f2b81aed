"""The ``ragcard`` command: subcommands registered here, each defined in its own module."""

from __future__ import annotations

import typer

from ragcard._cli.init import init_command
from ragcard._cli.run import run_command
from ragcard._cli.score import score_command
from ragcard._cli.trec import trec_command

app = typer.Typer(
    name="ragcard",
    help="Is this knowledge agent good enough to ship — and if not, what is broken? "
    "Exit codes: 0 ship, 1 hold, 2 bad input.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("run")(run_command)
app.command("score")(score_command)
app.command("init")(init_command)
app.command("trec", context_settings={"allow_interspersed_args": True})(trec_command)
