"""Blind-review packets (``ragcard review make``): what people rate, and the sealed key.

A packet is drawn from one run: ``n`` generated answers at random, stratified by category
(proportional shares, every category at least once when ``n`` allows), one attempt each;
``controls`` authored answers (``authored_answer``) mixed in; shuffled, and numbered ``R01``…
in the shuffled order. What a reviewer sees of an item is its question, the asker's role, the
answer with inline citation markers removed, and the text of the passages it cites (a
control shows its item's gold passages, so that it looks like any other answer). Nothing
identifies the system or how it was scored: no model, run, item id, category, flag, score or
verdict is in the packet.

The packet folder holds ``packet.json`` (the manifest), ``packet.jsonl`` (the items) and
``packet.csv`` (for rating offline). The key — which packet item is which item, attempt and
kind — is written apart from it (by default in the run folder, ``review/<packet>.key.json``,
mode 0600): whoever holds the packet cannot unblind it.

No file of the packet folder holds restricted text: the text of a restricted passage, and an
answer, expected answer or sentence list that quotes one
(:func:`ragcard.metrics.restricted.reproduced`), are replaced there by a note and sealed apart,
beside the key (``review/<packet>.sealed.jsonl``, mode 0600, its sha256 in the manifest). The
review app shows them only when it is started with that file (``review serve --sealed FILE``),
and then only to reviewers whose role may read every passage involved.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
import os
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcard.errors import ConfigError, InputError, Problem
from ragcard.inputs._jsonl import load_records
from ragcard.inputs.corpus import Corpus
from ragcard.inputs.questions import Question
from ragcard.inputs.responses import strip_markers
from ragcard.metrics.restricted import allowed_roles, reproduced
from ragcard.review._run import RunData

__all__ = [
    "KEY_SCHEMA",
    "PACKET_SCHEMA",
    "KeyEntry",
    "MadePacket",
    "Packet",
    "PacketItem",
    "PacketManifest",
    "PacketPassage",
    "ReviewKey",
    "allocate",
    "load_key",
    "load_packet",
    "load_sealed",
    "make_packet",
    "refuse_key_inside",
    "seal",
    "sealed_path_of",
    "write_packet",
    "write_private",
]

PACKET_SCHEMA: Final = "ragcard.review-packet/1"
KEY_SCHEMA: Final = "ragcard.review-key/1"
PacketKind = Literal["blind", "grading", "answer"]

BLIND_INSTRUCTIONS = (
    "Rate each answer as the person who asked would read it. Accurate: right, and complete "
    "enough to act on. Minor: a small error or omission that would not change what the asker "
    "does. Wrong: a wrong fact, a neighbouring question answered, or an answer that would lead "
    "the asker to do the wrong thing. Where asked: is the answer in the voice of the persona, "
    "and is every use of a secondary (tier B) source attributed? Leave a comment on every "
    "answer you rate wrong."
)


class PacketPassage(BaseModel):
    """A passage shown with an answer; ``access`` decides which reviewers see its text."""

    model_config = ConfigDict(extra="forbid")

    id: str
    doc: str | None = None
    section: str | None = None
    date: str | None = None
    tier: Literal["A", "B"] | None = None
    access: list[str] = Field(default_factory=list)
    text: str | None = None
    note: str | None = None


class PacketItem(BaseModel):
    """One answer to rate, as every reviewer sees it (blind)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    question: str
    asker: str = "public"
    program: str | None = None
    answer: str
    passages: list[PacketPassage] = Field(default_factory=list)
    #: grading queues show what the answer should say, and its sentences to label one by
    #: one; blind packets never do
    expected_answer: str | None = None
    sentences: list[str] | None = None
    #: fields withheld here because they quote restricted passages (``answer``,
    #: ``expected_answer``) → the roles that may read them; their text is in the sealed file
    sealed: dict[str, list[str]] | None = None


class PacketManifest(BaseModel):
    """``packet.json``: what the packet is, never where it came from."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["ragcard.review-packet/1"] = Field(default=PACKET_SCHEMA, alias="schema")
    packet_id: str
    kind: PacketKind = "blind"
    created_at: str
    items: int
    kit: str = "knowledge-base"
    programs: list[str] = Field(default_factory=list)
    ask_voice: bool = False
    instructions: str = BLIND_INSTRUCTIONS
    sha256: str
    #: answer packets: the sources people answer from (``sources.jsonl``, the run's corpus)
    sources_sha256: str | None = None
    #: the sealed file's sha256 (restricted text kept out of the packet folder), if any
    sealed_sha256: str | None = None


class KeyEntry(BaseModel):
    """What a packet item is: its question id, the attempt shown (None for a control or a
    person's answer), its kind and category."""

    model_config = ConfigDict(extra="forbid")

    item: str
    attempt: int | None = None
    kind: Literal["generated", "control", "answer"]
    category: str | None = None
    must_pass: bool = False
    split: str = "dev"
    reasons: list[str] = Field(default_factory=list)


class ReviewKey(BaseModel):
    """The sealed key of a packet."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["ragcard.review-key/1"] = Field(default=KEY_SCHEMA, alias="schema")
    packet_id: str
    packet_sha256: str
    kind: PacketKind = "blind"
    run_folder: str
    run_created_at: str
    project: str
    seed: int
    n: int
    controls: int
    items: dict[str, KeyEntry]


@dataclass(frozen=True, slots=True)
class Packet:
    """A packet folder, loaded."""

    folder: Path
    manifest: PacketManifest
    items: tuple[PacketItem, ...]

    def by_id(self) -> dict[str, PacketItem]:
        return {item.id: item for item in self.items}


@dataclass(frozen=True, slots=True)
class MadePacket:
    packet: Packet
    key: ReviewKey
    key_path: Path
    notes: tuple[str, ...]


def allocate(n: int, sizes: dict[str, int]) -> dict[str, int]:
    """``n`` draws shared among strata in proportion to their ``sizes`` (largest remainder,
    ties by name); every stratum gets at least one draw when ``n`` is at least the number of
    strata. ``n`` must not exceed the total."""
    total = sum(sizes.values())
    if n > total:
        raise ValueError(f"cannot draw {n} of {total}")
    names = sorted(s for s, size in sizes.items() if size > 0)
    quotas = {s: n * sizes[s] / total for s in names} if total else {}
    shares = {s: int(quotas[s]) for s in names}
    left = n - sum(shares.values())
    for s in sorted(names, key=lambda s: (-(quotas[s] - shares[s]), s))[:left]:
        shares[s] += 1
    if n >= len(names):
        for s in names:
            while shares[s] == 0:
                donor = max((d for d in names if shares[d] > 1), key=lambda d: (shares[d], d))
                shares[donor] -= 1
                shares[s] += 1
    return shares


def _passage(corpus: Corpus, passage_id: str) -> PacketPassage:
    p = corpus.get(passage_id)
    if p is None:
        return PacketPassage(id=passage_id, note="cited, but no passage of the corpus has this id")
    return PacketPassage(
        id=p.id,
        doc=p.doc,
        section=p.section,
        date=p.date.isoformat() if p.date else None,
        tier=p.tier,
        access=list(p.access),
        text=p.text,
    )


def _generated(
    run: RunData, question: Question, attempt: int, packet_id: str
) -> tuple[PacketItem, KeyEntry]:
    response = run.response(question.id, attempt)
    if response is None:  # (only answered attempts are drawn)
        raise ValueError(f"{question.id} attempt {attempt} has no answer")
    item = PacketItem(
        id=packet_id,
        question=question.question,
        asker=question.asker,
        program=question.program,
        answer=strip_markers(response.answer) if "[" in response.answer else response.answer,
        passages=[_passage(run.corpus, pid) for pid in response.cited_ids()],
    )
    return item, _key_entry(question, attempt, "generated")


def _control(run: RunData, question: Question, packet_id: str) -> tuple[PacketItem, KeyEntry]:
    item = PacketItem(
        id=packet_id,
        question=question.question,
        asker=question.asker,
        program=question.program,
        answer=question.authored_answer or "",
        passages=[_passage(run.corpus, pid) for pid in question.gold_ids],
    )
    return item, _key_entry(question, None, "control")


def _key_entry(
    question: Question, attempt: int | None, kind: Literal["generated", "control", "answer"]
) -> KeyEntry:
    return KeyEntry(
        item=question.id,
        attempt=attempt,
        kind=kind,
        category=question.category,
        must_pass=question.must_pass,
        split=question.split,
    )


#: Controls a packet mixes in when none are asked for, as far as the question set has them.
DEFAULT_CONTROLS = 5


def _draw(
    run: RunData, n: int, controls: int | None, rng: random.Random
) -> tuple[list[tuple[str, int]], list[str], list[str]]:
    """The (item, attempt) pairs drawn, the control items, and notes. ``controls`` None: up to
    :data:`DEFAULT_CONTROLS`, as many as the question set's authored answers supply (none for
    a knowledge-base set that has no ``authored_answer``)."""
    answered = run.answered()
    by_id = run.by_id
    strata: dict[str, list[str]] = {}
    for item in sorted(answered):
        strata.setdefault(by_id[item].category or "uncategorised", []).append(item)
    total = sum(len(v) for v in strata.values())
    if n < 1 or n > total:
        raise ConfigError(
            f"--n {n}: the run has {total} answered item(s) to draw from; ask for 1 to {total}"
        )
    shares = allocate(n, {s: len(items) for s, items in strata.items()})
    drawn = [
        (item, rng.choice(answered[item]))
        for stratum in sorted(strata)
        for item in sorted(rng.sample(strata[stratum], shares.get(stratum, 0)))
    ]
    authored = sorted(q.id for q in run.questions.questions if q.authored_answer)
    notes = []
    if controls is None:
        controls = min(DEFAULT_CONTROLS, len(authored))
        if controls < DEFAULT_CONTROLS:
            notes.append(
                f"{controls} control(s): only {len(authored)} item(s) of the question set carry "
                "an authored_answer (controls are authored answers; without one, "
                "review_control_accuracy is not scored)"
            )
    if controls > len(authored):
        raise ConfigError(
            f"--controls {controls}: only {len(authored)} item(s) of the question set carry "
            "an authored_answer; pass fewer controls (or --controls 0), or write authored "
            "answers into the question set"
        )
    chosen = {item for item, _ in drawn}
    apart = [q for q in authored if q not in chosen]
    if len(apart) >= controls:
        picked = rng.sample(apart, controls)
    else:
        picked = apart + rng.sample([q for q in authored if q in chosen], controls - len(apart))
        notes.append(
            f"{controls - len(apart)} control(s) share their question with a generated answer "
            "in the packet (too few authored answers outside the sample)"
        )
    return drawn, sorted(picked), notes


def _csv(items: Sequence[PacketItem], ask_voice: bool) -> str:
    columns = ["packet_item", "question", "asker", "answer", "passages", "reviewer", "rating"]
    columns += [*(["voice"] if ask_voice else []), "attributed", "comment"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for item in items:
        shown = []
        for p in item.passages:
            head = " · ".join(x for x in (p.doc, p.section, p.date, f"tier {p.tier}" if p.tier
                                          else None) if x)  # fmt: skip
            if p.access:
                body = f"[restricted to {', '.join(p.access)}: rate it in the review app]"
            else:
                body = p.text if p.text is not None else f"[{p.note}]"
            shown.append(f"[{p.id}] {head}\n{body}")
        row = [item.id, item.question, item.asker, item.answer, "\n\n".join(shown), "", ""]
        writer.writerow(row + ([""] if ask_voice else []) + ["", ""])
    return buffer.getvalue()


#: What the packet files show in place of a restricted passage's text.
SEALED_PASSAGE = (
    "restricted to {roles}: its text is sealed apart from the packet (the review app shows it "
    "to reviewers with one of these roles when started with --sealed FILE)"
)
#: What they show in place of an answer or expected answer that quotes one.
SEALED_TEXT = (
    "[{what} withheld: it quotes restricted passage(s) {ids}, which only {roles} may read; "
    "the review app shows it to a reviewer with that role when started with --sealed FILE]"
)


def seal(
    items: Sequence[PacketItem], corpus: Corpus | None
) -> tuple[list[PacketItem], list[dict[str, object]]]:
    """The items with no restricted text (restricted passages' text, and with ``corpus`` the
    answers and expected answers that quote one, replaced by a note), and the sealed records
    (``{"item", "passages": {id: text}, "answer", "expected_answer", "sentences"}``)."""
    public: list[PacketItem] = []
    sealed: list[dict[str, object]] = []
    for item in items:
        record: dict[str, object] = {}
        texts = {p.id: p.text for p in item.passages if p.access and p.text is not None}
        update: dict[str, object] = {}
        if texts:
            record["passages"] = texts
            update["passages"] = [
                p.model_copy(update={"text": None, "note": SEALED_PASSAGE.format(
                    roles=", ".join(p.access))}) if p.id in texts else p
                for p in item.passages
            ]  # fmt: skip
        marks: dict[str, list[str]] = {}
        for field, what in (("answer", "answer"), ("expected_answer", "expected answer")):
            text = getattr(item, field)
            ids = reproduced(text, corpus) if corpus is not None else []
            if ids:
                roles = allowed_roles(ids, corpus) if corpus is not None else []
                marks[field] = roles
                record[field] = text
                update[field] = SEALED_TEXT.format(
                    what=what, ids=", ".join(ids), roles=", ".join(roles) or "nobody"
                )
        if "answer" in marks and item.sentences is not None:
            record["sentences"] = item.sentences
            update["sentences"] = None
        if marks:
            update["sealed"] = marks
        if record:
            sealed.append({"item": item.id, **record})
        public.append(item.model_copy(update=update) if update else item)
    return public, sealed


def write_packet(
    folder: Path,
    manifest: PacketManifest,
    items: Sequence[PacketItem],
    *,
    corpus: Corpus | None = None,
    sealed_path: Path | None = None,
) -> Packet:
    """Write ``packet.jsonl``, ``packet.csv`` and ``packet.json`` (its sha256 filled in), no
    restricted text among them (:func:`seal`): that goes to ``sealed_path`` (mode 0600; with
    none given, it is dropped)."""
    if (folder / "packet.json").exists():
        raise ConfigError(f"{folder} already holds a packet: choose another --out")
    items, sealed = seal(items, corpus)
    folder.mkdir(parents=True, exist_ok=True)
    if sealed and sealed_path is not None:
        body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in sealed).encode()
        write_private(sealed_path, body, "sealed restricted text")
        manifest = manifest.model_copy(update={"sealed_sha256": hashlib.sha256(body).hexdigest()})
    lines = "".join(
        json.dumps(i.model_dump(exclude_none=True), ensure_ascii=False) + "\n" for i in items
    )
    (folder / "packet.jsonl").write_text(lines, encoding="utf-8")
    (folder / "packet.csv").write_text(_csv(items, manifest.ask_voice), encoding="utf-8")
    manifest = manifest.model_copy(
        update={"sha256": hashlib.sha256(lines.encode("utf-8")).hexdigest(), "items": len(items)}
    )
    text = json.dumps(manifest.model_dump(by_alias=True), indent=2, ensure_ascii=False)
    (folder / "packet.json").write_text(text + "\n", encoding="utf-8")
    return Packet(folder, manifest, tuple(items))


def write_key(path: Path, key: ReviewKey) -> None:
    """Write the key readable by its owner only; an existing key is never overwritten."""
    text = json.dumps(key.model_dump(by_alias=True), indent=2, ensure_ascii=False) + "\n"
    write_private(path, text.encode("utf-8"), "review key")


def write_private(path: Path, body: bytes, what: str) -> None:
    """Write ``body`` readable by its owner only (mode 0600); never over an existing file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ConfigError(f"{path} exists: refusing to overwrite a {what}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(body)


def refuse_key_inside(key_path: Path, out: Path) -> None:
    """The key (and the sealed file beside it) may not sit in the folder handed to reviewers."""
    key, folder = key_path.resolve(), out.resolve()
    if key == folder or folder in key.parents:
        raise ConfigError(
            f"--key {key_path} is inside the packet folder {out}, which goes to the reviewers: "
            "whoever holds the packet could unblind it; write the key elsewhere (the default "
            "is RUN/review/)"
        )


def sealed_path_of(key_path: Path, packet_id: str) -> Path:
    """Where a packet's sealed restricted text goes: beside its key."""
    return key_path.with_name(f"{packet_id}.sealed.jsonl")


def load_sealed(path: Path, packet: Packet) -> dict[str, dict[str, object]]:
    """A packet's sealed file (item id → its sealed texts); refused unless it is that
    packet's (the manifest's sha256)."""
    try:
        body = path.read_bytes()
    except FileNotFoundError:
        raise InputError(Problem(str(path), None, None, "sealed file not found",
                                 fix="pass --sealed, the file `ragcard review make` wrote "
                                 "beside the key")) from None  # fmt: skip
    if hashlib.sha256(body).hexdigest() != packet.manifest.sealed_sha256:
        raise InputError(Problem(str(path), None, None,
                                 f"not the sealed file of packet {packet.manifest.packet_id} "
                                 "(its sha256 is not the manifest's)",
                                 fix="pass the file written with this packet"))  # fmt: skip
    records = [json.loads(line) for line in body.decode("utf-8").splitlines() if line.strip()]
    return {str(r["item"]): r for r in records}


def new_packet_id() -> str:
    return "pk-" + secrets.token_hex(5)


def make_packet(
    run: RunData,
    out: Path,
    *,
    n: int = 50,
    controls: int | None = None,
    seed: int | None = None,
    key_path: Path | None = None,
) -> MadePacket:
    """Draw a blind-review packet from ``run`` into the folder ``out``, and its key; with
    ``controls`` None, as many controls as the question set supplies, up to 5."""
    if controls is not None and controls < 0:
        raise ConfigError(f"--controls must be 0 or more, got {controls}")
    seed = secrets.randbelow(2**31) if seed is None else seed
    rng = random.Random(seed)
    drawn, control_items, notes = _draw(run, n, controls, rng)
    entries: list[tuple[str, int | None]] = [*drawn, *((c, None) for c in control_items)]
    rng.shuffle(entries)
    width = max(2, len(str(len(entries))))
    by_id = run.by_id
    items, key_items = [], {}
    for number, (item_id, attempt) in enumerate(entries, 1):
        packet_item_id = f"R{number:0{width}d}"
        question = by_id[item_id]
        made = (
            _control(run, question, packet_item_id)
            if attempt is None
            else _generated(run, question, attempt, packet_item_id)
        )
        items.append(made[0])
        key_items[packet_item_id] = made[1]
    packet_id = new_packet_id()
    manifest = PacketManifest(
        packet_id=packet_id,
        created_at=dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        items=len(items),
        kit=run.kit,
        programs=sorted({q.program for q in run.questions.questions if q.program}),
        ask_voice=run.kit == "persona",
        sha256="",
    )
    key_path = key_path or run.folder / "review" / f"{packet_id}.key.json"
    refuse_key_inside(key_path, out)
    packet = write_packet(out, manifest, items, corpus=run.corpus,
                          sealed_path=sealed_path_of(key_path, packet_id))  # fmt: skip
    key = ReviewKey(
        packet_id=packet_id,
        packet_sha256=packet.manifest.sha256,
        run_folder=str(run.folder.resolve()),
        run_created_at=str(run.scorecard.get("created_at")),
        project=str(run.scorecard.get("project")),
        seed=seed,
        n=n,
        controls=len(control_items),
        items=key_items,
    )
    write_key(key_path, key)
    return MadePacket(packet, key, key_path, tuple(notes))


def load_packet(path: Path) -> Packet:
    """A packet folder (or its ``packet.json``); :class:`InputError` when it is not one or its
    items were edited (the manifest's sha256 no longer matches)."""
    folder = path.parent if path.name in ("packet.json", "packet.jsonl") else path
    manifest_path = folder / "packet.json"
    fix = "pass the folder `ragcard review make` wrote"
    try:
        manifest = PacketManifest.model_validate_json(manifest_path.read_bytes())
    except FileNotFoundError:
        raise InputError(
            Problem(str(manifest_path), None, None, "no packet here", fix=fix)
        ) from None
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        raise InputError(
            Problem(
                str(manifest_path), None, field, f"not a review packet: {first['msg']}", fix=fix
            )
        ) from None
    items_path = folder / "packet.jsonl"
    records, problems = load_records(items_path, PacketItem, "packet item")
    if problems:
        raise InputError(problems, f"{items_path}: {len(problems)} problem(s) in the packet")
    digest = hashlib.sha256(items_path.read_bytes()).hexdigest()
    if digest != manifest.sha256:
        raise InputError(
            Problem(
                str(items_path),
                None,
                None,
                "changed since the packet was made (its sha256 is not the manifest's)",
                fix="restore the packet as `ragcard review make` wrote it",
            )  # fmt: skip
        )
    return Packet(folder, manifest, tuple(item for _, item in records))


def load_key(path: Path, packet: Packet | None = None) -> ReviewKey:
    """A packet's key; with ``packet``, refused unless it is that packet's key."""
    try:
        key = ReviewKey.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise InputError(
            Problem(
                str(path),
                None,
                None,
                "review key not found",
                fix="pass --key, the file `ragcard review make` wrote",
            )  # fmt: skip
        ) from None
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        raise InputError(
            Problem(str(path), None, field, f"not a review key: {first['msg']}")
        ) from None
    if packet is not None and (
        key.packet_id != packet.manifest.packet_id or key.packet_sha256 != packet.manifest.sha256
    ):
        raise InputError(
            Problem(
                str(path),
                None,
                "packet_id",
                f"the key of packet {key.packet_id}, not of {packet.manifest.packet_id}",
                fix="pass the key written with this packet",
            )  # fmt: skip
        )
    return key
