"""Test passages for indirect injection: added for the run, gone afterwards, the user's corpus
never edited.

ragcard never writes to the corpus file or to the agent's index. It writes a *copy* of the
corpus with the test passages appended (``OUT/test-corpus/corpus.jsonl``) and the passages
alone (``OUT/test-corpus/planted.jsonl``), then hands them to the agent in one of two ways:

* **a corpus option** — a callable agent that takes its corpus path in ``[agent.options]``
  (the reference agent's ``corpus``; ``[redteam] corpus_option`` names another key) is built a
  second time over the copy, for the indirect-injection attacks only;
* **hooks** — any other agent declares ``[redteam] plant_command`` / ``remove_command``, run in
  the project folder with ``{planted}`` and ``{corpus}`` replaced (also in the environment as
  ``RAGCARD_TEST_PASSAGES`` / ``RAGCARD_TEST_CORPUS``). The remove hook runs when the attacks
  that need the passages end — normally, on an error, on Ctrl-C or SIGTERM — and a marker file
  left by a run killed outright (SIGKILL, power loss) makes the next ``ragcard redteam run``
  on that folder run it before anything else.

An agent with neither gets no test passages; the attacks that need them are skipped with the
reason. Before and after, the corpus file, the agent's corpus option and every
``[redteam] index_paths`` entry are fingerprinted (sha256 of every file); any difference is
reported and holds the red-team run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ragcard.errors import ConfigError
from ragcard.inputs._files import sha256_file
from ragcard.inputs.corpus import Passage

__all__ = ["Delivery", "Ledger", "TestCorpus", "fingerprint", "recover", "run_hook"]

FOLDER = "test-corpus"
MARKER = "PLANTED.json"


@dataclass(frozen=True, slots=True)
class Delivery:
    """How test passages reach the agent: ``option`` (rebuild a callable agent over the copy),
    ``hooks`` (plant and remove commands) or ``none`` (``reason`` says why)."""

    kind: str
    option: str | None = None
    plant: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()
    cwd: Path | None = None
    timeout_s: float = 300.0
    reason: str | None = None


def fingerprint(paths: Sequence[Path]) -> dict[str, str]:
    """sha256 of every file at or under ``paths`` (a missing path is recorded as missing)."""
    found: dict[str, str] = {}
    for root in paths:
        if not root.exists():
            found[str(root)] = "missing"
            continue
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for file in files:
            found[str(file)] = sha256_file(file)
    return found


def _line(passage: Passage) -> bytes:
    return (passage.model_dump_json(exclude_defaults=True) + "\n").encode("utf-8")


class Ledger(Protocol):
    """Where a run records, project-wide, that test passages are in the agent's index
    (:class:`ragcard.redteam.leftovers.HistoryLedger`)."""

    def mark(self, remove: Sequence[str]) -> None: ...

    def clear(self) -> None: ...


def run_hook(command: Sequence[str], delivery: Delivery, corpus: Path, planted: Path) -> None:
    args = [part.replace("{planted}", str(planted)).replace("{corpus}", str(corpus))
            for part in command]  # fmt: skip
    env = {**os.environ, "RAGCARD_TEST_PASSAGES": str(planted), "RAGCARD_TEST_CORPUS": str(corpus)}
    try:
        done = subprocess.run(
            args, cwd=delivery.cwd, env=env, capture_output=True, text=True,
            timeout=delivery.timeout_s, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ConfigError(f"[redteam] hook {args!r} could not run: {error}") from error
    if done.returncode != 0:
        tail = (done.stderr or done.stdout or "").strip()[-500:]
        raise ConfigError(
            f"[redteam] hook {args!r} exited {done.returncode}: {tail or 'no output'} — fix "
            "the hook (it must succeed for ragcard to know where the test passages are)"
        )


class TestCorpus:
    """The copy of the corpus holding the test passages, under ``OUT/test-corpus``."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, out_dir: Path, corpus: Path, planted: Sequence[Passage]) -> None:
        self.folder = out_dir / FOLDER
        self.source = corpus
        self.passages = tuple(planted)
        self.corpus = self.folder / "corpus.jsonl"
        self.planted = self.folder / "planted.jsonl"

    def write(self) -> None:
        """Write the copy (the corpus bytes, a newline if missing, the test passages) and the
        test passages alone."""
        self.folder.mkdir(parents=True, exist_ok=True)
        original = self.source.read_bytes()
        if original and not original.endswith(b"\n"):
            original += b"\n"
        lines = b"".join(_line(p) for p in self.passages)
        self.corpus.write_bytes(original + lines)
        self.planted.write_bytes(lines)

    @contextmanager
    def planted_in(self, delivery: Delivery, ledger: Ledger | None = None) -> Iterator[Path]:
        """Plant the passages for the ``with`` block (hooks), then remove them, whatever
        happens inside; yields the corpus copy's path. With hooks, the folder's marker and
        the project's ``ledger`` say so from before the plant hook until the remove hook
        has succeeded."""
        self.write()
        marker = self.folder / MARKER
        if delivery.kind == "hooks":
            marker.write_text(json.dumps({"remove": list(delivery.remove)}), encoding="utf-8")
            if ledger is not None:
                ledger.mark(delivery.remove)
            run_hook(delivery.plant, delivery, self.corpus, self.planted)
        try:
            yield self.corpus
        finally:
            if delivery.kind == "hooks":
                run_hook(delivery.remove, delivery, self.corpus, self.planted)
                if ledger is not None:
                    ledger.clear()
            marker.unlink(missing_ok=True)

    def clean(self) -> None:
        """Delete the copy (it holds the whole corpus, restricted passages included); the test
        passages alone stay beside the results as ``planted.jsonl``."""
        if self.planted.exists():
            shutil.copyfile(self.planted, self.folder.parent / "planted.jsonl")
        shutil.rmtree(self.folder, ignore_errors=True)


def recover(out_dir: Path, delivery: Delivery) -> bool:
    """Run the remove hook of a run that was killed before it could (its marker is still
    there); True when it did."""
    folder = out_dir / FOLDER
    marker = folder / MARKER
    if not marker.exists():
        return False
    try:
        remove = json.loads(marker.read_text(encoding="utf-8")).get("remove") or []
    except (OSError, ValueError):
        remove = []
    command = tuple(remove) or delivery.remove
    if not command:
        raise ConfigError(
            f"{marker}: a killed red-team run left test passages planted, and no remove_command "
            "is configured to take them out: remove them by hand, then delete the marker"
        )
    run_hook(command, delivery, folder / "corpus.jsonl", folder / "planted.jsonl")
    marker.unlink()
    return True
