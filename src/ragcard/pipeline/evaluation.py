"""The evaluation pipeline: inputs → (agent) → results → metrics → thresholds → scorecard.

Two entry points share everything after the agent:

* :func:`score_responses` scores recorded responses without calling any agent (``ragcard score``);
* :func:`ragcard.pipeline.running.run_evaluation` calls the agent through an adapter, appending each
  finished item-attempt to ``results.jsonl`` so an interrupted run resumes (``ragcard run``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_core import to_json
from rich.console import Console

from ragcard import __version__
from ragcard.agent import _secrets
from ragcard.agent.runner import judge_progress_bar
from ragcard.aggregation._parallel import score_file, workers_for
from ragcard.aggregation._scorer import AttemptScorer, JudgeCrashes, describe_crash, score_into
from ragcard.aggregation.scoring import default_layers
from ragcard.decision.evidence import too_small
from ragcard.decision.thresholds import (
    Thresholds,
    check_measures,
    decide,
    inspect_thresholds,
    measure_problems,
)
from ragcard.errors import ConfigError, ExitCode, InputError, Problem
from ragcard.inputs._jsonl import read_lines
from ragcard.inputs._recorded import attempt_record
from ragcard.inputs.corpus import Corpus, load_corpus
from ragcard.inputs.questions import Question, QuestionSet, load_questions
from ragcard.inputs.responses import RecordedResponse, RecordedResponses, ResultLine, answer_problem
from ragcard.judges.base import Judge
from ragcard.judges.metaeval.calibration import calibration_line
from ragcard.judges.metaeval.correctness import correctness_line, shipped_correctness
from ragcard.metrics.abstention import flag_label
from ragcard.metrics.base import AttemptFailure, Layer, MetricSpec, RunMeasures, ScoringSettings
from ragcard.metrics.recorded import RECORDED_BREAKDOWNS, recorded_placeholders, with_recorded
from ragcard.metrics.redteam import (
    ATTACK_CATEGORIES,
    REDTEAM_SPECS,
    gates_redteam,
    unscored_measures,
)
from ragcard.outputs._runfolder import begin, finish, results_digest
from ragcard.outputs._writing import copy_atomic, write_atomic
from ragcard.outputs.history import new_run_id
from ragcard.outputs.results import AttemptRecord, ResultsLog
from ragcard.report.markdown import render_markdown
from ragcard.report.scorecard import Scorecard, build_scorecard

if TYPE_CHECKING:
    from ragcard.decision.baseline import Comparison

__all__ = [
    "EvaluationResult",
    "Inputs",
    "breakdown_labels",
    "check_references",
    "check_run_measures",
    "judge_block",
    "load_inputs",
    "scoring_settings",
    "score_responses",
    "save_record",
    "write_outputs",
]

#: Metrics reported per label (when the run's layers compute them), and each item's label.
BREAKDOWN_LABELS: dict[str, Callable[[Question], str | None]] = {"flag_accuracy": flag_label}
BREAKDOWN_METRICS = tuple(BREAKDOWN_LABELS)


def breakdown_labels(questions: QuestionSet) -> dict[str, set[str]]:
    """Each broken-down metric → the labels the question set's items have (known before the
    run: a threshold on any other label is a typo)."""
    items = questions.by_id().values()
    return {
        name: {found for q in items if (found := label(q)) is not None}
        for name, label in {**BREAKDOWN_LABELS, **RECORDED_BREAKDOWNS}.items()
    }


def check_run_measures(
    thresholds: Thresholds, scorer: AttemptScorer, questions: QuestionSet
) -> None:
    """Refuse, before anything runs, a threshold on a measure no layer of the run and no
    run-level measure (the red team's) computes, or on a label no item or category has."""
    check_measures(thresholds, gateable(scorer.acc.specs), _labels(questions))


def gateable(specs: Mapping[str, MetricSpec]) -> dict[str, MetricSpec]:
    """Every measure a threshold of a run whose layers compute ``specs`` may name: those,
    the ones recorded after the run (blind review) and the run-level ones (the red team's)."""
    return {**with_recorded(specs), **REDTEAM_SPECS}


def _labels(questions: QuestionSet) -> dict[str, set[str]]:
    return {**breakdown_labels(questions), "redteam_success_rate": set(ATTACK_CATEGORIES)}


NO_JUDGE = {
    "name": "none",
    "note": "deterministic layers only; judge-dependent measures are unscored",
}


@dataclass(frozen=True, slots=True)
class Inputs:
    questions: QuestionSet
    corpus: Corpus
    thresholds: Thresholds
    question_set_version: str | None = None
    corpus_version: str | None = None


@dataclass(frozen=True, slots=True)
class EvaluationResult:
    """What a run produced; ``comparison`` is the regression gate's verdict when the run was
    compared with a baseline (``ragcard run --baseline``)."""

    scorecard: Scorecard
    out_dir: Path
    results_path: Path
    eval_path: Path | None
    comparison: Comparison | None = None
    #: The answers the judge crashed on (a plugin's bug): the run holds and exits 3.
    crashes: JudgeCrashes | None = None

    @property
    def exit_code(self) -> int:
        if self.crashes is not None and self.crashes.answers:
            return ExitCode.INTERNAL  # a crash is never read as a decision
        gate_failed = self.comparison is not None and self.comparison.gate == "fail"
        shipped = self.scorecard.decision.decision == "ship" and not gate_failed
        return ExitCode.OK if shipped else ExitCode.HOLD


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
    non_abstaining_flags: Iterable[str] = (),
    responses: str | Path | None = None,
    specs: Mapping[str, MetricSpec] | None = None,
) -> Inputs:
    """Load all three inputs, reporting the problems of every file together: with ``specs``
    (the measures of the run), each threshold's measure is checked too (and its label against
    the question set, when that loads); with ``responses``, when another file has problems,
    those of the responses are listed as well — every problem of every input in one round.
    ``non_abstaining_flags``: the flags the configuration says are not abstentions (they
    decide which items are answerable by default)."""
    problems: list[Problem] = []
    loaded: dict[str, Any] = {}
    flags = frozenset(non_abstaining_flags)
    for name, loader, path in (
        ("questions", functools.partial(load_questions, non_abstaining_flags=flags), questions),
        ("corpus", load_corpus, corpus),
    ):
        try:
            loaded[name] = loader(path)
        except InputError as error:
            problems.extend(error.problems)
    if "questions" in loaded and "corpus" in loaded:
        problems.extend(check_references(loaded["questions"], loaded["corpus"]))
    found, threshold_problems = inspect_thresholds(thresholds)
    problems.extend(threshold_problems)
    if found is not None and specs is not None:
        labels = _labels(loaded["questions"]) if "questions" in loaded else None
        problems.extend(measure_problems(found, gateable(specs), labels))
    if problems and responses is not None:
        known = loaded["questions"].by_id() if "questions" in loaded else None
        problems.extend(RecordedResponses(Path(responses), known).check())
    if problems or found is None:
        raise InputError(problems, f"{len(problems)} problem(s) in the inputs")
    return Inputs(
        loaded["questions"],
        loaded["corpus"],
        found,
        question_set_version,
        corpus_version,
    )


def apply_flag_rule(questions: QuestionSet, settings: ScoringSettings) -> None:
    """Judge every item's answerability by the run's non-abstaining flags (the one flag rule
    of :func:`ragcard.inputs.questions.is_abstention_flag`, as for raised flags)."""
    for question in questions.questions:
        question.with_flag_rule(settings.non_abstaining_flags)


def scoring_settings(
    run_date: dt.date | None,
    k: int,
    non_abstaining: Iterable[str],
    retrieval_only: bool,
    judge: Judge | None,
) -> ScoringSettings:
    return ScoringSettings(
        k=k,
        run_date=run_date or dt.date.today(),
        non_abstaining_flags=frozenset(non_abstaining),
        retrieval_only=retrieval_only,
        judge=judge.identity.name if judge is not None else None,
    )


def judge_block(judge: Judge | None, scorer: AttemptScorer) -> dict[str, Any]:
    """The judge's identity, calibration and usage for the scorecard."""
    if judge is None:
        return dict(NO_JUDGE)
    block = judge.identity.to_json()
    calibration = block.pop("calibration", None)
    if calibration:
        block["calibration"] = {
            "line": calibration_line(calibration),
            "per_dataset": calibration_line(calibration, per_dataset=True),
            "date": calibration.get("date"),
            "datasets": [d.get("name") for d in calibration.get("datasets", [])],
        }
    else:
        block["note"] = "uncalibrated: no measurement against human labels is recorded"
    measured = shipped_correctness(judge.identity.name, judge.identity.tasks.get("correctness"))
    if measured is not None:  # its correctness verdicts against a reader's labels
        block["correctness_calibration"] = {
            "line": correctness_line(measured), "n": measured["n"],
            "dataset": measured["dataset"], "date": measured.get("date"),
        }  # fmt: skip
    stats = getattr(judge, "stats", None)
    if callable(stats):  # LLM backends: calls, cache hits, tokens and cost
        usage = stats()
        block["usage"] = usage.to_json() if hasattr(usage, "to_json") else usage
    block["failures"] = scorer.judge_failures
    if scorer.crashes.answers:
        block["crashes"] = scorer.crashes.to_json()
    return block


def config_block(
    inputs: Inputs,
    settings: ScoringSettings,
    agent: dict[str, Any],
    judge: dict[str, Any],
    run: dict[str, Any],
) -> dict[str, Any]:
    """Everything the run depended on, with hashes (docs/metrics.md#decision)."""
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
        "judge": judge,
        "run": {
            **run,
            "k": settings.k,
            "run_date": settings.run_date.isoformat(),
            "mode": "retrieval" if settings.retrieval_only else "end-to-end",
            "non_abstaining_flags": sorted(settings.non_abstaining_flags),
        },
        "ragcard_version": __version__,
    }


def write_outputs(
    scorer: AttemptScorer,
    thresholds: Thresholds,
    config: dict[str, Any],
    out_dir: Path,
    header: dict[str, Any],
    results_path: Path,
    eval_dir: Path | None,
    extra_reasons: Sequence[str] = (),
    measures: Sequence[RunMeasures] = (),
    rescore: str = "score them again",
) -> EvaluationResult:
    """Decide, build the scorecard, write scorecard.json/.md, save the run under eval/.
    ``measures`` (the red team's) are decided and shown like the layers' own. Answers the
    judge crashed on hold the run, the reason saying how to ``rescore`` them."""
    # what the agent reported (its meta) may echo a secret: the card in memory is scrubbed as
    # its files are, for the terminal, the history and the eval record's name
    config, extra_reasons = _secrets.scrub_data(config), _secrets.scrub_data(list(extra_reasons))
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    header = {
        "run_id": new_run_id(now),  # unique per run: never derived from content and time
        "created_at": now.isoformat(),
        "ragcard_version": __version__,
        "signed": None,
        **_secrets.scrub_data(dict(header)),
    }
    coverage = scorer.measured_coverage()
    metrics = coverage.apply(scorer.acc.summarise())
    breakdowns = {
        name: coverage.apply(scorer.acc.breakdown(name), breakdown=name)
        for name in BREAKDOWN_METRICS
        if name in scorer.acc.specs
    }
    specs = with_recorded(scorer.acc.specs)
    for extra in measures:
        metrics.update(extra.values)
        breakdowns.update(extra.breakdowns)
        specs.update(extra.specs)
        if extra.block:
            config[extra.name] = extra.block
    # a set too small to measure cannot ship (docs/metrics.md#decision)
    small = too_small((q.category for q in scorer.questions.values()),
                      thresholds.evidence.min_items)  # fmt: skip
    extra_reasons = [*extra_reasons, *([small] if small else [])]
    crashes = scorer.crashes
    if crashes.answers:
        extra_reasons = [*extra_reasons, crash_reason(crashes, rescore)]
    # measures recorded after the run (blind review) are unscored until then, and say why
    later, later_breakdowns = recorded_placeholders([t.measure for t in thresholds.items])
    decision = decide(
        thresholds,
        {**later, **metrics},
        {**later_breakdowns, **breakdowns},
        specs,
        extra_reasons,
        coverage,
    )
    header["results"] = results_digest(results_path)  # binds the scorecard to its results
    card = build_scorecard(
        header, config, decision, scorer.acc, scorer.tally, BREAKDOWN_METRICS, coverage, measures
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_json(out_dir / "scorecard.json", card.to_json())
    write_atomic(out_dir / "scorecard.md", render_markdown(card))
    eval_path = None
    if eval_dir is not None:
        model = str(config["agent"].get("model") or config["agent"].get("name") or "agent")
        name = f"{config['run']['run_date']}-{config['corpus']['version']}-{model}"
        eval_path = save_record(eval_dir, _safe_name(name), results_path)
    return EvaluationResult(card, out_dir, results_path, eval_path,
                            crashes=crashes if crashes.answers else None)  # fmt: skip


def crash_reason(crashes: JudgeCrashes, rescore: str) -> str:
    """The decision's reason when the judge crashed on some answers."""
    return (
        f"the judge crashed on {crashes.answers} answer(s) ({describe_crash(crashes.first)}, "
        f"first on item {crashes.first_item}): every attempt is kept, their judged measures "
        f"are unscored; fix {crashes.label}, then {rescore}"
    )


def _safe_name(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_.@" else "_" for ch in name)


def save_record(eval_dir: Path, stem: str, results_path: Path) -> Path:
    """Copy the run's results to ``eval_dir/<stem>.jsonl`` (docs/metrics.md#decision), never over
    another run's
    record: a later run of the same day, corpus and model is saved as ``<stem>-2.jsonl``,
    ``-3`` … (created exclusively, so concurrent runs cannot clobber each other either). The
    same results saved again reuse their record."""
    eval_dir.mkdir(parents=True, exist_ok=True)
    size = results_path.stat().st_size
    digest: str | None = None
    for number in range(1, 100_000):
        candidate = eval_dir / (f"{stem}.jsonl" if number == 1 else f"{stem}-{number}.jsonl")
        try:
            return copy_atomic(results_path, candidate, exclusive=True)
        except FileExistsError:
            pass
        try:
            same_size = candidate.stat().st_size == size
        except OSError:
            continue
        if same_size:
            digest = digest or results_digest(results_path)["sha256"]
            if results_digest(candidate)["sha256"] == digest:
                return candidate
    raise ConfigError(f"{eval_dir}: 100,000 records of {stem} already: clean the folder up")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON indented by two spaces, UTF-8 kept, and a newline (pydantic-core's
    serializer: a large run's scorecard, thousands of failing items, in a fraction of the time
    of ``json.dumps``), atomically."""
    write_atomic(path, to_json(data, indent=2, inf_nan_mode="constants") + b"\n")


def score_responses(
    inputs: Inputs,
    responses: str | Path | Sequence[RecordedResponse | ResultLine],
    out_dir: str | Path,
    *,
    k: int = 5,
    run_date: dt.date | None = None,
    non_abstaining_flags: Iterable[str] = (),
    layers: Sequence[Layer] | None = None,
    judge: Judge | None = None,
    project: str = "recorded responses",
    kit: str = "knowledge-base",
    workers: int | None = None,
    progress: bool = False,
    header: dict[str, Any] | None = None,
) -> EvaluationResult:
    """Score recorded responses (docs/agents.md) without calling any agent.

    A file of responses is streamed: each line is parsed, checked, scored and its results line
    written before the next is read, so memory does not grow with the number of responses.
    Results go to ``results.jsonl.partial`` and replace ``results.jsonl`` only once every line
    has passed; a bad line stops the scoring but not the reading, and :class:`InputError` then
    lists every problem of the file (bad JSON or fields, repeated attempts, unknown items) with
    nothing written.

    Without a judge, a large file is scored on ``workers`` processes (default: one per core,
    for files of 4 MiB or more; see :mod:`ragcard.aggregation._parallel`), with the same outputs.
    With a judge and ``progress``, a bar on stderr counts the answers judged. ``header`` adds
    fields to the scorecard's header (``ragcard score`` adds the label amendments there).
    """
    out_dir = Path(out_dir)
    by_id = inputs.questions.by_id()
    settings = scoring_settings(run_date, k, non_abstaining_flags, False, judge)
    apply_flag_rule(inputs.questions, settings)
    scorer = AttemptScorer(by_id, inputs.corpus, settings, layers or default_layers(), judge)
    try:
        check_run_measures(inputs.thresholds, scorer, inputs.questions)
    except InputError as error:  # listed with the problems of the responses, in one round
        more = RecordedResponses(Path(responses), by_id).check() if isinstance(
            responses, str | Path) else []  # fmt: skip
        raise InputError([*error.problems, *more], error.summary) from None
    gated = [t.measure for t in inputs.thresholds.items]
    stream: RecordedResponses | None = None
    if isinstance(responses, str | Path):
        stream = RecordedResponses(Path(responses), by_id)
        recorded: Iterable[RecordedResponse | ResultLine] = stream
        answered, attempts = stream.answered, 0  # both known once the file is read
    else:
        _check_items(responses, by_id)
        recorded, answered = responses, {r.item for r in responses}
        attempts = max((r.attempt for r in responses), default=0)
    results_path = out_dir / "results.jsonl"
    write = None
    if stream is not None and judge is None and (count := workers_for(stream.path, workers)) > 1:
        file = stream

        def write(log: ResultsLog) -> None:
            score_file(scorer, file, log, count)

        recorded = ()  # the workers read the file; only the unanswered items are left here
    records = _records(recorded, inputs.questions, answered)
    mark = functools.partial(begin, out_dir, "ragcard score", _SCORE_FIX)  # once the old results go
    with _judge_progress(scorer, responses if progress else None):
        score_into(scorer, records, results_path, write, before_publish=mark)
    if stream is not None:
        attempts = stream.max_attempt
    agent = {"name": "recorded responses", **scorer.agent_meta()}
    config = config_block(
        inputs, settings, agent, judge_block(judge, scorer), {"attempts": attempts}
    )
    result = write_outputs(
        scorer,
        inputs.thresholds,
        config,
        out_dir,
        {"project": project, "kit": kit, **(header or {})},
        results_path,
        None,
        # shown only where a threshold asks for them: then it holds, saying why
        measures=[unscored_measures(_NO_HISTORY)] if gates_redteam(gated) else [],
        rescore="run the same `ragcard score` command again",
    )
    finish(out_dir)
    return result


_SCORE_FIX = "run the same `ragcard score` command again (it rewrites every file of the folder)"


_NO_HISTORY = (
    "recorded responses are scored without a project's history: `ragcard run PROJECT` reads "
    "its red-team runs"
)


@contextlib.contextmanager
def _judge_progress(
    scorer: AttemptScorer,
    responses: str | Path | Sequence[RecordedResponse | ResultLine] | None,
) -> Iterator[None]:
    """A progress bar on stderr while the judge reads ``responses`` (counted up front: the
    non-blank lines of a file); nothing without a judge or without ``responses``."""
    if scorer.judge is None or responses is None:
        yield
        return
    if isinstance(responses, str | Path):
        total = sum(1 for _ in read_lines(Path(responses)))  # (a missing file: InputError)
    else:
        total = len(responses)
    with judge_progress_bar(Console(stderr=True, soft_wrap=True)) as bar:
        task = bar.add_task("judge", total=total, failures=0)

        def advance() -> None:
            bar.update(task, advance=1, failures=scorer.judge_failures)

        scorer.on_judged = advance
        try:
            yield
        finally:
            scorer.on_judged = None


def _check_items(
    responses: Sequence[RecordedResponse | ResultLine], by_id: dict[str, Any]
) -> None:
    """Responses given in code are checked as a file's are: known items, answers."""
    problems = []
    for number, r in enumerate(responses, 1):
        if r.item not in by_id:
            problems.append(Problem("responses", number, "item",
                                    "response for an item not in the question set", r.item,
                                    fix="check the question set or the item id"))  # fmt: skip
        if isinstance(r, RecordedResponse) and (missing := answer_problem(
                "responses", number, r)) is not None:  # fmt: skip
            problems.append(missing)
    if problems:
        raise InputError(problems)


def _records(
    recorded: Iterable[RecordedResponse | ResultLine], questions: QuestionSet, answered: set[str]
) -> Iterator[AttemptRecord]:
    """Each recorded response as a record, then a ``not_recorded`` failure for every item that
    has none (``answered`` is complete once ``recorded`` is exhausted)."""
    for r in recorded:
        yield attempt_record(r)
    for q in questions.questions:
        if q.id not in answered:
            failure = AttemptFailure("not_recorded", f"no recorded response for item {q.id}")
            yield AttemptRecord(q.id, 1, None, failure)
