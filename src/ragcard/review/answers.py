"""Answer packets (``ragcard review answers RUN``): the human baseline typed into the review
app — the people who answer these questions today get the same questions and the same sources
(the run's corpus, searchable, restricted passages only for the asker's role and their own,
and only when the app is started with the packet's sealed file: ``sources.jsonl`` in the packet
folder holds a note in place of each restricted passage's text),
write their answers and cite passages; ``ragcard review import`` scores them as the agent was
scored (:mod:`.human`)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragcard.errors import ConfigError, InputError, Problem
from ragcard.inputs.corpus import Corpus, load_corpus
from ragcard.review._run import RunData, load_run
from ragcard.review.packet import (
    KeyEntry,
    MadePacket,
    Packet,
    PacketItem,
    PacketManifest,
    ReviewKey,
    allocate,
    new_packet_id,
    sealed_path_of,
    write_key,
    write_packet,
    write_private,
)

__all__ = ["ANSWER_INSTRUCTIONS", "PersonAnswer", "SOURCES_FILE", "load_sources",
           "make_answer_packet", "responses_from_answers"]  # fmt: skip

SOURCES_FILE = "sources.jsonl"
ANSWER_INSTRUCTIONS = (
    "Answer each question as you would today, from the sources only: search them, tick the "
    "passages your answer rests on, and write the answer the asker would get. If the sources "
    "do not answer it, say so and tick 'the sources do not answer this'."
)


class PersonAnswer(BaseModel):
    """What one person typed for one question."""

    model_config = ConfigDict(extra="forbid")

    answer: str = Field(default="", max_length=50_000)
    cited: list[str] = Field(default_factory=list)
    abstained: bool = False
    comment: str = Field(default="", max_length=20_000)


def make_answer_packet(
    run: RunData, out: Path, *, n: int | None = None, seed: int | None = None
) -> MadePacket:
    """Every question of the run (or ``n`` of them, stratified by category) to answer."""
    seed = secrets.randbelow(2**31) if seed is None else seed
    rng = random.Random(seed)
    questions = list(run.questions.questions)
    if n is not None:
        if not 1 <= n <= len(questions):
            raise ConfigError(f"--n {n}: the question set has {len(questions)} items")
        strata: dict[str, list[str]] = {}
        for q in questions:
            strata.setdefault(q.category or "uncategorised", []).append(q.id)
        shares = allocate(n, {s: len(v) for s, v in strata.items()})
        chosen = {i for s, ids in strata.items() for i in rng.sample(ids, shares.get(s, 0))}
        questions = [q for q in questions if q.id in chosen]
    width = max(2, len(str(len(questions))))
    items, entries = [], {}
    for number, q in enumerate(questions, 1):
        pid = f"A{number:0{width}d}"
        items.append(PacketItem(id=pid, question=q.question, asker=q.asker, program=q.program,
                                answer=""))  # fmt: skip
        entries[pid] = KeyEntry(item=q.id, kind="answer", category=q.category,
                                must_pass=q.must_pass, split=q.split)  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    if (out / "packet.json").exists():
        raise ConfigError(f"{out} already holds a packet: choose another --out")
    packet_id = new_packet_id()
    key_path = run.folder / "review" / f"{packet_id}.key.json"
    sealed = _write_sources(run.corpus, out / SOURCES_FILE)
    sources = hashlib.sha256((out / SOURCES_FILE).read_bytes()).hexdigest()
    manifest = PacketManifest(
        packet_id=packet_id, kind="answer",
        created_at=dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        items=len(items), kit=run.kit, instructions=ANSWER_INSTRUCTIONS, sha256="",
        sources_sha256=sources,
    )  # fmt: skip
    if sealed:  # restricted sources' text: beside the key, never in the packet folder
        body = (json.dumps({"item": SOURCES_KEY, "passages": sealed}, ensure_ascii=False)
                + "\n").encode("utf-8")  # fmt: skip
        path = sealed_path_of(key_path, packet_id)
        write_private(path, body, "sealed restricted text")
        manifest = manifest.model_copy(update={"sealed_sha256": hashlib.sha256(body).hexdigest()})
    packet = write_packet(out, manifest, items)
    key = ReviewKey(
        packet_id=packet_id, packet_sha256=packet.manifest.sha256, kind="answer",
        run_folder=str(run.folder.resolve()), run_created_at=str(run.scorecard.get("created_at")),
        project=str(run.scorecard.get("project")), seed=seed, n=len(items), controls=0,
        items=entries,
    )  # fmt: skip
    write_key(key_path, key)
    return MadePacket(packet, key, key_path, ())


#: The sealed record of an answer packet that holds its restricted sources' text.
SOURCES_KEY = "(sources)"
#: What ``sources.jsonl`` holds in place of a restricted passage's text.
SEALED_SOURCE = "[restricted to {roles}: sealed apart from the packet]"


def _write_sources(corpus: Corpus, path: Path) -> dict[str, str]:
    """Write the corpus as the packet's sources, each restricted passage's text replaced by
    a note (ids, documents and versions kept, so references still hold); its texts."""
    sealed: dict[str, str] = {}
    lines = []
    for line in corpus.path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        if record.get("access"):
            sealed[str(record["id"])] = str(record.get("text", ""))
            record["text"] = SEALED_SOURCE.format(roles=", ".join(record["access"]))
            line = json.dumps(record, ensure_ascii=False)
        lines.append(line + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return sealed


def load_sources(packet: Packet, sealed: Mapping[str, str] | None = None) -> Corpus:
    """The sources of an answer packet, refused when they were edited; with ``sealed`` (the
    restricted passages' texts, from the sealed file), those texts put back."""
    path = packet.folder / SOURCES_FILE
    corpus = load_corpus(path)
    if corpus.sha256 != packet.manifest.sources_sha256:
        raise InputError(Problem(str(path), None, None, "changed since the packet was made",
                                 fix="restore the packet's sources.jsonl"))  # fmt: skip
    if not sealed:
        return corpus
    passages = {
        pid: p.model_copy(update={"text": sealed[pid]}) if p.access and pid in sealed else p
        for pid, p in corpus.passages.items()
    }
    return dataclasses.replace(corpus, passages=passages)


@dataclass(frozen=True, slots=True)
class _Answer:
    item: str
    person: str
    answer: PersonAnswer


def responses_from_answers(
    key: ReviewKey, answers: Sequence[tuple[str, str, dict[str, Any]]], path: Path
) -> int:
    """Write the people's answers as a responses file (docs/agents.md): one attempt per person,
    numbered in the order of their names; returns the number of answers written."""
    typed = [
        _Answer(key.items[item].item, person, PersonAnswer.model_validate(data))
        for item, person, data in answers
        if item in key.items
    ]
    typed = [a for a in typed if a.answer.answer.strip() or a.answer.abstained]
    people = sorted({a.person for a in typed})
    lines = []
    for a in sorted(typed, key=lambda a: (a.item, people.index(a.person))):
        lines.append(json.dumps({
            "item": a.item, "attempt": people.index(a.person) + 1, "answer": a.answer.answer,
            "citations": a.answer.cited, "retrieved": a.answer.cited,
            "abstained": a.answer.abstained, "meta": {"model": "people", "by": a.person},
        }, ensure_ascii=False))  # fmt: skip
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def check_run(key: ReviewKey) -> RunData:
    run = load_run(Path(key.run_folder))
    if str(run.scorecard.get("created_at")) != key.run_created_at:
        raise InputError(Problem(key.run_folder, None, None,
                                 f"not the run packet {key.packet_id} was made from"))  # fmt: skip
    return run
