"""Run the agent over a question set: attempts, bounded concurrency, retries and resume.

:func:`run_attempts` calls the adapter once per item and attempt (1..N, docs/metrics.md#decision)
and
hands each finished item-attempt, success or failure, to ``on_outcome`` at once, so the caller
can append it to ``results.jsonl`` and an interrupted run loses nothing.

* A fixed pool of ``concurrency`` workers pulls from one shared iterator (attempt 1 of every
  item first), so 50,000 attempts never become 50,000 tasks.
* Each call runs under ``asyncio.timeout``; transient errors are retried ``retries`` times with
  exponential backoff and full jitter (seeded by ``seed``), honouring ``Retry-After`` up to
  ``backoff_max_s`` (:class:`~ragcard.agent._retry.Backoff`, the policy the llm judge uses too).
* Agent failures are records (:class:`AttemptError`); an exception that is not an
  :class:`~ragcard.errors.AgentError` (a bug in the agent) becomes kind ``agent_exception``.
  Configuration errors and exceptions from ``on_outcome`` end the run: every call would fail.
* ``skip`` holds item-attempts already recorded (:func:`completed_attempts`): resume.
  Cancellation (Ctrl-C) stops the workers; what was reported stays reported.
"""

from __future__ import annotations

import asyncio
import json
import time
import traceback
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ragcard.adapters.base import Adapter, AgentCall, AgentReply, RetrievingAdapter
from ragcard.agent import _secrets
from ragcard.agent._retry import Backoff
from ragcard.errors import AgentError, AgentTimeout, ConfigError, InputError, Problem, RagcardError
from ragcard.inputs.questions import Question
from ragcard.inputs.responses import AgentResponse

__all__ = [
    "AttemptError",
    "AttemptOutcome",
    "Backoff",
    "RunSettings",
    "RunSummary",
    "completed_attempts",
    "judge_progress_bar",
    "run_attempts",
]

_RAW_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How to run the agent. ``retries`` counts extra tries of one item-attempt."""

    attempts: int = 3
    concurrency: int = 8
    timeout_s: float = 60.0
    retries: int = 3
    backoff_base_s: float = 0.5
    backoff_max_s: float = 20.0
    retrieval_only: bool = False
    seed: int | None = None

    def __post_init__(self) -> None:
        lowest = [("attempts", 1), ("concurrency", 1), ("timeout_s", 1e-6), ("retries", 0)]
        lowest += [("backoff_base_s", 0), ("backoff_max_s", self.backoff_base_s)]
        bad = [
            f"{name} = {getattr(self, name)!r}" for name, low in lowest if getattr(self, name) < low
        ]
        if bad:
            raise ConfigError(
                f"run settings out of range: {', '.join(bad)} (attempts and "
                "concurrency >= 1, timeout_s > 0, retries >= 0, "
                "0 <= backoff_base_s <= backoff_max_s)"
            )


@dataclass(frozen=True, slots=True)
class AttemptError:
    """Why an item-attempt has no reply. ``transient`` errors might pass on a rerun."""

    kind: str
    message: str
    raw: str | None
    transient: bool


@dataclass(frozen=True, slots=True)
class AttemptOutcome:
    """One finished item-attempt: a reply or an error, never both."""

    item_id: str
    attempt: int
    reply: AgentReply | None
    error: AttemptError | None
    started_at: str
    tries: int
    wall_ms: float

    @property
    def verdict(self) -> str:
        """``"ok"`` or the error kind (``timeout``, ``transport``, ``malformed_output`` …)."""
        return "ok" if self.error is None else self.error.kind

    def as_record(self) -> dict[str, Any]:
        """A JSON-ready dict (``item``, ``attempt``, timings, ``response`` or ``error``)."""
        record: dict[str, Any] = {
            "item": self.item_id,
            "attempt": self.attempt,
            "started_at": self.started_at,
            "tries": self.tries,
            "wall_ms": round(self.wall_ms, 3),
            "verdict": self.verdict,
        }
        if self.reply is not None:
            record["response"] = self.reply.response.model_dump(mode="json", exclude_unset=True)
            record["latency_ms"] = self.reply.latency_ms
            record["first_token_ms"] = self.reply.first_token_ms
            record["meta"] = self.reply.meta
        if self.error is not None:
            record["error"] = asdict(self.error)
        return record

    def response_record(self) -> dict[str, Any] | None:
        """The ``responses.jsonl`` line (docs/agents.md) for a success, with ragcard's timings."""
        if self.reply is None:
            return None
        record = self.reply.response.model_dump(mode="json", exclude_unset=True)
        record["latency_ms"] = self.reply.latency_ms
        if self.reply.first_token_ms is not None:
            record["first_token_ms"] = self.reply.first_token_ms
        return {**record, "item": self.item_id, "attempt": self.attempt}


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What a run did. ``done`` counts reported outcomes, successes and errors alike."""

    planned: int
    done: int
    succeeded: int
    skipped: int
    errors: Mapping[str, int]
    retries: int
    wall_s: float

    @property
    def failed(self) -> int:
        """Item-attempts that ended in an error."""
        return sum(self.errors.values())


async def run_attempts(
    questions: Sequence[Question],
    adapter: Adapter,
    settings: RunSettings,
    on_outcome: Callable[[AttemptOutcome], None],
    *,
    skip: Collection[tuple[str, int]] = (),
    progress: bool = True,
) -> RunSummary:
    """Call the agent ``settings.attempts`` times per question; report every outcome.

    ``on_outcome`` is called from the event loop once per finished item-attempt. The adapter
    is not closed here: whoever built it closes it.
    """
    console = Console(stderr=True, soft_wrap=True)
    _preflight(questions, adapter, settings, console)
    done_before = set(skip)
    planned = len(questions) * settings.attempts
    total = sum(1 for _ in _plan(questions, settings.attempts, done_before))
    backoff = Backoff(settings.backoff_base_s, settings.backoff_max_s, settings.seed)
    run = _Run(adapter, settings, on_outcome, backoff)
    start = time.monotonic()
    if progress:
        run.bar = _progress_bar(console)
        run.task = run.bar.add_task("agent", total=total, errors=0, retries=0)
    with run.bar or nullcontext():
        jobs = _plan(questions, settings.attempts, done_before)
        count = min(settings.concurrency, total)
        await _supervise([asyncio.create_task(run.work(jobs)) for _ in range(count)])
    succeeded, wall_s = run.done - sum(run.errors.values()), time.monotonic() - start
    return RunSummary(
        planned, run.done, succeeded, planned - total, dict(run.errors), run.retries, wall_s
    )


async def _supervise(workers: list[asyncio.Task[None]]) -> None:
    """Wait for the workers; on the first failure or on cancellation stop them all."""
    try:
        if workers:
            await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
        failures = [w.exception() for w in workers if w.done() and not w.cancelled()]
        if any(failures):
            raise next(failure for failure in failures if failure is not None)
    finally:
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


def _plan(
    questions: Sequence[Question], attempts: int, skip: Collection[tuple[str, int]]
) -> Iterator[tuple[Question, int]]:
    for attempt in range(1, attempts + 1):
        for question in questions:
            if (question.id, attempt) not in skip:
                yield question, attempt


def _preflight(
    questions: Sequence[Question], adapter: Adapter, settings: RunSettings, console: Console
) -> None:
    """Refuse what cannot run; warn about what runs but weakens the verdict."""
    counts = Counter(question.id for question in questions)
    duplicates = sorted(item for item, count in counts.items() if count > 1)
    if duplicates:
        raise ConfigError(f"item ids must be unique to run: {', '.join(duplicates[:10])}")
    check = getattr(adapter, "preflight", None)
    if callable(check):  # settings every call needs (secrets from the environment): now
        check()
    retrieves = isinstance(adapter, RetrievingAdapter)
    if settings.retrieval_only:
        if not retrieves or not getattr(adapter, "supports_retrieval", True):
            raise ConfigError(
                f"the {adapter.name!r} adapter cannot run retrieval alone: configure its "
                "retrieval (retrieve_url for http, retrieve() for callable) or run end to end"
            )
    elif settings.attempts < 3:
        console.print(
            "[yellow]warning:[/] fewer than 3 attempts: must-pass checks use the "
            f"worst of N (running N = {settings.attempts})"
        )


@dataclass(slots=True)
class _Run:
    """The state workers share: settings, counters, the progress bar."""

    adapter: Adapter
    settings: RunSettings
    on_outcome: Callable[[AttemptOutcome], None]
    backoff: Backoff
    bar: Progress | None = None
    task: TaskID = TaskID(0)
    done: int = 0
    retries: int = 0
    errors: Counter[str] = field(default_factory=Counter)

    async def work(self, jobs: Iterator[tuple[Question, int]]) -> None:
        # One shared iterator: ``next`` never awaits, so two workers never take one job.
        for question, attempt in jobs:
            outcome = await self.attempt(question, attempt)
            self.done += 1
            if outcome.error is not None:
                self.errors[outcome.error.kind] += 1
            self.on_outcome(outcome)
            if self.bar is not None:
                errors = sum(self.errors.values())
                self.bar.update(self.task, completed=self.done, errors=errors, retries=self.retries)

    async def attempt(self, question: Question, attempt: int) -> AttemptOutcome:
        started_at = datetime.now(UTC).isoformat(timespec="milliseconds")
        start = time.monotonic()
        request = question.request()
        tries = 0
        while True:
            tries += 1
            call = AgentCall(dict(request), question.id, attempt, self.settings.timeout_s)
            reply, error, retry_after = await self.call_once(call)
            if error is None or not error.transient or tries > self.settings.retries:
                wall_ms = (time.monotonic() - start) * 1000.0
                return AttemptOutcome(
                    question.id, attempt, reply, error, started_at, tries, wall_ms
                )
            self.retries += 1
            await asyncio.sleep(self.backoff.delay(tries, retry_after))

    async def call_once(
        self, call: AgentCall
    ) -> tuple[AgentReply | None, AttemptError | None, float | None]:
        """One try: ``(reply, None, None)`` or ``(None, error, retry_after_s)``."""
        try:
            async with asyncio.timeout(self.settings.timeout_s):
                if self.settings.retrieval_only:
                    # run_attempts checked that the adapter retrieves
                    reply = await cast(RetrievingAdapter, self.adapter).retrieve(call)
                    retrieved = AgentResponse(retrieved=reply.response.retrieved)
                    return replace(reply, response=retrieved), None, None
                return await self.adapter.respond(call), None, None
        except TimeoutError:
            error: AgentError = AgentTimeout(f"no reply within {self.settings.timeout_s:g} s")
        except AgentError as agent_error:
            error = agent_error
        except RagcardError:
            raise  # configuration and input errors: every call would fail, stop the run
        except Exception as bug:  # the agent's own bug: record it, keep running
            return None, _exception_error(bug), None
        raw = error.raw if error.raw is None else _secrets.scrub(_cut(error.raw, keep="head"))
        found = AttemptError(error.kind, _secrets.scrub(str(error)), raw, error.transient)
        return None, found, getattr(error, "retry_after_s", None)


def _exception_error(bug: Exception) -> AttemptError:
    # the end of a traceback says where it broke
    trace = _secrets.scrub(_cut("".join(traceback.format_exception(bug)), keep="tail"))
    message = _secrets.scrub(f"{type(bug).__name__}: {bug}")
    return AttemptError("agent_exception", message, trace, False)


def _cut(text: str, *, keep: str) -> str:
    if len(text) <= _RAW_LIMIT:
        return text
    return text[:_RAW_LIMIT] + "… [truncated]" if keep == "head" else "… " + text[-_RAW_LIMIT:]


def _progress_bar(console: Console) -> Progress:
    """done/total, live error and retry counts, elapsed time and ETA, on stderr."""
    return Progress(
        TextColumn("[bold]agent[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[red]{task.fields[errors]} errors[/] · {task.fields[retries]} retries"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
    )


def judge_progress_bar(console: Console) -> Progress:
    """The judge's share of a run, after the agent's (or of ``ragcard score --judge``):
    answers judged/total, judge failures, elapsed time and ETA, on stderr."""
    return Progress(
        TextColumn("[bold]judge[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[red]{task.fields[failures]} failed[/]"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
    )


def completed_attempts(path: str | Path) -> set[tuple[str, int]]:
    """The ``(item, attempt)`` pairs recorded in a JSON Lines results file, for ``skip``.

    A missing file means nothing is done. A last line without its newline that does not parse
    was torn by a kill mid-write: it is ignored, so that attempt is redone. Any other bad line
    is an :class:`~ragcard.errors.InputError`.
    """
    path = Path(path)
    if not path.exists():
        return set()
    done: set[tuple[str, int]] = set()
    problems: list[Problem] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                if not line.endswith("\n"):
                    continue  # only the last line can lack its newline: torn by a kill
                problems.append(Problem(str(path), number, None, f"not valid JSON ({error.msg})"))
                continue
            key = _done_key(record)
            if key is None:
                needs = "a result needs 'item' (str) and 'attempt' (int)"
                problems.append(Problem(str(path), number, "item", needs))
            else:
                done.add(key)
    if problems:
        raise InputError(problems, f"{path}: cannot resume from it")
    return done


def _done_key(record: Any) -> tuple[str, int] | None:
    if not isinstance(record, dict):
        return None
    item, attempt = record.get("item"), record.get("attempt")
    if isinstance(item, str) and isinstance(attempt, int) and not isinstance(attempt, bool):
        return item, attempt
    return None
