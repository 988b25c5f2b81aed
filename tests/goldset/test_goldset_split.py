"""Held-out split: the hash draw, stability under additions, shares, and faithful rewriting."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from ragcard.errors import ConfigError, InputError
from ragcard.goldset import heldout_draw, plan_split, resolve_targets
from ragcard.goldset.targets import Targets


def write(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def splits(text: str) -> dict[str, str]:
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    return {record["id"]: record["split"] for record in records}


def synthetic(
    count: int, start: int = 0, categories: tuple[str, ...] = ("a",)
) -> list[dict[str, Any]]:
    return [
        {
            "id": f"SYN-{i:05d}",
            "question": f"question {i}",
            "category": categories[i % len(categories)],
        }
        for i in range(start, start + count)
    ]


def test_draw_is_the_documented_formula() -> None:
    digest = hashlib.sha256(b"salt-HB-0001").hexdigest()
    assert heldout_draw("HB-0001", "salt-") == int(digest, 16) / 2**256
    assert 0.0 <= heldout_draw("x") < 1.0


def test_adding_items_never_moves_existing_ones(tmp_path: Path) -> None:
    targets = Targets(shares={}, heldout_share=0.25)
    items = synthetic(2000)
    before = splits(plan_split(write(tmp_path / "a.jsonl", items), targets).text)
    grown = items + synthetic(700, start=2000)
    random.Random(1).shuffle(grown)  # new items anywhere, order changed
    after = splits(plan_split(write(tmp_path / "b.jsonl", grown), targets, reassign=True).text)
    assert all(after[item_id] == split for item_id, split in before.items())


def test_shares_near_target_on_2000_ids(tmp_path: Path) -> None:
    targets = Targets(shares={}, heldout_share=0.25)
    plan = plan_split(write(tmp_path / "q.jsonl", synthetic(2000)), targets)
    # binomial sd at n=2000, p=0.25 is about 0.0097: four sd either side
    assert plan.heldout / plan.total == pytest.approx(0.25, abs=0.04)


def test_per_category_shares_from_targets_file(tmp_path: Path) -> None:
    config = tmp_path / "targets.toml"
    config.write_text("[heldout]\nshare = 0.2\n[heldout.shares]\nb = 0.5\n")
    targets = resolve_targets(path=config)
    path = write(tmp_path / "q.jsonl", synthetic(4000, categories=("a", "b")))
    rows = {row.category: row for row in plan_split(path, targets).rows}
    assert rows["a"].target == 0.2 and rows["b"].target == 0.5
    assert rows["a"].share == pytest.approx(0.2, abs=0.04)
    assert rows["b"].share == pytest.approx(0.5, abs=0.05)
    # an explicit share overrides the file's default, not its per-category shares
    explicit = resolve_targets(path=config, heldout_share=0.1)
    assert explicit.heldout_share_for("a") == 0.1 and explicit.heldout_share_for("b") == 0.5


def test_existing_split_is_kept_unless_reassigned(tmp_path: Path) -> None:
    forced = [{"id": f"K{i}", "question": "q", "split": "heldout"} for i in range(20)]
    path = write(tmp_path / "q.jsonl", forced)
    kept = plan_split(path, Targets(shares={}, heldout_share=0.0))
    assert set(splits(kept.text).values()) == {"heldout"} and kept.changed == ()
    redrawn = plan_split(path, Targets(shares={}, heldout_share=0.0), reassign=True)
    assert set(splits(redrawn.text).values()) == {"dev"}
    assert len(redrawn.changed) == 20


def test_rewrite_keeps_fields_order_and_untouched_lines(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    untouched = '{"id":"Q1",  "question":"kept as is", "split":"dev", "x-note": 1.50}\n'
    path.write_text(
        untouched
        + "\n"
        + json.dumps({"id": "Q2", "question": "é?", "custom": {"a": [1, 2]}, "tags": ["t"]})
        + "\n"
        + json.dumps({"id": "Q3", "split": "dev", "question": "three", "zz": None})
        + "\n",
        encoding="utf-8",
    )
    plan = plan_split(path, Targets(shares={}, heldout_share=1.0))
    lines = plan.text.splitlines(keepends=True)
    assert lines[0] == untouched  # kept split: byte for byte
    assert lines[1] == "\n"  # blank line preserved
    second = json.loads(lines[2])
    assert list(second) == ["id", "question", "custom", "tags", "split"]
    assert second["custom"] == {"a": [1, 2]} and second["question"] == "é?"
    assert "é" in lines[2]  # not escaped
    assert list(json.loads(lines[3])) == ["id", "split", "question", "zz"]
    assert json.loads(lines[3])["split"] == "dev"  # existing split kept
    plan.write(tmp_path / "out" / "q.jsonl")
    assert (tmp_path / "out" / "q.jsonl").read_text(encoding="utf-8") == plan.text


def test_bad_question_file_is_an_input_error(tmp_path: Path) -> None:
    path = write(tmp_path / "q.jsonl", [{"id": "Q1", "question": "q", "split": "test"}])
    with pytest.raises(InputError):
        plan_split(path, Targets(shares={}))


def test_share_out_of_range_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        resolve_targets(heldout_share=1.5)
