"""``ragcard run``: call the agent of a project, score as attempts finish, decide.

Each finished item-attempt is judged (when the run has a judge), scored and appended to
``results.jsonl`` at once, so an interrupted run resumes (``resume=True``) without calling the
agent again for finished attempts. Declared inputs are hashed before and after the run; a
change during the run holds the decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import getpass
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console

from ragcard.adapters import Adapter, build_adapter
from ragcard.agent.runner import (
    AttemptError,
    AttemptOutcome,
    RunSettings,
    judge_progress_bar,
    run_attempts,
)
from ragcard.aggregation._scorer import AttemptScorer
from ragcard.aggregation.scoring import default_layers
from ragcard.decision.baseline import compare_runs
from ragcard.decision.governance import check_lock, declared_inputs
from ragcard.errors import ConfigError, InputError, Problem
from ragcard.goldset.labellog import checked_labels
from ragcard.inputs._jsonl import problems_from_validation
from ragcard.inputs.config import Config
from ragcard.inputs.questions import Question
from ragcard.judges.base import Judge
from ragcard.metrics.base import AttemptFailure
from ragcard.metrics.redteam import agent_digest
from ragcard.outputs._runfolder import begin, finish, incomplete
from ragcard.outputs._writing import remove, write_atomic
from ragcard.outputs.history import HistoryStore, RunEntry
from ragcard.outputs.results import AttemptRecord, ResultsLog, dumps_line, read_results
from ragcard.pipeline._offloop import OffLoop, Stopped, unwrap
from ragcard.pipeline.evaluation import (
    EvaluationResult,
    Inputs,
    apply_flag_rule,
    check_run_measures,
    config_block,
    judge_block,
    scoring_settings,
    write_outputs,
)
from ragcard.pipeline.preflight import check_project
from ragcard.pipeline.project import freeze
from ragcard.redteam.leftovers import repair_leftovers
from ragcard.redteam.measures import project_measures
from ragcard.report.comparison import render_comparison_markdown

__all__ = ["run_evaluation"]


def _say(message: str) -> None:
    print(f"ragcard: {message}", file=sys.stderr)


def run_evaluation(
    config_path: str | Path,
    *,
    out_dir: str | Path | None = None,
    resume: bool = False,
    fresh: bool = False,
    agent_options: dict[str, Any] | None = None,
    attempts: int | None = None,
    concurrency: int | None = None,
    retrieval_only: bool = False,
    progress: bool = True,
    eval_dir: str | Path | None = None,
    history_url: str | None = None,
    override_reason: str | None = None,
    by: str | None = None,
    baseline: str | None = None,
) -> EvaluationResult:
    """Run the agent of a ``ragcard.toml`` project on its questions and score the answers.

    The run is saved under ``eval_dir`` (default: ``[run] eval_dir`` beside ragcard.toml) and
    indexed in the run history (``history_url``, default ``[history] url`` or the project's
    SQLite file). Thresholds looser than the ones locked for this question set are refused
    unless ``override_reason`` is given; the override is then shown on the scorecard.
    With ``baseline`` (``"shipped"`` for the last shipped run, or a run id/folder) the run is
    compared with it and a failing regression gate holds the exit code.
    """
    checked = check_project(  # every problem of every input, before anything runs
        config_path,
        out_dir=out_dir,
        eval_dir=eval_dir,
        history_url=history_url,
        attempts=attempts,
        concurrency=concurrency,
        agent_options=agent_options,
        retrieval_only=retrieval_only,
    )
    config, inputs, run, judge = checked.config, checked.inputs, checked.run, checked.judge
    declared = {name: config.resolve(name) for name in config.project.inputs}
    before = declared_inputs(declared)
    out = Path(out_dir) if out_dir is not None else config.resolve(run.out)
    spec = checked.agent_spec
    history = checked.history_url
    # test passages a killed red-team run left in the agent's index go before anything runs
    repair_leftovers(history, config.project.name, _say)
    who = by or getpass.getuser()
    with HistoryStore(history) as store:
        loosening = _check_lock(store, config, inputs, override_reason)
        base = _baseline_run(store, baseline, config.project.name, inputs.questions.sha256, out)
        amended = checked_labels(store, config.project.name, inputs.questions)
    settings = scoring_settings(
        run.run_date, run.k, run.non_abstaining_flags, retrieval_only, judge
    )
    apply_flag_rule(inputs.questions, settings)
    adapter = build_adapter(spec)
    check = getattr(adapter, "preflight", None)
    if callable(check):  # a secret that cannot be sent stops the run before anything changes
        check()
    frozen = {
        "questions": inputs.questions.sha256,
        "corpus": inputs.corpus.sha256,
        "agent": adapter.describe(),
        "attempts": run.attempts,
        "k": settings.k,
        "run_date": settings.run_date.isoformat(),
        "retrieval_only": retrieval_only,
        "judge": judge.identity.to_json() if judge else None,
        "inputs": before,
    }
    results_path = out / "results.jsonl"
    scorer = AttemptScorer(
        inputs.questions.by_id(), inputs.corpus, settings, default_layers(), judge
    )
    check_run_measures(inputs.thresholds, scorer, inputs.questions)
    previous = _prepare_out(out, results_path, frozen, resume, fresh, scorer)
    run_settings = RunSettings(
        attempts=run.attempts,
        concurrency=run.concurrency,
        timeout_s=run.timeout_s,
        retries=run.retries,
        retrieval_only=retrieval_only,
        seed=run.seed,
    )
    try:
        asyncio.run(
            _run(
                inputs.questions.questions,
                adapter,
                run_settings,
                scorer,
                results_path,
                previous,
                progress,
            )
        )
    finally:
        _close(judge)
    after = declared_inputs(declared, missing_ok=True)  # the answers are in: hold, not fail
    changed = [
        f"declared input {path} {'changed' if path in after else 'was removed'} during the run"
        for path, digest in before.items()
        if after.get(path) != digest
    ]
    agent = {**adapter.describe(), **scorer.agent_meta()}
    agent.setdefault("name", spec.get("type"))
    block = config_block(
        inputs,
        settings,
        agent,
        judge_block(judge, scorer),
        {
            "attempts": run.attempts,
            "concurrency": run.concurrency,
            "timeout_s": run.timeout_s,
            "retries": run.retries,
            "inputs": before,
        },
    )
    block["frozen"] = freeze(config, inputs, judge, before)
    header: dict[str, Any] = {"project": config.project.name, "kit": config.project.kit}
    if amended:
        header["amendments"] = amended
    if loosening:
        header["override"] = {"by": who, "reason": override_reason, "loosened": loosening}
    eval_path = Path(eval_dir) if eval_dir is not None else config.resolve(run.eval_dir)
    redteam = project_measures(
        history, config.project.name, agent_digest(config.agent, agent_options),
        inputs.corpus.sha256, [t.measure for t in inputs.thresholds.items],
    )  # fmt: skip
    result = write_outputs(
        scorer, inputs.thresholds, block, out, header, results_path, eval_path, changed,
        measures=[redteam] if redteam is not None else [],
        rescore=f"`ragcard run {config.base_dir} --resume --out {out}` rescores them "
        "without calling the agent again",
    )  # fmt: skip
    finish(out)  # the results and both scorecards are in place
    comparison = None
    if base is not None:  # (reads this folder as a finished run)
        comparison = compare_runs(
            base.out_dir,
            out,
            tolerances=config.baseline.tolerance,
            default_tolerance=config.baseline.default_tolerance,
        )
        write_atomic(out / "comparison.md", render_comparison_markdown(comparison))
    with HistoryStore(history) as store:
        entry = store.record_run(result.scorecard.to_json(), out)
        if loosening:
            store.record_override(entry.id, who, override_reason or "", loosening)
    return dataclasses.replace(result, comparison=comparison)


def _check_lock(
    store: HistoryStore, config: Config, inputs: Inputs, override_reason: str | None
) -> list[dict[str, Any]]:
    """Refuse thresholds looser than the lock on this question set, unless overridden."""
    lock = store.locked_thresholds(config.project.name, inputs.questions.sha256)
    current = [t.model_dump() for t in inputs.thresholds.items]
    return check_lock(
        lock.thresholds if lock else None, current, override_reason, lock.locked_by if lock else ""
    )


def _close(judge: Judge | None) -> None:
    close = getattr(judge, "close", None)
    if callable(close):  # LLM backends hold an HTTP client and a cache
        close()


def _baseline_run(
    store: HistoryStore, ref: str | None, project: str, questions_sha: str, out: Path
) -> RunEntry | None:
    if ref is None:
        return None
    entry = store.last_shipped(project, questions_sha) if ref == "shipped" else store.get(ref)
    if entry is None:
        raise ConfigError(
            f"no shipped run of {project!r} on this question set to compare "
            "with: ship one with `ragcard ship RUN --by NAME`, or pass a run id"
        )
    if Path(entry.out_dir).resolve() == out.resolve():
        raise ConfigError(
            f"the baseline run lives in {out}, which this run would overwrite: pass another --out"
        )
    return entry


async def _run(
    questions: Sequence[Question],
    adapter: Adapter,
    settings: RunSettings,
    scorer: AttemptScorer,
    results_path: Path,
    previous: list[AttemptRecord],
    progress: bool,
) -> None:
    """Fold the attempts of the interrupted run back in (the results file is rewritten whole,
    atomically), then run the agent on the rest; judge and append each attempt as it finishes
    (in finishing order). Judging and scoring happen on a loop of their own (:class:`OffLoop`),
    so that this loop, which times the agent's calls, measures the agent and not ragcard's
    work; that loop also closes the judge's connections at the end."""
    pending: set[asyncio.Future[None]] = set()
    crashed: list[BaseException] = []  # what a scoring task raised: never dropped
    done = {(record.item, record.attempt) for record in previous}
    log: ResultsLog | None = None
    scoring = OffLoop()

    def finished(task: asyncio.Future[None]) -> None:
        pending.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            crashed.append(unwrap(error))

    async def score_and_write(record: AttemptRecord) -> None:
        line = await scorer.score(record)
        assert log is not None  # opened before the first call
        log.append(line)

    def on_outcome(outcome: AttemptOutcome) -> None:
        task = scoring.submit(score_and_write(_record_from_outcome(outcome)))
        pending.add(task)
        task.add_done_callback(finished)

    async def close_judge() -> None:
        aclose = getattr(scorer.judge, "aclose", None)
        if callable(aclose):  # an LLM backend's HTTP client belongs to the scoring loop
            await aclose()

    try:
        if previous:
            try:
                await scoring.submit(_fold_previous(scorer, previous, results_path))
            except Stopped as stop:
                raise stop.original from None
        log = ResultsLog(results_path)  # after the rewrite: appends go to the new file
        await run_attempts(questions, adapter, settings, on_outcome, skip=done, progress=progress)
        await _judged(pending, scorer, progress)
        if crashed:  # a stage past the judge failed on an attempt: exit 3 with its traceback
            raise crashed[0]
    finally:
        for task in pending:  # (only when the run stops early)
            task.cancel()
        scoring.close(close_judge)  # nothing writes to the log after this
        if log is not None:
            log.close()
        await adapter.aclose()


async def _judged(
    pending: set[asyncio.Future[None]], scorer: AttemptScorer, progress: bool
) -> None:
    """Wait for the answers the judge has not finished when the agent is done, with a bar
    of its own (a slow LLM judge would otherwise leave the run silent)."""
    waiting = list(pending)
    if not waiting or not progress:  # (each task's error is collected by its done callback)
        await asyncio.gather(*waiting, return_exceptions=True)
        return
    # the bar's failure count is the run's, not only these answers'
    with judge_progress_bar(Console(stderr=True, soft_wrap=True)) as bar:
        task = bar.add_task("judge", total=len(waiting), failures=scorer.judge_failures)
        for finished in asyncio.as_completed(waiting):
            with contextlib.suppress(Exception):
                await finished
            bar.update(task, advance=1, failures=scorer.judge_failures)


def _prepare_out(
    out: Path,
    results_path: Path,
    frozen: dict[str, Any],
    resume: bool,
    fresh: bool,
    scorer: AttemptScorer,
) -> list[AttemptRecord]:
    """Check the output folder; the attempts of the run to resume (none unless resuming)."""
    run_file = out / "run.json"
    if results_path.exists() and not (resume or fresh):
        cut = " was interrupted" if incomplete(out) is not None else " exists"
        raise ConfigError(
            f"{results_path}{cut}: pass --resume to continue that run, or "
            "--fresh to start over (the old results are replaced)"
        )
    previous: list[AttemptRecord] = []
    if resume and results_path.exists():
        before = json.loads(run_file.read_text()) if run_file.exists() else None
        changed = [key for key in frozen if before is not None and before.get(key) != frozen[key]]
        if changed:
            raise ConfigError(
                f"cannot resume {out}: {', '.join(changed)} changed since that "
                "run started; use --fresh to start a new run"
            )
        previous = _load_previous(results_path, scorer)
    out.mkdir(parents=True, exist_ok=True)
    begin(out, "ragcard run", _RESUME_FIX.format(out=out))  # before any file of it changes
    if not resume:
        remove(results_path)
    write_atomic(run_file, json.dumps(frozen, indent=2, sort_keys=True) + "\n")
    return previous


_RESUME_FIX = (
    "`ragcard run PROJECT --resume --out {out}` finishes the run (no finished attempt is "
    "redone) and writes every file again; --fresh starts over"
)


def _load_previous(path: Path, scorer: AttemptScorer) -> list[AttemptRecord]:
    """The finished attempts of an interrupted run, every bad line listed."""
    problems: list[Problem] = []
    records: list[AttemptRecord] = []
    for number, data in read_results(path):
        try:
            record = AttemptRecord.from_json(data)
        except ValidationError as error:
            problems.extend(problems_from_validation(str(path), number, error))
            continue
        except (KeyError, TypeError, ValueError) as error:
            problems.append(Problem(str(path), number, None, f"bad result line: {error}"))
            continue
        if record.item not in scorer.questions:
            problems.append(
                Problem(
                    str(path),
                    number,
                    "item",
                    "item not in the question set",
                    record.item,
                    fix="resume with the same questions",
                )
            )
            continue
        records.append(record)
    if problems:
        raise InputError(problems, f"{path}: cannot resume")
    return records


async def _fold_previous(scorer: AttemptScorer, records: list[AttemptRecord], path: Path) -> None:
    """Rescore the finished attempts (cheap, and any judge answers come from its cache) and
    rewrite ``path`` with them: the judge's verdicts were missing on lines written before a
    judge failure, and now complete from the cache and the judge, before any new line."""
    lines: list[dict[str, Any]] = []
    await scorer.score_all(records, lines.append)
    write_atomic(path, "".join(dumps_line(line) for line in lines))  # never a 0-byte window


def _record_from_outcome(outcome: AttemptOutcome) -> AttemptRecord:
    reply, error = outcome.reply, outcome.error
    if reply is None or error is not None:
        if error is None:  # the runner always sets one of the two; guard the contract anyway
            error = AttemptError("agent_exception", "no reply and no error recorded", None, False)
        return AttemptRecord(
            outcome.item_id,
            outcome.attempt,
            None,
            AttemptFailure(error.kind, error.message),
            None,
            None,
            outcome.started_at,
            outcome.tries,
            error.raw,
        )
    response = reply.response
    latency = response.latency_ms if response.latency_ms is not None else reply.latency_ms
    first = (
        response.first_token_ms if response.first_token_ms is not None else (reply.first_token_ms)
    )
    return AttemptRecord(
        outcome.item_id,
        outcome.attempt,
        response,
        None,
        latency,
        first,
        outcome.started_at,
        outcome.tries,
    )
