"""``check``: composition, duplicates, near-duplicates, gold-wording reuse, bundled examples."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from ragcard.errors import ConfigError
from ragcard.goldset import (
    CheckOptions,
    Targets,
    check_file,
    check_questions,
    find_near_duplicates,
    find_wording_reuse,
    infer_kit,
    resolve_targets,
)
from ragcard.goldset._text import jaccard, shingles, similar_pairs
from ragcard.inputs.corpus import load_corpus
from ragcard.inputs.questions import Question

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def q(item_id: str, text: str, **fields: Any) -> Question:
    return Question.model_validate({"id": item_id, "question": text, **fields})


def codes(report: Any) -> list[str]:
    return [finding.code for finding in report.findings]


def test_bundled_handbook_passes() -> None:
    report = check_file(
        EXAMPLES / "handbook" / "questions.jsonl", EXAMPLES / "handbook" / "corpus.jsonl"
    )
    assert report.targets.kit == "knowledge-base"
    assert all(row.count >= 20 for row in report.categories)
    assert report.blocking == () and report.exit_code == 0
    assert report.duplicates == () and report.near_duplicates == ()
    assert report.total == 185 and report.must_pass == 25 and report.heldout == 46
    json.dumps(report.to_dict())


def test_bundled_persona_example_is_too_small_to_gate() -> None:
    report = check_file(
        EXAMPLES / "persona" / "questions.jsonl", EXAMPLES / "persona" / "corpus.jsonl"
    )
    assert report.targets.kit == "persona"
    small = {f.message.split("'")[1] for f in report.blocking if f.code == "small_category"}
    assert small == {"common", "deep", "b_only", "not_in_record", "after_cutoff", "policy"}
    assert report.exit_code == 1


def test_small_and_missing_categories_block_and_name_items() -> None:
    items = [q(f"T{i}", f"typical question number {i}", category="typical") for i in range(25)]
    items += [q("P1", "a paraphrase", category="paraphrase")]
    report = check_questions(items, resolve_targets(kit="knowledge-base"))
    blocking = {f.message.split("'")[1]: f for f in report.blocking}
    assert blocking["paraphrase"].items == ("P1",)
    assert blocking["currency_trap"].items == ()  # none at all
    assert "typical" not in blocking
    assert "no_heldout" in codes(report)


def test_share_off_target_warns() -> None:
    items = [
        q(f"A{i}", f"alpha item {i}", category="a", split="heldout" if i % 4 else "dev")
        for i in range(30)
    ]
    items += [q(f"B{i}", f"beta item {i}", category="b") for i in range(20)]
    targets = Targets(shares={"a": 0.5, "b": 0.5}, min_items=20)
    report = check_questions(items, targets)
    off = [f for f in report.findings if f.code == "off_target"]
    assert {f.message.split("'")[1] for f in off} == {"a", "b"}
    assert report.exit_code == 0
    assert [f.items[0] for f in report.findings if f.code == "no_heldout_in_category"] == ["B0"]


def test_exact_duplicates_block_but_probe_pairs_do_not() -> None:
    items = [
        q("D1", "How much sick pay do we get?", asker="employee"),
        q("D2", "how much SICK pay do we get", asker="employee"),
        q("D3", "How much sick pay do we get?", asker="contractor"),
    ]
    report = check_questions(items, Targets(shares={}, min_items=1))
    assert report.duplicates == (("D1", "D2"),)
    assert [f.items for f in report.blocking] == [("D1", "D2")]
    assert "same_text_other_context" in codes(report)


def test_near_duplicates_are_paired() -> None:
    items = [
        q("N1", "how many days of annual leave do I get each year"),
        q("N2", "how many days of annual leave do I get every year"),
        q("N3", "how many days of annual leave do I get"),
        q("N4", "can I bring my dog to the office"),
    ]
    pairs, findings = find_near_duplicates(items, threshold=0.8)
    # 11 words share 8 of their 10 bigrams with the 9-word question: Jaccard 8/10
    assert [(p.left, p.right) for p in pairs] == [("N1", "N3"), ("N2", "N3")]
    assert pairs[0].similarity == pytest.approx(0.8)
    assert [f.items for f in findings] == [("N1", "N3"), ("N2", "N3")]
    looser, _ = find_near_duplicates(items, threshold=0.6)
    assert {(p.left, p.right) for p in looser} == {("N1", "N2"), ("N1", "N3"), ("N2", "N3")}


def test_similar_pairs_agrees_with_brute_force() -> None:
    rng = random.Random(7)
    vocabulary = "leave pay sick holiday days year office form claim travel".split()
    texts = [" ".join(rng.choices(vocabulary, k=rng.randint(1, 7))) for _ in range(150)]
    for threshold in (0.5, 0.8, 1.0):
        expected = sorted(
            (i, j, jaccard(shingles(texts[i]), shingles(texts[j])))
            for i, j in itertools.combinations(range(len(texts)), 2)
            if jaccard(shingles(texts[i]), shingles(texts[j])) >= threshold
        )
        assert similar_pairs(texts, threshold) == expected


PASSAGE = (
    '{"id": "leave#1", "doc": "leave", "text": "Full-time employees get 25 days of paid annual '
    'leave a year plus public holidays. Unused leave cannot be carried over."}\n'
    '{"id": "forms#1", "doc": "forms", "text": "Form HR-17 requests a change of working '
    'pattern."}\n'
)


def test_gold_wording_reuse(tmp_path: Path) -> None:
    (tmp_path / "corpus.jsonl").write_text(PASSAGE, encoding="utf-8")
    corpus = load_corpus(tmp_path / "corpus.jsonl")
    items = [
        # copies a six-word run
        q("R1", "Do employees get 25 days of paid annual leave?", gold=["leave#1"]),
        # all four content words in the passage, no long run
        q("R2", "annual leave: full-time employees, public holidays?", gold=["leave#1"]),
        # own words
        q("R3", "how much time off do I get?", gold=["leave#1"]),
        # exact_term must use the term: share test skipped
        q("R4", "what is form HR-17 pattern change", gold=["forms#1"], category="exact_term"),
        q("R5", "anything", gold=["missing#9"]),
        q("R6", "unanswerable one", answerable=False),
    ]
    reuse, findings = find_wording_reuse(items, corpus)
    by_item = {entry.item: entry for entry in reuse}
    assert set(by_item) == {"R1", "R2"}
    assert " ".join(by_item["R1"].run) == "employees get 25 days of paid annual leave"
    assert by_item["R2"].share == 1.0 and len(by_item["R2"].run) < 6
    assert [f.items for f in findings if f.code == "unknown_gold"] == [("R5",)]
    strict, _ = find_wording_reuse(items, corpus, share_exempt=())
    assert {entry.item for entry in strict} == {"R1", "R2", "R4"}
    report = check_questions(items, Targets(shares={}, min_items=1), corpus)
    assert report.reuse is not None and len(report.reuse) == 2
    assert check_questions(items, Targets(shares={}, min_items=1)).reuse is None


def test_kit_inference() -> None:
    assert infer_kit(["typical", "paraphrase", None]) == "knowledge-base"
    assert infer_kit(["common", "policy", "typical"]) == "persona"
    assert infer_kit(["mine", None]) is None


def test_targets_file(tmp_path: Path) -> None:
    config = tmp_path / "targets.toml"
    config.write_text("min_items = 5\n[shares]\nfaq = 0.7\nedge = 0.3\n")
    targets = resolve_targets(["faq"], path=config)
    assert dict(targets.shares) == {"faq": 0.7, "edge": 0.3} and targets.min_items == 5
    kit_only = tmp_path / "kit.toml"
    kit_only.write_text('kit = "persona"\n')
    assert resolve_targets(["typical"], path=kit_only).shares["common"] == 0.4


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[shares]\na = 0.5\nb = 0.2\n", "add up to 0.700"),
        ("[shares]\na = 1.5\n", "between 0 and 1"),
        ("[share]\na = 1.0\n", "allowed keys"),
        ('kit = "museum"\n', "kit"),
        ("[shares\n", "not valid TOML"),
    ],
)
def test_bad_targets_file(tmp_path: Path, content: str, message: str) -> None:
    config = tmp_path / "targets.toml"
    config.write_text(content)
    with pytest.raises(ConfigError, match=message):
        resolve_targets(path=config)


def test_bad_options() -> None:
    with pytest.raises(ConfigError):
        CheckOptions(near_duplicate=0.0)
    with pytest.raises(ConfigError):
        resolve_targets(kit="museum")
