"""The evaluation pipeline: inputs → (agent) → results → metrics → thresholds → scorecard.

Two entry points share everything after the agent:

* :func:`score_responses` scores recorded responses without calling any agent (``ragcard score``);
* :func:`run_evaluation` calls the agent through an adapter, appending each finished
  item-attempt to ``results.jsonl`` so an interrupted run resumes (``ragcard run``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ragcard import __version__
from ragcard._jsonl import problems_from_validation
from ragcard.adapters import Adapter, build_adapter
from ragcard.config import load_config
from ragcard.corpus import Corpus, load_corpus
from ragcard.errors import ConfigError, InputError, Problem
from ragcard.metrics.base import AttemptContext, AttemptFailure, Layer, ScoringSettings
from ragcard.questions import Question, QuestionSet, load_questions
from ragcard.report.markdown import render_markdown
from ragcard.report.scorecard import FailureTally, Scorecard, build_scorecard
from ragcard.responses import RecordedResponse, load_responses
from ragcard.results import AttemptRecord, ResultsLog, read_results
from ragcard.runner import AttemptError, AttemptOutcome, RunSettings, run_attempts
from ragcard.scoring import ScoreAccumulator, default_layers, metric_specs, score_attempt
from ragcard.thresholds import Thresholds, decide, load_thresholds

__all__ = [
    "EvaluationResult",
    "Inputs",
    "check_references",
    "load_inputs",
    "run_evaluation",
    "score_responses",
]


@dataclass(frozen=True, slots=True)
class Inputs:
    questions: QuestionSet
    corpus: Corpus
    thresholds: Thresholds
    question_set_version: str | None = None
    corpus_version: str | None = None


@dataclass(frozen=True, slots=True)
class EvaluationResult:
    scorecard: Scorecard
    out_dir: Path
    results_path: Path
    eval_path: Path | None

    @property
    def exit_code(self) -> int:
        return 0 if self.scorecard.decision.decision == "ship" else 1


def check_references(questions: QuestionSet, corpus: Corpus) -> list[Problem]:
    """Cross-file checks: every gold passage exists in the corpus."""
    problems = []
    for q in questions.questions:
        missing = [gid for gid in q.gold_ids if gid not in corpus]
        if missing:
            problems.append(
                Problem(
                    str(questions.path),
                    questions.line_of.get(q.id),
                    "gold",
                    f"gold passage(s) not in the corpus {corpus.path.name}",
                    missing,
                    fix="fix the id or add the passage to the corpus manifest",
                )
            )
    return problems


def load_inputs(
    questions: str | Path,
    corpus: str | Path,
    thresholds: str | Path,
    *,
    question_set_version: str | None = None,
    corpus_version: str | None = None,
) -> Inputs:
    """Load all three inputs, reporting the problems of every file together."""
    problems: list[Problem] = []
    loaded: dict[str, Any] = {}
    for name, loader, path in (
        ("questions", load_questions, questions),
        ("corpus", load_corpus, corpus),
    ):
        try:
            loaded[name] = loader(path)
        except InputError as error:
            problems.extend(error.problems)
    if "questions" in loaded and "corpus" in loaded:
        problems.extend(check_references(loaded["questions"], loaded["corpus"]))
    if problems:
        raise InputError(problems, f"{len(problems)} problem(s) in the inputs")
    return Inputs(
        loaded["questions"],
        loaded["corpus"],
        load_thresholds(thresholds),
        question_set_version,
        corpus_version,
    )


@dataclass(slots=True)
class _Scorer:
    """Scores records as they arrive and folds them into the aggregates."""

    inputs: Inputs
    settings: ScoringSettings
    layers: Sequence[Layer]
    acc: ScoreAccumulator = field(init=False)
    tally: FailureTally = field(default_factory=FailureTally)
    by_id: dict[str, Question] = field(init=False)
    metas: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.acc = ScoreAccumulator(metric_specs(self.layers, self.settings))
        self.by_id = self.inputs.questions.by_id()

    def score(self, record: AttemptRecord) -> dict[str, Any]:
        question = self.by_id[record.item]
        ctx = AttemptContext(
            question,
            self.inputs.corpus,
            record.attempt,
            record.response,
            self.settings,
            record.failure,
            record.latency_ms,
            record.first_token_ms,
        )
        score = score_attempt(ctx, self.layers)
        self.acc.add(question, score)
        self.tally.add(question, score)
        if record.response is not None and record.response.meta and len(self.metas) < 50:
            self.metas.append(record.response.meta)
        line = record.to_json()
        line.update(
            category=question.category,
            split=question.split,
            must_pass=question.must_pass,
            asker=question.asker,
        )
        line.update(score.to_json())
        return line

    def agent_meta(self) -> dict[str, Any]:
        """The settings the agent reported most often (model, prompt version, index…)."""
        counts = Counter(json.dumps(m, sort_keys=True) for m in self.metas)
        return json.loads(counts.most_common(1)[0][0]) if counts else {}


def _settings_for(
    run_date: dt.date | None, k: int, non_abstaining: Iterable[str], retrieval_only: bool
) -> ScoringSettings:
    return ScoringSettings(
        k=k,
        run_date=run_date or dt.date.today(),
        non_abstaining_flags=frozenset(non_abstaining),
        retrieval_only=retrieval_only,
    )


def _config_block(
    inputs: Inputs, settings: ScoringSettings, agent: dict[str, Any], run: dict[str, Any]
) -> dict[str, Any]:
    q, c, t = inputs.questions, inputs.corpus, inputs.thresholds
    return {
        "questions": {
            "path": str(q.path),
            "sha256": q.sha256,
            "n": len(q),
            "version": inputs.question_set_version or q.sha256[:12],
        },
        "corpus": {
            "path": str(c.path),
            "sha256": c.sha256,
            "passages": len(c),
            "version": inputs.corpus_version or c.short_hash,
        },
        "thresholds": {"path": str(t.path), "sha256": t.sha256},
        "agent": agent,
        "judge": {
            "name": "none",
            "note": "deterministic layers only; judge-dependent measures are unscored",
        },
        "run": {
            **run,
            "k": settings.k,
            "run_date": settings.run_date.isoformat(),
            "mode": "retrieval" if settings.retrieval_only else "end-to-end",
            "non_abstaining_flags": sorted(settings.non_abstaining_flags),
        },
        "ragcard_version": __version__,
    }


def _finish(
    scorer: _Scorer,
    config: dict[str, Any],
    out_dir: Path,
    project: str,
    kit: str,
    results_path: Path,
    eval_dir: Path | None,
) -> EvaluationResult:
    created = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    header = {
        "project": project,
        "kit": kit,
        "created_at": created,
        "ragcard_version": __version__,
        "signed": None,
    }
    metrics = scorer.acc.summarise()
    breakdowns = {"flag_accuracy": scorer.acc.breakdown("flag_accuracy")}
    decision = decide(scorer.inputs.thresholds, metrics, breakdowns, scorer.acc.specs)
    card = build_scorecard(header, config, decision, scorer.acc, scorer.tally)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "scorecard.json").write_text(
        json.dumps(card.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (out_dir / "scorecard.md").write_text(render_markdown(card), encoding="utf-8")
    eval_path = None
    if eval_dir is not None:
        model = str(config["agent"].get("model") or config["agent"].get("name") or "agent")
        name = f"{config['run']['run_date']}-{config['corpus']['version']}-{model}.jsonl"
        eval_path = eval_dir / _safe(name)
        eval_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(results_path, eval_path)
    return EvaluationResult(card, out_dir, results_path, eval_path)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_.@" else "_" for ch in name)


def score_responses(
    inputs: Inputs,
    responses: str | Path | Sequence[RecordedResponse],
    out_dir: str | Path,
    *,
    k: int = 5,
    run_date: dt.date | None = None,
    non_abstaining_flags: Iterable[str] = (),
    layers: Sequence[Layer] | None = None,
    project: str = "recorded responses",
    kit: str = "knowledge-base",
) -> EvaluationResult:
    """Score recorded responses (SPEC §1.4) without calling any agent."""
    out_dir = Path(out_dir)
    recorded = load_responses(responses) if isinstance(responses, str | Path) else responses
    by_id = inputs.questions.by_id()
    unknown = [r for r in recorded if r.item not in by_id]
    if unknown:
        source = str(responses) if isinstance(responses, str | Path) else "responses"
        raise InputError(
            [
                Problem(
                    source,
                    None,
                    "item",
                    "response for an item not in the question set",
                    r.item,
                    fix="check the question set or the item id",
                )
                for r in unknown
            ]
        )
    settings = _settings_for(run_date, k, non_abstaining_flags, False)
    scorer = _Scorer(inputs, settings, layers or default_layers())
    results_path = out_dir / "results.jsonl"
    results_path.unlink(missing_ok=True)
    log = ResultsLog(results_path)
    answered = {r.item for r in recorded}
    try:
        for r in recorded:
            record = AttemptRecord(r.item, r.attempt, r, None, r.latency_ms, r.first_token_ms)
            log.append(scorer.score(record))
        for q in inputs.questions.questions:
            if q.id not in answered:
                missing = AttemptRecord(q.id, 1, None, _not_recorded(q.id))
                log.append(scorer.score(missing))
    finally:
        log.close()
    agent = {"name": "recorded responses", **scorer.agent_meta()}
    config = _config_block(inputs, settings, agent, {"attempts": _max_attempt(recorded)})
    return _finish(scorer, config, out_dir, project, kit, results_path, None)


def _not_recorded(item: str) -> AttemptFailure:
    return AttemptFailure("not_recorded", f"no recorded response for item {item}")


def _max_attempt(recorded: Sequence[RecordedResponse]) -> int:
    return max((r.attempt for r in recorded), default=0)


def _load_previous(
    path: Path, scorer: _Scorer, log_problems: list[Problem]
) -> set[tuple[str, int]]:
    done: set[tuple[str, int]] = set()
    for number, data in read_results(path):
        try:
            record = AttemptRecord.from_json(data)
        except (ValidationError, KeyError, TypeError, ValueError) as error:
            if isinstance(error, ValidationError):
                log_problems.extend(problems_from_validation(str(path), number, error))
            else:
                log_problems.append(Problem(str(path), number, None, f"bad result line: {error}"))
            continue
        if record.item not in scorer.by_id:
            log_problems.append(
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
        scorer.score(record)
        done.add((record.item, record.attempt))
    return done


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
) -> EvaluationResult:
    """Run the agent of a ``ragcard.toml`` project on its questions and score the answers.

    The run is saved under ``eval_dir`` (default: ``[run] eval_dir`` beside ragcard.toml).
    """
    config = load_config(config_path)
    if not config.agent:
        raise ConfigError(f"{config.path}: no [agent] table: say which agent to call")
    inputs = load_inputs(
        config.resolve(config.project.questions),
        config.resolve(config.project.corpus),
        config.resolve(config.project.thresholds),
        question_set_version=config.project.question_set_version,
        corpus_version=config.project.corpus_version,
    )
    run = config.run
    if attempts is not None:
        run = run.model_copy(update={"attempts": attempts})
    if concurrency is not None:
        run = run.model_copy(update={"concurrency": concurrency})
    out = Path(out_dir) if out_dir is not None else config.resolve(run.out)
    spec = config.agent_spec()
    if agent_options:
        spec["options"] = {**spec.get("options", {}), **agent_options}
    settings = _settings_for(run.run_date, run.k, run.non_abstaining_flags, retrieval_only)
    adapter = build_adapter(spec)
    frozen = _frozen_run(inputs, adapter.describe(), run.model_dump(mode="json"), settings)
    results_path = out / "results.jsonl"
    scorer = _Scorer(inputs, settings, default_layers())
    done = _prepare_out(out, results_path, frozen, resume, fresh, scorer)
    run_settings = RunSettings(
        attempts=run.attempts,
        concurrency=run.concurrency,
        timeout_s=run.timeout_s,
        retries=run.retries,
        retrieval_only=retrieval_only,
        seed=run.seed,
    )
    log = ResultsLog(results_path)

    def on_outcome(outcome: AttemptOutcome) -> None:
        log.append(scorer.score(_record_from_outcome(outcome)))

    try:
        asyncio.run(
            _run(inputs.questions.questions, adapter, run_settings, on_outcome, done, progress)
        )
    finally:
        log.close()
    agent = {**adapter.describe(), **scorer.agent_meta()}
    agent.setdefault("name", spec.get("type"))
    block = _config_block(
        inputs,
        settings,
        agent,
        {
            "attempts": run.attempts,
            "concurrency": run.concurrency,
            "timeout_s": run.timeout_s,
            "retries": run.retries,
        },
    )
    return _finish(
        scorer,
        block,
        out,
        config.project.name,
        config.project.kit,
        results_path,
        Path(eval_dir) if eval_dir is not None else config.resolve(run.eval_dir),
    )


async def _run(
    questions: Sequence[Question],
    adapter: Adapter,
    settings: RunSettings,
    on_outcome: Callable[[AttemptOutcome], None],
    done: set[tuple[str, int]],
    progress: bool,
) -> None:
    try:
        await run_attempts(questions, adapter, settings, on_outcome, skip=done, progress=progress)
    finally:
        await adapter.aclose()


def _frozen_run(
    inputs: Inputs, agent: dict[str, Any], run: dict[str, Any], settings: ScoringSettings
) -> dict[str, Any]:
    return {
        "questions": inputs.questions.sha256,
        "corpus": inputs.corpus.sha256,
        "agent": agent,
        "attempts": run["attempts"],
        "k": settings.k,
        "run_date": settings.run_date.isoformat(),
        "retrieval_only": settings.retrieval_only,
    }


def _prepare_out(
    out: Path,
    results_path: Path,
    frozen: dict[str, Any],
    resume: bool,
    fresh: bool,
    scorer: _Scorer,
) -> set[tuple[str, int]]:
    run_file = out / "run.json"
    if results_path.exists() and not (resume or fresh):
        raise ConfigError(
            f"{results_path} exists: pass --resume to continue that run, or "
            "--fresh to start over (the old results are replaced)"
        )
    done: set[tuple[str, int]] = set()
    if resume and results_path.exists():
        previous = json.loads(run_file.read_text()) if run_file.exists() else None
        changed = [
            key for key in frozen if previous is not None and previous.get(key) != frozen[key]
        ]
        if changed:
            raise ConfigError(
                f"cannot resume {out}: {', '.join(changed)} changed since that run "
                "started; use --fresh to start a new run"
            )
        problems: list[Problem] = []
        done = _load_previous(results_path, scorer, problems)
        if problems:
            raise InputError(problems, f"{results_path}: cannot resume")
    elif fresh or not resume:
        results_path.unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    run_file.write_text(json.dumps(frozen, indent=2, sort_keys=True) + "\n")
    return done


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
