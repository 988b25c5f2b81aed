"""Meta-evaluation: how well does a judge agree with human labels?

Readers turn human-labelled sets into :class:`LabelledExample` values — WiCE (claim level,
oracle retrieval), BEGIN (WoW), FaithBench (non-commercial: evaluation only) and your own
JSONL labels (:mod:`~ragcard.judges.metaeval.userlabels`); :func:`evaluate_judge` runs a judge
over them, tunes a threshold on one part and reports on another
(:mod:`~ragcard.judges.metaeval.metrics`: balanced accuracy, F1, AUROC, Cohen's κ, confusion
matrix, each with a seeded bootstrap interval); :func:`save_calibration` writes the result that
scorecards quote with :func:`calibration_line`.
"""

from __future__ import annotations

from ragcard.judges.metaeval.calibration import (
    CALIBRATION_SCHEMA,
    calibration_line,
    save_calibration,
    to_calibration,
)
from ragcard.judges.metaeval.datasets import (
    BUILTIN_DATASETS,
    DEFAULT_DATA_DIR,
    load_dataset,
    load_datasets,
)
from ragcard.judges.metaeval.evaluate import (
    DatasetReport,
    MetaEvaluation,
    ThresholdMode,
    evaluate_judge,
    evaluate_judge_async,
    score_examples,
)
from ragcard.judges.metaeval.examples import Dataset, LabelledExample, Reference, hash_part
from ragcard.judges.metaeval.metrics import (
    METRIC_NAMES,
    MetricEstimate,
    accuracy,
    auroc,
    balanced_accuracy,
    cohen_kappa,
    confusion,
    estimate_all,
    f1,
    tune_threshold,
)
from ragcard.judges.metaeval.render import format_meta_evaluation

__all__ = [
    "BUILTIN_DATASETS",
    "CALIBRATION_SCHEMA",
    "DEFAULT_DATA_DIR",
    "METRIC_NAMES",
    "Dataset",
    "DatasetReport",
    "LabelledExample",
    "MetaEvaluation",
    "MetricEstimate",
    "Reference",
    "ThresholdMode",
    "accuracy",
    "auroc",
    "balanced_accuracy",
    "calibration_line",
    "cohen_kappa",
    "confusion",
    "estimate_all",
    "evaluate_judge",
    "evaluate_judge_async",
    "f1",
    "format_meta_evaluation",
    "hash_part",
    "load_dataset",
    "load_datasets",
    "save_calibration",
    "score_examples",
    "to_calibration",
    "tune_threshold",
]
