"""A new history used by many processes at once: every one records its run (the schema is
created safely), and runs with identical scorecards made in the same second keep ids of their
own."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path

from history_support import MakeScorecard, WriteRun

from ragcard.outputs.history import HistoryStore, new_run_id, run_id

FIRST_USE = """
import json, sys, time
from pathlib import Path
from ragcard.outputs.history import HistoryStore
url, card, out, go = sys.argv[1], json.loads(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
while not go.exists():
    time.sleep(0.001)
with HistoryStore(url) as store:
    entry = store.record_run(card, out)
print(entry.id)
"""

PROCESSES = 16
MOMENT = dt.datetime(2026, 11, 29, 23, 54, 43, tzinfo=dt.UTC)


def test_concurrent_first_use_creates_the_schema_once_and_loses_no_run(
    history_url: str, write_run: WriteRun, make_scorecard: MakeScorecard, tmp_path: Path
) -> None:
    """Before: 3 of 40 concurrent first runs exited 2 (``table ragcard_meta already
    exists``). Every process waits for one signal, then opens the fresh history at once."""
    go = tmp_path / "go"
    out = write_run("r1")
    cards = [make_scorecard(run_id=new_run_id(MOMENT)) for _ in range(PROCESSES)]
    children = [
        subprocess.Popen(
            [sys.executable, "-c", FIRST_USE, history_url, json.dumps(card), str(out), str(go)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for card in cards
    ]  # fmt: skip
    time.sleep(1.0)  # all of them started and waiting (importing ragcard takes a while)
    go.touch()
    finished = [child.communicate(timeout=120) for child in children]
    failures = [err for child, (_, err) in zip(children, finished, strict=True)
                if child.returncode != 0]
    assert failures == []
    ids = {out_text.strip() for out_text, _ in finished}
    assert ids == {card["run_id"] for card in cards}
    with HistoryStore(history_url) as store:
        assert len(store.runs(limit=100)) == PROCESSES


def test_identical_runs_in_one_second_get_ids_of_their_own(
    history_url: str, write_run: WriteRun, make_scorecard: MakeScorecard
) -> None:
    """Before: 4 concurrent runs of one project with identical scorecards within a second
    shared one id — 12 runs, 4 rows, and ``ship`` could not find the others."""
    with HistoryStore(history_url) as store:
        entries = [
            store.record_run(make_scorecard(run_id=new_run_id(MOMENT)), write_run(f"r{n}"))
            for n in range(12)
        ]
        assert len({entry.id for entry in entries}) == 12
        assert len(store.runs(limit=100)) == 12
        for entry in entries:
            assert store.get(str(entry.out_dir)).id == entry.id
            assert entry.id.startswith("20261129T235443-")


def test_a_scorecard_without_a_run_id_keeps_its_legacy_id(make_scorecard: MakeScorecard) -> None:
    legacy = make_scorecard()
    assert run_id(legacy) == run_id(dict(legacy))  # derived, as before, for old scorecards
    given = make_scorecard(run_id="20261129T235443-0123456789ab")
    assert run_id(given) == "20261129T235443-0123456789ab"
