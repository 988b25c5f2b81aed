"""No packet file shows restricted text, and the review app shows it only to reviewers whose
role may read it: a restricted passage's text, and the answers and expected answers that quote
one, are sealed apart from the packet (beside the key, mode 0600) and withheld, with a note,
from everyone else."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("starlette", reason="the review extra is not installed")

from ragcard.pipeline.evaluation import load_inputs, score_responses
from ragcard.review import load_run, make_packet
from ragcard.review.app import create_app
from ragcard.review.packet import sealed_path_of
from ragcard.review.queue import make_queue
from ragcard.review.store import STORE_FILE, ReviewStore

BANDS = "Salary band L3 runs from £58,000 to £72,000 and is reviewed every April by the board."


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """An employee's answer that leaks the bands, an HR answer that may quote them (and its
    expected answer does), and a public one."""
    corpus = _write(tmp_path / "corpus.jsonl", [
        {"id": "PAY", "doc": "pay", "text": BANDS, "access": ["hr"]},
        {"id": "LEAVE", "doc": "leave", "text": "Leave is 25 days a year for everyone."},
    ])  # fmt: skip
    questions = _write(tmp_path / "questions.jsonl", [
        {"id": "Q1", "question": "what does L3 pay?", "asker": "employee", "gold": [],
         "category": "access_probe", "expected_flag": "access_denied"},
        {"id": "Q2", "question": "what does L3 pay?", "asker": "hr", "gold": ["PAY"],
         "category": "typical", "expected_answer": "L3 runs from £58,000 to £72,000."},
        {"id": "Q3", "question": "how much leave?", "gold": ["LEAVE"], "category": "typical",
         "expected_answer": "25 days a year."},
    ])  # fmt: skip
    responses = _write(tmp_path / "responses.jsonl", [
        {"item": "Q1", "attempt": 1, "answer": BANDS, "retrieved": ["LEAVE"]},
        {"item": "Q2", "attempt": 1, "answer": f"{BANDS} [PAY]", "retrieved": ["PAY"]},
        {"item": "Q3", "attempt": 1, "answer": "Leave is 25 days a year [LEAVE].",
         "retrieved": ["LEAVE"]},
    ])  # fmt: skip
    thresholds = tmp_path / "thresholds.toml"
    thresholds.write_text('[[threshold]]\nmeasure = "recall@5"\ncomparison = ">="\nvalue = 1\n'
                          'type = "graded"\nreason = "r"\n')  # fmt: skip
    out = tmp_path / "run"
    score_responses(load_inputs(questions, corpus, thresholds), responses, out)
    return out


def _clear(folder: Path) -> list[str]:
    """The packet folder's files that hold restricted text."""
    return [p.name for p in folder.iterdir() if p.is_file() and "58,000" in p.read_text("utf-8")]


def test_no_packet_file_holds_restricted_text_and_the_sealed_file_does(
    run: Path, tmp_path: Path
) -> None:
    made = make_packet(load_run(run), tmp_path / "packet", n=3, controls=0, seed=1)
    assert _clear(tmp_path / "packet") == []  # packet.jsonl, packet.csv, packet.json
    sealed = sealed_path_of(made.key_path, made.key.packet_id)
    assert sealed.parent == made.key_path.parent != tmp_path / "packet"
    assert stat.S_IMODE(sealed.stat().st_mode) == 0o600 and "58,000" in sealed.read_text()
    items = {made.key.items[i.id].item: i for i in made.packet.items}
    assert items["Q1"].sealed == {"answer": ["hr"]} and "withheld" in items["Q1"].answer
    assert items["Q2"].sealed == {"answer": ["hr"]}
    assert items["Q3"].sealed is None and items["Q3"].answer.startswith("Leave is 25 days")
    assert made.packet.manifest.sealed_sha256


def test_the_grading_queue_seals_expected_answers_and_sentences_too(
    run: Path, tmp_path: Path
) -> None:
    made = make_queue(load_run(run), tmp_path / "queue", sample=3, seed=1)
    assert _clear(tmp_path / "queue") == []
    items = {made.key.items[i.id].item: i for i in made.packet.items}
    assert items["Q2"].sealed == {"answer": ["hr"], "expected_answer": ["hr"]}
    assert items["Q2"].sentences is None and "withheld" in (items["Q2"].expected_answer or "")


def test_the_app_shows_sealed_text_only_to_a_reviewer_whose_role_may_read_it(
    run: Path, tmp_path: Path, serve: Callable[..., Any]
) -> None:
    made = make_packet(load_run(run), tmp_path / "packet", n=3, controls=0, seed=1)
    by_item = {made.key.items[i.id].item: i.id for i in made.packet.items}
    store = ReviewStore(tmp_path / "packet" / STORE_FILE)
    alice, hana = store.add_reviewer("alice", "employee"), store.add_reviewer("hana", "hr")
    sealed = sealed_path_of(made.key_path, made.key.packet_id)
    pages: dict[tuple[str, str, bool], str] = {}
    for with_sealed in (True, False):
        app = create_app(tmp_path / "packet", sealed if with_sealed else None)
        with serve(app) as url, httpx.Client(base_url=url) as client:
            for who, token in (("alice", alice), ("hana", hana)):
                for item in ("Q1", "Q2", "Q3"):
                    page = client.get(f"/r/{token}/item/{by_item[item]}")
                    assert page.status_code == 200
                    pages[(who, item, with_sealed)] = page.text
    for item in ("Q1", "Q2"):
        for with_sealed in (True, False):
            alice_page = pages[("alice", item, with_sealed)]
            assert "58,000" not in alice_page
            assert "your role (employee) may not read" in alice_page
        assert "58,000" in pages[("hana", item, True)]
        assert "58,000" not in pages[("hana", item, False)]
        assert "--sealed FILE" in pages[("hana", item, False)]
    assert "Leave is 25 days a year" in pages[("alice", "Q3", False)]


def test_an_answer_packets_sources_hold_no_restricted_text_and_a_cite_reveals_none(
    run: Path, tmp_path: Path, serve: Callable[..., Any]
) -> None:
    """``sources.jsonl`` in the packet folder holds a note for each restricted passage; the
    app searches and shows one only to a person whose role and asker may read it, with the
    sealed file; citing its id in a forged save shows nobody its text."""
    from ragcard.review.answers import make_answer_packet

    made = make_answer_packet(load_run(run), tmp_path / "answers", seed=1)
    assert _clear(tmp_path / "answers") == []  # sources.jsonl, packet.jsonl, packet.csv
    sealed = sealed_path_of(made.key_path, made.key.packet_id)
    assert "58,000" in sealed.read_text() and stat.S_IMODE(sealed.stat().st_mode) == 0o600
    by_item = {made.key.items[i.id].item: i.id for i in made.packet.items}
    store = ReviewStore(tmp_path / "answers" / STORE_FILE)
    alice, hana = store.add_reviewer("alice", "employee"), store.add_reviewer("hana", "hr")
    pages: dict[tuple[str, bool], str] = {}
    for with_sealed in (True, False):
        app = create_app(tmp_path / "answers", sealed if with_sealed else None)
        with serve(app) as url, httpx.Client(base_url=url) as client:
            for who, token in (("alice", alice), ("hana", hana)):
                item = by_item["Q2"]  # asked by hr
                client.post(f"/r/{token}/item/{item}", data={"answer": "x", "cite": ["PAY"]},
                            headers={"X-Autosave": "1"})  # fmt: skip
                page = client.get(f"/r/{token}/item/{item}", params={"q": "salary band L3"})
                pages[(who, with_sealed)] = page.text
    assert "58,000" in pages[("hana", True)]
    for key in (("alice", True), ("alice", False), ("hana", False)):
        assert "58,000" not in pages[key], key
