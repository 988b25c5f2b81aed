"""Concurrent `score`s of one new question set record each item's labels once: the label log's
check and its recording are one transaction holding the write lock (before, each process read
"no labels recorded", then each recorded them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa

from ragcard.goldset.labellog import amendments_since
from ragcard.outputs.history import HistoryStore

SCORE = """
import sys, time
from pathlib import Path
from ragcard.goldset.labellog import check_label_log
from ragcard.inputs.questions import load_questions
from ragcard.outputs.history import HistoryStore
url, questions, ready, go = sys.argv[1], load_questions(sys.argv[2]), sys.argv[3], sys.argv[4]
with HistoryStore(url) as store:
    store.runs()  # connected, schema checked
    Path(ready).touch()
    while not Path(go).exists():
        time.sleep(0.001)
    check_label_log(store, "project", questions)
"""

WRITERS = 12


def test_concurrent_scores_of_a_new_set_record_each_item_once(mini: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'history.sqlite'}"
    with HistoryStore(url) as store:  # the label log's table exists, with no row
        amendments_since(store, "project", None)
    ready, go = tmp_path / "ready", tmp_path / "go"
    ready.mkdir()
    children = [
        subprocess.Popen([sys.executable, "-c", SCORE, url, str(mini / "questions.jsonl"),
                          str(ready / str(n)), str(go)], stderr=subprocess.PIPE, text=True)
        for n in range(WRITERS)
    ]  # fmt: skip
    try:
        while len(list(ready.iterdir())) < WRITERS:
            exited = [c for c in children if c.poll() is not None]
            assert not exited, exited[0].communicate()
            subprocess.run(["sleep", "0.05"], check=True)
        go.touch()
        errors = [child.communicate(timeout=300)[1] for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    assert [c.returncode for c in children] == [0] * WRITERS, errors
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        counts = conn.execute(sa.text(
            "SELECT item, COUNT(*) FROM ragcard_item_labels GROUP BY item")).all()
    engine.dispose()
    items = sum(1 for line in (mini / "questions.jsonl").read_text().splitlines() if line.strip())
    assert len(counts) == items and all(n == 1 for _, n in counts), counts
