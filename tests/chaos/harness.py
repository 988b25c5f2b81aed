"""The kill-and-resume harness: a ``ragcard`` command killed (SIGKILL) at each write point of
each output file, the folder checked, then repaired, and the repair checked.

:class:`Zygote` forks children that run ragcard commands with a write hook (see zygote.py);
:class:`Scenario` is a starting folder, a command to kill, and the command that repairs;
:func:`sweep` runs one scenario killed at each chosen point and returns what it found. The
checks are those of the issue: after a kill every output file is its previous complete self
or its new complete self — never a mix — and the folder is either consistent (its scorecard
names its results) or marked mid-write; ``--resume`` redoes no finished attempt and ends on
the results of an uninterrupted run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcard.errors import ConfigError
from ragcard.outputs._runfolder import MARKER, check_complete

ZYGOTE = Path(__file__).with_name("zygote.py")
MD_END = "redacted from this report.\n"
JSON_FILES = ("scorecard.json", "run.json", "signature.json")


@dataclass(frozen=True, slots=True)
class Point:
    index: int
    kind: str  # partial, synced, renamed, append
    path: Path

    @property
    def file(self) -> str:
        return self.path.name


class Zygote:
    """One forking server for a test module (ragcard imported once)."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        scratch.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, str(ZYGOTE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, cwd=scratch,
        )  # fmt: skip

    def run(
        self, args: list[str], *, kill_at: int = -1, env: dict[str, str] | None = None
    ) -> tuple[int, list[Point], str]:
        """Run ``ragcard ARGS`` killed at write point ``kill_at`` (-1: never): its exit code
        (-9 when killed), the write points it passed, and its output."""
        tag = uuid.uuid4().hex[:8]
        log, output = self.scratch / f"{tag}.points", self.scratch / f"{tag}.out"
        request = {"args": args, "kill_at": kill_at, "log": str(log), "output": str(output),
                   "env": env or {}}
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        points = []
        if log.exists():
            for line in log.read_text().splitlines():
                index, kind, path = line.split(" ", 2)
                points.append(Point(int(index), kind, Path(path)))
        text = output.read_text(errors="replace") if output.exists() else ""
        return int(answer["exit"]), points, text

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)
        if self.process.stdout is not None:
            self.process.stdout.close()


def results_keys(path: Path) -> list[tuple[str, int]]:
    """The (item, attempt) of every complete line of a results file (a torn tail skipped)."""
    if not path.exists():
        return []
    keys = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.endswith("\n") and line.strip():
            record = json.loads(line)
            keys.append((record["item"], record["attempt"]))
    return keys


def verdicts(path: Path) -> dict[tuple[str, int], tuple[str | None, int]]:
    """Each item-attempt's outcome: (error kind or None, tries)."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        error = record.get("error") or {}
        found[(record["item"], record["attempt"])] = (error.get("kind"), record["tries"])
    return found


def snapshot(folders: Iterable[Path]) -> dict[Path, bytes]:
    """Every file's bytes under ``folders`` (to compare with after a kill)."""
    files = {}
    for folder in folders:
        if folder.exists():
            files |= {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    return files


def check_after_kill(out: Path, eval_dir: Path, before: dict[Path, bytes]) -> list[str]:
    """What is wrong with the folder a kill left (empty: old or new, never a mix)."""
    problems: list[str] = []
    for name in JSON_FILES:
        path = out / name
        if path.exists() and path.read_bytes() != before.get(path):
            try:
                json.loads(path.read_bytes())
            except ValueError:
                problems.append(f"{name} is neither its old self nor a complete document")
    md = out / "scorecard.md"
    if md.exists() and md.read_bytes() != before.get(md) and not md.read_text().endswith(MD_END):
        problems.append("scorecard.md is neither its old self nor complete")
    results = out / "results.jsonl"
    if results.exists():
        lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
        for number, line in enumerate(lines, 1):
            torn = number == len(lines) and not line.endswith("\n")  # an append cut short
            if not torn:
                try:
                    json.loads(line)
                except ValueError:
                    problems.append(f"results.jsonl line {number} is not a complete line")
    for record in eval_dir.glob("*.jsonl") if eval_dir.exists() else ():
        text = record.read_text(encoding="utf-8")
        if record in before and record.read_bytes() != before[record]:
            problems.append(f"{record.name}: an eval/ record was overwritten")
        elif not text.endswith("\n") or any(not line for line in text.split("\n")[:-1]):
            problems.append(f"{record.name}: an eval/ record is not complete")
    if not (out / MARKER).exists() and (out / "scorecard.json").exists():
        try:
            check_complete(out, "check")
        except ConfigError as error:
            problems.append(f"no marker, yet the folder is a mix: {error}")
    return problems


@dataclass
class Scenario:
    """``command`` killed at each point, starting from ``prepare()``; ``repair`` finishes."""

    name: str
    prepare: Callable[[], None]
    command: list[str]
    repair: Callable[[], list[str]]  # the repair command for the state left
    out: Path
    eval_dir: Path
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Finding:
    point: Point
    exit: int
    problems: list[str]
    redone: set[tuple[str, int]]
    repaired: int
    final_problems: list[str]


def points_of(zygote: Zygote, scenario: Scenario) -> list[Point]:
    """Every write point ``scenario.command`` passes when nothing kills it."""
    scenario.prepare()
    code, points, output = zygote.run(scenario.command, env=scenario.env)
    assert code in (0, 1), output
    return points


def choose(points: list[Point], full: bool) -> list[Point]:
    """All points, or one a file (what the quick suite runs): the moment its new version has
    just replaced the old (``renamed``: the others are not written yet), else its first
    append. (A kill halfway through a write is tested on every writer in tests/test_writing.)"""
    if full:
        return points
    chosen: dict[str, Point] = {}
    for point in points:
        if point.kind in ("renamed", "append") and point.file not in chosen:
            chosen[point.file] = point
    return sorted(chosen.values(), key=lambda point: point.index)


def sweep(
    zygote: Zygote,
    scenario: Scenario,
    points: list[Point],
    *,
    requests: Callable[[], list[tuple[str, int]]] | None = None,
    reset: Callable[[], None] | None = None,
    check_final: Callable[[], list[str]] | None = None,
) -> list[Finding]:
    """Kill ``scenario.command`` at each of ``points``; check; repair; check the repair.
    ``requests`` lists the (item, attempt) the agent has been asked so far; ``reset`` makes the
    agent meet its faults from the first try again (a fresh process would)."""
    findings = []
    for point in points:
        scenario.prepare()
        before = snapshot([scenario.out, scenario.eval_dir])
        if reset:
            reset()
        code, passed, output = zygote.run(scenario.command, kill_at=point.index,
                                          env=scenario.env)
        problems = [] if code == -9 else [f"not killed (exit {code}): {output[-300:]}"]
        if passed and passed[-1].index == point.index and passed[-1].path != point.path:
            problems.append(f"point {point.index} is {passed[-1].path}, not {point.path}")
        problems += check_after_kill(scenario.out, scenario.eval_dir, before)
        done = set(results_keys(scenario.out / "results.jsonl"))
        asked_before = len(requests()) if requests else 0
        if reset:
            reset()
        repaired, _, repair_output = zygote.run(scenario.repair(), env=scenario.env)
        redone = set(requests()[asked_before:]) & done if requests else set()
        final = [] if repaired in (0, 1) else [f"repair exited {repaired}: {repair_output[-300:]}"]
        final += check_final() if check_final else []
        findings.append(Finding(point, code, problems, redone, repaired, final))
    return findings


def copy_folder(source: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    if source.exists():
        shutil.copytree(source, target)


def summary(findings: list[Finding]) -> dict[str, Any]:
    return {
        "kills": len(findings),
        "files": sorted({f.point.file for f in findings}),
        "mixed": [(f.point.index, f.point.file, f.problems) for f in findings if f.problems],
        "redone": [(f.point.index, sorted(f.redone)) for f in findings if f.redone],
        "bad_repairs": [(f.point.index, f.final_problems) for f in findings if f.final_problems],
    }
