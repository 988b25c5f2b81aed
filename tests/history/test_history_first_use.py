"""A fresh history used by many processes at once, as `ragcard run` and `ragcard score` use it
(label log, run index, red-team findings): every process succeeds, and each new item's labels
are recorded once.

Before: 5 of 40 first uses failed with "table ragcard_item_labels already exists" (the label log and
the red-team store created their tables check-then-create), and concurrent `score`s of one new
question set recorded its labels once per process."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa
from history_support import MakeScorecard, WriteRun

from ragcard.outputs.history import HistoryStore, new_run_id

FIRST_USE = """
import json, sys, time
from pathlib import Path
from ragcard.goldset.labellog import checked_labels
from ragcard.inputs.questions import load_questions
from ragcard.outputs.history import HistoryStore
from ragcard.redteam.store import FindingStore
url, card, out, questions, ready, go = sys.argv[1:7]
card, questions = json.loads(card), load_questions(questions)
Path(ready).touch()
while not Path(go).exists():
    time.sleep(0.001)
with HistoryStore(url) as store:
    checked_labels(store, "project", questions)
    entry = store.record_run(card, Path(out))
with FindingStore(url) as findings:
    findings.findings("project")
print(entry.id)
"""

PROCESSES = 40  # on SQLite (the acceptance figure); 16 on PostgreSQL, whose server serialises
MOMENT = dt.datetime(2026, 12, 3, 7, 0, 0, tzinfo=dt.UTC)


def test_forty_synchronised_first_uses_all_succeed_and_record_labels_once(
    history_url: str, write_run: WriteRun, make_scorecard: MakeScorecard, mini: Path,
    tmp_path: Path,
) -> None:
    out, go, ready = write_run("r1"), tmp_path / "go", tmp_path / "ready"
    ready.mkdir()
    processes = PROCESSES if history_url.startswith("sqlite") else 16
    cards = [make_scorecard(run_id=new_run_id(MOMENT)) for _ in range(processes)]
    children = [
        subprocess.Popen(
            [sys.executable, "-c", FIRST_USE, history_url, json.dumps(card), str(out),
             str(mini / "questions.jsonl"), str(ready / str(number)), str(go)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for number, card in enumerate(cards)
    ]  # fmt: skip
    try:
        while len(list(ready.iterdir())) < processes:  # every one imported and waiting
            exited = [c for c in children if c.poll() is not None]
            assert not exited, exited[0].communicate()
            subprocess.run(["sleep", "0.05"], check=True)
        go.touch()  # all start at once
        finished = [child.communicate(timeout=300) for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    failures = [err[-800:] for child, (_, err) in zip(children, finished, strict=True)
                if child.returncode != 0]
    assert failures == [], f"{len(failures)} of {processes} failed: {failures[:2]}"
    assert {text.strip() for text, _ in finished} == {card["run_id"] for card in cards}
    items = sum(1 for line in (mini / "questions.jsonl").read_text().splitlines() if line.strip())
    engine = sa.create_engine(history_url)
    try:
        with engine.connect() as conn:
            recorded = conn.execute(sa.text(
                "SELECT item, COUNT(*) FROM ragcard_item_labels GROUP BY item")).all()
    finally:
        engine.dispose()
    assert len(recorded) == items and all(n == 1 for _, n in recorded), recorded
    with HistoryStore(history_url) as store:
        assert len(store.runs(limit=100)) == processes
