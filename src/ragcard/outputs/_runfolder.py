"""A run folder's integrity: what its scorecard was computed from, and whether a write was cut.

A run folder holds ``results.jsonl``, ``scorecard.json`` and ``scorecard.md`` (and ``run.json``,
``signature.json``, ``comparison.md``). Each file is written atomically
(:mod:`ragcard.outputs._writing`), but a folder is several files: a kill between two of them would
leave new results beside an old scorecard. So:

* before the first file of a run or a scoring changes, :func:`begin` writes ``run.incomplete``
  (what was being done, since when, and the command that finishes it); :func:`finish` removes
  it after the last file is in place;
* ``scorecard.json`` carries ``results`` — the sha256, size and line count of the
  ``results.jsonl`` it was computed from (:func:`results_digest`);
* :func:`check_complete` refuses a folder that has the marker, or whose results file is not the
  one its scorecard names, with the command that repairs it (``ragcard run --resume`` rescores
  what was recorded and writes every file again; a scoring is simply run again).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ragcard.errors import ConfigError
from ragcard.outputs._writing import remove, write_atomic

__all__ = ["MARKER", "begin", "check_complete", "finish", "incomplete", "results_digest"]

MARKER = "run.incomplete"
_CHUNK = 1 << 20


def begin(folder: Path, command: str, fix: str) -> None:
    """Mark ``folder`` as being written by ``command``; ``fix`` says how to finish it if the
    process dies before :func:`finish`."""
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(".*.tmp"):  # temporary files of writes a kill cut short
        remove(stale)
    note = {
        "command": command,
        "since": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "pid": os.getpid(),
        "fix": fix,
    }
    write_atomic(folder / MARKER, json.dumps(note, indent=2) + "\n")


def finish(folder: Path) -> None:
    """Every file of the folder is in place: drop the marker."""
    remove(folder / MARKER)


def incomplete(folder: Path) -> dict[str, Any] | None:
    """The marker's note when ``folder`` was left mid-write (or is being written), else None."""
    path = folder / MARKER
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError:
        return {"fix": "remove the marker once the folder is known to be complete"}
    try:
        note = json.loads(text)
    except ValueError:
        note = None
    return note if isinstance(note, dict) else {}


def results_digest(path: Path) -> dict[str, Any]:
    """``{"path", "sha256", "bytes", "lines"}`` of a results file, read in 1 MiB chunks."""
    digest, size, lines = hashlib.sha256(), 0, 0
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
            lines += chunk.count(b"\n")
    return {"path": path.name, "sha256": digest.hexdigest(), "bytes": size, "lines": lines}


def check_complete(folder: Path, purpose: str) -> None:
    """Refuse (:class:`ConfigError`, naming the fix) a folder left mid-write, or one whose
    ``results.jsonl`` is not the file its ``scorecard.json`` was computed from. ``purpose``
    says what was about to be done ("sign", "compare" …). Folders written before scorecards
    carried the results digest are accepted as they are."""
    note = incomplete(folder)
    if note is not None:
        since = f" since {note['since']}" if note.get("since") else ""
        command = note.get("command") or "a ragcard command"
        fix = note.get("fix") or "run the command that wrote it again"
        raise ConfigError(
            f"{folder} was left mid-write by {command}{since} ({folder / MARKER} is there): "
            f"cannot {purpose} it. Fix: {fix}"
        )
    card_path, results_path = folder / "scorecard.json", folder / "results.jsonl"
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # the caller reports a missing or broken scorecard in its own words
    recorded = card.get("results") if isinstance(card, dict) else None
    if not isinstance(recorded, dict) or not isinstance(recorded.get("sha256"), str):
        return
    try:
        found = results_digest(results_path)
    except OSError:
        return
    if found["sha256"] != recorded["sha256"]:
        raise ConfigError(
            f"{results_path} is not the results file {card_path} was computed from (sha256 "
            f"{found['sha256'][:12]}…, {found['lines']} lines; the scorecard names "
            f"{recorded['sha256'][:12]}…, {recorded.get('lines')} lines): cannot {purpose} it. "
            "Fix: put the matching files back, or score the results again (`ragcard run "
            "PROJECT --resume --out FOLDER`, or `ragcard score … --out FOLDER`)"
        )
