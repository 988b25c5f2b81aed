"""Run a judge over human-labelled datasets and measure how well it agrees with the humans.

The threshold that turns the judge's scores into labels is chosen in one of three ways, and
the report always says which:

* ``"tune"`` — tuned on each dataset's ``dev`` part (maximum balanced accuracy) and reported
  on its ``test`` part only. Never on the part that is reported.
* ``"judge"`` — the judge's own labels, as a scorecard run would use them. Nothing is tuned,
  so a hash-split dataset is reported whole; a dataset with its own split (BEGIN, the WiCE
  published subset) is still reported on its test part only.
* a number — that threshold on the scores, reported as for ``"judge"``.

An example the judge fails on (:class:`~ragcard.judges.base.JudgeError`) is counted and left
out of the metrics, never scored as a pass or a fail.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ragcard.errors import ConfigError, one_line
from ragcard.judges.base import (
    Judge,
    JudgeContext,
    JudgeError,
    JudgeIdentity,
    Task,
    answers_task,
)
from ragcard.judges.metaeval.examples import Dataset, LabelledExample, length_bucket
from ragcard.judges.metaeval.metrics import (
    MetricEstimate,
    accuracy,
    balanced_accuracy,
    cohen_kappa,
    confusion,
    estimate_all,
    tune_threshold,
)

__all__ = [
    "BreakdownRow",
    "DatasetReport",
    "MetaEvaluation",
    "ScoredExample",
    "ThresholdChoice",
    "ThresholdMode",
    "evaluate_judge",
    "evaluate_judge_async",
    "score_examples",
]

ThresholdMode = float | Literal["tune", "judge"]


@dataclass(frozen=True, slots=True)
class ScoredExample:
    """The judge's view of one example: the score and its own label, or the failure."""

    example: LabelledExample
    score: float | None
    judge_supported: bool | None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ThresholdChoice:
    """Which threshold turned scores into labels, and where it came from (``value`` is
    ``None`` when the judge's own labels were used and it declares no threshold)."""

    mode: str
    value: float | None
    source: str
    tuned_on: int = 0


@dataclass(frozen=True, slots=True)
class BreakdownRow:
    """Agreement on one slice of the reported part (``None`` where undefined)."""

    by: str
    key: str
    n: int
    human_supported: float
    accuracy: float | None
    balanced_accuracy: float | None
    kappa: float | None


@dataclass(frozen=True, slots=True)
class DatasetReport:
    """Agreement on one dataset's reported part (or on the pool of all, for ``overall``)."""

    name: str
    title: str
    split_rule: str
    n_reported: int
    failures: int
    threshold: ThresholdChoice
    metrics: dict[str, MetricEstimate]
    confusion: dict[str, int]
    breakdowns: tuple[BreakdownRow, ...]
    dataset: Dataset | None = None
    #: Why the judge failed, most common first (the message, how many examples), at most 3.
    failure_reasons: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class MetaEvaluation:
    """A judge against human labels: one report per dataset, plus the pool of them."""

    judge: JudgeIdentity
    reports: tuple[DatasetReport, ...]
    overall: DatasetReport | None
    notes: tuple[str, ...] = ()
    date: str = field(default_factory=lambda: dt.date.today().isoformat())
    #: What the labels judged: support (a calibration can be saved) or relevance.
    task: Task = "support"


async def _score_one(judge: Judge, example: LabelledExample) -> ScoredExample:
    if example.task != "support":  # one answer to its question: the judge's own verdict
        ctx = JudgeContext(example.claims, (), example.question, example.task)
        try:
            (verdict,) = await judge.judge(ctx)
        except JudgeError as error:
            return ScoredExample(example, None, None, str(error))
        except ValueError:
            return ScoredExample(example, None, None, "not one verdict for the answer")
        return ScoredExample(example, verdict.score, verdict.supported)
    best_score, best_supported = -1.0, False
    for passages in example.evidence_sets or ((),):
        ctx = JudgeContext(claims=example.claims, passages=passages)
        try:
            verdicts = await judge.judge(ctx)
        except JudgeError as error:
            return ScoredExample(example, None, None, str(error))
        if len(verdicts) != len(example.claims):
            message = f"{len(verdicts)} verdicts for {len(example.claims)} claims"
            return ScoredExample(example, None, None, message)
        # All claims must hold (min); the best evidence set counts (max).
        score = min(v.score for v in verdicts)
        supported = all(v.supported for v in verdicts)
        best_score = max(best_score, score)
        best_supported = best_supported or supported
    return ScoredExample(example, best_score, best_supported)


async def score_examples(
    judge: Judge, examples: Sequence[LabelledExample], concurrency: int = 8
) -> list[ScoredExample]:
    """Judge every example, ``concurrency`` at a time, results in input order."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def bounded(example: LabelledExample) -> ScoredExample:
        async with gate:
            return await _score_one(judge, example)

    return list(await asyncio.gather(*(bounded(e) for e in examples)))


def _breakdowns(scored: Sequence[ScoredExample], predicted: np.ndarray) -> list[BreakdownRow]:
    keys: list[tuple[str, Callable[[LabelledExample], str | None]]] = [
        ("claim length", length_bucket),
        ("group", lambda e: e.group),
        ("support position", lambda e: e.support_position),
    ]
    rows = []
    human = np.array([s.example.supported for s in scored], dtype=bool)
    for by, key_of in keys:
        keys_seen = [key_of(s.example) for s in scored]
        # Length buckets in their natural order (short → long), other keys alphabetically.
        for key in sorted({k for k in keys_seen if k is not None}, key=_bucket_order):
            mask = np.array([k == key for k in keys_seen])
            h, j = human[mask], predicted[mask]
            rows.append(
                BreakdownRow(
                    by,
                    key,
                    int(mask.sum()),
                    float(h.mean()),
                    accuracy(h, j),
                    balanced_accuracy(h, j),
                    cohen_kappa(h, j),
                )  # fmt: skip
            )
    return rows


def _bucket_order(key: str) -> tuple[int, str]:
    for rank, prefix in enumerate(("short", "medium", "long")):
        if key.startswith(prefix + " ("):
            return rank, key
    return 3, key


def _choose_threshold(
    mode: ThresholdMode,
    judge: JudgeIdentity,
    tuning: Sequence[ScoredExample],
    task: str = "support",
) -> ThresholdChoice:
    if mode == "judge" and task != "support":  # a task has its own rule, not the threshold
        source = f"the judge's own {task} verdicts ({judge.tasks.get(task)}; nothing tuned)"
        return ThresholdChoice("judge", None, source)
    if mode == "judge":
        source = "the judge's own labels (its configured threshold; nothing tuned on this data)"
        return ThresholdChoice("judge", judge.threshold, source)
    if mode == "tune":
        if not tuning:
            raise ConfigError(
                "cannot tune a threshold: no dev examples to tune on; "
                "use --threshold judge or --threshold <number>"
            )
        scores = [s.score for s in tuning if s.score is not None]
        human = [s.example.supported for s in tuning if s.score is not None]
        if len(set(human)) < 2:
            raise ConfigError(
                "cannot tune a threshold: the dev part has only one class of human label; "
                "use --threshold judge or --threshold <number>"
            )
        value = tune_threshold(scores, human)
        source = f"tuned on the dev part ({len(scores)} examples, max balanced accuracy)"
        return ThresholdChoice("tune", value, source, tuned_on=len(scores))
    return ThresholdChoice("fixed", float(mode), "given on the command line / by the caller")


def _report(
    name: str,
    title: str,
    rule: str,
    scored: Sequence[ScoredExample],
    choice: ThresholdChoice,
    dataset: Dataset | None,
) -> DatasetReport:
    ok = [s for s in scored if s.score is not None]
    reasons = Counter(one_line(s.error or "no score") for s in scored if s.score is None)
    human = np.array([s.example.supported for s in ok], dtype=bool)
    scores = np.array([s.score for s in ok], dtype=float)
    if choice.mode == "judge":
        predicted = np.array([bool(s.judge_supported) for s in ok], dtype=bool)
    else:
        predicted = scores >= (choice.value if choice.value is not None else 0.5)
    return DatasetReport(
        name=name,
        title=title,
        split_rule=rule,
        n_reported=len(ok),
        failures=len(scored) - len(ok),
        threshold=choice,
        metrics=estimate_all(human, predicted, scores) if ok else {},
        confusion=confusion(human, predicted),
        breakdowns=tuple(_breakdowns(ok, predicted)),
        dataset=dataset,
        failure_reasons=tuple(reasons.most_common(3)),
    )


def _split(
    dataset: Dataset, scored: Sequence[ScoredExample], mode: ThresholdMode
) -> tuple[list[ScoredExample], list[ScoredExample]]:
    """(tuning part, reported part) for this mode."""
    dev = [s for s in scored if s.example.part == "dev"]
    test = [s for s in scored if s.example.part == "test"]
    if mode == "tune" or dataset.fixed_split:
        return dev, test
    return [], list(scored)


def evaluate_judge(
    judge: Judge,
    datasets: Sequence[Dataset],
    threshold: ThresholdMode = "tune",
    concurrency: int = 8,
) -> MetaEvaluation:
    """Measure ``judge`` against each dataset's human labels, and against their pool."""
    return asyncio.run(evaluate_judge_async(judge, datasets, threshold, concurrency))


async def evaluate_judge_async(
    judge: Judge,
    datasets: Sequence[Dataset],
    threshold: ThresholdMode = "tune",
    concurrency: int = 8,
) -> MetaEvaluation:
    """:func:`evaluate_judge` for callers already inside an event loop."""
    tasks = {dataset.task for dataset in datasets}
    if len(tasks) > 1:
        raise ConfigError(
            "these datasets label different tasks ("
            + ", ".join(f"{d.name}: {d.task}" for d in datasets)
            + "); evaluate each task in its own run"
        )
    task: Task = next(iter(tasks), "support")
    if not answers_task(judge, task):
        raise ConfigError(
            f"judge '{judge.identity.name}' does not answer the {task} task (it answers: "
            f"{', '.join(['support', *judge.identity.tasks])}); choose another --judge"
        )
    identity = judge.identity
    reports: list[DatasetReport] = []
    pooled_tuning: list[ScoredExample] = []
    pooled_reported: list[ScoredExample] = []
    for dataset in datasets:
        scored = await score_examples(judge, dataset.examples, concurrency)
        tuning, reported = _split(dataset, scored, threshold)
        choice = _choose_threshold(threshold, identity, tuning, dataset.task)
        rule = dataset.split_rule if tuning or dataset.fixed_split else "all examples reported"
        reports.append(_report(dataset.name, dataset.title, rule, reported, choice, dataset))
        pooled_tuning += tuning
        pooled_reported += reported
    notes: list[str] = []
    overall = None
    names = [{e.id for e in d.examples} for d in datasets]
    overlapping = len(names) > 1 and len(set().union(*names)) < sum(len(n) for n in names)
    if len(datasets) > 1 and overlapping:
        notes.append("no overall figures: the datasets share examples (e.g. wice and wice-100)")
    elif len(datasets) > 1:
        rule = "reported parts pooled" + (
            "; threshold tuned on the pooled dev parts" if threshold == "tune" else ""
        )
        choice = _choose_threshold(threshold, identity, pooled_tuning, task)
        overall = _report("overall", "all datasets pooled", rule, pooled_reported, choice, None)
    if task != "support":
        notes.append(
            f"task: {task}, judged by {identity.tasks.get(task)}; the judge's configured "
            "threshold above is its support threshold, not used here"
        )
    return MetaEvaluation(identity, tuple(reports), overall, tuple(notes), task=task)
