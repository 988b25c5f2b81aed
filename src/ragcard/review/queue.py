"""The grading queue (``ragcard review queue RUN``): the knowledge-base kit's "people grade
every 0, every disagreement, and a sample of the rest".

From one run, the queue takes every answer the rubric scored 0; every answer on which two
judges disagree (the run's and a second one, ``--judge``), or the run's judge and an earlier
human label (the run's blind review, or labels files given with ``--labels``); and a seeded
random sample of the rest. Each answer is queued once (one attempt per distinct answer text
of an item), with the reasons it was chosen kept in the key — never shown to graders, who see
the question, the expected answer, the answer sentence by sentence and the passages it was
given, and label its correctness and each sentence's support in the review app.

What the graders label becomes, on import, labels files that ``ragcard judges evaluate``
reads (:mod:`.labels`), and the run's judge line says how the judge agrees with them.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcard.errors import ConfigError
from ragcard.inputs._jsonl import iter_json_lines
from ragcard.judges.base import Judge
from ragcard.metrics.judged import judge_answer
from ragcard.review._run import RunData
from ragcard.review.apply import judge_verdicts
from ragcard.review.measures import VERDICT_AS_RATING
from ragcard.review.packet import (
    KeyEntry,
    MadePacket,
    PacketItem,
    PacketManifest,
    PacketPassage,
    ReviewKey,
    new_packet_id,
    refuse_key_inside,
    sealed_path_of,
    write_key,
    write_packet,
)

__all__ = ["GRADING_INSTRUCTIONS", "QueuedAnswer", "make_queue", "run_support"]

GRADING_INSTRUCTIONS = (
    "Grade each answer against the expected answer and the passages it was given. Correct: "
    "it states what the expected answer states. Partial: some of the key facts, nothing false "
    "that would change what the asker does. Wrong: a wrong fact, a neighbouring question "
    "answered, or an answer that would lead the asker to do the wrong thing. Then mark each "
    "sentence: supported (the passages say it), not supported (they do not), or contradicted "
    "(they say otherwise)."
)


@dataclass(frozen=True, slots=True)
class QueuedAnswer:
    item: str
    attempt: int
    reasons: tuple[str, ...]


def run_support(line: dict[str, Any], sentences: int) -> list[bool] | None:
    """The run's judge's support verdict on each sentence (None when it judged none)."""
    if "faithfulness" not in (line.get("scores") or {}):
        return None
    unsupported = set((line.get("evidence") or {}).get("unsupported_sentences", []))
    return [i not in unsupported for i in range(sentences)]


def _distinct_answers(run: RunData) -> list[tuple[str, int]]:
    chosen = []
    for item, attempts in sorted(run.answered().items()):
        seen: set[str] = set()
        for attempt in attempts:
            response = run.response(item, attempt)
            text = response.answer.strip() if response else ""
            if text and text not in seen:
                seen.add(text)
                chosen.append((item, attempt))
    return chosen


def _rubric_zero(line: dict[str, Any]) -> bool:
    evidence = line.get("evidence") or {}
    return evidence.get("rubric_level") == 0 or bool(evidence.get("rubric_zero"))


async def _second_opinions(
    run: RunData, judge: Judge, answers: Sequence[tuple[str, int]]
) -> dict[tuple[str, int], list[str]]:
    day = dt.date.fromisoformat(str(run.scorecard.get("config", {}).get("run", {}).get(
        "run_date") or dt.date.today().isoformat()))  # fmt: skip
    in_force = {p.id for p in run.corpus if p.in_force_on(day)}
    verdicts = judge_verdicts(run)
    found: dict[tuple[str, int], list[str]] = {}
    for key in answers:
        question, response = run.by_id[key[0]], run.response(*key)
        if response is None:
            continue
        judged = await judge_answer(judge, question, response, run.corpus, in_force)
        if judged.error is not None:
            continue
        reasons = []
        ours = run_support(run.attempts[key], len(judged.sentences))
        theirs = [v.supported for v in judged.support]
        if ours is not None and theirs and len(theirs) == len(ours) and theirs != ours:
            reasons.append(f"judges disagree on support ({judge.identity.name})")
        verdict = verdicts.get(key)
        if verdict is not None and judged.correctness is not None:
            if (verdict == "correct") != judged.correctness.supported:
                reasons.append(f"judges disagree on correctness ({judge.identity.name})")
        if reasons:
            found[key] = reasons
    return found


def _earlier_labels(
    run: RunData, answers: Sequence[tuple[str, int]], files: Sequence[Path]
) -> dict[tuple[str, int], list[str]]:
    """Answers on which the run's judge and an earlier human label disagree: the run's blind
    review, and correctness / support labels files (matched by question and answer text, or
    by the sentence)."""
    verdicts = judge_verdicts(run)
    found: dict[tuple[str, int], list[str]] = {}
    review = run.scorecard.get("review") or {}
    for entry in review.get("items", []):
        key = (str(entry.get("item")), int(entry.get("attempt") or 0))
        judge, rating = entry.get("judge"), entry.get("rating")
        if judge and rating and judge != rating:
            found.setdefault(key, []).append(f"blind review rated it {rating}, judge {judge}")
    correctness: dict[tuple[str, str], str] = {}
    support: dict[str, bool] = {}
    for path in files:
        for _n, data, error in iter_json_lines(path):
            if error is not None or not isinstance(data, dict):
                continue
            if "claim" in data and data.get("label") in ("supported", "not_supported",
                                                          "contradicted"):  # fmt: skip
                support[str(data["claim"])] = data["label"] == "supported"
            elif {"question", "answer"} <= data.keys() and data.get("label") in VERDICT_AS_RATING:
                correctness[(str(data["question"]), str(data["answer"]))] = str(data["label"])
    for key in answers:
        question, response = run.by_id[key[0]], run.response(*key)
        if response is None:
            continue
        human = correctness.get((question.question, response.answer))
        verdict = verdicts.get(key)
        if human and verdict and human != verdict:
            found.setdefault(key, []).append(f"an earlier label says {human}, judge {verdict}")
        sentences = response.sentences()
        ours = run_support(run.attempts[key], len(sentences))
        if ours is not None and any(
            s in support and support[s] != ok for s, ok in zip(sentences, ours, strict=True)
        ):
            found.setdefault(key, []).append("an earlier support label disagrees with the judge")
    return found


def _queue(
    run: RunData,
    sample: int,
    rng: random.Random,
    judge: Judge | None,
    label_files: Sequence[Path],
) -> list[QueuedAnswer]:
    answers = _distinct_answers(run)
    reasons: dict[tuple[str, int], list[str]] = {}
    for key in answers:
        if _rubric_zero(run.attempts[key]):
            reasons.setdefault(key, []).append("rubric 0")
    if judge is not None:
        for key, why in asyncio.run(_second_opinions(run, judge, answers)).items():
            reasons.setdefault(key, []).extend(why)
    for key, why in _earlier_labels(run, answers, label_files).items():
        reasons.setdefault(key, []).extend(why)
    rest = [key for key in answers if key not in reasons]
    for key in rng.sample(rest, min(sample, len(rest))):
        reasons[key] = ["random sample of the rest"]
    queued = [QueuedAnswer(item, attempt, tuple(why)) for (item, attempt), why in reasons.items()]
    rng.shuffle(queued)
    return queued


def _item(run: RunData, answer: QueuedAnswer, packet_id: str) -> tuple[PacketItem, KeyEntry]:
    question = run.by_id[answer.item]
    response = run.response(answer.item, answer.attempt)
    if response is None:  # (only answered attempts are queued)
        raise ValueError(f"{answer.item} attempt {answer.attempt} has no answer")
    passages = []
    for pid in dict.fromkeys([*response.retrieved_ids, *response.cited_ids()]):
        p = run.corpus.get(pid)
        if p is not None and p.visible_to(question.asker):  # what the judge judged against
            passages.append(PacketPassage(id=p.id, doc=p.doc, section=p.section, tier=p.tier,
                                          date=p.date.isoformat() if p.date else None,
                                          access=list(p.access), text=p.text))  # fmt: skip
    item = PacketItem(
        id=packet_id,
        question=question.question,
        asker=question.asker,
        program=question.program,
        answer=" ".join(response.sentences()),
        sentences=response.sentences(),
        expected_answer=question.expected_answer,
        passages=passages,
    )
    entry = KeyEntry(item=question.id, attempt=answer.attempt, kind="generated",
                     category=question.category, must_pass=question.must_pass,
                     split=question.split, reasons=list(answer.reasons))  # fmt: skip
    return item, entry


def make_queue(
    run: RunData,
    out: Path,
    *,
    sample: int = 20,
    seed: int | None = None,
    judge: Judge | None = None,
    label_files: Sequence[Path] = (),
    key_path: Path | None = None,
) -> MadePacket:
    """Build the grading queue of ``run`` into the folder ``out`` (a packet of kind
    ``grading``), and its key."""
    if sample < 0:
        raise ConfigError(f"--sample must be 0 or more, got {sample}")
    seed = secrets.randbelow(2**31) if seed is None else seed
    queued = _queue(run, sample, random.Random(seed), judge, label_files)
    if not queued:
        raise ConfigError("nothing to grade: the run has no answered item")
    width = max(2, len(str(len(queued))))
    made = [_item(run, a, f"G{n:0{width}d}") for n, a in enumerate(queued, 1)]
    packet_id = new_packet_id()
    manifest = PacketManifest(
        packet_id=packet_id,
        kind="grading",
        created_at=dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        items=len(made),
        kit=run.kit,
        instructions=GRADING_INSTRUCTIONS,
        sha256="",
    )
    key_path = key_path or run.folder / "review" / f"{packet_id}.key.json"
    refuse_key_inside(key_path, out)
    packet = write_packet(out, manifest, [item for item, _ in made], corpus=run.corpus,
                          sealed_path=sealed_path_of(key_path, packet_id))  # fmt: skip
    key = ReviewKey(
        packet_id=packet_id,
        packet_sha256=packet.manifest.sha256,
        kind="grading",
        run_folder=str(run.folder.resolve()),
        run_created_at=str(run.scorecard.get("created_at")),
        project=str(run.scorecard.get("project")),
        seed=seed,
        n=len(made),
        controls=0,
        items={item.id: entry for item, entry in made},
    )
    write_key(key_path, key)
    return MadePacket(packet, key, key_path, ())
