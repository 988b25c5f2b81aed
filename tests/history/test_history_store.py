"""HistoryStore on SQLite and PostgreSQL: runs, shipping, threshold locks, overrides, signatures."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from history_support import QSHA, MakeScorecard, WriteRun

from ragcard.errors import ConfigError, InputError
from ragcard.outputs.history import HistoryStore, run_id

UTC = dt.UTC


@pytest.fixture
def store(history_url: str) -> Iterator[HistoryStore]:
    with HistoryStore(history_url) as opened:
        yield opened


def test_run_id_is_compact_time_and_canonical_hash(make_scorecard: MakeScorecard) -> None:
    card = make_scorecard()
    shuffled = dict(reversed(list(card.items())))
    assert re.fullmatch(r"20261129T235443-[0-9a-f]{8}", run_id(card))
    assert run_id(shuffled) == run_id(card)  # key order does not matter
    assert run_id(make_scorecard(decision="hold")) != run_id(card)
    local = make_scorecard(created_at="2026-11-30T01:54:43+02:00")
    assert run_id(local).startswith("20261129T235443-")  # compact time is UTC


def test_record_and_get_by_id_prefix_and_folder(
    store: HistoryStore, write_run: WriteRun, make_scorecard: MakeScorecard,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    out = write_run("r1")
    entry = store.record_run(make_scorecard(), out)
    assert entry.id == run_id(make_scorecard())
    assert (entry.project, entry.decision, entry.out_dir) == ("handbook", "ship", out.resolve())
    assert entry.created_at == dt.datetime(2026, 11, 29, 23, 54, 43, tzinfo=UTC)
    assert (entry.questions_sha256, entry.corpus_version) == (QSHA, "2026-11")
    assert (entry.corpus_sha256, entry.thresholds_sha256) == ("c" * 64, "t" * 64)
    assert entry.config == make_scorecard()["config"]
    assert entry.metrics["recall@5"]["ci"] == [0.6, 1.0]
    assert entry.recorded_at.tzinfo is not None and entry.shipped_at is None
    assert store.get(entry.id) == entry
    assert store.get(entry.id[:12]) == entry
    assert store.get(str(out)) == entry
    monkeypatch.chdir(out.parent)
    assert store.get("r1") == entry  # a relative folder


def test_recording_twice_is_idempotent(
    store: HistoryStore, write_run: WriteRun, make_scorecard: MakeScorecard
) -> None:
    out = write_run("r1")
    first = store.record_run(make_scorecard(), out)
    again = store.record_run(make_scorecard(), out)
    assert again == first
    assert [e.id for e in store.runs()] == [first.id]


def test_ambiguous_and_unknown_references_name_the_candidates(
    store: HistoryStore, write_run: WriteRun, make_scorecard: MakeScorecard
) -> None:
    a = store.record_run(make_scorecard(), write_run("a"))
    b = store.record_run(make_scorecard(decision="hold"), write_run("b"))
    with pytest.raises(ConfigError, match="ambiguous") as ambiguous:
        store.get("20261129T")
    assert a.id in str(ambiguous.value) and b.id in str(ambiguous.value)
    with pytest.raises(ConfigError, match="close matches") as unknown:
        store.get(a.id[:-1] + ("0" if a.id[-1] != "0" else "1"))
    assert a.id in str(unknown.value)
    with pytest.raises(ConfigError, match="no run"):
        store.get("nothing-like-it")
    with pytest.raises(ConfigError, match="no run given"):
        store.get("  ")


def test_runs_newest_first_by_project_with_limit(
    store: HistoryStore, write_run: WriteRun, make_scorecard: MakeScorecard
) -> None:
    times = ["2026-01-01T10:00:00+00:00", "2026-03-01T10:00:00+00:00", "2026-02-01T10:00:00"]
    ids = [store.record_run(make_scorecard(created_at=t), write_run(f"h{i}")).id
           for i, t in enumerate(times)]  # fmt: skip
    other = store.record_run(make_scorecard(project="persona"), write_run("p")).id
    assert [e.id for e in store.runs("handbook")] == [ids[1], ids[2], ids[0]]
    assert [e.id for e in store.runs("handbook", limit=1)] == [ids[1]]
    assert [e.id for e in store.runs()][0] == other  # 2026-11-29 is the newest
    last = store.last_run("handbook")
    assert last is not None and last.id == ids[1]
    assert store.last_run("handbook", question_set_sha="b" * 64) is None
    assert store.last_run("nobody") is None


def test_ship_and_last_shipped(
    store: HistoryStore, write_run: WriteRun, make_scorecard: MakeScorecard
) -> None:
    old = store.record_run(make_scorecard(created_at="2026-01-01T00:00:00Z"), write_run("old"))
    new = store.record_run(make_scorecard(), write_run("new"))
    other_set = store.record_run(make_scorecard(questions_sha="b" * 64), write_run("b"))
    assert store.last_shipped("handbook") is None
    when = dt.datetime(2026, 1, 2, 9, 0, tzinfo=UTC)  # before the rollback below ships "now"
    shipped = store.mark_shipped(new.id[:18], by="ada", when=when)
    assert (shipped.shipped_by, shipped.shipped_at) == ("ada", when)
    assert store.mark_shipped(new.id, by="bob").shipped_by == "ada"  # the first record stands
    store.mark_shipped(old.id, by="bob")  # a rollback, shipped later: now the baseline
    last = store.last_shipped("handbook", question_set_sha=QSHA)
    assert last is not None and last.id == old.id
    assert store.last_shipped("handbook", question_set_sha="b" * 64) is None
    store.mark_shipped(other_set.id, by="cy", when=when)
    on_b = store.last_shipped("handbook", "b" * 64)
    assert on_b is not None and on_b.id == other_set.id
    with pytest.raises(ConfigError, match="empty"):
        store.mark_shipped(new.id, by=" ")


def test_a_hold_ships_only_after_an_override(
    store: HistoryStore, write_run: WriteRun, make_scorecard: MakeScorecard
) -> None:
    held = store.record_run(make_scorecard(decision="hold"), write_run("held"))
    with pytest.raises(ConfigError, match="override"):
        store.mark_shipped(held.id, by="ada")
    loosened = [{"measure": "recall@5", "from": 0.9, "to": 0.85}]
    override = store.record_override(held.id, by="ada", reason="launch deadline", loosened=loosened)
    assert (override.run_id, override.by, override.loosened) == (held.id, "ada", loosened)
    assert store.mark_shipped(held.id, by="ada").shipped_by == "ada"


def test_overrides_are_kept_in_order_and_need_a_reason(
    store: HistoryStore, write_run: WriteRun, make_scorecard: MakeScorecard
) -> None:
    entry = store.record_run(make_scorecard(decision="hold"), write_run("r"))
    assert store.overrides(entry.id) == []
    store.record_override(entry.id, "ada", "first", [])
    store.record_override(entry.id[:9], "bob", "second", [{"measure": "faithfulness"}])
    assert [(o.by, o.reason) for o in store.overrides(entry.id)] == [
        ("ada", "first"),
        ("bob", "second"),
    ]
    assert all(o.at.tzinfo is not None for o in store.overrides(entry.id))
    with pytest.raises(ConfigError, match="'reason' is empty"):
        store.record_override(entry.id, "ada", "", [])
    with pytest.raises(ConfigError, match="no run"):
        store.record_override("zzz", "ada", "why", [])


def test_threshold_locks_keep_their_history(store: HistoryStore) -> None:
    assert store.locked_thresholds("handbook", QSHA) is None
    first = [{"measure": "recall@5", "comparison": ">=", "value": 0.9}]
    lock = store.lock_thresholds("handbook", QSHA, "t1", first, by="ada")
    assert (lock.thresholds_sha256, lock.thresholds, lock.locked_by) == ("t1", first, "ada")
    assert store.lock_thresholds("handbook", QSHA, "t1", first, by="bob") == lock  # unchanged
    second = [{"measure": "recall@5", "comparison": ">=", "value": 0.95}]
    newer = store.lock_thresholds("handbook", QSHA, "t2", second, by="bob")
    assert store.locked_thresholds("handbook", QSHA) == newer
    assert [x.thresholds_sha256 for x in store.threshold_locks("handbook", QSHA)] == ["t1", "t2"]
    assert store.locked_thresholds("handbook", "b" * 64) is None
    assert store.locked_thresholds("persona", QSHA) is None


def test_signatures(
    store: HistoryStore, write_run: WriteRun, make_scorecard: MakeScorecard
) -> None:
    entry = store.record_run(make_scorecard(), write_run("r"))
    at = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    signed = store.record_signature(entry.id, "ada", "ship", at, "sha256:abc")
    assert signed.signed_at == at and signed.signed_at.tzinfo == UTC
    again = store.record_signature(entry.id, "ada", "ship", at + dt.timedelta(1), "sha256:abc")
    assert again == signed
    store.record_signature(entry.id, "bob", "ship", at, "sha256:abc")
    assert [s.signer for s in store.signatures(entry.id)] == ["ada", "bob"]


def test_a_bad_scorecard_lists_every_problem(store: HistoryStore, tmp_path: Path) -> None:
    bad = {"project": "", "created_at": "yesterday", "config": {"questions": {}}}
    with pytest.raises(InputError) as error:
        store.record_run(bad, tmp_path)
    fields = {p.field for p in error.value.problems}
    assert fields == {"project", "created_at", "decision", "config.questions.sha256"}
    assert str(tmp_path / "scorecard.json") in str(error.value)
