"""The ``ragcard`` command: subcommands registered here, each defined in its own module.

Each subcommand's module is imported only when that subcommand is asked for (or when help
lists them all), so ``ragcard --version`` loads typer and nothing of the library, and
``ragcard run`` does not pay for the review app or the signing code.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, MutableMapping
from typing import Annotated, Any

import typer
from typer.core import TyperGroup


def _function(module: str, attribute: str, **settings: Any) -> Callable[[], Any]:
    """A loader of one command defined as a function in ``module``."""

    def load() -> Any:
        single = typer.Typer(add_completion=False)
        single.command(**settings)(getattr(importlib.import_module(module), attribute))
        return typer.main.get_command(single)

    return load


def _group(module: str, attribute: str, help: str | None = None) -> Callable[[], Any]:
    """A loader of a command group, a ``typer.Typer`` defined in ``module``."""

    def load() -> Any:
        group = typer.main.get_group(getattr(importlib.import_module(module), attribute))
        if help is not None:
            group.help = help
        return group

    return load


def _keys() -> typer.Typer:
    from ragcard._cli.signing import keys_new_command

    keys_app = typer.Typer(help="Signing keys.", no_args_is_help=True)
    keys_app.command("new")(keys_new_command)
    return keys_app


def _judges() -> typer.Typer:
    from ragcard._cli.judges import judges_app
    from ragcard._cli.judges_local import install_local_command

    if not any(info.name == "install-local" for info in judges_app.registered_commands):
        judges_app.command("install-local")(install_local_command)
    return judges_app


def _built(make: Callable[[], typer.Typer], help: str | None = None) -> Callable[[], Any]:
    def load() -> Any:
        group = typer.main.get_group(make())
        if help is not None:
            group.help = help
        return group

    return load


#: name → loader, in the order help lists them (commands, then groups).
_SUBCOMMANDS: dict[str, Callable[[], Any]] = {
    "run": _function("ragcard._cli.run", "run_command"),
    "score": _function("ragcard._cli.score", "score_command"),
    "init": _function("ragcard._cli.init", "init_command"),
    "trec": _function(
        "ragcard._cli.trec", "trec_command",
        context_settings={"allow_interspersed_args": True},
    ),
    "compare": _function("ragcard._cli.compare", "compare_command"),
    "history": _function("ragcard._cli.history", "history_command"),
    "ship": _function("ragcard._cli.history", "ship_command"),
    "stale": _function("ragcard._cli.governance", "stale_command"),
    "report": _function("ragcard._cli.report", "report_command"),
    "sign": _function("ragcard._cli.signing", "sign_command"),
    "verify": _function("ragcard._cli.signing", "verify_command"),
    "thresholds": _group("ragcard._cli.governance", "thresholds_app"),
    "keys": _built(_keys),
    "judges": _built(_judges, help="Judges: measure them against human labels."),
    "questions": _group(
        "ragcard._cli.questions", "questions_app",
        help="Golden-set tooling: check, split, agreement, import, amend.",
    ),
    "import": _group("ragcard._cli.importing", "import_app"),
    "review": _group(
        "ragcard._cli.review", "review_app",
        help="People in the loop: blind review, the grading queue, the human baseline.",
    ),
    "redteam": _group("ragcard._cli.redteam", "redteam_app"),
}


class _LazyCommands(MutableMapping[str, Any]):
    """The subcommands of ``ragcard``: each built from its module the first time it is read."""

    def __init__(self, loaders: dict[str, Callable[[], Any]]) -> None:
        self._loaders = dict(loaders)
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in self._loaders:
                raise KeyError(name)
            command = self._loaders[name]()
            command.name = name
            self._built[name] = command
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        self._built.pop(name, None)
        self._loaders.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        yield from self._loaders
        yield from (name for name in self._built if name not in self._loaders)

    def __len__(self) -> int:
        return len(set(self._loaders) | set(self._built))


class _LazyGroup(TyperGroup):
    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _LazyCommands(_SUBCOMMANDS)


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
            from ragcard._cli._crash import report_internal_error

            sys.exit(report_internal_error(error))


app = _Ragcard(
    name="ragcard",
    cls=_LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from ragcard._version import __version__

        typer.echo(f"ragcard {__version__}")
        raise typer.Exit()  # ExitCode.OK; ragcard.errors is not imported for --version


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
