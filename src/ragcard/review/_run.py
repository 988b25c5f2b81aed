"""A scored run as the people-facing stages read it: its scorecard, its result lines, and the
question set and corpus it was scored against (checked by hash: a packet drawn from a run must
show what that run was asked and had)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcard.errors import InputError, Problem
from ragcard.inputs.corpus import Corpus, load_corpus
from ragcard.inputs.questions import Question, QuestionSet, load_questions
from ragcard.inputs.responses import AgentResponse
from ragcard.outputs.results import read_results
from ragcard.report.loaded import read_scorecard

__all__ = ["RunData", "load_run"]


@dataclass(frozen=True, slots=True)
class RunData:
    """One run folder, loaded. ``attempts`` maps (item, attempt) to its results line."""

    folder: Path
    scorecard: dict[str, Any]
    attempts: dict[tuple[str, int], dict[str, Any]]
    questions: QuestionSet
    corpus: Corpus

    @property
    def by_id(self) -> dict[str, Question]:
        return self.questions.by_id()

    def response(self, item: str, attempt: int) -> AgentResponse | None:
        """The agent's response on one attempt (None for a failed attempt)."""
        line = self.attempts.get((item, attempt))
        data = line.get("response") if line else None
        return AgentResponse.model_validate(data) if isinstance(data, dict) else None

    def answered(self) -> dict[str, list[int]]:
        """Each item with the attempts that have an answer (no agent error), in order."""
        found: dict[str, list[int]] = {}
        for (item, attempt), line in sorted(self.attempts.items()):
            if line.get("error") is None and isinstance(line.get("response"), dict):
                found.setdefault(item, []).append(attempt)
        return found

    @property
    def kit(self) -> str:
        return str(self.scorecard.get("kit") or "knowledge-base")


def _input(
    scorecard: dict[str, Any], block: str, given: Path | None, where: Path
) -> tuple[Path, str | None]:
    recorded = scorecard.get("config", {}).get(block, {})
    path = given or (Path(recorded["path"]) if recorded.get("path") else None)
    if path is None:
        raise InputError(
            Problem(
                str(where),
                None,
                f"config.{block}.path",
                "the run recorded no path",
                fix=f"pass --{block} FILE",
            )  # fmt: skip
        )
    return path, recorded.get("sha256")


def load_run(folder: Path, *, questions: Path | None = None, corpus: Path | None = None) -> RunData:
    """The run in ``folder`` with the question set and corpus its scorecard names (or the
    files given), refused when they are not the ones the run was scored against."""
    card_path = folder / "scorecard.json"
    scorecard = read_scorecard(card_path)
    results = folder / "results.jsonl"
    if not results.is_file():
        raise InputError(Problem(str(results), None, None, "no results.jsonl beside the scorecard",
                                 fix="pass the output folder of a complete run"))  # fmt: skip
    attempts = {(str(d["item"]), int(d["attempt"])): d for _n, d in read_results(results)}
    loaded: dict[str, Any] = {}
    problems: list[Problem] = []
    for block, given, loader in (
        ("questions", questions, load_questions),
        ("corpus", corpus, load_corpus),
    ):
        path, sha = _input(scorecard, block, given, card_path)
        value = loader(path)
        if sha and value.sha256 != sha:
            problems.append(
                Problem(
                    str(path),
                    None,
                    None,
                    f"not the {block} file this run was scored against (sha256 "
                    f"{value.sha256[:12]}, the run recorded {sha[:12]})",
                    fix=f"pass the run's own file with --{block}",
                )  # fmt: skip
            )
        loaded[block] = value
    if problems:
        raise InputError(problems, f"{folder}: the run's inputs changed")
    return RunData(folder, scorecard, attempts, loaded["questions"], loaded["corpus"])
