"""Your own labels: the documented JSONL format, every bad line reported at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcard.errors import InputError
from ragcard.judges.metaeval.datasets import load_dataset
from ragcard.judges.metaeval.examples import hash_part
from ragcard.judges.metaeval.userlabels import read_user_labels


def write(path: Path, *lines: object) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" if not isinstance(x, str) else x + "\n"
                            for x in lines))  # fmt: skip
    return path


def test_both_evidence_forms_and_optional_fields(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mine.jsonl",
        {"claim": "A.", "evidence": "A is so.", "label": "supported", "extra": 1},
        {"claim": "B.", "passages": [{"id": "p1", "text": "x"}, {"id": "p2", "text": "B."}],
         "label": "contradicted", "group": "hr", "id": "B-1", "split": "dev"},
        {"claim": "C.", "passages": [{"id": "p1", "text": "C."}, {"id": "p2", "text": "y"}],
         "label": "supported", "supporting": ["p2", "p1"]},
        {"claim": "D.", "passages": [{"id": "p1", "text": "x"}, {"id": "p2", "text": "D."}],
         "label": "supported", "supporting": ["p2"]},
    )  # fmt: skip
    dataset = read_user_labels(path)
    a, b, c, d = dataset.examples
    assert a.evidence_sets == ((a.evidence_sets[0][0],),) and a.evidence_sets[0][0].id == "evidence"
    assert a.supported and not b.supported and b.label == "contradicted"
    assert b.id == "B-1" and b.part == "dev" and b.group == "hr"
    assert a.id.startswith("h") and a.part == hash_part(a.id)
    assert (c.support_position, d.support_position) == ("first", "later")
    assert dataset.fixed_split  # one line fixed its part


def test_ids_by_hash_are_stable_under_reordering(tmp_path: Path) -> None:
    lines = [{"claim": f"C{i}.", "evidence": "E.", "label": "supported"} for i in range(5)]
    forward = read_user_labels(write(tmp_path / "a.jsonl", *lines))
    backward = read_user_labels(write(tmp_path / "b.jsonl", *reversed(lines)))
    assert {e.id: e.part for e in forward.examples} == {e.id: e.part for e in backward.examples}


def test_every_bad_line_is_reported_with_its_field(tmp_path: Path) -> None:
    path = write(
        tmp_path / "bad.jsonl",
        {"claim": "A.", "label": "supported"},
        {"claim": "B.", "evidence": "x", "label": "true"},
        "not json",
        {"claim": "C.", "passages": [{"id": "p1", "text": "x"}], "label": "supported",
         "supporting": ["p9"], "id": "X"},
        {"claim": "D.", "evidence": "x", "label": "supported", "id": "X"},
    )  # fmt: skip
    with pytest.raises(InputError) as caught:
        read_user_labels(path)
    text = caught.value.render()
    assert "bad.jsonl:1" in text and "exactly one of 'passages'" in text
    assert "bad.jsonl:2 field 'label'" in text
    assert "bad.jsonl:3" in text and "not valid JSON" in text
    assert "bad.jsonl:4 field 'supporting'" in text and "p9" in text
    assert "bad.jsonl:5 field 'id': repeats line 4" in text


def test_empty_file_and_dataset_names(tmp_path: Path) -> None:
    empty = write(tmp_path / "empty.jsonl")
    with pytest.raises(InputError, match="no labelled claims"):
        read_user_labels(empty)
    with pytest.raises(Exception, match="unknown dataset 'wicee'.*wice, wice-100, begin"):
        load_dataset("wicee")


def test_heldout_labels_are_reported_never_tuned_on(tmp_path: Path) -> None:
    from ragcard.judges.base import JudgeIdentity, Verdict
    from ragcard.judges.metaeval import evaluate_judge

    lines = [{"claim": f"{score} c{i}.", "evidence": "E.", "id": f"L{i}",
              "label": "supported" if score >= 0.5 else "not_supported", "split": split}
             for i, (score, split) in enumerate([(0.9, "dev"), (0.2, "dev"), (0.8, "heldout"),
                                                 (0.3, "heldout"), (0.7, "test")])]  # fmt: skip
    dataset = read_user_labels(write(tmp_path / "mine.jsonl", *lines))
    assert [e.part for e in dataset.examples] == ["dev", "dev", "test", "test", "test"]

    class ByNumber:
        identity = JudgeIdentity("by-number")
        async def judge(self, ctx):  # type: ignore[no-untyped-def]
            score = float(ctx.claims[0].split()[0])
            return [Verdict("supported" if score >= 0.5 else "not_supported", score)]

    (report,) = evaluate_judge(ByNumber(), [dataset]).reports
    assert report.n_reported == 3 and report.threshold.tuned_on == 2  # tuned on the dev lines
