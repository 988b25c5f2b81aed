"""Score item-attempts as they arrive: ask the judge (when the run has one), run the layers,
fold the result into the aggregates, and return the ``results.jsonl`` line; and
:func:`score_into`, which scores a stream of records into a ``results.jsonl`` published whole."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcard.aggregation.coverage import Coverage, CoverageTally, measure_coverage
from ragcard.aggregation.scoring import (
    AccumulatorPart,
    AttemptScore,
    ScoreAccumulator,
    metric_specs,
    score_attempt,
)
from ragcard.inputs.corpus import Corpus
from ragcard.inputs.questions import Question
from ragcard.inputs.responses import AgentResponse
from ragcard.judges.base import Judge
from ragcard.judges.registry import judge_label
from ragcard.metrics.base import AttemptContext, Layer, ScoringSettings
from ragcard.metrics.judged import JudgedAnswer, judge_answer
from ragcard.outputs._writing import fsync_folder, hook
from ragcard.outputs.results import AttemptRecord, ResultsLog
from ragcard.report.scorecard import FailureTally

__all__ = [
    "CRASHED",
    "AttemptScorer",
    "JudgeCrashes",
    "ScorerPart",
    "describe_crash",
    "gc_paused",
    "score_into",
]


#: Agent settings kept to report the most frequent (the first this many answers that have any).
_METAS = 50
#: Judged answers kept for reuse by later attempts with the same answer.
_KEPT_VERDICTS = 8192
#: What a judge call may raise that stops the run rather than being recorded on the answer.
_INTERRUPTS = (KeyboardInterrupt, asyncio.CancelledError, GeneratorExit)
#: How the ``judge_error`` of an answer the judge crashed on begins.
CRASHED = "judge crashed: "


@dataclass(slots=True)
class JudgeCrashes:
    """The answers on which the judge raised something other than a ``JudgeError`` (a
    plugin's bug, ``sys.exit`` in it, a ``BaseException`` subclass): each is recorded on its
    answer as ``judge crashed: …`` and its judged measures are unscored; the run holds and
    the command exits 3 (:mod:`ragcard._cli._crash`). The first error is kept whole, for its
    traceback."""

    answers: int = 0
    first: BaseException | None = None
    first_item: str | None = None
    #: Which judge (its plugin's entry point, or its class).
    label: str = "the judge"

    def first_seen(self, item: str, error: BaseException, judge: object) -> str:
        """Keep ``error`` if it is the first; the ``judge_error`` of its answer."""
        if self.first is None:
            self.first, self.first_item, self.label = error, item, judge_label(judge)
        return f"{CRASHED}{describe_crash(error)}"

    def to_json(self) -> dict[str, Any]:
        return {"answers": self.answers, "first": describe_crash(self.first),
                "first_item": self.first_item, "judge": self.label}  # fmt: skip


def describe_crash(error: BaseException | None) -> str:
    """``Type: message`` on one line (``SystemExit: 0`` for a plugin's ``sys.exit(0)``)."""
    if error is None:
        return ""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}"[:300] if text else type(error).__name__


@dataclass(frozen=True, slots=True)
class ScorerPart:
    """What :meth:`AttemptScorer.part` exports: the aggregates, the failures, agent settings."""

    acc: AccumulatorPart
    tally: FailureTally
    metas: list[dict[str, Any]]
    coverage: CoverageTally


@dataclass(slots=True)
class AttemptScorer:
    """Scores records and folds them into the aggregates, in the order they are added."""

    questions: dict[str, Question]
    corpus: Corpus
    settings: ScoringSettings
    layers: Sequence[Layer]
    judge: Judge | None = None
    judge_concurrency: int = 8
    acc: ScoreAccumulator = field(init=False)
    tally: FailureTally = field(default_factory=FailureTally)
    metas: list[dict[str, Any]] = field(default_factory=list)
    coverage: CoverageTally = field(default_factory=CoverageTally)
    judge_failures: int = 0
    crashes: JudgeCrashes = field(default_factory=JudgeCrashes)
    #: Called each time the judge has finished an answer (a progress bar), if set.
    on_judged: Callable[[], None] | None = None
    _in_force: set[str] = field(init=False)
    _gate: asyncio.Semaphore | None = None
    #: Verdicts by what the judge sees (item, answer, retrieved ids, citations, abstained):
    #: attempts that gave the same answer are judged once (a run's repeats usually do).
    _verdicts: dict[tuple[Any, ...], asyncio.Future[JudgedAnswer]] = field(default_factory=dict)
    #: How many attempts were answered from :attr:`_verdicts` without asking the judge.
    reused_verdicts: int = 0

    def __post_init__(self) -> None:
        self.acc = ScoreAccumulator(metric_specs(self.layers, self.settings))
        self._in_force = {p.id for p in self.corpus if p.in_force_on(self.settings.run_date)}

    async def judged(self, record: AttemptRecord) -> JudgedAnswer | None:
        """The judge's verdicts for one record (None without a judge or a response)."""
        if self.judge is None or record.response is None or self.settings.retrieval_only:
            return None
        key = _judged_key(record.item, record.response)
        known = self._verdicts.get(key)
        if known is not None and not (known.done() and known.result().error is not None):
            self.reused_verdicts += 1
            judged = await asyncio.shield(known)
        else:  # (a failed judgement is asked again, not reused)
            known = self._verdicts[key] = asyncio.get_running_loop().create_future()
            if len(self._verdicts) > _KEPT_VERDICTS:  # bounded: drop the oldest finished one
                oldest = next((k for k, f in self._verdicts.items() if f.done()), None)
                if oldest is not None:
                    del self._verdicts[oldest]
            try:
                judged = await self._ask(record.item, record.response)
            except _INTERRUPTS as error:
                known.set_exception(error)
                known.exception()  # retrieved: later waiters see it, no "never retrieved" warning
                del self._verdicts[key]
                raise
            except BaseException as error:  # the judge's own crash: recorded on this answer
                why = self.crashes.first_seen(record.item, error, self.judge)
                judged = JudgedAnswer(tuple(record.response.sentences()), error=why)
            known.set_result(judged)
        if judged.error is not None:
            self.judge_failures += 1
            if judged.error.startswith(CRASHED):
                self.crashes.answers += 1
        if self.on_judged is not None:
            self.on_judged()
        return judged

    async def _ask(self, item: str, response: AgentResponse) -> JudgedAnswer:
        assert self.judge is not None
        if self._gate is None:
            self._gate = asyncio.Semaphore(self.judge_concurrency)
        async with self._gate:
            return await judge_answer(
                self.judge, self.questions[item], response, self.corpus, self._in_force
            )

    def fold(self, record: AttemptRecord, judged: JudgedAnswer | None) -> dict[str, Any]:
        """Score one record (with its verdicts), fold it in, and return its results line."""
        score, line = self.evaluate(record, judged)
        self.absorb(score, record.response.meta if record.response is not None else None)
        return line

    def evaluate(
        self, record: AttemptRecord, judged: JudgedAnswer | None
    ) -> tuple[AttemptScore, dict[str, Any]]:
        """Score one record (with its verdicts): its score and its results line, nothing
        folded in yet (:meth:`absorb` does that; worker processes only evaluate)."""
        question = self.questions[record.item]
        ctx = AttemptContext(
            question,
            self.corpus,
            record.attempt,
            record.response,
            self.settings,
            record.failure,
            record.latency_ms,
            record.first_token_ms,
            judged,
        )
        score = score_attempt(ctx, self.layers)
        line = record.to_json()
        line.update(
            category=question.category,
            split=question.split,
            must_pass=question.must_pass,
            asker=question.asker,
        )
        if question.category_source not in (None, "field"):
            line["category_source"] = question.category_source  # inferred: say from what
        line.update(score.to_json())
        if judged is not None and judged.error is not None:
            line["judge_error"] = judged.error
        return score, line

    def absorb(self, score: AttemptScore, meta: dict[str, Any] | None) -> None:
        """Fold one attempt's score (and the settings its agent reported) into the aggregates."""
        question = self.questions[score.item]
        self.acc.add(question, score)
        self.tally.add(question, score)
        if score.failed:
            kind = score.evidence.get("error", {}).get("kind")
            self.coverage.add(score.item, True, kind, list(score.values))
        else:
            self.coverage.add(score.item, False, None, ())
        if meta and len(self.metas) < _METAS:
            self.metas.append(meta)

    def restart(self) -> None:
        """Forget what was folded (a worker, before each chunk it scores)."""
        self.acc = ScoreAccumulator(self.acc.specs)
        self.tally = FailureTally()
        self.metas = []
        self.coverage = CoverageTally()

    def part(self) -> ScorerPart:
        """What was folded, as plain values that pickle fast, for :meth:`merge`."""
        return ScorerPart(self.acc.part(), self.tally, self.metas, self.coverage)

    def merge(self, part: ScorerPart) -> None:
        """Fold in what another scorer folded (a worker's chunk), as if its attempts had been
        absorbed here one by one."""
        self.acc.merge(part.acc, self.questions)
        self.tally.merge(part.tally)
        self.coverage.merge(part.coverage)
        self.metas.extend(part.metas[: max(0, _METAS - len(self.metas))])

    async def score(self, record: AttemptRecord) -> dict[str, Any]:
        return self.fold(record, await self.judged(record))

    async def score_all(
        self,
        records: Iterable[AttemptRecord],
        sink: Callable[[dict[str, Any]], None],
        chunk: int = 256,
    ) -> None:
        """Score records in order, judging each chunk concurrently, and hand every results
        line to ``sink`` as soon as it is folded (memory stays bounded by the chunk)."""
        if self.judge is None:
            for record in records:
                sink(self.fold(record, None))
            return
        batch: list[AttemptRecord] = []
        for record in records:
            batch.append(record)
            if len(batch) >= chunk:
                await self._flush(batch, sink)
        await self._flush(batch, sink)

    async def _flush(
        self, batch: list[AttemptRecord], sink: Callable[[dict[str, Any]], None]
    ) -> None:
        verdicts = await asyncio.gather(*(self.judged(r) for r in batch))
        for record, judged in zip(batch, verdicts, strict=True):
            sink(self.fold(record, judged))
        batch.clear()

    def measured_coverage(self) -> Coverage:
        """Failed attempts and each measure's missing members
        (:mod:`ragcard.aggregation.coverage`)."""
        return measure_coverage(
            self.coverage, self.questions, self.corpus, self.settings, self.layers, self.acc.specs
        )

    def agent_meta(self) -> dict[str, Any]:
        """The settings the agent reported most often (model, prompt version, index…)."""
        counts = Counter(json.dumps(m, sort_keys=True) for m in self.metas)
        return dict(json.loads(counts.most_common(1)[0][0])) if counts else {}


def _judged_key(item: str, response: AgentResponse) -> tuple[Any, ...]:
    """What the judge's verdicts on an answer depend on (besides the question and corpus)."""
    citations = tuple((c.id, c.sentence) for c in response.resolved_citations())
    return (item, response.answer, tuple(response.retrieved_ids), citations, response.abstained)


def score_into(
    scorer: AttemptScorer,
    records: Iterable[AttemptRecord],
    results_path: Path,
    write: Callable[[ResultsLog], None] | None = None,
    *,
    before_publish: Callable[[], None] | None = None,
) -> None:
    """Score ``records`` into ``results_path`` through a partial file published at the end: a
    failure (bad input, interruption) leaves any previous results in place, nothing half-made
    under that name, and no empty folder the call created. ``write``, when given, first fills
    the log its own way (several processes), then ``records`` follow. ``before_publish`` is
    called once the partial file is complete and synced, just before it replaces the old
    results (the caller marks its folder incomplete there)."""
    partial = results_path.with_name(results_path.name + ".partial")
    created = not results_path.parent.exists()
    partial.unlink(missing_ok=True)
    log = ResultsLog(partial, flush_each=False)
    done = False
    try:
        with gc_paused():
            if write is not None:
                write(log)
            asyncio.run(_score_all(scorer, records, log.append))
        done = True
    finally:
        log.close()
        if done:
            if before_publish is not None:
                before_publish()
            hook("synced", results_path)
            os.replace(partial, results_path)
            hook("renamed", results_path)
            fsync_folder(results_path.parent)
        else:
            partial.unlink(missing_ok=True)
            if created and not any(results_path.parent.iterdir()):
                results_path.parent.rmdir()


async def _score_all(
    scorer: AttemptScorer,
    records: Iterable[AttemptRecord],
    sink: Callable[[dict[str, Any]], None],
) -> None:
    """:meth:`AttemptScorer.score_all`, then release what the judge opened on this event loop
    (an LLM backend's HTTP client), which ends with it; the judge itself stays usable."""
    try:
        await scorer.score_all(records, sink)
    finally:
        release = getattr(scorer.judge, "release", None)
        if callable(release):
            await release()


@contextlib.contextmanager
def gc_paused(young: int = 50_000) -> Iterator[None]:
    """While attempts are scored: leave what already exists (the inputs: questions, corpus)
    out of garbage collection, and collect the youngest generation every ``young`` net
    allocations instead of every 700; restore both after.

    Scoring an attempt allocates a few hundred short-lived containers and the aggregates grow
    with every item: at the default settings the collector keeps promoting them and
    re-traversing everything, inputs included, about a sixth of the run. Cycles made while
    scoring are still collected: the collector stays on.
    """
    thresholds = gc.get_threshold()
    already_frozen = gc.get_freeze_count() > 0
    gc.freeze()
    gc.set_threshold(max(young, thresholds[0]), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if not already_frozen:  # a caller's own freeze is left alone
            gc.unfreeze()
