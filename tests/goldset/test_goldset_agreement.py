"""Labeller agreement: κ against scikit-learn, gold overlap, disagreements and resolutions."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from sklearn.metrics import cohen_kappa_score  # type: ignore[import-untyped]

from ragcard.errors import InputError
from ragcard.goldset import cohen_kappa, measure_agreement
from ragcard.inputs.questions import load_questions

PATTERNS: dict[str, tuple[list[Any], list[Any]]] = {
    "perfect": ([True, False, True, True, False, False], [True, False, True, True, False, False]),
    "perfect_inverse": ([True, False, True, False], [False, True, False, True]),
    "one_off": ([True, True, True, False, False, True], [True, True, False, False, False, True]),
    "skewed": ([True] * 18 + [False, False], [True] * 17 + [False, True, False]),
    "one_rater_constant": ([True, True, True, True], [True, False, True, True]),
    "chance": ([True, True, False, False] * 5, [True, False, True, False] * 5),
    "three_classes": (["a", "b", "c", "a", "b", "c", "a"], ["a", "b", "b", "a", "c", "c", "b"]),
}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_kappa_matches_sklearn(name: str) -> None:
    first, second = PATTERNS[name]
    assert cohen_kappa(first, second) == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)


def test_kappa_known_values() -> None:
    assert cohen_kappa(*PATTERNS["perfect"]) == 1.0
    assert cohen_kappa(*PATTERNS["perfect_inverse"]) == -1.0
    assert cohen_kappa(*PATTERNS["chance"]) == pytest.approx(0.0)


@pytest.mark.parametrize("seed", range(8))
def test_kappa_matches_sklearn_on_random_labels(seed: int) -> None:
    rng = random.Random(seed)
    first = [rng.random() < 0.7 for _ in range(60)]
    second = [a if rng.random() < 0.6 else rng.random() < 0.5 for a in first]
    assert cohen_kappa(first, second) == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)


def test_kappa_undefined_when_both_raters_use_one_label() -> None:
    # scikit-learn returns nan (with a warning) here; unscored is not zero, so we say None.
    assert cohen_kappa([True] * 5, [True] * 5) is None
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError):
        cohen_kappa([True], [True, False])


def write(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def label(by: str, answerable: bool, gold: list[str] | None = None) -> dict[str, Any]:
    return {"by": by, "answerable": answerable, "gold": gold or []}


def labelled_set(tmp_path: Path) -> Path:
    return write(
        tmp_path / "q.jsonl",
        [
            {
                "id": "Q1",
                "question": "a",
                "labels": [label("ann", True, ["p1"]), label("bob", True, ["p1"])],
            },
            {
                "id": "Q2",
                "question": "b",
                "labels": [label("ann", True, ["p1", "p2"]), label("bob", True, ["p2"])],
            },
            {
                "id": "Q3",
                "question": "c",
                "labels": [label("ann", False), label("bob", True, ["p3"])],
            },
            {"id": "Q4", "question": "d", "labels": [label("ann", False), label("bob", False)]},
            {
                "id": "Q5",
                "question": "e",
                "labels": [
                    label("ann", True, ["p4"]),
                    label("bob", False),
                    label("cy", True, ["p4"]),
                ],
                "resolution": {
                    "by": "owner",
                    "answerable": True,
                    "gold": ["p4"],
                    "reason": "section 4 answers it",
                },
            },
            {"id": "Q6", "question": "f", "labels": [label("ann", True, ["p5"])]},
            {"id": "Q7", "question": "g"},
        ],
    )


def test_agreement_report(tmp_path: Path) -> None:
    report = measure_agreement(load_questions(labelled_set(tmp_path)))
    assert report.labelled == 5
    pairs = {(p.first, p.second): p for p in report.pairs}
    assert set(pairs) == {("ann", "bob"), ("ann", "cy"), ("bob", "cy")}
    ann_bob = pairs[("ann", "bob")]
    ann = [True, True, False, False, True]
    bob = [True, True, True, False, False]
    assert ann_bob.items == 5
    assert ann_bob.kappa == pytest.approx(cohen_kappa_score(ann, bob))
    assert ann_bob.answerable_agreement == pytest.approx(3 / 5)
    # gold compared where neither said unanswerable: Q1 (1.0), Q2 (0.5)
    assert ann_bob.gold_items == 2
    assert ann_bob.gold_jaccard == pytest.approx(0.75)
    assert ann_bob.gold_exact == pytest.approx(0.5)
    assert pairs[("ann", "cy")].kappa is None  # one shared item, one label: undefined
    assert [d.item for d in report.disagreements] == ["Q2", "Q3"]
    assert report.disagreements[0].differs == ("gold",)
    assert report.disagreements[1].differs == ("answerable", "gold")
    assert [r.item for r in report.resolved] == ["Q5"]
    resolution = report.resolved[0].resolution
    assert resolution is not None and resolution.reason == "section 4 answers it"
    assert report.exit_code == 1
    data = report.to_dict()
    assert data["resolved"][0]["resolution"]["gold"] == ["p4"]
    json.dumps(data)


def test_all_resolved_exits_zero(tmp_path: Path) -> None:
    path = write(
        tmp_path / "q.jsonl",
        [
            {
                "id": "Q1",
                "question": "a",
                "labels": [label("ann", True), label("bob", False)],
                "resolution": {"by": "owner", "answerable": False, "reason": "not in the handbook"},
            }
        ],
    )
    report = measure_agreement(load_questions(path))
    assert report.disagreements == () and len(report.resolved) == 1
    assert report.exit_code == 0


@pytest.mark.parametrize(
    "resolution", [{"by": "owner", "answerable": True}, {"by": "owner", "reason": "  "}]
)
def test_resolution_without_reason_is_an_error(tmp_path: Path, resolution: dict[str, Any]) -> None:
    path = write(
        tmp_path / "q.jsonl",
        [
            {"id": "Q0", "question": "z"},
            {
                "id": "Q1",
                "question": "a",
                "labels": [label("ann", True), label("bob", False)],
                "resolution": resolution,
            },
        ],
    )
    with pytest.raises(InputError) as caught:
        measure_agreement(load_questions(path))
    problem = caught.value.problems[0]
    assert (problem.line, problem.field) == (2, "resolution.reason")


def test_resolution_needs_its_author(tmp_path: Path) -> None:
    path = write(
        tmp_path / "q.jsonl", [{"id": "Q1", "question": "a", "resolution": {"reason": "x"}}]
    )
    with pytest.raises(InputError) as caught:
        measure_agreement(load_questions(path))
    assert caught.value.problems[0].field == "resolution.by"


def test_labeller_twice_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path / "q.jsonl",
        [{"id": "Q1", "question": "a", "labels": [label("ann", True), label("ann", False)]}],
    )
    with pytest.raises(InputError, match="labeller appears twice"):
        measure_agreement(load_questions(path))
