"""The paraphrasing agent's reader labels (benchmarks/paraphrase_agent): a label is kept with
the sha256 of the answer it labels, and one whose answer changed is left out and named."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _evaluate() -> ModuleType:
    path = ROOT / "benchmarks" / "paraphrase_agent" / "evaluate.py"
    spec = importlib.util.spec_from_file_location("paraphrase_evaluate", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_label_whose_answer_changed_is_stale_and_left_out(tmp_path: Path) -> None:
    responses = [
        {"item": "HB-1", "answer": "You get 25 days."},
        {"item": "HB-2", "answer": "Claims go in within 30 days, now reworded."},
    ]
    labels = tmp_path / "labels.jsonl"
    rows = [
        {"item": "HB-1", "answer_sha256": _sha("You get 25 days."), "grade": "correct",
         "reader_pass": True, "sentences": [True]},
        {"item": "HB-2", "answer_sha256": _sha("Claims go in within 30 days."), "grade": "correct",
         "reader_pass": True, "sentences": [True]},
        {"item": "HB-3", "answer_sha256": _sha("gone"), "grade": "wrong",
         "reader_pass": False, "sentences": [False]},
    ]  # fmt: skip
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    kept, stale = _evaluate().load_labels(labels, responses)
    assert set(kept) == {"HB-1"} and stale == ["HB-2", "HB-3"]


def test_the_figures_count_wrong_passes_false_fails_and_sentence_alarms() -> None:
    module = _evaluate()
    labels = {
        "A": {"grade": "wrong", "reader_pass": False, "sentences": [False]},
        "B": {"grade": "correct", "reader_pass": True, "sentences": [True, True]},
    }
    response = {"answer": "One. Two.", "retrieved": []}
    scored = {
        "A": {"item": "A", "attempt": 1, "passed": True, "scores": {"faithfulness": 1.0},
              "evidence": {}, "response": {"answer": "Wrong claim here."}},
        "B": {"item": "B", "attempt": 1, "passed": False, "scores": {"faithfulness": 0.5},
              "evidence": {"unsupported_sentences": [1]},
              "response": {**response, "answer": "First claim here. Second claim here."}},
    }  # fmt: skip
    got = module.figures(labels, scored, ["A", "B"])
    assert got["pass_agreement"] == 0.0
    assert got["wrong_passed"] == ["A"] and got["false_fails"] == ["B"]
    assert got["faithfulness_judge"] == 0.75 and got["faithfulness_reader"] == 0.5
    assert got["supported_sentences"] == 2 and got["supported_called_unsupported"] == ["B#1"]
