"""The grading queue: what it queues and why, graders' labels → labels files that ``ragcard
judges evaluate`` reads (held-out items never tuned on), and the scorecard's judge line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.review import load_run
from ragcard.review.queue import make_queue

runner = CliRunner()


def _grade(packet: Path, key: dict[str, Any], grader: str, wrong: set[str]) -> Path:
    """A grader's labels file: correct unless the item is in ``wrong``; each sentence
    supported unless it says UNSUPPORTED."""
    items = {json.loads(line)["id"]: json.loads(line) for line in
             (packet / "packet.jsonl").read_text().splitlines()}  # fmt: skip
    lines = []
    for pid, entry in key["items"].items():
        sentences = items[pid].get("sentences", [])
        support = {str(n): "not_supported" if "UNSUPPORTED" in s else "supported"
                   for n, s in enumerate(sentences)}  # fmt: skip
        label = "wrong" if entry["item"] in wrong else "correct"
        lines.append(json.dumps({"item": pid, "reviewer": grader, "correctness": label,
                                 "support": support}))  # fmt: skip
    path = packet.parent / f"{grader}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_queue_takes_every_zero_every_disagreement_and_a_sample(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    folder = scored_run(judge=True)
    run = load_run(folder)
    earlier = tmp_path / "earlier.jsonl"  # a person once said Q01's answer was wrong
    q01 = run.response("Q01", 1)
    assert q01 is not None
    earlier.write_text(json.dumps({"question": run.by_id["Q01"].question, "answer": q01.answer,
                                   "expected_answer": "x", "label": "wrong"}) + "\n")  # fmt: skip
    made = make_queue(run, tmp_path / "queue", sample=2, seed=4, label_files=[earlier])
    reasons = {e.item: e.reasons for e in made.key.items.values()}
    zeros = {item for item, lines in _lines(folder).items()
             if any(line["evidence"].get("rubric_zero") for line in lines)}  # fmt: skip
    assert zeros and zeros <= set(reasons)  # every rubric 0
    assert "an earlier label says wrong, judge correct" in reasons["Q01"]
    sampled = [i for i, why in reasons.items() if why == ["random sample of the rest"]]
    assert len(sampled) == 2
    assert len(reasons) == len(made.packet.items)  # one per distinct answer: attempts alike
    text = (tmp_path / "queue" / "packet.jsonl").read_text()
    assert "rubric" not in text and "sample" not in text and "judge" not in text
    assert all(item.sentences and item.expected_answer is not None or item.expected_answer is None
               for item in made.packet.items)  # fmt: skip


def _lines(folder: Path) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for line in (folder / "results.jsonl").read_text().splitlines():
        data = json.loads(line)
        found.setdefault(data["item"], []).append(data)
    return found


def test_graded_queue_gives_labels_files_and_the_judge_line(
    scored_run: Callable[..., Path], tmp_path: Path
) -> None:
    folder = scored_run(judge=True)
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    queue = tmp_path / "queue"
    made = runner.invoke(app, ["review", "queue", str(folder), "--out", str(queue), "--sample",
                               "20", "--seed", "1", "--db", db])  # fmt: skip
    assert made.exit_code == 0, made.output
    assert "× rubric 0" in made.output
    (key_path,) = (folder / "review").glob("*.key.json")
    key = json.loads(key_path.read_text())
    sheets = [_grade(queue, key, "ada", {"Q04", "Q07"}), _grade(queue, key, "bo", {"Q04"})]
    args = ["review", "import", str(queue), "--db", db]
    imported = runner.invoke(app, [*args, *(x for s in sheets for x in ("--ratings", str(s)))])
    assert imported.exit_code == 0, imported.output
    written = queue / "labels"
    correctness = [
        json.loads(x) for x in (written / "correctness-labels.jsonl").read_text().splitlines()
    ]
    support = [json.loads(x) for x in (written / "support-labels.jsonl").read_text().splitlines()]
    assert correctness and support
    row = next(r for r in correctness if r["id"].startswith("Q07#"))
    assert {"question", "expected_answer", "answer", "label"} <= set(row)
    assert row["label"] == "wrong" and row["agreed"] is False and row["graders"] == 2
    assert row["split"] == "heldout"  # Q07 is held out: never tuned on
    assert {r["split"] for r in correctness if r["id"][:3] in ("Q05", "Q06", "Q07")} == {"heldout"}
    assert any(r["label"] == "not_supported" and "UNSUPPORTED" in r["claim"] for r in support)
    assert all(r["passages"] and {"id", "text"} <= set(r["passages"][0]) for r in support)
    card = json.loads((folder / "scorecard.json").read_text())
    own = card["config"]["judge"]["own_labels"]
    assert own["correctness"]["n"] > 0 and own["support"]["n"] == len(support)
    assert own["support"]["kappa"] == 1.0  # the fake judge and the graders agree on support
    assert "of your own labels" in own["line"]
    judge_row = next(r for r in (folder / "scorecard.md").read_text().splitlines()
                     if r.startswith("| Judge |"))  # fmt: skip
    assert "of your own labels (correctness)" in judge_row

    # the support labels are a dataset `ragcard judges evaluate` reads; tuning uses only the
    # dev items, and refuses when every label is held out
    labels = queue / "labels" / "support-labels.jsonl"
    dev = sum(r["split"] == "dev" for r in support)
    result = runner.invoke(app, ["judges", "evaluate", "--judge", "fake", "--dataset",
                                 str(labels), "--threshold", "tune"])  # fmt: skip
    assert {r["label"] == "supported" for r in support if r["split"] == "dev"} == {True, False}
    assert result.exit_code == 0, result.output
    assert f"tuned on the dev part ({dev} examples" in result.output
    assert dev < len(support)  # the held-out items' labels are there, only reported
    held = tmp_path / "heldout-only.jsonl"
    held.write_text("".join(json.dumps(r) + "\n" for r in support if r["split"] == "heldout"))
    refused = runner.invoke(app, ["judges", "evaluate", "--judge", "fake", "--dataset", str(held),
                                  "--threshold", "tune"])  # fmt: skip
    assert refused.exit_code == 2 and "no dev examples to tune on" in refused.output


def test_grading_labels_are_checked(scored_run: Callable[..., Path], tmp_path: Path) -> None:
    folder = scored_run(judge=True)
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    queue = tmp_path / "queue"
    assert runner.invoke(app, ["review", "queue", str(folder), "--out", str(queue),
                               "--db", db]).exit_code == 0  # fmt: skip
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"item": "G01", "reviewer": "a", "correctness": "great"}\n'
        '{"item": "G99", "reviewer": "a", "correctness": "correct"}\nnot json\n'
    )
    result = runner.invoke(app, ["review", "import", str(queue), "--ratings", str(bad), "--db",
                                 db], env={"COLUMNS": "300"})  # fmt: skip
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "bad label" in result.output and "no such item in the queue" in result.output
    assert "bad.jsonl:3" in result.output
    with pytest.raises(Exception, match="--sample"):
        make_queue(load_run(folder), tmp_path / "q2", sample=-1)
