"""A small logistic-regression model stored as JSON: what the ``ensemble`` and ``embedding``
judges load, and what ``ragcard judges train-ensemble`` writes.

Inference is pure numpy: ``p = sigmoid(intercept + Σ weight_i · feature_i)``; the claim is
supported when ``p >= threshold``. The file records everything needed to say where the numbers
came from — feature names, weights, intercept, threshold and how it was chosen, the training
data (dataset, part, count, licence, credit), the date, the ragcard version and the sha256 of
the sentence encoder the features were computed with::

    {"schema": "ragcard.judge-weights/1", "features": ["lexical_score", …],
     "weights": [1.2, …], "intercept": -3.1, "threshold": 0.41,
     "threshold_source": "max balanced accuracy on the training examples",
     "training": {"examples": 688, "data": [{"dataset": "begin", "part": "dev", "n": 430,
                  "licence": "CC BY 4.0 …", "credit": "BEGIN: …"}], …},
     "date": "…", "ragcard_version": "0.1.0", "encoder": {"model": "…", "sha256": "…"}}

Training (:func:`fit_logistic`) is L2-regularised logistic regression by Newton's method on
standardised features (numpy only, deterministic); the weights are stored back in the features'
own units.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ragcard.errors import ConfigError
from ragcard.outputs._writing import write_atomic

__all__ = [
    "WEIGHTS_SCHEMA",
    "LogisticModel",
    "fit_logistic",
    "load_weights",
    "shipped_weights_path",
]

WEIGHTS_SCHEMA = "ragcard.judge-weights/1"
_REQUIRED = ("features", "weights", "intercept", "threshold", "training")
_FIX = "retrain it with `ragcard judges train-ensemble --out FILE` or remove the 'weights' option"


@dataclass(frozen=True, slots=True)
class LogisticModel:
    """Feature names, weights (in the features' units), intercept and decision threshold."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    intercept: float
    threshold: float
    record: dict[str, Any] = field(default_factory=dict, compare=False)
    source: str = ""

    def probability(self, features: NDArray[np.float64]) -> NDArray[np.float64]:
        """P(supported) for each row of ``features`` (columns in :attr:`features` order)."""
        rows = np.atleast_2d(np.asarray(features, dtype=np.float64))
        logits = rows @ np.asarray(self.weights, dtype=np.float64) + self.intercept
        return np.asarray(1.0 / (1.0 + np.exp(-np.clip(logits, -60.0, 60.0))))

    def to_json(self) -> dict[str, Any]:
        """The JSON record (schema, model, and whatever provenance :attr:`record` holds)."""
        return {
            **self.record,
            "schema": WEIGHTS_SCHEMA,
            "features": list(self.features),
            "weights": [round(w, 8) for w in self.weights],
            "intercept": round(self.intercept, 8),
            "threshold": round(self.threshold, 6),
        }

    def save(self, path: Path) -> None:
        """Write the record as UTF-8 JSON."""
        text = json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
        write_atomic(path, text)


def shipped_weights_path(name: str) -> Path:
    """The path of a weights file shipped in ``ragcard/judges/weights/``."""
    return Path(str(resources.files("ragcard.judges").joinpath("weights", f"{name}.json")))


def load_weights(path: Path, known_features: Sequence[str] | None = None) -> LogisticModel:
    """Read and check a weights file; every problem names the file and the fix."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: weights file not found; {_FIX}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ConfigError(f"{path}: not a JSON weights file ({error}); {_FIX}") from None
    if not isinstance(record, dict) or record.get("schema") != WEIGHTS_SCHEMA:
        raise ConfigError(f"{path}: not a ragcard weights file (schema {WEIGHTS_SCHEMA}); {_FIX}")
    missing = [key for key in _REQUIRED if key not in record]
    if missing:
        raise ConfigError(f"{path}: missing {', '.join(missing)}; {_FIX}")
    features, weights = record["features"], record["weights"]
    problems = []
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        problems.append("'features' must be a list of names")
    elif not features or len(set(features)) != len(features):
        problems.append("'features' must be non-empty and without repeats")
    if not isinstance(weights, list) or not all(_finite(w) for w in weights):
        problems.append("'weights' must be a list of finite numbers")
    elif isinstance(features, list) and len(weights) != len(features):
        problems.append(f"{len(weights)} weights for {len(features)} features")
    if not _finite(record["intercept"]):
        problems.append("'intercept' must be a finite number")
    if not _finite(record["threshold"]) or not 0.0 <= record["threshold"] <= 1.0:
        problems.append("'threshold' must be a number in [0, 1]")
    if known_features is not None and isinstance(features, list) and not problems:
        unknown = [f for f in features if f not in known_features]
        if unknown:
            problems.append(
                f"unknown feature(s) {', '.join(unknown)} (known: {', '.join(known_features)})"
            )
    if problems:
        raise ConfigError(f"{path}: {'; '.join(problems)}; {_FIX}")
    return LogisticModel(
        features=tuple(features),
        weights=tuple(float(w) for w in weights),
        intercept=float(record["intercept"]),
        threshold=float(record["threshold"]),
        record=record,
        source=str(path),
    )


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def fit_logistic(
    x: NDArray[np.float64],
    y: NDArray[np.bool_],
    sample_weight: NDArray[np.float64] | None = None,
    l2: float = 1.0,
    iterations: int = 50,
) -> tuple[NDArray[np.float64], float]:
    """L2-regularised logistic regression (Newton's method on standardised columns).

    Returns ``(weights, intercept)`` in the units of ``x``. ``l2`` is the penalty on the
    standardised weights (the intercept is not penalised); ``sample_weight`` defaults to 1.
    Deterministic: no random start, no stochastic steps.
    """
    x = np.asarray(x, dtype=np.float64)
    target = np.asarray(y, dtype=np.float64)
    n, d = x.shape
    w_sample = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    mean = np.average(x, axis=0, weights=w_sample)
    std = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=w_sample))
    std = np.where(std > 1e-12, std, 1.0)
    design = np.hstack([np.ones((n, 1)), (x - mean) / std])
    beta = np.zeros(d + 1)
    penalty = np.full(d + 1, l2)
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ beta, -60.0, 60.0)))
        gradient = design.T @ (w_sample * (p - target)) + penalty * beta
        hessian = (design * (w_sample * p * (1 - p))[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hessian + 1e-9 * np.eye(d + 1), gradient)
        beta -= step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    weights = beta[1:] / std
    intercept = float(beta[0] - np.sum(beta[1:] * mean / std))
    return weights, intercept
