"""Internal errors: a bug in ragcard exits 3, never 1 (the code for HOLD).

Anything a command raises that is not one of ragcard's own errors (which exit 2, see
:mod:`ragcard._cli._common`) is a defect of ragcard itself. The user gets one line on stderr
naming the error, where its traceback was saved and how to report it; CI gets exit code 3, so
a crash is never read as a decision.

The traceback goes to ``$RAGCARD_CRASH_DIR`` when set, else ``$XDG_STATE_HOME/ragcard/crashes``
(``~/.local/state/ragcard/crashes``), else the system's temporary folder; when none of them
can be written, the traceback is printed on stderr instead.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
import tempfile
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from ragcard.errors import ExitCode

if TYPE_CHECKING:
    from ragcard.aggregation._scorer import JudgeCrashes

__all__ = ["crash_dirs", "report_internal_error", "report_judge_crash"]

def crash_dirs() -> list[Path]:
    """Where a traceback may be saved, in order of preference."""
    chosen = os.environ.get("RAGCARD_CRASH_DIR")
    if chosen:
        return [Path(chosen).expanduser()]
    state = os.environ.get("XDG_STATE_HOME") or str(Path("~/.local/state").expanduser())
    return [Path(state) / "ragcard" / "crashes", Path(tempfile.gettempdir()) / "ragcard-crashes"]


def _log_text(error: BaseException) -> str:
    from ragcard import __version__

    now = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    head = [
        f"ragcard {__version__} internal error at {now}",
        f"python {sys.version.split()[0]} on {platform.platform()}",
        "command: " + " ".join(sys.argv),
        "",
    ]
    trace = traceback.format_exception(type(error), error, error.__traceback__)
    return "\n".join(head) + "".join(trace)


def _save(text: str) -> Path | None:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    for folder in crash_dirs():
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"crash-{stamp}-{os.getpid()}.log"
            path.write_text(text, encoding="utf-8", errors="replace")
            return path
        except OSError:
            continue
    return None


def report_internal_error(error: BaseException, console: Console | None = None) -> int:
    """Save the traceback of ``error``, print the one-line hint; ``ExitCode.INTERNAL``. An
    error that names a plugin as its cause (``blame``) is reported as that plugin's."""
    blame = getattr(error, "blame", None)
    summary = " ".join(f"{type(error).__name__}: {error}".split())[:300]
    if isinstance(blame, str):
        return _report(error, f"internal error: {summary}", f"fix {blame}", console)
    return _report(
        error,
        f"internal error (a bug in ragcard, not in your input): {summary}",
        "please report it to the ragcard developers with that traceback",
        console,
    )


def report_judge_crash(crashes: JudgeCrashes, fix: str, console: Console | None = None) -> int:
    """The judge crashed on some answers of a run that was written whole (every attempt kept,
    the decision held): say so on one line with the first traceback saved; ``ExitCode.INTERNAL``."""
    from ragcard.aggregation._scorer import describe_crash

    assert crashes.first is not None
    head = (
        f"error: {crashes.label} crashed on {crashes.answers} answer(s): "
        f"{describe_crash(crashes.first)} (first on item {crashes.first_item})"
    )
    tail = (
        "every attempt is kept (results.jsonl, scorecard, eval record) with the crash on "
        f"its item, their judged measures are unscored and the run holds; fix the judge, then {fix}"
    )
    return _report(crashes.first, head, tail, console)


def _report(error: BaseException, head: str, tail: str, console: Console | None) -> int:
    console = console or Console(stderr=True, soft_wrap=True)
    text = _log_text(error)
    path = _save(text)
    where = f"traceback saved to {path}" if path else "traceback below"
    console.print(f"{head} — {where}; {tail} (exit 3)", markup=False, highlight=False)
    if path is None:
        console.print(text, markup=False, highlight=False)
    return ExitCode.INTERNAL
