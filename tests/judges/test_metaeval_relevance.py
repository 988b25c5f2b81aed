"""Relevance labels: a judge's relevance task measured against people, as support is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.errors import ConfigError, InputError
from ragcard.judges.fake import FakeJudge
from ragcard.judges.lexical import LexicalJudge
from ragcard.judges.metaeval.calibration import to_calibration
from ragcard.judges.metaeval.datasets import load_dataset
from ragcard.judges.metaeval.evaluate import evaluate_judge
from ragcard.judges.metaeval.relevance import read_relevance_labels

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
runner = CliRunner()

LINES = [
    {"question": "How many days of leave do staff get?", "answer": "Staff get 25 days of "
     "leave a year.", "label": "relevant", "split": "test", "id": "R1"},
    {"question": "How many days of leave do staff get?", "answer": "The canteen opens at noon.",
     "label": "not_relevant", "split": "test", "id": "R2"},
    {"question": "Where do I book holiday?", "answer": "OFF_TOPIC parking rules.",
     "label": "not_relevant", "group": "trap", "id": "R3"},
    {"question": "Where do I book holiday?", "answer": "Book holiday in the HR portal.",
     "label": "relevant", "id": "R4"},
]  # fmt: skip


def write(path: Path, lines: list[object]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_a_labels_file_of_questions_and_answers_is_read_as_relevance(tmp_path: Path) -> None:
    dataset = load_dataset(str(write(tmp_path / "rel.jsonl", LINES)))
    assert dataset.task == "relevance" and len(dataset.examples) == 4
    first = dataset.examples[0]
    assert (first.task, first.question, first.claims) == (
        "relevance",
        LINES[0]["question"],
        (LINES[0]["answer"],),
    )
    assert first.supported and not dataset.examples[1].supported
    assert first.part == "test" and dataset.fixed_split
    support = write(tmp_path / "support.jsonl", [{"claim": "A.", "evidence": "A.",
                                                   "label": "supported"}])  # fmt: skip
    assert load_dataset(str(support)).task == "support"


def test_every_bad_line_is_reported(tmp_path: Path) -> None:
    bad = [{"question": "", "answer": "x", "label": "relevant"},
           {"question": "q", "answer": "x", "label": "maybe"},
           {"question": "q", "label": "relevant"}]  # fmt: skip
    with pytest.raises(InputError) as caught:
        read_relevance_labels(write(tmp_path / "bad.jsonl", bad))
    found = {(p.line, p.field) for p in caught.value.problems}
    assert found == {(1, "question"), (2, "label"), (3, "answer")}


def test_the_judges_relevance_verdicts_are_measured(tmp_path: Path) -> None:
    dataset = load_dataset(str(write(tmp_path / "rel.jsonl", LINES)))
    evaluation = evaluate_judge(LexicalJudge(), [dataset], threshold="judge")
    (report,) = evaluation.reports
    assert evaluation.task == "relevance" and report.n_reported == 4
    assert report.failures == 0
    assert report.threshold.value is None and "relevance verdicts" in report.threshold.source
    assert any("task: relevance" in note for note in evaluation.notes)
    with pytest.raises(ConfigError, match="a calibration is the judge's agreement on support"):
        to_calibration(evaluation)


def test_tasks_are_not_mixed_and_a_judge_must_answer_the_task(tmp_path: Path) -> None:
    relevance = load_dataset(str(write(tmp_path / "rel.jsonl", LINES)))
    support = load_dataset(str(write(tmp_path / "sup.jsonl", [
        {"claim": "A.", "evidence": "A.", "label": "supported", "split": "test"}])))  # fmt: skip
    with pytest.raises(ConfigError, match="evaluate each task in its own run"):
        evaluate_judge(LexicalJudge(), [relevance, support], threshold="judge")
    silent = FakeJudge(tasks=())  # a judge that answers support only
    with pytest.raises(ConfigError, match="does not answer the relevance task"):
        evaluate_judge(silent, [relevance], threshold="judge")


def test_the_cli_prints_relevance_figures_and_refuses_to_save_them(tmp_path: Path) -> None:
    path = write(tmp_path / "rel.jsonl", LINES)
    args = ["judges", "evaluate", "--judge", "lexical", "--dataset", str(path)]
    result = runner.invoke(app, [*args, "--threshold", "judge"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "relevance verdicts" in result.output and "n = 4 reported" in result.output
    saved = tmp_path / "cal.json"
    refused = runner.invoke(app, [*args, "--threshold", "judge", "--save", str(saved)])
    assert refused.exit_code == 2 and "drop --save" in " ".join(refused.output.split())
    assert not saved.exists()
    train = ["judges", "train-ensemble", "--dataset", str(path), "--out", str(tmp_path / "w")]
    assert runner.invoke(app, train).exit_code == 2


@pytest.mark.skipif(
    not (DATA / "clapnq" / "question_dev_answerable.tsv").is_file(),
    reason=f"CLAPNQ not found under {DATA} (shared data is read at run time)",
)
def test_clapnq_relevance_reproduces_the_lexical_threshold_protocol() -> None:
    dataset = load_dataset("clapnq-relevance", DATA)
    assert dataset.task == "relevance" and len(dataset.examples) == 900
    assert {e.group for e in dataset.examples} == {"own", "shifted", "nearest"}
    assert sum(e.part == "test" for e in dataset.examples) == 450
    evaluation = evaluate_judge(LexicalJudge(), [dataset], threshold="judge")
    (report,) = evaluation.reports
    # benchmarks/relevance_lexical.py, the same pairs: AUROC 0.964 against the shifted answers
    # and 0.922 against the nearest on 150-299; 0.943 with both kinds together
    assert report.metrics["auroc"].value == pytest.approx(0.943, abs=0.001)
    shifted = [e for e in dataset.examples if e.part == "test" and e.group == "shifted"]
    assert shifted[-1].claims == dataset.part("test")[0].claims  # the test part wraps on itself
