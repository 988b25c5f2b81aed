"""Project configuration: ``ragcard.toml``.

::

    [project]
    name = "Northwind handbook assistant"
    kit = "knowledge-base"            # or "persona"
    questions = "questions.jsonl"
    corpus = "corpus.jsonl"
    thresholds = "thresholds.toml"
    corpus_version = "2025.2"         # optional; default: a hash of the corpus file
    inputs = ["prompts/system.txt"]   # files the agent depends on (instructions, persona
                                      # prompt, policy rules, canned replies): frozen & hashed

    [agent]                           # see ragcard.adapters.build_adapter
    type = "callable"
    factory = "ragcard.reference:build_agent"
    [agent.options]
    corpus = "corpus.jsonl"

    [run]
    attempts = 3
    concurrency = 8
    timeout_s = 60
    retries = 3
    k = 5
    run_date = "2026-06-01"           # optional; default today
    out = "out"
    eval_dir = "eval"

    [judge]                           # optional; see ragcard.judges.build_judge
    backend = "lexical"

    [history]
    url = "sqlite:///…"               # default: ragcard-history.sqlite beside ragcard.toml

    [baseline]
    tolerance = { "recall@5" = 0.02 } # allowed drop per measure before the gate fails

    [signing]
    trusted_keys = ["keys/ada.pem.pub"]  # whose signatures `ragcard verify --project` trusts

    [redteam]                         # optional; see ragcard.redteam.settings

Paths are relative to the file's folder. Unknown keys are rejected (a typo must not silently
change a run) with the closest known key; values are not coerced (``attempts = "2"`` and
``timeout_s = true`` are errors), numbers are finite and bounded (``attempts`` at most 100 …);
every problem is listed with its line. The ``[agent]`` table is checked by the adapter it names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcard.errors import ConfigError, ConfigFileError, Problem
from ragcard.inputs._fields import Day, Number, Whole
from ragcard.inputs._limits import (
    MAX_ATTEMPTS,
    MAX_CONCURRENCY,
    MAX_K,
    MAX_NAME_CHARS,
    MAX_RETRIES,
    MAX_TIMEOUT_S,
)
from ragcard.inputs._toml import TomlFile, read_toml, table_problems, unique, validation_problems

__all__ = [
    "Config",
    "ProjectSection",
    "RunSection",
    "SigningSection",
    "inspect_config",
    "load_config",
]

CONFIG_NAME = "ragcard.toml"

class ProjectSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="ragcard project", min_length=1, max_length=MAX_NAME_CHARS)
    kit: Literal["knowledge-base", "persona"] = "knowledge-base"
    questions: str = Field("questions.jsonl", min_length=1, max_length=4096)
    corpus: str = Field("corpus.jsonl", min_length=1, max_length=4096)
    thresholds: str = Field("thresholds.toml", min_length=1, max_length=4096)
    corpus_version: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)
    question_set_version: str | None = Field(
        default=None, min_length=1, max_length=MAX_NAME_CHARS
    )
    inputs: list[str] = Field(default_factory=list, max_length=1000)


class RunSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    attempts: Whole = Field(default=3, ge=1, le=MAX_ATTEMPTS)
    concurrency: Whole = Field(default=8, ge=1, le=MAX_CONCURRENCY)
    timeout_s: Number = Field(default=60.0, gt=0, le=MAX_TIMEOUT_S)
    retries: Whole = Field(default=3, ge=0, le=MAX_RETRIES)
    k: Whole = Field(default=5, ge=1, le=MAX_K)
    run_date: Day | None = None
    out: str = Field("out", min_length=1, max_length=4096)
    eval_dir: str = Field("eval", min_length=1, max_length=4096)
    non_abstaining_flags: list[str] = Field(default_factory=list, max_length=1000)
    seed: Whole | None = Field(default=None, ge=0, le=2**63 - 1)


class HistorySection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(default=None, min_length=1, max_length=4096)


class BaselineSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tolerance: dict[str, Number] = Field(default_factory=dict)
    default_tolerance: Number = Field(default=0.0, ge=0)


class SigningSection(BaseModel):
    """``[signing]``: the public keys whose signatures ``ragcard verify --project`` trusts
    (paths relative to ragcard.toml)."""

    model_config = ConfigDict(extra="forbid")

    trusted_keys: list[str] = Field(default_factory=list, max_length=1000)


#: The tables of ragcard.toml checked here (``[agent]``, ``[judge]`` and ``[redteam]`` are
#: free-form tables, checked by the adapter, the judge and the red team that read them).
SECTIONS: dict[str, type[BaseModel]] = {
    "project": ProjectSection,
    "run": RunSection,
    "history": HistorySection,
    "baseline": BaselineSection,
    "signing": SigningSection,
}
FREE_TABLES = ("agent", "judge", "redteam")


@dataclass(frozen=True, slots=True)
class Config:
    path: Path
    project: ProjectSection
    agent: dict[str, Any]
    run: RunSection
    judge: dict[str, Any]
    history: HistorySection
    baseline: BaselineSection
    toml: TomlFile | None = None
    signing: SigningSection = field(default_factory=lambda: SigningSection())
    #: the ``[redteam]`` table, checked by :func:`ragcard.redteam.settings.load_settings`
    redteam: dict[str, Any] = field(default_factory=dict)

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    def resolve(self, relative: str) -> Path:
        path = Path(relative)
        return path if path.is_absolute() else self.base_dir / path

    def line_of(self, *keys: str | int) -> int | None:
        """The line of ``keys`` in ragcard.toml (None for a configuration built in code)."""
        return self.toml.line_of(keys) if self.toml is not None else None

    def problem(
        self,
        keys: tuple[str | int, ...],
        message: str,
        value: object = None,
        fix: str | None = None,
    ) -> Problem:
        """A problem of ragcard.toml at the line of ``keys``."""
        if self.toml is not None:
            return self.toml.problem(keys, message, value, fix)
        return Problem(str(self.path), None, ".".join(map(str, keys)), message, value, fix)

    def agent_spec(self) -> dict[str, Any]:
        """The ``[agent]`` table with option values that name existing files made absolute,
        so the agent finds them whatever the working directory; a callable agent's module is
        looked for in its ``path`` folders (relative to this file) and then in this file's
        folder; a command agent runs in its ``cwd`` (relative to this file), by default this
        file's folder."""
        spec = dict(self.agent)
        if spec.get("type") == "command":
            spec.setdefault("cwd", ".")
        if spec.get("type") == "callable":
            path = spec.get("path", [])
            if isinstance(path, list) and all(isinstance(p, str) for p in path):
                spec["path"] = [str(self.resolve(p)) for p in path] + [str(self.base_dir)]
        options = dict(spec.get("options", {}))
        for key, value in options.items():
            if isinstance(value, str) and value and (self.base_dir / value).is_file():
                options[key] = str((self.base_dir / value).resolve())
        if options:
            spec["options"] = options
        keys = ("responses", "cwd", *(("path",) if spec.get("type") == "replay" else ()))
        for key in keys:  # a replay's recording is relative to this file, like every path
            if isinstance(spec.get(key), str):
                spec[key] = str(self.resolve(spec[key]))
        return spec


def _not_found(path: Path) -> ConfigError:
    return ConfigError(
        f"{path}: no such file — pass a project folder holding {CONFIG_NAME} or the file "
        "itself (`ragcard init` writes one)"
    )


#: Keys of [project] without which the other input files cannot be found.
_PATH_KEYS = frozenset({"questions", "corpus", "thresholds"})


def _without(model: type[BaseModel], table: dict[str, Any], error: ValidationError) -> Any:
    """The table read without its bad keys (their defaults instead), so that the rest of the
    configuration is still checked in the same round; None for a [project] table whose file
    paths are bad (the other files cannot be found)."""
    bad = {str(item["loc"][0]) for item in error.errors() if item["loc"]}
    if model is ProjectSection and bad & _PATH_KEYS:
        return None
    try:
        return model.model_validate({k: v for k, v in table.items() if k not in bad})
    except ValidationError:
        return None if model is ProjectSection else model()


def _table(toml: TomlFile, name: str, problems: list[Problem]) -> dict[str, Any]:
    table = toml.data.get(name, {})
    if isinstance(table, dict):
        return table
    problems.append(toml.problem((name,), f"[{name}] must be a table", table,
                                 fix=f"write it as a [{name}] section"))  # fmt: skip
    return {}


def inspect_config(path: str | Path) -> tuple[Config | None, list[Problem]]:
    """``ragcard.toml`` (a file or a project folder) and every problem in it, each with its
    line: unknown tables and keys (with the closest known one), wrong types, values out of
    bounds. The configuration is None when its ``[project]`` table is unusable (so the other
    input files cannot be found); otherwise a table with problems is read as its defaults, so
    that the other files can still be checked in the same round."""
    path = Path(path)
    if path.is_dir():
        path = path / CONFIG_NAME
    try:
        toml, problems = read_toml(path)
    except FileNotFoundError:
        raise _not_found(path) from None
    except ConfigFileError as error:
        return None, list(error.problems)
    problems += table_problems(toml, [*SECTIONS, *FREE_TABLES])
    tables = {name: _table(toml, name, problems) for name in (*SECTIONS, *FREE_TABLES)}
    sections: dict[str, Any] = {}
    for name, model in SECTIONS.items():
        try:
            sections[name] = model.model_validate(tables[name])
        except ValidationError as error:
            problems.extend(validation_problems(toml, (name,), error, model))
            sections[name] = _without(model, tables[name], error)
    agent = tables["agent"]
    if agent and not isinstance(agent.get("type"), str):
        keys = ("agent", "type") if "type" in agent else ("agent",)
        fix = 'add type = "callable", "http", "command" or "replay"'
        problems.append(toml.problem(keys, "[agent] needs a type", agent.get("type"), fix))
    problems = unique(problems)
    if sections["project"] is None:
        return None, problems
    config = Config(
        path.resolve(),
        sections["project"],
        agent,
        sections["run"],
        tables["judge"],
        sections["history"],
        sections["baseline"],
        toml,
        sections["signing"],
        tables["redteam"],
    )
    return config, problems


def load_config(path: str | Path) -> Config:
    """Load ``ragcard.toml`` from a file or a project folder; a :class:`ConfigFileError`
    lists every problem with its line."""
    config, problems = inspect_config(path)
    if problems or config is None:
        where = problems[0].file if problems else str(path)
        raise ConfigFileError(problems, f"{where}: {len(problems)} problem(s) in the configuration")
    return config
