"""Everything ``ragcard run`` checks before it calls the agent, in one round.

:func:`check_project` reads ``ragcard.toml`` and every file it names, and lists every problem
it finds — in the configuration (unknown keys, wrong types, values out of bounds, each on its
line), in the question set, corpus and thresholds, in the thresholds' measures, in the
``[agent]`` table of a built-in adapter type, in a replay agent's recording, in the judge, and
in every path the run will read or write: the output folder and ``eval_dir`` must be folders
(or creatable), the declared ``inputs`` regular files, the history a database (a SQLite file,
or a PostgreSQL URL). Nothing is written and no agent is called until all of them are fixed.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import ArgumentError

from ragcard._suggest import did_you_mean
from ragcard.adapters import adapter_types
from ragcard.adapters.callable import CallableConfig
from ragcard.adapters.command import CommandConfig
from ragcard.adapters.http import HttpConfig
from ragcard.adapters.replay import ReplayConfig
from ragcard.aggregation.scoring import default_layers, metric_specs
from ragcard.errors import ConfigError, ConfigFileError, InputError, MissingExtraError, Problem
from ragcard.inputs._toml import validation_problems
from ragcard.inputs.config import Config, RunSection, inspect_config
from ragcard.inputs.responses import RecordedResponses
from ragcard.judges.base import Judge
from ragcard.pipeline.evaluation import Inputs, scoring_settings
from ragcard.pipeline.project import build_run_judge, load_project_inputs, project_history_url

__all__ = ["CheckedProject", "check_project", "folder_problem", "history_problem"]

#: The ``[agent]`` keys of each built-in adapter type, checked strictly before the run.
AGENT_TABLES: Mapping[str, type[BaseModel]] = {
    "callable": CallableConfig,
    "command": CommandConfig,
    "http": HttpConfig,
    "replay": ReplayConfig,
}
_SQLITE_HEADER = b"SQLite format 3\x00"
_HISTORY_ENV = "RAGCARD_HISTORY_URL"
_DATABASE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


@dataclass(frozen=True, slots=True)
class CheckedProject:
    """A project whose every input passed: its configuration (``run`` with the command
    line's overrides), inputs, judge and where its history lives."""

    config: Config
    run: RunSection
    inputs: Inputs
    judge: Judge | None
    history_url: str
    agent_spec: dict[str, Any] = field(default_factory=dict)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISREG, "a file")):  # fmt: skip
        if test(mode):
            return name
    return "not a folder"


def folder_problem(path: Path) -> str | None:
    """Why ``path`` cannot be (or become) a folder ragcard writes into; None when it can."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        parent = path.parent
        while parent != parent.parent and not parent.is_dir() and not os.path.lexists(parent):
            parent = parent.parent
        if not parent.is_dir():
            return f"cannot be created: {parent} is not a folder"
        if not os.access(parent, os.W_OK | os.X_OK):
            return f"cannot be created: {parent} cannot be written"
        return None
    except OSError as error:
        return f"cannot be used ({error.strerror or error})"
    if not stat.S_ISDIR(mode):
        return f"is {_kind(mode)}, not a folder"
    if not os.access(path, os.W_OK | os.X_OK):
        return "is a folder that cannot be written"
    return None


def _sqlite_file_problem(path: Path) -> str | None:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if not path.parent.is_dir():
            return f"its folder {path.parent} does not exist"
        return None
    except OSError as error:
        return f"cannot be used ({error.strerror or error})"
    if not stat.S_ISREG(mode):
        return f"is {_kind(mode)}, not a SQLite database"
    try:
        with path.open("rb") as handle:
            head = handle.read(len(_SQLITE_HEADER))
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if head and head != _SQLITE_HEADER:
        return f"{path} is not a SQLite database"
    return None


def history_problem(url: str) -> str | None:
    """Why ``url`` cannot hold the run history (None when it can, as far as can be told
    without connecting): a SQLite URL must name a database file or a new file in an existing
    folder, a bare path must name a ``.sqlite``/``.db`` file, other schemes are refused."""
    if "://" not in url:
        path = Path(url).expanduser()
        if not (path.suffix in _DATABASE_SUFFIXES or path.is_file()):
            return "is neither a database URL nor the path of a .sqlite file"
        return _sqlite_file_problem(path)
    try:
        parsed = sa.make_url(url)
    except (ArgumentError, ValueError):
        return "is not a database URL"
    backend = parsed.get_backend_name()
    if backend == "postgresql" or url.startswith("postgres://"):
        return None
    if backend != "sqlite":
        return f"names the database {backend!r}: only SQLite and PostgreSQL hold a history"
    if not parsed.database or parsed.database == ":memory:":
        return None
    return _sqlite_file_problem(Path(parsed.database).expanduser())


_HISTORY_FIX = (
    "use sqlite:///PATH/ragcard-history.sqlite (a new or existing SQLite file) or "
    "postgresql://user:password@host:port/database"
)


def _path_problems(
    config: Config,
    run: RunSection,
    out_dir: Path | None,
    eval_dir: Path | None,
    history_url: str | None,
) -> list[Problem]:
    problems = []
    for keys, flag, given, configured in (
        (("run", "out"), "--out", out_dir, run.out),
        (("run", "eval_dir"), "--eval-dir", eval_dir, run.eval_dir),
    ):
        path = given if given is not None else config.resolve(configured)
        why = folder_problem(path)
        if why is None:
            continue
        fix = "give a folder (it is created when missing)"
        if given is not None:
            problems.append(Problem(flag, None, None, f"{path} {why}", str(path), fix=fix))
        else:
            problems.append(config.problem(keys, f"{path} {why}", configured, fix=fix))
    for index, name in enumerate(config.project.inputs):
        why = _declared_problem(config.resolve(name))
        if why is not None:
            fix = "restore the file or remove it from [project] inputs"
            problems.append(config.problem(("project", "inputs", index), why, name, fix=fix))
    url = history_url or project_history_url(config)
    why = history_problem(url)
    if why is not None:
        if history_url is not None:
            problems.append(Problem("--db", None, None, f"{url} {why}", url, fix=_HISTORY_FIX))
        elif os.environ.get(_HISTORY_ENV):
            problems.append(Problem(f"${_HISTORY_ENV}", None, None, f"{url} {why}", url,
                                    fix=_HISTORY_FIX))  # fmt: skip
        else:
            problems.append(config.problem(("history", "url"), f"history {why}", url,
                                           fix=_HISTORY_FIX))  # fmt: skip
    return problems


def _declared_problem(path: Path) -> str | None:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return f"declared input {path} does not exist"
    except OSError as error:
        return f"declared input {path} cannot be used ({error.strerror or error})"
    if not stat.S_ISREG(mode):
        return f"declared input {path} is {_kind(mode)}, not a regular file"
    if not os.access(path, os.R_OK):
        return f"declared input {path} cannot be read"
    return None


def _run_settings(
    config: Config, overrides: Mapping[str, int | None], problems: list[Problem]
) -> RunSection:
    """``[run]`` with the command line's values, checked against the same bounds."""
    given = {key: value for key, value in overrides.items() if value is not None}
    if not given:
        return config.run
    try:
        return RunSection.model_validate({**config.run.model_dump(), **given})
    except ValidationError as error:
        for item in error.errors():
            flag = f"--{item['loc'][0]}"
            problems.append(Problem(flag, None, None, item["msg"], item.get("input"),
                                    fix="use a value within the bound"))  # fmt: skip
        return config.run


def _agent_problems(
    config: Config,
    spec: dict[str, Any],
    known: Mapping[str, Any] | None,
    retrieval_only: bool,
) -> list[Problem]:
    kind = spec.get("type")
    if isinstance(kind, str) and kind not in AGENT_TABLES and kind not in adapter_types():
        return [config.problem(("agent", "type"), "unknown agent type", kind,
                               fix=did_you_mean(kind, adapter_types(), "agent types") +
                               " (a plugin's type must be installed)")]  # fmt: skip
    model = AGENT_TABLES.get(kind) if isinstance(kind, str) else None
    if model is None or config.toml is None:
        return []  # a plugin's table is checked when it is built
    options = {key: value for key, value in spec.items() if key != "type"}
    try:
        model.model_validate(options, strict=True)
    except ValidationError as error:
        return validation_problems(config.toml, ("agent",), error, model)
    if kind != "replay":
        return []
    path = Path(str(spec["path"]))
    stream = RecordedResponses(path, known, require_answers=not retrieval_only)
    found = stream.check()
    if not found:
        return []
    pointer = config.problem(("agent", "path"), f"the replay recording {path} has "
                             f"{len(found)} problem(s), listed below", spec["path"],
                             fix="fix them, or point path at the right recording")  # fmt: skip
    return [pointer, *found]


def _pointed(config: Config, problems: list[Problem]) -> list[Problem]:
    """``problems`` where a problem of a whole file that ragcard.toml names (not found, a
    device …) says which key of ragcard.toml named it."""
    named = {
        str(config.resolve(getattr(config.project, key))): ("project", key)
        for key in ("questions", "corpus", "thresholds")
    }
    pointed = []
    for problem in problems:
        keys = named.get(problem.file)
        if keys is None or problem.line is not None:
            pointed.append(problem)
            continue
        line = config.line_of(*keys)
        where = f"{config.path}:{line}" if line else str(config.path)
        fix = f"{problem.fix or 'fix the path'} (named by [{keys[0]}] {keys[1]} in {where})"
        pointed.append(dataclasses.replace(problem, fix=fix))
    return pointed


def _no_gates(config: Config) -> Problem:
    """A thresholds file without a gate: the run could only hold, so it is refused before the
    first agent call (docs/formats.md#thresholdstoml)."""
    path = config.resolve(config.project.thresholds)
    line = config.line_of("project", "thresholds")
    where = f"{config.path}:{line}" if line else str(config.path)
    return Problem(str(path), None, None, "has no [[threshold]]: a run would call "
                   "the agent and then hold, since nothing says the agent is good enough",
                   fix="write the gates before the first run, each with its reason (`ragcard "
                   f"init --kit knowledge-base` writes a template); named by [project] "
                   f"thresholds in {where}")  # fmt: skip


def _judge(config: Config, problems: list[Problem]) -> Judge | None:
    try:
        return build_run_judge(config)
    except (ConfigError, MissingExtraError) as error:
        if isinstance(error, InputError):
            problems.extend(error.problems)
        else:
            problems.append(config.problem(("judge",), str(error)))
        return None


def check_project(
    config_path: str | Path,
    *,
    out_dir: str | Path | None = None,
    eval_dir: str | Path | None = None,
    history_url: str | None = None,
    attempts: int | None = None,
    concurrency: int | None = None,
    agent_options: Mapping[str, Any] | None = None,
    retrieval_only: bool = False,
) -> CheckedProject:
    """Check a project and everything it names before a run; raise one :class:`InputError`
    listing every problem (file:line, field, value, fix) when there is any."""
    config, problems = inspect_config(config_path)
    if config is None:
        summary = f"{len(problems)} problem(s) in the configuration"
        raise ConfigFileError(problems, summary)
    if not config.agent:
        problems.append(config.problem(("agent",), "no [agent] table: say which agent to call",
                                       fix='add an [agent] table with its type (callable, http, '
                                       'command or replay)'))  # fmt: skip
    run = _run_settings(config, {"attempts": attempts, "concurrency": concurrency}, problems)
    problems += _path_problems(
        config,
        run,
        Path(out_dir) if out_dir is not None else None,
        Path(eval_dir) if eval_dir is not None else None,
        history_url,
    )
    judge = _judge(config, problems)
    settings = scoring_settings(
        run.run_date, run.k, run.non_abstaining_flags, retrieval_only, judge
    )
    inputs: Inputs | None = None
    try:
        inputs = load_project_inputs(config, metric_specs(default_layers(), settings))
    except InputError as error:
        problems.extend(_pointed(config, error.problems))
    if inputs is not None and not inputs.thresholds.items:
        problems.append(_no_gates(config))
    spec = config.agent_spec()
    if agent_options:
        spec["options"] = {**spec.get("options", {}), **agent_options}
    known = inputs.questions.by_id() if inputs is not None else None
    problems += _agent_problems(config, spec, known, retrieval_only)
    if problems or inputs is None:
        close = getattr(judge, "close", None)
        if callable(close):
            close()
        raise InputError(problems, f"{len(problems)} problem(s) in the project's inputs")
    url = history_url or project_history_url(config)
    return CheckedProject(config, run, inputs, judge, url, spec)
