"""A graded queue imported (``ragcard review import QUEUE``): the graders' labels as files that
``ragcard judges evaluate`` reads, and how the run's judge agrees with them on the scorecard's
judge line ("κ 0.71 vs 120 of your own labels").

Written into the queue folder's ``labels/``:

* ``correctness-labels.jsonl`` — ``{"question", "expected_answer", "answer", "label":
  "correct"|"partial"|"wrong"}`` per graded answer that has an expected answer;
* ``support-labels.jsonl`` — ``{"claim", "passages": [{"id", "text"}], "label":
  "supported"|"not_supported"|"contradicted"}`` per graded sentence.

Each line also carries ``id`` (item#attempt[#sentence]), ``group`` (the item's category) and
``split``: ``heldout`` for the question set's held-out items, so a threshold tuned with
``--threshold tune`` never sees them (they are only reported). With several graders, a line
holds the most severe label any gave (``graders``, ``agreed`` say how many and whether they
agreed).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ragcard.errors import InputError, Problem
from ragcard.goldset.agreement import cohen_kappa
from ragcard.outputs.history import HistoryStore
from ragcard.report.loaded import load_scorecard
from ragcard.review._run import RunData, load_run
from ragcard.review.apply import ensure_recorded, judge_verdicts, write_scorecard
from ragcard.review.grading import CORRECTNESS, SUPPORT, GradingLabel
from ragcard.review.packet import Packet, ReviewKey
from ragcard.review.queue import run_support
from ragcard.review.records import record_review
from ragcard.review.store import STORE_FILE, ReviewStore

__all__ = ["GradingOutcome", "import_grading"]


@dataclass(frozen=True, slots=True)
class GradingOutcome:
    line: str
    correctness_path: Path
    support_path: Path
    correctness: int
    support: int
    run_id: str


def _labels(packet: Packet, files: Sequence[Path]) -> dict[str, dict[str, GradingLabel]]:
    """Packet item → grader → label (the app's, then files of ``{"item", "reviewer", …}``)."""
    found: dict[str, dict[str, GradingLabel]] = {item.id: {} for item in packet.items}
    problems: list[Problem] = []
    sources: list[tuple[str, str, dict[str, Any], str]] = []
    if (packet.folder / STORE_FILE).exists():
        for a in ReviewStore(packet.folder / STORE_FILE).answers():
            sources.append((a.item, a.reviewer, a.data, str(packet.folder / STORE_FILE)))
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                item, grader = str(data.pop("item")), str(data.pop("reviewer"))
            except (ValueError, KeyError, TypeError, AttributeError) as error:
                example = '{"item": "G01", "reviewer": "ada", "correctness": "correct"}'
                message = f"not a grading label: {error}"
                problems.append(Problem(str(path), number, None, message, fix=example))
                continue
            sources.append((item, grader, data, f"{path}:{number}"))
    for item, grader, data, where in sources:
        if item not in found:
            problems.append(Problem(where, None, "item", "no such item in the queue", item))
            continue
        try:
            found[item][grader] = GradingLabel.model_validate(data)
        except ValidationError as error:
            problems.append(Problem(where, None, item, f"bad label: {error.errors()[0]['msg']}"))
    if problems:
        raise InputError(problems, f"{len(problems)} problem(s) in the grading labels")
    return found


def _worst(values: Sequence[str], order: Sequence[str]) -> str:
    return max(values, key=order.index)


def _kappa(first: list[str], second: list[str]) -> dict[str, Any]:
    return {"kappa": cohen_kappa(first, second) if first else None, "n": len(first)}


def _shown(stat: dict[str, Any]) -> str:
    return "n/a" if stat["kappa"] is None else f"{stat['kappa']:.2f}"


def import_grading(
    packet: Packet, key: ReviewKey, store: HistoryStore, files: Sequence[Path], by: str
) -> GradingOutcome:
    """Write the labels files and the judge's agreement with them into the run's scorecard."""
    run = load_run(Path(key.run_folder))
    labels = _labels(packet, files)
    verdicts = judge_verdicts(run)
    correctness_rows: list[dict[str, Any]] = []
    support_rows: list[dict[str, Any]] = []
    pairs: dict[str, tuple[list[str], list[str]]] = {"correctness": ([], []), "support": ([], [])}
    by_id = packet.by_id()
    for pid, entry in key.items.items():
        graded = labels.get(pid, {})
        item, question = by_id[pid], run.by_id[entry.item]
        base = {"split": "heldout" if entry.split == "heldout" else "dev",
                "group": entry.category, "graders": len(graded)}  # fmt: skip
        given = [g.correctness for g in graded.values() if g.correctness]
        if given and question.expected_answer:
            label = _worst(given, CORRECTNESS)
            correctness_rows.append({"id": f"{entry.item}#{entry.attempt}",
                                     "question": question.question,
                                     "expected_answer": question.expected_answer,
                                     "answer": item.answer, "label": label, **base,
                                     "agreed": len(set(given)) == 1})  # fmt: skip
            verdict = verdicts.get((entry.item, entry.attempt or 0))
            if verdict:
                pairs["correctness"][0].append(verdict)
                pairs["correctness"][1].append(label)
        _support_rows(run, item, entry, graded, base, support_rows, pairs["support"])
    folder = packet.folder / "labels"
    folder.mkdir(exist_ok=True)
    paths = (folder / "correctness-labels.jsonl", folder / "support-labels.jsonl")
    for path, rows in zip(paths, (correctness_rows, support_rows), strict=True):
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    stats = {name: _kappa(*both) for name, both in pairs.items()}
    line = (
        f"κ {_shown(stats['correctness'])} vs {stats['correctness']['n']} of your own labels "
        f"(correctness), κ {_shown(stats['support'])} vs {stats['support']['n']} sentences "
        f"(support) — grading queue {key.packet_id}"
    )
    entry_run = _record(run, store, key, {"line": line, **stats, "queue": key.packet_id}, by)
    return GradingOutcome(line, *paths, len(correctness_rows), len(support_rows), entry_run)


def _support_rows(
    run: RunData,
    item: Any,
    entry: Any,
    graded: dict[str, GradingLabel],
    base: dict[str, Any],
    rows: list[dict[str, Any]],
    pairs: tuple[list[str], list[str]],
) -> None:
    sentences = item.sentences or []
    ours = run_support(run.attempts.get((entry.item, entry.attempt or 0), {}), len(sentences))
    passages = [{"id": p.id, "text": p.text} for p in item.passages if p.text is not None]
    for index, sentence in enumerate(sentences):
        given = [g.support[str(index)] for g in graded.values() if str(index) in g.support]
        if not given or not passages:
            continue
        label = _worst(given, SUPPORT)
        rows.append({"id": f"{entry.item}#{entry.attempt}#{index}", "claim": sentence,
                     "passages": passages, "label": label, **base,
                     "agreed": len(set(given)) == 1})  # fmt: skip
        if ours is not None:
            pairs[0].append("supported" if ours[index] else "not_supported")
            pairs[1].append("supported" if label == "supported" else "not_supported")


def _record(
    run: RunData, store: HistoryStore, key: ReviewKey, block: dict[str, Any], by: str
) -> str:
    """The agreement on the scorecard's judge line, and the queue in the history."""
    card = load_scorecard(run.folder / "scorecard.json")
    judge = {**card.config.get("judge", {}), "own_labels": block}
    card = dataclasses.replace(card, config={**card.config, "judge": judge})
    write_scorecard(run.folder, card)
    entry = ensure_recorded(store, run.folder, card.to_json())
    record_review(store, run_id=entry.id, project=entry.project, packet_id=key.packet_id,
                  kind="grading", block=block, frozen=None, by=by)  # fmt: skip
    return entry.id
