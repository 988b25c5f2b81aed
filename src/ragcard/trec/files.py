"""Read TREC qrels and run files as trec_eval does, reporting every bad line at once.

Formats (``get_qrels.c``, ``get_trec_results.c``):

* qrels: ``qid iter docno rel`` — four whitespace-separated fields; ``iter`` is ignored and
  ``rel`` is an integer grade (negative: in the pool but unjudged).
* run: ``qid Q0 docno rank score runid`` — the ``Q0`` and ``rank`` columns are ignored
  (documents are ranked by score); words after ``runid`` are ignored; the run id printed is the
  one on the last line.

Blank lines and lines starting with ``#`` are skipped. Where trec_eval silently reads a
malformed number as 0 (``atof``/``atol``), ragcard reports the line instead: a score of "abc" is
almost always a column mix-up, not a zero. A document listed twice for one query is refused, as
trec_eval refuses it ("duplicate docs"), but with both line numbers.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ragcard.errors import InputError, Problem
from ragcard.inputs._limits import not_a_regular_file

__all__ = ["Qrels", "Run", "RunFile", "read_qrels", "read_run"]

Qrels = dict[str, dict[str, int]]
"""Judgements: query id → document id → relevance grade."""

Run = dict[str, dict[str, float]]
"""Retrieval scores: query id → document id → score (higher ranks first)."""

# A file with more bad lines than this is not worth listing line by line.
_MAX_PROBLEMS = 50

_SPACES = " \t\n\r\f\v"
_ASCII_SPACE = re.compile(f"[{_SPACES}]+")


@dataclass(frozen=True, slots=True)
class RunFile:
    """A run read from a TREC run file: its scores and the run id it declares."""

    scores: Run
    run_id: str
    lines: int = 0


@dataclass(slots=True)
class _Collector:
    """Problems found while reading one file; stops listing after ``_MAX_PROBLEMS``."""

    path: str
    problems: list[Problem] = field(default_factory=list)
    more: int = 0

    def add(self, line: int, field_name: str | None, message: str, value: object, fix: str) -> None:
        if len(self.problems) < _MAX_PROBLEMS:
            self.problems.append(Problem(self.path, line, field_name, message, value, fix))
        else:
            self.more += 1

    def raise_if_any(self, kind: str) -> None:
        if not self.problems:
            return
        total = len(self.problems) + self.more
        summary = f"{total} bad line(s) in {kind} file {self.path}"
        if self.more:
            summary += f" ({_MAX_PROBLEMS} listed)"
        raise InputError(sorted(self.problems, key=lambda problem: problem.line or 0), summary)


def _content_lines(path: Path) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, fields)`` for each non-blank, non-comment line."""
    try:
        # a device or a pipe never ends (`ragcard trec /dev/zero /dev/zero` would read forever)
        # and a FIFO blocks the open itself: only a regular file is read, symlinks followed
        why = not_a_regular_file(path, sys.maxsize)
        if why is not None and not why.startswith("is a folder"):
            raise InputError(Problem(str(path), None, None, why,
                                     fix="give the path of a regular file"))  # fmt: skip
        # surrogateescape: document ids are opaque bytes to trec_eval; never fail on encoding.
        handle = path.open(encoding="utf-8", errors="surrogateescape")
    except FileNotFoundError:
        raise InputError(
            Problem(str(path), None, None, "file not found", fix="check the path")
        ) from None
    except IsADirectoryError:
        raise InputError(
            Problem(str(path), None, None, "is a directory, not a file", fix="give a file path")
        ) from None
    except OSError as error:  # permission denied, a symlink loop …
        raise InputError(Problem(str(path), None, None,
                                 f"cannot be read ({error.strerror or error})",
                                 fix="check the path and its permissions")) from None  # fmt: skip
    with handle:
        for number, line in enumerate(handle, start=1):
            # str.split() also splits on non-ASCII spaces (NBSP, …) that C's isspace does not
            # treat as separators; such lines (rare) are split on ASCII whitespace only.
            fields = line.split() if line.isascii() else _ASCII_SPACE.split(line.strip(_SPACES))
            if fields and fields[0] and not fields[0].startswith("#"):
                yield number, fields


def read_qrels(path: Path) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``) into query → document → grade.

    Raises:
        InputError: the file is missing or empty, or lines are malformed or repeated; every
            bad line is listed with its number, what was found and what was expected.
    """
    qrels: Qrels = {}
    repeats: list[tuple[int, str, str]] = []
    found = _Collector(str(path))
    fix = "each qrels line is 'qid iter docno rel', e.g. '301 0 FBIS3-10082 1'"
    any_line = False
    for number, fields in _content_lines(path):
        any_line = True
        if len(fields) != 4:
            looks_like_run = len(fields) >= 6 and fields[1] == "Q0"
            hint = "this looks like a run file: give the qrels first, then the run"
            message = f"expected 4 fields, found {len(fields)}"
            found.add(number, None, message, " ".join(fields), hint if looks_like_run else fix)
            continue
        qid, _, docno, rel_text = fields
        try:
            rel = int(rel_text)
        except ValueError:
            found.add(number, "rel", "relevance must be an integer", rel_text, fix)
            continue
        judged = qrels.setdefault(qid, {})
        if docno in judged:
            repeats.append((number, qid, docno))
            continue
        judged[docno] = rel
    _report_repeats(path, repeats, found, "judged", "keep one judgement per (query, document)")
    found.raise_if_any("qrels")
    if not any_line:
        raise InputError(
            Problem(str(path), None, None, "no judgements in the file", fix=fix), "empty qrels"
        )
    return qrels


def read_run(path: Path) -> RunFile:
    """Read a TREC run file (``qid Q0 docno rank score runid``) into query → document → score.

    The rank column is not used: trec_eval ranks by score, ties broken by document id.

    Raises:
        InputError: the file is missing or empty, or lines are malformed, have a score that is
            not a number, or repeat a document for a query; all such lines are listed.
    """
    scores: Run = {}
    repeats: list[tuple[int, str, str]] = []
    found = _Collector(str(path))
    fix = "each run line is 'qid Q0 docno rank score runid', e.g. '301 Q0 FBIS3-10082 1 12.5 bm25'"
    run_id = ""
    count = 0
    for number, fields in _content_lines(path):
        count += 1
        if len(fields) < 6:
            found.add(
                number, None, f"expected 6 fields, found {len(fields)}", " ".join(fields), fix
            )
            continue
        qid, _, docno, _, score_text, run_id = fields[:6]
        score = _parse_score(score_text)
        if score is None:
            found.add(number, "score", "score must be a number", score_text, fix)
            continue
        query_scores = scores.setdefault(qid, {})
        if docno in query_scores:
            repeats.append((number, qid, docno))
            continue
        query_scores[docno] = score
    _report_repeats(path, repeats, found, "listed", "list each document at most once per query")
    found.raise_if_any("run")
    if count == 0:
        raise InputError(
            Problem(str(path), None, None, "no results in the file", fix=fix), "empty run"
        )
    return RunFile(scores=scores, run_id=run_id, lines=count)


def _report_repeats(
    path: Path, repeats: list[tuple[int, str, str]], found: _Collector, verb: str, fix: str
) -> None:
    """Add one problem per repeated (query, document), naming the line it first appeared on.

    The first lines are found by reading the file again, and only when there are repeats, so
    that a clean ten-million-line run does not pay for remembering every line number.
    """
    if not repeats:
        return
    wanted = {(qid, docno) for _, qid, docno in repeats}
    first_line: dict[tuple[str, str], int] = {}
    for number, fields in _content_lines(path):
        key = (fields[0], fields[2]) if len(fields) > 2 else None
        if key in wanted:
            first_line.setdefault(key, number)
    for number, qid, docno in repeats:
        previous = first_line.get((qid, docno))
        found.add(
            number,
            "docno",
            f"document {verb} twice for query {qid} (first on line {previous})",
            docno,
            fix,
        )


def _parse_score(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    # NaN has no place in a ranking (trec_eval's qsort would order it arbitrarily).
    return value if not math.isnan(value) else None
