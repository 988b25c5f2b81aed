"""The one exception hierarchy of ragcard.

::

    RagcardError                  base of everything ragcard raises on purpose
    ├── InputError                bad user input: files, fields, cross-file references (exit 2)
    │                             carries every Problem found, not just the first
    ├── ConfigError               a bad ragcard.toml / thresholds file / option (exit 2)
    │   └── ConfigFileError       … listing every problem with its TOML line (also an InputError)
    ├── MissingExtraError         an optional backend is not installed (exit 2, with the pip hint)
    ├── ModelInstallError         a local model could not be installed (pip, a part, its checksum)
    ├── JudgeError                a judge could not return a verdict; recorded on the answer
    │   └── TaskNotSupportedError … this backend cannot judge this task (unscored, never 0)
    └── AgentError                one agent call failed; the runner records it on the item
        ├── AgentTimeout          the call ran past its timeout (transient: retried)
        ├── AgentTransportError   connection refused, HTTP 5xx … (transient: retried)
        │   └── RateLimitedError  HTTP 429, with the server's Retry-After
        ├── AgentOutputError      the agent answered, but not with a valid response (kept raw)
        ├── NotRecordedError      replay: no recorded response for this item-attempt
        └── RecordedFailure       replay: the attempt failed in the recorded run, as it failed

User errors print without a traceback; the CLI maps ``InputError``/``ConfigError``/
``MissingExtraError`` to exit code 2. Any other exception is a bug in ragcard: the CLI exits 3
with a one-line hint and the traceback saved to a log file (:mod:`ragcard._cli._crash`).
Agent errors never end a run: they become the ``error`` record of one item-attempt. Every exit
status is an :class:`ExitCode` (README "Exit codes").
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

__all__ = [
    "AgentError",
    "AgentOutputError",
    "AgentTimeout",
    "AgentTransportError",
    "ConfigError",
    "ConfigFileError",
    "ExitCode",
    "InputError",
    "JudgeError",
    "MissingExtraError",
    "ModelInstallError",
    "NotRecordedError",
    "Problem",
    "RagcardError",
    "RateLimitedError",
    "RecordedFailure",
    "TaskNotSupportedError",
    "one_line",
]


class ExitCode(IntEnum):
    """The exit status of every ``ragcard`` command (README "Exit codes", docs/ci.md)."""

    #: ship, the regression gate passed, a valid signature, nothing blocks
    OK = 0
    #: hold: a threshold missed or unscored, a gate failed, an invalid signature, a blocking
    #: problem of a question set, an open critical red-team finding
    HOLD = 1
    #: the same status where a command checks rather than decides (a judge that scored
    #: nothing, an install that failed, a stale label)
    FAILED = 1
    #: bad input or usage: every problem listed with its file, line, field and fix
    BAD_INPUT = 2
    #: a bug in ragcard or in a plugin (the traceback saved), never a decision
    INTERNAL = 3
    #: stopped by Ctrl-C (the shell's 128 + SIGINT)
    INTERRUPTED = 130


def one_line(message: str, limit: int = 200) -> str:
    """An error message on one line (whitespace runs collapsed), cut to ``limit`` characters:
    what a report shows next to a count of the failures that gave it."""
    line = " ".join(str(message).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input: where, what, what was expected, how to fix it."""

    file: str
    line: int | None
    field: str | None
    message: str
    value: object = None
    fix: str | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        parts = [where]
        if self.field:
            parts.append(f"field '{self.field}'")
        text = ": ".join([" ".join(parts), self.message])
        if self.value is not None:
            shown = repr(self.value)
            if len(shown) > 80:
                shown = shown[:77] + "..."
            text += f" (got {shown})"
        if self.fix:
            text += f" — {self.fix}"
        return text


class RagcardError(Exception):
    """Base class of every error ragcard raises on purpose."""


class InputError(RagcardError):
    """Bad input files. Holds every problem found so the user can fix them in one pass."""

    def __init__(self, problems: list[Problem] | Problem, summary: str | None = None) -> None:
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        self.summary = summary or f"{len(self.problems)} problem(s) in the input"
        super().__init__(self.render())

    def render(self, limit: int = 200) -> str:
        lines = [self.summary + ":"]
        lines += [f"  {p}" for p in self.problems[:limit]]
        if len(self.problems) > limit:
            lines.append(f"  … and {len(self.problems) - limit} more")
        return "\n".join(lines)


class ConfigError(RagcardError):
    """A bad configuration file or option."""


class ConfigFileError(InputError, ConfigError):
    """A bad ``ragcard.toml`` or thresholds file: every problem with its line, key, value and
    fix. Both an :class:`InputError` (it lists problems, and joins the problems of the other
    input files) and a :class:`ConfigError`."""


class MissingExtraError(RagcardError):
    """A dependency is not installed; the message says which extra to install (or, for the
    ``embed`` packages, which are part of the default install, how to repair it)."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        self.package, self.extra = package, extra
        if extra == "embed":  # the default install holds them: this install is broken
            fix = "reinstall ragcard: pip install --force-reinstall ragcard"
        else:
            fix = f"install it with: pip install 'ragcard[{extra}]'"
        super().__init__(f"{purpose} needs the '{package}' package, which is not installed; {fix}")


class AgentError(RagcardError):
    """One agent call failed. ``transient`` errors are retried by the runner."""

    transient: bool = False
    kind: str = "agent_error"

    def __init__(self, message: str, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw


class AgentTimeout(AgentError):
    transient = True
    kind = "timeout"


class AgentTransportError(AgentError):
    """``retry_after_s``: how long the server asked the client to wait (HTTP Retry-After)."""

    transient = True
    kind = "transport"

    def __init__(
        self,
        message: str,
        raw: str | None = None,
        transient: bool = True,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message, raw)
        self.transient = transient
        self.retry_after_s = retry_after_s


class AgentOutputError(AgentError):
    """The agent answered with something that is not a valid response; ``raw`` keeps it."""

    kind = "malformed_output"


class RateLimitedError(AgentTransportError):
    """HTTP 429. ``retry_after_s`` is the server's ``Retry-After`` (the runner waits that long)."""

    def __init__(
        self, message: str, raw: str | None = None, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message, raw, transient=True, retry_after_s=retry_after_s)


class NotRecordedError(AgentError):
    """No recorded response for this item-attempt (never retried)."""

    kind = "not_recorded"


class RecordedFailure(AgentError):
    """An attempt that failed in the recorded run (a line of ``results.jsonl`` with an error),
    replayed with its kind and message (never retried)."""

    def __init__(self, kind: str, message: str, raw: str | None = None) -> None:
        super().__init__(message, raw)
        self.kind = kind


class JudgeError(RagcardError):
    """A judge could not return a verdict (bad output after retries, transport failure…)."""

    def __init__(self, message: str, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw


class TaskNotSupportedError(JudgeError):
    """The backend cannot answer this task; the metric falls back or is unscored with this
    reason (never a zero)."""

    def __init__(self, judge: str, task: str) -> None:
        super().__init__(f"judge '{judge}' cannot judge {task}")
        self.judge = judge
        self.task = task


class ModelInstallError(RagcardError):
    """A model could not be installed: pip failed, a part is missing, or the checksum differs."""
