"""The agreement metrics, checked against scikit-learn (tests only) and by hand."""

from __future__ import annotations

import numpy as np
import pytest

from ragcard.judges.metaeval.metrics import (
    METRIC_NAMES,
    accuracy,
    auroc,
    balanced_accuracy,
    cohen_kappa,
    confusion,
    estimate_all,
    f1,
    tune_threshold,
)

sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn checks our metrics")


def fixture(seed: int, n: int = 200, levels: int | None = None) -> tuple[np.ndarray, ...]:
    """Labels, scores correlated with them (optionally coarse, to force ties), predictions."""
    rng = np.random.default_rng(seed)
    human = rng.random(n) < 0.4
    scores = np.clip(0.5 * human + rng.normal(0.3, 0.3, n), 0, 1)
    if levels is not None:
        scores = np.round(scores * levels) / levels
    judge = scores >= 0.5
    return human, scores, judge


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("levels", [None, 4, 2])
def test_against_scikit_learn(seed: int, levels: int | None) -> None:
    human, scores, judge = fixture(seed, levels=levels)
    assert auroc(human, scores) == pytest.approx(sklearn_metrics.roc_auc_score(human, scores))
    assert cohen_kappa(human, judge) == pytest.approx(
        sklearn_metrics.cohen_kappa_score(human, judge)
    )
    assert f1(human, judge) == pytest.approx(sklearn_metrics.f1_score(human, judge, pos_label=0))
    assert f1(human, judge, positive=True) == pytest.approx(
        sklearn_metrics.f1_score(human, judge, pos_label=1)
    )
    assert balanced_accuracy(human, judge) == pytest.approx(
        sklearn_metrics.balanced_accuracy_score(human, judge)
    )
    assert accuracy(human, judge) == pytest.approx(sklearn_metrics.accuracy_score(human, judge))
    (tn, fp), (fn, tp) = sklearn_metrics.confusion_matrix(human, judge, labels=[False, True])
    assert confusion(human, judge) == {"tp": tp, "fp": fp, "fn": fn, "tn": tn}


def test_auroc_counts_ties_as_half() -> None:
    # One positive and one negative on the same score: no better than chance.
    assert auroc([True, False], [0.5, 0.5]) == 0.5
    assert auroc([True, False, True, False], [0.9, 0.1, 0.5, 0.5]) == pytest.approx(0.875)


def test_undefined_metrics_are_none_not_nan() -> None:
    all_supported = [True, True, True]
    assert auroc(all_supported, [0.1, 0.5, 0.9]) is None
    assert balanced_accuracy(all_supported, [True, False, True]) is None
    assert cohen_kappa(all_supported, all_supported) is None  # chance agreement is 1
    assert f1([True, True], [True, True]) is None  # no unsupported example, none predicted
    assert accuracy([], []) is None
    estimates = estimate_all(all_supported, [True, False, True], [0.9, 0.1, 0.8])
    assert estimates["auroc"].value is None and estimates["auroc"].ci is None
    assert estimates["accuracy"].value == pytest.approx(2 / 3)


def test_estimates_carry_seeded_intervals_around_the_value() -> None:
    human, scores, judge = fixture(7)
    first = estimate_all(human, judge, scores)
    assert list(first) == list(METRIC_NAMES)
    for estimate in first.values():
        assert estimate.n == 200 and estimate.ci is not None and estimate.value is not None
        assert estimate.ci[0] <= estimate.value <= estimate.ci[1]
    assert estimate_all(human, judge, scores) == first  # same seed, same interval
    assert estimate_all(human, judge, scores, seed=1) != first
    assert "auroc" not in estimate_all(human, judge)


def test_vectorised_bootstrap_equals_resampling_by_hand() -> None:
    human, scores, judge = fixture(3, n=60, levels=5)
    rng = np.random.default_rng(11)
    picks = rng.integers(0, 60, size=(5, 60))
    counts = np.stack([np.bincount(row, minlength=60) for row in picks]).astype(float)
    from ragcard.judges.metaeval.metrics import _auroc_weighted

    levels = np.unique(scores, return_inverse=True)[1].ravel()
    weighted = _auroc_weighted(levels, human, counts)
    for row, value in zip(picks, weighted, strict=True):
        assert value == pytest.approx(sklearn_metrics.roc_auc_score(human[row], scores[row]))


def test_tune_threshold_maximises_balanced_accuracy_between_scores() -> None:
    scores = [0.1, 0.2, 0.3, 0.6, 0.7, 0.9]
    human = [False, False, False, True, True, True]
    threshold = tune_threshold(scores, human)
    assert threshold == pytest.approx(0.45)  # the midpoint of the gap, not a seen score
    assert balanced_accuracy(human, np.array(scores) >= threshold) == 1.0


def test_tune_threshold_takes_the_middle_of_a_plateau() -> None:
    # A constant objective ties every candidate: 0.1 (all), 0.15, 0.25, just above 0.3 (none).
    assert tune_threshold([0.1, 0.2, 0.3], [True, False, True], lambda h, j: 1.0) == 0.25


def test_tune_threshold_refuses_what_it_cannot_tune() -> None:
    with pytest.raises(ValueError):
        tune_threshold([], [])
    with pytest.raises(ValueError, match="one class"):
        tune_threshold([0.2, 0.4], [True, True])


def test_tune_threshold_can_predict_everything_supported() -> None:
    # Every candidate that predicts all of one class ties at 0.5; the better one is chosen.
    assert tune_threshold([0.2, 0.4, 0.6], [False, True, True]) == pytest.approx(0.3)
    assert tune_threshold([0.2, 0.4], [True, False]) >= 0.4  # inverted scores: none supported
