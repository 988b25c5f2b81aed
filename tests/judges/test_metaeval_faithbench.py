"""FaithBench: sample-level gold as the authors binarise it, and the detector figures of the
data README reproduced from the predictions shipped with the data."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcard.judges.lexical import LexicalJudge
from ragcard.judges.metaeval.datasets import load_dataset
from ragcard.judges.metaeval.evaluate import evaluate_judge
from ragcard.judges.metaeval.faithbench import faithbench_reference_results, read_faithbench

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"

pytestmark = pytest.mark.skipif(
    not (DATA / "faithbench" / "FaithBench.csv").is_file(),
    reason=f"FaithBench not found at {DATA / 'faithbench'} (read at run time, never copied)",
)

# Data README: balanced accuracy on the 750 JSON samples, consistent when value >= 0.5.
README = {
    "gpt_4o": 0.5462, "gpt-4-turbo": 0.5512, "gpt-3.5-turbo": 0.4519, "trueteacher": 0.5317,
    "true_nli": 0.5080, "hhem-2.1": 0.5411, "hhem-2.1-english": 0.5356, "hhemv1": 0.5154,
}  # fmt: skip


def test_detector_balanced_accuracy_matches_the_data_readme() -> None:
    references = {r.system: r for r in faithbench_reference_results(DATA)}
    assert set(references) == set(README)
    for detector, expected in README.items():
        assert references[detector].metrics["balanced_accuracy"] == pytest.approx(
            expected, abs=5e-5
        ), detector
        assert references[detector].population.startswith("750 samples")


def test_reader_binarises_the_worst_label() -> None:
    dataset = read_faithbench(DATA)
    assert len(dataset.examples) == 800
    assert sum(e.supported for e in dataset.examples) == 174 + 64  # Consistent + Benign
    assert all(e.claims and e.group for e in dataset.examples)
    assert "NC" in dataset.licence and "evaluation only" in dataset.licence
    assert {len(dataset.part("dev")), len(dataset.part("test"))} == {399, 401}


def test_lexical_judge_on_a_sample() -> None:
    dataset = load_dataset("faithbench", DATA, limit=60)
    report = evaluate_judge(LexicalJudge(), [dataset]).reports[0]
    assert report.n_reported == 60 and report.threshold.tuned_on == 60
    assert "limited to the first 60" in dataset.notes[-1]
