"""Score a file of recorded responses on several processes (``ragcard score`` without a judge).

The parent reads the file and hands chunks of lines to forked workers. A worker parses, checks,
scores and folds each line exactly as the serial path does (:meth:`AttemptScorer.fold`, into
aggregates of its own for the chunk) and sends back the results lines, already JSON, and the
chunk's aggregates as packed arrays. The parent checks what needs the whole file (an ``(item,
attempt)`` repeated across chunks), merges the aggregates and writes the lines, chunk by chunk
in file order: the outputs are byte for byte those of one process (an item's values are summed
in the order they came either way), and at most a few chunks are in flight, so memory stays
flat.

Workers are forked (they inherit the inputs, the layers and the settings instead of pickling
them), so this path is used only where ``fork`` exists and the parent runs no other thread;
:func:`workers_for` falls back to one process otherwise, and for small files, where starting
workers costs more than it saves.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ragcard.aggregation._scorer import AttemptScorer, ScorerPart
from ragcard.errors import Problem
from ragcard.inputs._jsonl import LineError, parse_line, read_lines
from ragcard.inputs._recorded import attempt_record
from ragcard.inputs.responses import (
    Recorded,
    RecordedResponse,
    RecordedResponses,
    answer_problem,
    check_repeat,
    unknown_problem,
)
from ragcard.outputs.results import ResultsLog, dumps_line

__all__ = ["MIN_PARALLEL_BYTES", "score_file", "workers_for"]

#: Lines per chunk handed to a worker.
CHUNK_LINES = 500
#: Below this file size one process is faster than starting workers.
MIN_PARALLEL_BYTES = 4 << 20

# The parent's scorer, file name, line model and whether answers are required, set just
# before the workers are forked (they inherit them).
_SCORER: AttemptScorer | None = None
_NAME = ""
_MODEL: type[Recorded] = RecordedResponse
_ANSWERS = True


def workers_for(path: Path, requested: int | None = None) -> int:
    """How many processes score ``path``: ``requested`` (at least 1) or, by default, one per
    core for a file of :data:`MIN_PARALLEL_BYTES` or more; always 1 where workers cannot be
    forked safely (no ``fork`` start method, or other threads running in this process)."""
    if "fork" not in multiprocessing.get_all_start_methods() or threading.active_count() > 1:
        return 1
    if requested is not None:
        return max(1, requested)
    try:
        size = path.stat().st_size
    except OSError:
        return 1  # the serial path reports the missing file
    return max(1, min(os.cpu_count() or 1, 8)) if size >= MIN_PARALLEL_BYTES else 1


@dataclass(slots=True)
class _Chunk:
    """What a worker returns for one chunk of lines."""

    keys: list[tuple[int, str, int]] = field(default_factory=list)  # (line, item, attempt)
    problems: list[Problem] = field(default_factory=list)  # lines that are not a response
    unknown: list[Problem] = field(default_factory=list)  # responses for unknown items
    text: str = ""  # the results lines of the scored attempts
    folded: ScorerPart | None = None  # the chunk's scores, folded (None: nothing scored)
    max_attempt: int = 0


def _score_chunk(lines: list[tuple[int, str | LineError]]) -> _Chunk:
    """Parse, check, score and fold one chunk (in a worker)."""
    scorer = _SCORER
    assert scorer is not None, "workers are forked after the scorer is set"
    scorer.restart()
    chunk, written = _Chunk(), []
    for number, line in lines:
        if isinstance(line, LineError):
            chunk.problems.append(line.problem(_NAME, number, "each line must be one response"))
            continue
        response, problems = parse_line(_NAME, number, line, _MODEL, "response")
        if response is None:
            chunk.problems.extend(problems)
            continue
        chunk.keys.append((number, response.item, response.attempt))
        if _ANSWERS and isinstance(response, RecordedResponse):
            missing = answer_problem(_NAME, number, response)
            if missing is not None:
                chunk.problems.append(missing)
        if response.item not in scorer.questions:
            chunk.unknown.append(unknown_problem(_NAME, number, response.item))
            continue
        if chunk.problems or chunk.unknown:
            continue  # the file will be refused: only its problems matter now
        written.append(dumps_line(scorer.fold(attempt_record(response), None)))
        chunk.max_attempt = max(chunk.max_attempt, response.attempt)
    if written and not (chunk.problems or chunk.unknown):
        chunk.text, chunk.folded = "".join(written), scorer.part()
    return chunk


def _die_with_parent(parent: int) -> None:
    """In a worker, first thing: end when the parent ends, however it ends (a ``kill -9`` of
    ``ragcard score`` leaves no orphan scoring on). Linux: the kernel sends SIGKILL when the
    parent dies (``PR_SET_PDEATHSIG``); elsewhere a daemon thread watches the parent's pid."""
    if _set_death_signal():
        if os.getppid() != parent:  # it died before the signal was armed
            os._exit(1)
        return
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _set_death_signal() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


_PR_SET_PDEATHSIG = 1


def _chunks(path: Path) -> Iterator[list[tuple[int, str | LineError]]]:
    chunk: list[tuple[int, str | LineError]] = []
    for number, line in read_lines(path):
        chunk.append((number, line))
        if len(chunk) >= CHUNK_LINES:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


@dataclass(slots=True)
class _Merge:
    """The parent's side: whole-file checks, then fold and write while the file is sound."""

    scorer: AttemptScorer
    stream: RecordedResponses
    log: ResultsLog
    seen: dict[tuple[str, int], int] = field(default_factory=dict)
    repeats: list[Problem] = field(default_factory=list)
    unknown: list[Problem] = field(default_factory=list)

    def take(self, chunk: _Chunk) -> None:
        stream, name = self.stream, str(self.stream.path)
        stream.problems.extend(chunk.problems)
        self.unknown.extend(chunk.unknown)
        for number, item, attempt in chunk.keys:
            repeat = check_repeat(self.seen, name, number, item, attempt)
            if repeat is not None:
                self.repeats.append(repeat)
        if stream.problems or self.repeats or self.unknown:
            return  # nothing more is written: the file is refused at the end
        if chunk.folded is None:
            return
        self.log.append_lines(chunk.text)
        self.scorer.merge(chunk.folded)
        stream.answered.update(entry[0] for entry in chunk.folded.acc.items)
        stream.max_attempt = max(stream.max_attempt, chunk.max_attempt)

    def finish(self) -> None:
        self.stream.settle(self.repeats, self.unknown)


def score_file(
    scorer: AttemptScorer, stream: RecordedResponses, log: ResultsLog, workers: int
) -> None:
    """Score every response of ``stream``'s file into ``log`` on ``workers`` forked processes.

    Afterwards ``stream.answered``, ``stream.max_attempt`` and ``stream.problems`` are what
    iterating ``stream`` would have left; a file with problems raises the same
    :class:`InputError` (every problem listed), with nothing folded past the first problem.
    """
    global _SCORER, _NAME, _MODEL, _ANSWERS
    if scorer.judge is not None:
        raise ValueError("a run with a judge is scored in one process (the judge is async)")
    stream.problems.clear()
    stream.answered.clear()
    stream.max_attempt = 0
    merge = _Merge(scorer, stream, log)
    _SCORER, _NAME = scorer, str(stream.path)
    _MODEL, _ANSWERS = stream.line_model(), stream.require_answers
    try:
        context = multiprocessing.get_context("fork")
        parent = os.getpid()
        with ProcessPoolExecutor(
            workers, mp_context=context, initializer=_die_with_parent, initargs=(parent,)
        ) as pool:
            pending: deque[Future[_Chunk]] = deque()
            for lines in _chunks(stream.path):
                pending.append(pool.submit(_score_chunk, lines))
                if len(pending) >= 2 * workers:
                    merge.take(pending.popleft().result())
            while pending:
                merge.take(pending.popleft().result())
    finally:
        _SCORER, _NAME, _MODEL, _ANSWERS = None, "", RecordedResponse, True
    merge.finish()
