"""The docs/metrics.md#measures review measures on a hand-checked key and ratings."""

from __future__ import annotations

import pytest

from ragcard.metrics.base import MetricValue, Unscored
from ragcard.review.measures import kappa_interval, summarise
from ragcard.review.packet import KeyEntry, ReviewKey
from ragcard.review.ratings import Rating

ENTRIES = {
    "R1": ("Q01", "common", "generated"), "R2": ("Q04", "common", "generated"),
    "R3": ("Q05", "deep", "generated"), "R4": ("Q08", "b_only", "generated"),
    "R5": ("Q10", "policy", "generated"), "R6": ("Q13", "not_in_record", "generated"),
    "R7": ("Q02", "common", "control"), "R8": ("Q06", "deep", "control"),
}  # fmt: skip
ALICE = ["accurate", "wrong", "accurate", "minor", "accurate", "accurate", "accurate", "accurate"]
BOB = ["accurate", "wrong", "minor", "minor", "wrong", "accurate", "accurate", "minor"]


def _key() -> ReviewKey:
    items = {
        pid: KeyEntry(item=item, attempt=None if kind == "control" else 1, kind=kind,
                      category=category)  # type: ignore[arg-type]
        for pid, (item, category, kind) in ENTRIES.items()
    }  # fmt: skip
    return ReviewKey(packet_id="pk-test", packet_sha256="0", run_folder="/r",
                     run_created_at="t", project="p", seed=1, n=6, controls=2,
                     items=items)  # fmt: skip


def _ratings(*reviewers: tuple[str, list[str]]) -> list[Rating]:
    return [
        Rating(item=pid, reviewer=name, rating=value, voice="off" if (name, pid) == ("bob", "R3")
               else "in")  # type: ignore[arg-type]
        for name, values in reviewers
        for pid, value in zip(ENTRIES, values, strict=True)
    ]  # fmt: skip


def _value(metric: MetricValue | Unscored) -> float:
    assert isinstance(metric, MetricValue), metric
    return metric.value


def test_counts_control_agreement_and_kappas_by_hand() -> None:
    verdicts = {("Q01", 1): "correct", ("Q04", 1): "wrong", ("Q05", 1): "correct",
                ("Q08", 1): "correct"}  # fmt: skip
    summary = summarise(_key(), _ratings(("alice", ALICE), ("bob", BOB)), verdicts)
    m = summary.metrics
    # each generated answer at its most severe rating: R1 acc, R2 wrong, R3 minor, R4 minor,
    # R5 wrong, R6 acc
    assert (_value(m["review_accurate"]), _value(m["review_minor"]), _value(m["review_wrong"])) == (
        2, 2, 2)  # fmt: skip
    assert all(m[f"review_{r}"].n == 6 for r in ("accurate", "minor", "wrong"))  # type: ignore[union-attr]
    wrong = summary.breakdowns["review_wrong"]
    assert {c: (_value(v), v.n) for c, v in wrong.items()} == {  # type: ignore[union-attr]
        "common": (1, 2), "policy": (1, 1), "deep": (0, 1), "b_only": (0, 1),
        "not_in_record": (0, 1)}  # fmt: skip
    assert _value(m["review_off_voice"]) == 1
    # controls: 3 of the 4 control ratings are accurate
    control = m["review_control_agreement"]
    assert _value(control) == 0.75 and control.n == 4  # type: ignore[union-attr]
    # reviewers on the 6 generated answers: pₒ = 4/6, pₑ = (4·2 + 1·2 + 1·2)/36 → κ = 0.5
    assert _value(m["review_kappa"]) == pytest.approx(0.5)
    assert m["review_kappa"].n == 6  # type: ignore[union-attr]
    low, high = m["review_kappa"].ci  # type: ignore[union-attr,misc]
    assert -1.0 <= low < 0.5 < high <= 1.0
    # judge vs people on the 4 answers with a verdict: pₒ = 2/4, pₑ = 4/16 → κ = 1/3
    assert _value(m["judge_human_agreement"]) == pytest.approx(1 / 3)
    assert m["judge_human_agreement"].n == 4  # type: ignore[union-attr]
    assert [i.entry.item for i in summary.wrong] == ["Q04", "Q10"]


def test_what_cannot_be_computed_is_unscored_with_the_reason() -> None:
    summary = summarise(_key(), _ratings(("alice", ALICE)))
    m = summary.metrics
    assert isinstance(m["review_kappa"], Unscored) and "one reviewer" in m["review_kappa"].reason
    judge = m["judge_human_agreement"]
    assert isinstance(judge, Unscored) and "no correctness verdict" in judge.reason
    same = summarise(_key(), _ratings(("alice", ["accurate"] * 8), ("bob", ["accurate"] * 8)))
    kappa = same.metrics["review_kappa"]
    assert isinstance(kappa, Unscored) and "undefined" in kappa.reason
    assert _value(same.metrics["review_wrong"]) == 0  # a count of zero is a result, not unscored


def test_three_reviewers_give_the_pairs_weighted_mean() -> None:
    carol = list(ALICE)
    summary = summarise(_key(), _ratings(("alice", ALICE), ("bob", BOB), ("carol", carol)))
    pairs = {tuple(p["reviewers"]): p["kappa"] for p in summary.pairs}
    assert pairs[("alice", "carol")] == 1.0
    assert pairs[("alice", "bob")] == pytest.approx(0.5)
    assert _value(summary.metrics["review_kappa"]) == pytest.approx((0.5 + 0.5 + 1.0) / 3)


def test_kappa_interval_is_seeded() -> None:
    first = ["a", "b", "a", "a", "b", "a"]
    second = ["a", "b", "b", "a", "b", "a"]
    assert kappa_interval(first, second) == kappa_interval(first, second)
    assert kappa_interval(["a"], ["a"]) is None
