"""Training the ``ensemble`` (and ``embedding``) judge's weights from human labels.

:func:`train_ensemble` computes the signals of :mod:`~ragcard.judges.ensemble_features` on the
**dev part** of each named dataset — never its test part, which is what gets reported — fits
an L2-regularised logistic regression, picks the threshold of maximum balanced accuracy on
the same training examples, and returns a :class:`~ragcard.judges.ensemble_model.LogisticModel`
whose record names the data, its licence and credit. FaithBench is refused: its licence allows
evaluation only.

An example may have several evidence sets (WiCE's oracle chunks; the best counts) and several
claims (all must hold), so its score is ``max over sets (min over claims (p))``. Training is
multiple-instance: each example is represented by the (set, claim) row that decides its score,
chosen first by the lexical score and then, for a few rounds, by the model being fitted.
Each dataset carries the same total weight, so a large set does not drown a small one.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ragcard import __version__
from ragcard.errors import ConfigError
from ragcard.judges.base import JudgeContext
from ragcard.judges.embedding import SentenceVectors, load_default_encoder
from ragcard.judges.ensemble_features import BASE_FEATURES, FEATURES, LLM_FEATURE, FeatureExtractor
from ragcard.judges.ensemble_model import LogisticModel, fit_logistic
from ragcard.judges.metaeval.datasets import load_datasets
from ragcard.judges.metaeval.examples import Dataset, LabelledExample
from ragcard.judges.metaeval.metrics import auroc, balanced_accuracy, tune_threshold

__all__ = [
    "EVALUATION_ONLY",
    "ExampleFeatures",
    "default_extractor",
    "example_scores",
    "extract_examples",
    "fit_ensemble",
    "format_weights",
    "train_ensemble",
    "train_weights",
]

#: Datasets whose licence forbids training on them.
EVALUATION_ONLY = {"faithbench": "FaithBench is CC BY-NC-SA-style non-commercial: evaluation only"}
DEFAULT_L2 = 10.0  # chosen by 5-fold CV on the training data (BEGIN dev + WiCE 258)
MIL_ROUNDS = 3


@dataclass(frozen=True, slots=True)
class ExampleFeatures:
    """Every (evidence set, claim) feature row of one labelled example."""

    example: LabelledExample
    dataset: str
    #: one matrix per evidence set: claims × features (columns in ``FEATURES`` order, the
    #: LLM column NaN when it was not computed)
    sets: tuple[NDArray[np.float64], ...]


async def _extract_one(
    extractor: FeatureExtractor, example: LabelledExample, dataset: str
) -> ExampleFeatures:
    sets = []
    for passages in example.evidence_sets or ((),):
        extracted = await extractor.extract(JudgeContext(example.claims, passages))
        sets.append(
            np.array(
                [[f.values.get(name, np.nan) for name in FEATURES] for f in extracted],
                dtype=np.float64,
            ).reshape(len(extracted), len(FEATURES))
        )
    return ExampleFeatures(example, dataset, tuple(sets))


def extract_examples(
    extractor: FeatureExtractor, dataset: Dataset, part: str = "dev"
) -> list[ExampleFeatures]:
    """Signals of every example of ``dataset``'s ``part`` (``"all"``: every example)."""

    async def run() -> list[ExampleFeatures]:
        chosen = [e for e in dataset.examples if part == "all" or e.part == part]
        return [await _extract_one(extractor, e, dataset.name) for e in chosen]

    return asyncio.run(run())


def _columns(features: Sequence[str]) -> list[int]:
    unknown = [name for name in features if name not in FEATURES]
    if unknown:
        raise ConfigError(
            f"unknown feature(s) {', '.join(unknown)}; choose from {', '.join(FEATURES)}"
        )
    return [FEATURES.index(name) for name in features]


def example_scores(rows: Sequence[ExampleFeatures], model: LogisticModel) -> NDArray[np.float64]:
    """Each example's score: max over its evidence sets of min over its claims of p."""
    columns = _columns(model.features)
    return np.array(
        [max(float(model.probability(s[:, columns]).min()) for s in r.sets) for r in rows]
    )


def _representatives(
    rows: Sequence[ExampleFeatures],
    score_of: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    columns: list[int],
) -> NDArray[np.float64]:
    """Per example, the feature row that decides its score under ``score_of`` (which gets
    the full claims × FEATURES matrix of one evidence set)."""
    chosen = []
    for row in rows:
        best_score, best_row = -np.inf, row.sets[0][0, columns]
        for matrix in row.sets:
            scores = score_of(matrix)
            worst = int(np.argmin(scores))
            if scores[worst] > best_score:
                best_score, best_row = float(scores[worst]), matrix[worst, columns]
        chosen.append(best_row)
    return np.vstack(chosen)


def fit_ensemble(
    rows: Sequence[ExampleFeatures],
    features: Sequence[str] = BASE_FEATURES,
    l2: float = DEFAULT_L2,
) -> LogisticModel:
    """Fit weights and a threshold on ``rows`` (a record with provenance is added by
    :func:`train_ensemble`)."""
    if not rows:
        raise ConfigError("nothing to train on: no examples in the chosen parts")
    labels = np.array([r.example.supported for r in rows], dtype=bool)
    if labels.all() or not labels.any():
        raise ConfigError("cannot train: the training examples have only one class of label")
    columns = _columns(features)
    missing = [
        name
        for name, c in zip(features, columns, strict=True)
        if any(np.isnan(s[:, c]).any() for r in rows for s in r.sets)
    ]
    if missing:
        raise ConfigError(
            f"feature(s) {', '.join(missing)} were not computed for every example "
            "(llm_vote needs --llm-vote)"
        )
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.dataset] = counts.get(row.dataset, 0) + 1
    sample_weight = np.array([len(rows) / (len(counts) * counts[r.dataset]) for r in rows])
    # First representatives: the rows with the best lexical score; then the model's.
    seed = FEATURES.index("lexical_score")
    x = _representatives(rows, lambda m: m[:, seed], columns)
    model = LogisticModel(tuple(features), (), 0.0, 0.5)
    for _ in range(MIL_ROUNDS):
        weights, intercept = fit_logistic(x, labels, sample_weight, l2)
        model = LogisticModel(tuple(features), tuple(map(float, weights)), intercept, 0.5)
        x = _representatives(rows, _scorer(model, columns), columns)
    scores = example_scores(rows, model)
    threshold = tune_threshold(scores, labels)
    return LogisticModel(model.features, model.weights, model.intercept, float(threshold))


def _scorer(
    model: LogisticModel, columns: list[int]
) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
    return lambda matrix: model.probability(matrix[:, columns])


def train_ensemble(
    extractor: FeatureExtractor,
    datasets: Sequence[Dataset],
    features: Sequence[str] = BASE_FEATURES,
    l2: float = DEFAULT_L2,
    rows: Sequence[ExampleFeatures] | None = None,
) -> tuple[LogisticModel, list[ExampleFeatures]]:
    """Train on the dev part of each dataset; returns the model (with its provenance record)
    and the feature rows (reusable for another fit). ``rows``: features already extracted."""
    for dataset in datasets:
        if dataset.name in EVALUATION_ONLY:
            raise ConfigError(
                f"cannot train on '{dataset.name}': {EVALUATION_ONLY[dataset.name]}; "
                "train on begin, wice-100 (its 258 unreported claims) or your own labels"
            )
    if rows is None:
        rows = [row for d in datasets for row in extract_examples(extractor, d, "dev")]
    fitted = fit_ensemble(rows, features, l2)
    labels = np.array([r.example.supported for r in rows], dtype=bool)
    scores = example_scores(rows, fitted)
    encoder = extractor.vectors.encoder.describe()
    record: dict[str, Any] = {
        "judge": "embedding" if tuple(features) == ("emb_max",) else "ensemble",
        "threshold_source": "max balanced accuracy on the training examples",
        "training": {
            "examples": len(rows),
            "part": "dev (the part never reported)",
            "method": f"L2 logistic regression (l2={l2} on standardised features, Newton), "
            f"multiple-instance over evidence sets ({MIL_ROUNDS} rounds), equal weight per "
            "dataset",
            "in_sample": {
                "auroc": auroc(labels, scores),
                "balanced_accuracy": balanced_accuracy(labels, scores >= fitted.threshold),
            },
            "data": [
                {
                    "dataset": d.name,
                    "title": d.title,
                    "part": "dev",
                    "n": sum(1 for r in rows if r.dataset == d.name),
                    "split": d.split_rule,
                    "licence": d.licence,
                    "credit": d.credit,
                }
                for d in datasets
            ],
        },
        "date": dt.date.today().isoformat(),
        "ragcard_version": __version__,
        "encoder": {"model": encoder.get("model"), "sha256": encoder.get("sha256")},
    }
    model = LogisticModel(
        fitted.features, fitted.weights, fitted.intercept, fitted.threshold, record
    )
    return model, list(rows)


def default_extractor(
    llm_vote: bool = False, llm_options: Mapping[str, Any] | None = None
) -> FeatureExtractor:
    """The extractor the ensemble judge uses: the shared encoder, and the local LLM judge when
    ``llm_vote`` (``llm_options`` are its ``[judge]`` options)."""
    encoder = load_default_encoder("Training the ensemble judge")
    llm = None
    if llm_vote:
        from ragcard.judges.local import LocalJudge

        llm = LocalJudge.from_config(dict(llm_options or {}))
    return FeatureExtractor(SentenceVectors(encoder), llm)


def train_weights(
    names: Sequence[str],
    data_dir: Path,
    features: Sequence[str] | None = None,
    l2: float = DEFAULT_L2,
    llm_vote: bool = False,
    llm_options: Mapping[str, Any] | None = None,
    limit: int | None = None,
) -> LogisticModel:
    """``ragcard judges train-ensemble``: load the named datasets, train on their dev parts."""
    chosen = tuple(features) if features else (*BASE_FEATURES, *([LLM_FEATURE] * llm_vote))
    if LLM_FEATURE in chosen and not llm_vote:
        raise ConfigError(f"feature '{LLM_FEATURE}' needs --llm-vote")
    for name in names:  # refuse before reading anything
        if name in EVALUATION_ONLY:
            raise ConfigError(f"cannot train on '{name}': {EVALUATION_ONLY[name]}")
    datasets = load_datasets(names, data_dir, limit)
    for dataset in datasets:
        if dataset.task != "support":
            raise ConfigError(f"cannot train on '{dataset.name}': it labels {dataset.task}, "
                              "not support")  # fmt: skip
    model, _ = train_ensemble(default_extractor(llm_vote, llm_options), datasets, chosen, l2)
    return model


def format_weights(model: LogisticModel, path: Path) -> str:
    """What ``train-ensemble`` prints: the data, the weights and the threshold."""
    training = model.record.get("training", {})
    lines = [f"weights written to {path}"]
    for data in training.get("data", []):
        lines.append(f"  trained on {data['dataset']} {data['part']}: {data['n']} examples")
    in_sample = training.get("in_sample", {})
    if in_sample.get("auroc") is not None:
        lines.append(
            f"  in-sample AUROC {in_sample['auroc']:.3f}, balanced accuracy "
            f"{in_sample['balanced_accuracy']:.3f} (optimistic: measure with `ragcard judges "
            "evaluate --judge ensemble --option weights=FILE` on parts it did not see)"
        )
    width = max(len(name) for name in model.features)
    for name, weight in zip(model.features, model.weights, strict=True):
        lines.append(f"  {name:<{width}}  {weight:+.4f}")
    lines.append(f"  {'intercept':<{width}}  {model.intercept:+.4f}")
    lines.append(f"  threshold {model.threshold:.4f} ({model.record.get('threshold_source')})")
    return "\n".join(lines) + "\n"
