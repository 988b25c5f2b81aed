"""Blind-review packets: the draw, the blinding, the sealed key, and refusals."""

from __future__ import annotations

import csv
import json
import stat
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from ragcard.errors import ConfigError, InputError
from ragcard.review import load_key, load_packet, load_run, make_packet
from ragcard.review.packet import allocate

MODEL = "secret-model-x9"  # as in conftest.py


def test_allocate_is_proportional_and_reaches_every_stratum() -> None:
    assert allocate(10, {"a": 50, "b": 30, "c": 20}) == {"a": 5, "b": 3, "c": 2}
    assert allocate(3, {"a": 98, "b": 1, "c": 1}) == {"a": 1, "b": 1, "c": 1}
    assert allocate(2, {"a": 98, "b": 1, "c": 1}) == {"a": 2, "b": 0, "c": 0}  # n < strata
    shares = allocate(50, {"common": 15, "deep": 10, "b_only": 8, "not_in_record": 8,
                           "after_cutoff": 8, "policy": 11})  # fmt: skip
    assert sum(shares.values()) == 50 and shares["policy"] == 9 and shares["common"] == 12
    with pytest.raises(ValueError):
        allocate(5, {"a": 4})


def test_packet_is_stratified_blind_and_its_key_is_sealed(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    run = load_run(scored_run())
    made = make_packet(run, tmp_path / "packet", n=10, controls=2, seed=7)
    packet, key = made.packet, made.key
    assert len(packet.items) == 12 and [i.id for i in packet.items] == [
        f"R{n:02d}" for n in range(1, 13)
    ]
    kinds = Counter(e.kind for e in key.items.values())
    assert kinds == {"generated": 10, "control": 2}
    categories = Counter(e.category for e in key.items.values() if e.kind == "generated")
    # 14 answered items: common 4, deep 3, policy 3, b_only 2, not_in_record 2 → 10
    assert categories == {"common": 3, "deep": 2, "policy": 2, "b_only": 2, "not_in_record": 1}
    controls = [e for e in key.items.values() if e.kind == "control"]
    assert all(e.attempt is None for e in controls)
    generated_items = {e.item for e in key.items.values() if e.kind == "generated"}
    assert not {e.item for e in controls} & generated_items  # enough authored answers apart
    # nothing that identifies the system or its scores is in what reviewers get
    shipped = "".join(p.read_text() for p in (tmp_path / "packet").iterdir())
    for secret in (MODEL, "p-7", "self_harm", "not_in_record", "rubric", "score", "Q01",
                   "GQ-", "correctness", "flag", str(run.folder)):  # fmt: skip
        assert secret not in shipped, secret
    generated = [i for i in packet.items if key.items[i.id].kind == "generated"]
    assert not any("[L-" in i.answer for i in generated)  # inline markers stripped
    assert any(i.answer == "It is in the letters. STAFF-1 says nothing." for i in generated)
    # controls show their gold passages, like any cited answer
    for pid, entry in key.items.items():
        item = packet.by_id()[pid]
        if entry.kind == "control":
            assert [p.id for p in item.passages] == run.by_id[entry.item].gold_ids
    # the key is apart from the packet, readable by its owner only
    assert made.key_path.parent == run.folder / "review"
    assert stat.S_IMODE(made.key_path.stat().st_mode) == 0o600
    assert load_key(made.key_path, load_packet(tmp_path / "packet")).seed == 7


def test_same_seed_same_packet(scored_run: Callable[..., Path], tmp_path: Path) -> None:
    run = load_run(scored_run())
    one = make_packet(run, tmp_path / "a", n=8, controls=1, seed=11, key_path=tmp_path / "a.key")
    two = make_packet(run, tmp_path / "b", n=8, controls=1, seed=11, key_path=tmp_path / "b.key")
    assert one.packet.items == two.packet.items
    assert one.key.items == two.key.items


def test_restricted_passages_are_redacted_from_the_csv(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    run = load_run(scored_run())
    make_packet(run, tmp_path / "p", n=14, controls=0, seed=1)
    rows = list(csv.DictReader((tmp_path / "p" / "packet.csv").read_text("utf-8").splitlines()))
    assert len(rows) == 14
    assert {"packet_item", "reviewer", "rating", "voice", "attributed", "comment"} <= set(rows[0])
    assert all("Curators only" not in r["passages"] for r in rows)
    jsonl = (tmp_path / "p" / "packet.jsonl").read_text()
    assert "Curators only" not in jsonl  # sealed apart: the app shows it with --sealed
    assert any("[restricted to curator: rate it in the review app]" in r["passages"] for r in rows)


def test_refusals_name_the_fix(scored_run: Callable[..., Path], tmp_path: Path) -> None:
    run = load_run(scored_run())
    with pytest.raises(ConfigError, match="14 answered item"):
        make_packet(run, tmp_path / "p1", n=15, controls=0)
    with pytest.raises(ConfigError, match="only 4 item"):
        make_packet(run, tmp_path / "p2", n=5, controls=5)
    make_packet(run, tmp_path / "p3", n=5, controls=1, key_path=tmp_path / "k")
    with pytest.raises(ConfigError, match="already holds a packet"):
        make_packet(run, tmp_path / "p3", n=5, controls=1, key_path=tmp_path / "k2")
    # an edited packet is refused when loaded
    items = tmp_path / "p3" / "packet.jsonl"
    items.write_text(items.read_text().replace("R01", "R01x", 1))
    with pytest.raises(InputError, match="changed since the packet was made"):
        load_packet(tmp_path / "p3")
    with pytest.raises(InputError, match="no packet here"):
        load_packet(tmp_path)


def test_a_run_whose_inputs_changed_is_refused(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    folder = scored_run()
    corpus = Path(json.loads((folder / "scorecard.json").read_text())["config"]["corpus"]["path"])
    corpus.write_text(corpus.read_text() + "\n")
    with pytest.raises(InputError, match="not the corpus file this run was scored against"):
        load_run(folder)


def test_default_controls_are_what_the_question_set_can_supply(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    """A set with fewer than 5 authored answers (a knowledge-base set has none) is not refused
    by default: the packet takes the controls it can, and says so."""
    run = load_run(scored_run())
    made = make_packet(run, tmp_path / "p", n=5, seed=3)
    assert made.key.controls == 4  # the fixture's 4 authored answers
    assert sum(e.kind == "control" for e in made.key.items.values()) == 4
    assert any("4 control(s): only 4 item(s)" in note for note in made.notes)
    with pytest.raises(ConfigError, match="only 4 item"):
        make_packet(run, tmp_path / "p2", n=5, controls=5)  # asked for: still refused
