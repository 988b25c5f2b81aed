"""The human baseline (``ragcard review human RUN``): "give someone who answers these questions
today the same questions and sources, and score them with the same rubric".

The people's answers — a responses file (docs/agents.md, one line per item, ``attempt`` numbering
the people when several answer), or answers typed into the review app from an answer packet —
are scored like the agent's: the run's question set, corpus, thresholds, ``k``, run date,
non-abstaining flags and judge (the same judge, or scoring is refused). Both paths are scored
alike: a person's sources are the passages they cite (a responses line without ``retrieved``
gets its citations, as the app writes them), and the two sides are compared on the items the
people answered only. The people's run is
written beside the agent's (``RUN/human/``: a run folder like any, so ``ragcard compare
RUN/human RUN`` tests the difference item by item), and the agent's scorecard gets a
``human_baseline`` block: both sides measure by measure, and the line the report shows.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcard.decision.baseline import PASS_RATE, compare_runs
from ragcard.decision.thresholds import load_thresholds
from ragcard.errors import ConfigError, InputError, Problem
from ragcard.inputs.responses import RecordedResponse, RecordedResponses, ResultLine
from ragcard.judges.base import Judge
from ragcard.outputs.results import read_results
from ragcard.pipeline.evaluation import Inputs, score_responses
from ragcard.report.loaded import load_scorecard
from ragcard.review._run import load_run
from ragcard.review.apply import write_scorecard

__all__ = ["HumanBaseline", "score_people"]

_HEADLINE = (PASS_RATE, "rubric_mean", "answer_correctness", "faithfulness", "citation_accuracy",
             "correct_abstention", "false_abstention")  # fmt: skip


@dataclass(frozen=True, slots=True)
class HumanBaseline:
    folder: Path
    block: dict[str, Any]
    decision: str


def _check_judge(recorded: dict[str, Any], judge: Judge | None) -> None:
    name = recorded.get("name", "none")
    given = judge.identity.name if judge is not None else "none"
    if name != given:
        raise ConfigError(
            f"the run was judged by '{name}'; the people's answers must be judged alike: pass "
            f"--project (the project's [judge]) or --judge {name}"
            if name != "none"
            else f"the run had no judge; drop --judge ({given}) so both are scored alike"
        )
    if judge is not None and recorded.get("threshold") != judge.identity.threshold:
        raise ConfigError(
            f"the run's judge '{name}' used threshold {recorded.get('threshold')}, this one "
            f"{judge.identity.threshold}: configure it as the run did"
        )


def _line(rows: Sequence[dict[str, Any]], answered: int, total: int) -> str:
    parts = [f"human baseline ({answered} of {total} items answered by people)"]
    for row in rows:
        if row["name"] in _HEADLINE:
            name = "items passing" if row["name"] == PASS_RATE else row["name"]
            parts.append(f"{name}: people {row['people']:.3f}, agent {row['agent']:.3f}")
    return "; ".join(parts)


def score_people(
    run_folder: Path,
    responses: Path,
    *,
    out: Path | None = None,
    judge: Judge | None = None,
    source: str | None = None,
) -> HumanBaseline:
    """Score the people's ``responses`` as the run in ``run_folder`` was scored, beside it,
    and put both sides on the run's scorecard."""
    run = load_run(run_folder)
    config = run.scorecard.get("config", {})
    _check_judge(config.get("judge", {}), judge)
    recorded = config.get("thresholds", {})
    thresholds = load_thresholds(Path(str(recorded.get("path"))))
    if recorded.get("sha256") and thresholds.sha256 != recorded["sha256"]:
        raise InputError(Problem(str(thresholds.path), None, None,
                                 "not the thresholds file this run was decided with",
                                 fix="restore it as it was for the run"))  # fmt: skip
    inputs = Inputs(run.questions, run.corpus, thresholds,
                    config.get("questions", {}).get("version"),
                    config.get("corpus", {}).get("version"))  # fmt: skip
    settings = config.get("run", {})
    out = out or run_folder / "human"
    day = settings.get("run_date")
    result = score_responses(
        inputs,
        _as_the_app_writes(responses, run.questions.by_id()),
        out,
        k=int(settings.get("k", 5)),
        run_date=dt.date.fromisoformat(day) if day else None,
        non_abstaining_flags=settings.get("non_abstaining_flags", ()),
        judge=judge,
        project=f"{run.scorecard.get('project')} — people",
        kit=run.kit,
    )
    answered = {str(line["item"]) for line in _lines(out) if line.get("error") is None}
    # like with like: both sides on the items people answered (not 4 answers against 185)
    comparison = compare_runs(out, run_folder, items=answered)
    rows = [
        {"name": m.name, "layer": m.layer, "people": m.baseline, "agent": m.current, "n": m.n,
         "verdict": m.verdict, "p_value": m.p_value}
        for m in comparison.measures
    ]  # fmt: skip
    block = {
        "folder": str(out.resolve()),
        "responses": source or str(responses),
        "answered": len(answered),
        "items": len(run.questions),
        "decision": result.scorecard.decision.decision,
        "measures": rows,
        "line": _line(rows, len(answered), len(run.questions)),
    }
    card = load_scorecard(run_folder / "scorecard.json")
    card = dataclasses.replace(card, header={**card.header, "human_baseline": block})
    write_scorecard(run_folder, card)
    return HumanBaseline(out, block, result.scorecard.decision.decision)


def _as_the_app_writes(path: Path, known: Mapping[str, Any]) -> list[RecordedResponse | ResultLine]:
    """The people's responses as the review app writes them: a person's sources are the
    passages they cite, so a response without ``retrieved`` has its cited passages as
    retrieved (else every retrieval measure, and the rubric, would score it 0 by construction).
    Read and checked as ``ragcard score`` reads a file (its problems name the file)."""
    recorded = list(RecordedResponses(Path(path), known))
    return [
        RecordedResponse.model_validate({**r.model_dump(), "retrieved": r.cited_ids()})
        if isinstance(r, RecordedResponse) and not r.retrieved and r.cited_ids()
        else r
        for r in recorded
    ]


def _lines(folder: Path) -> list[dict[str, Any]]:
    return [line for _n, line in read_results(folder / "results.jsonl")]
