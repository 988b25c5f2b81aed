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

    [redteam]                         # optional; see ragcard.redteam.settings
    attempts = 3

Paths are relative to the file's folder. Unknown keys are rejected (a typo must not silently
change a run); the ``[agent]`` table is checked by the adapter it names.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcard._files import read_utf8
from ragcard.errors import ConfigError

__all__ = ["Config", "ProjectSection", "RunSection", "load_config"]

CONFIG_NAME = "ragcard.toml"


class ProjectSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "ragcard project"
    kit: Literal["knowledge-base", "persona"] = "knowledge-base"
    questions: str = "questions.jsonl"
    corpus: str = "corpus.jsonl"
    thresholds: str = "thresholds.toml"
    corpus_version: str | None = None
    question_set_version: str | None = None
    inputs: list[str] = Field(default_factory=list)


class RunSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    attempts: int = Field(default=3, ge=1)
    concurrency: int = Field(default=8, ge=1)
    timeout_s: float = Field(default=60.0, gt=0)
    retries: int = Field(default=3, ge=0)
    k: int = Field(default=5, ge=1)
    run_date: dt.date | None = None
    out: str = "out"
    eval_dir: str = "eval"
    non_abstaining_flags: list[str] = Field(default_factory=list)
    seed: int | None = None


class HistorySection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str | None = None


class BaselineSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tolerance: dict[str, float] = Field(default_factory=dict)
    default_tolerance: float = Field(default=0.0, ge=0)


class SigningSection(BaseModel):
    """``[signing]``: the public keys whose signatures ``ragcard verify --project`` trusts
    (paths relative to ragcard.toml)."""

    model_config = ConfigDict(extra="forbid")

    trusted_keys: list[str] = Field(default_factory=list)


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")

    project: ProjectSection = Field(default_factory=ProjectSection)
    agent: dict[str, Any] = Field(default_factory=dict)
    judge: dict[str, Any] = Field(default_factory=dict)
    run: RunSection = Field(default_factory=RunSection)
    history: HistorySection = Field(default_factory=lambda: HistorySection())
    baseline: BaselineSection = Field(default_factory=lambda: BaselineSection())
    redteam: dict[str, Any] = Field(default_factory=dict)
    signing: SigningSection = Field(default_factory=lambda: SigningSection())


@dataclass(frozen=True, slots=True)
class Config:
    path: Path
    project: ProjectSection
    agent: dict[str, Any]
    run: RunSection
    judge: dict[str, Any]
    history: HistorySection
    baseline: BaselineSection
    #: the ``[redteam]`` table, checked by :func:`ragcard.redteam.settings.load_settings`
    redteam: dict[str, Any] = field(default_factory=dict)
    signing: SigningSection = field(default_factory=lambda: SigningSection())

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    def resolve(self, relative: str) -> Path:
        path = Path(relative)
        return path if path.is_absolute() else self.base_dir / path

    def agent_spec(self) -> dict[str, Any]:
        """The ``[agent]`` table with option values that name existing files made absolute,
        so the agent finds them whatever the working directory; a callable agent's module is
        looked for in its ``path`` folders (relative to this file) and then in this file's
        folder; a command agent runs in its ``cwd`` (relative to this file), by default this
        file's folder; a replay agent reads its ``path`` relative to this file."""
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
        if spec.get("type") == "replay" and isinstance(spec.get("path"), str):
            spec["path"] = str(self.resolve(spec["path"]))  # beside ragcard.toml, not the cwd
        return spec


def load_config(path: str | Path) -> Config:
    """Load ``ragcard.toml`` from a file or a project folder."""
    path = Path(path)
    if path.is_dir():
        path = path / CONFIG_NAME
    try:
        data = tomllib.loads(read_utf8(path))
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: no such file — pass a project folder holding {CONFIG_NAME} or the file "
            "itself (`ragcard init` writes one)"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from None
    try:
        parsed = _File.model_validate(data)
    except ValidationError as error:
        lines = [
            f"  {path}: [{'.'.join(str(p) for p in e['loc'][:-1]) or 'top'}] "
            f"'{e['loc'][-1]}': {e['msg']}"
            for e in error.errors()
        ]
        raise ConfigError("bad configuration:\n" + "\n".join(lines)) from None
    if parsed.agent and "type" not in parsed.agent:
        raise ConfigError(f"{path}: [agent] needs a type: callable, http, command or replay")
    return Config(
        path.resolve(),
        parsed.project,
        parsed.agent,
        parsed.run,
        parsed.judge,
        parsed.history,
        parsed.baseline,
        parsed.redteam,
        parsed.signing,
    )
