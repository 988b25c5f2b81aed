"""The sentences the contrast benchmark starts from, their variants, and the dev/test split
(docs/metrics.md, "The contrast benchmark").

Source sentences, each one sentence a human (or, for BEGIN, a rater-approved response) wrote
from one passage, judged against that passage:

* ``clapnq`` — CLAPNQ dev's single-sentence human answers, against their gold passage;
* ``wice`` — WiCE test's ``supported`` one-sentence claims, against their first supporting
  sentence set (each supporting sentence with its neighbours, as the article orders them);
* ``begin`` — BEGIN WoW's ``Fully attributable`` responses, one per knowledge snippet, a seeded
  sample of :data:`BEGIN_SAMPLE`, against the snippet (BEGIN is lower case: no names to swap);
* ``handbook``, ``persona`` — the bundled examples' single-sentence expected answers of
  questions with one gold passage, against it.

The first three are read at run time from ``data_dir`` (never bundled) and skipped, with a
note saying so, when absent. The split is by passage: a seeded hash of the passage decides its
part, so every sentence of one passage, and every variant of one sentence, is in one part.

Hand-written paraphrases live in ``data/contrast-paraphrases.jsonl``, one per line, keyed by
the source sentence's id and the sha256 of its text (``source_sha256``): a paraphrase whose
source sentence changed or is gone is *stale*, left out and named in the notes. The bundled
corpora's lines also carry the source text; the public sets' lines carry only the hash (their
text stays in ``data_dir``; see ``data/README.md`` for the licences).
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ragcard._sentences import split_sentences
from ragcard.judges.metaeval.contrast import Variant
from ragcard.judges.metaeval.contrast_faithful import number_unit, reorder
from ragcard.judges.metaeval.contrast_names import swap_name
from ragcard.judges.metaeval.contrast_polarity import change_figure, flip_relation, negate
from ragcard.judges.metaeval.examples import SPLIT_SEED, Part, hash_part

__all__ = [
    "BEGIN_SAMPLE",
    "EXAMPLES_DIR",
    "GENERATORS",
    "PARAPHRASES",
    "ContrastItem",
    "ContrastSet",
    "Source",
    "build_contrast",
    "limit_sources",
    "load_paraphrases",
    "read_sources",
    "sentence_sha",
]

#: The bundled example projects (a source checkout's ``examples/``).
EXAMPLES_DIR = Path(__file__).resolve().parents[4] / "examples"
PARAPHRASES = Path(__file__).resolve().parent / "data" / "contrast-paraphrases.jsonl"
BEGIN_SAMPLE = 200

#: kind → generator(sentence, passage, rng); ``original`` and ``paraphrase`` are not generated.
GENERATORS: dict[str, Callable[[str, str, random.Random], Variant | None]] = {
    "negation": negate,
    "swapped-name": swap_name,
    "flipped-relation": flip_relation,
    "changed-figure": change_figure,
    "reordered": reorder,
    "number-unit": number_unit,
}


@dataclass(frozen=True, slots=True)
class Source:
    """A supported sentence and the passage it is judged against."""

    id: str
    corpus: str
    sentence: str
    passage: str
    passage_key: str


@dataclass(frozen=True, slots=True)
class ContrastItem:
    """One variant of one source sentence, in the part of its passage."""

    source: Source
    variant: Variant
    part: Part

    @property
    def id(self) -> str:
        return f"{self.source.id}/{self.variant.kind}"


@dataclass(frozen=True, slots=True)
class ContrastSet:
    items: tuple[ContrastItem, ...]
    split_rule: str
    notes: tuple[str, ...] = ()
    skipped: tuple[str, ...] = field(default=())

    def part(self, part: Part) -> list[ContrastItem]:
        return [item for item in self.items if item.part == part]


def sentence_sha(text: str) -> str:
    """The hash a paraphrase is keyed by: sha256 of the sentence, whitespace-normalised."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()


def _key(corpus: str, passage: str) -> str:
    return f"{corpus}:{sentence_sha(passage)[:16]}"


def _one_sentence(text: str) -> str | None:
    text = " ".join(text.split())
    return text if len(text.split()) >= 4 and len(split_sentences(text)) == 1 else None


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _clapnq(data_dir: Path) -> list[Source]:
    sources = []
    for record in _read_jsonl(data_dir / "clapnq" / "clapnq_dev_answerable.jsonl"):
        passage = record["passages"][0]["text"]
        for index, output in enumerate(record["output"]):
            sentence = _one_sentence(output.get("answer") or "")
            if sentence:
                sources.append(
                    Source(
                        f"clapnq:{record['id']}:{index}",
                        "clapnq",
                        sentence,
                        passage,
                        _key("clapnq", passage),
                    )  # fmt: skip
                )
    return sources


def _wice(data_dir: Path) -> list[Source]:
    sources = []
    for record in _read_jsonl(data_dir / "wice" / "claim_test.jsonl"):
        sentence = _one_sentence(record["claim"])
        if record["label"] != "supported" or not sentence or not record["supporting_sentences"]:
            continue
        evidence = record["evidence"]
        near = sorted(
            {j for i in record["supporting_sentences"][0] for j in (i - 1, i, i + 1)}
            & set(range(len(evidence)))
        )
        passage = " ".join(evidence[j].strip() for j in near)
        key = _key("wice", " ".join(evidence))
        sources.append(Source(f"wice:{record['meta']['id']}", "wice", sentence, passage, key))
    return sources


def _begin(data_dir: Path) -> list[Source]:
    by_knowledge: dict[str, Source] = {}
    for part in ("dev", "test"):
        path = data_dir / "begin" / f"begin_{part}_wow.tsv"
        with path.open(encoding="utf-8", newline="") as handle:
            rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            next(rows, None)
            for line, row in enumerate(rows, start=2):
                if len(row) != 6 or row[5] != "Fully attributable":
                    continue
                sentence = _one_sentence(row[4])
                if sentence and row[2] not in by_knowledge:
                    by_knowledge[row[2]] = Source(
                        f"begin:{part}:{line}", "begin", sentence, row[2], _key("begin", row[2])
                    )
    ranked = sorted(by_knowledge.values(), key=lambda s: sentence_sha(f"begin-sample:{s.id}"))
    return sorted(ranked[:BEGIN_SAMPLE], key=lambda s: s.id)


def _bundled(examples_dir: Path, name: str) -> list[Source]:
    folder = examples_dir / name
    passages = {p["id"]: p["text"] for p in _read_jsonl(folder / "corpus.jsonl")}
    sources = []
    for question in _read_jsonl(folder / "questions.jsonl"):
        gold = question.get("gold") or question.get("expected_ids") or []
        ids = [g["id"] if isinstance(g, dict) else g for g in gold]
        text = question.get("expected_answer") or question.get("reference") or ""
        sentence = _one_sentence(text)
        if len(ids) == 1 and ids[0] in passages and sentence and question.get("answerable", True):
            sources.append(
                Source(
                    f"{name}:{question['id']}", name, sentence, passages[ids[0]], f"{name}:{ids[0]}"
                )  # fmt: skip
            )
    return sources


_PUBLIC = {
    "clapnq": ("clapnq/clapnq_dev_answerable.jsonl", _clapnq),
    "wice": ("wice/claim_test.jsonl", _wice),
    "begin": ("begin/begin_test_wow.tsv", _begin),
}


def read_sources(data_dir: Path, examples_dir: Path | None = EXAMPLES_DIR) -> tuple[
    list[Source], list[str]
]:  # fmt: skip
    """Every source sentence that can be read, and a message for each corpus skipped."""
    sources: list[Source] = []
    skipped: list[str] = []
    for name, (expected, read) in _PUBLIC.items():
        if not (data_dir / expected).is_file():
            skipped.append(
                f"{name}: skipped, {data_dir / expected} not found "
                f"(pass --data-dir pointing at the folder that holds {expected})"
            )
            continue
        sources += read(data_dir)
    for name in ("handbook", "persona"):
        if examples_dir is None or not (examples_dir / name / "questions.jsonl").is_file():
            skipped.append(f"{name}: skipped, the bundled examples/{name} is not here")
            continue
        sources += _bundled(examples_dir, name)
    return sources, skipped


def load_paraphrases(
    sources: list[Source], path: Path = PARAPHRASES
) -> tuple[dict[str, str], list[str]]:
    """source id → hand-written paraphrase, for every line whose source sentence is read and
    unchanged; and the ids of the stale lines (source changed: its hash differs; or gone).
    A line of a corpus that was skipped is neither: it is not counted."""
    if not path.is_file():
        return {}, []
    by_id = {source.id: source for source in sources}
    corpora = {source.corpus for source in sources}
    kept: dict[str, str] = {}
    stale: list[str] = []
    for record in _read_jsonl(path):
        source = by_id.get(record["id"])
        if source is None:
            if record["id"].split(":", 1)[0] in corpora:
                stale.append(f"{record['id']} (source sentence gone)")
        elif sentence_sha(source.sentence) != record["source_sha256"]:
            stale.append(f"{record['id']} (source sentence changed)")
        else:
            kept[source.id] = record["paraphrase"]
    return kept, stale


def build_contrast(
    data_dir: Path,
    seed: int = SPLIT_SEED,
    examples_dir: Path | None = EXAMPLES_DIR,
    paraphrases: Path = PARAPHRASES,
) -> ContrastSet:
    """Every variant of every source sentence, each in the part its passage hashes to."""
    sources, skipped = read_sources(data_dir, examples_dir)
    written, stale = load_paraphrases(sources, paraphrases)
    items: list[ContrastItem] = []
    for source in sources:
        part = hash_part(source.passage_key, seed)
        variants = [Variant("original", source.sentence, "unchanged")]
        for kind, generate in GENERATORS.items():
            made = generate(source.sentence, source.passage, random.Random(f"{source.id}:{kind}"))
            if made is not None and made.text != source.sentence:
                variants.append(made)
        if source.id in written:
            variants.append(Variant("paraphrase", written[source.id], "written by hand"))
        items += [ContrastItem(source, variant, part) for variant in variants]
    notes = [f"{len(sources)} source sentences; {len(written)} hand-written paraphrases"]
    if stale:
        notes.append(
            f"{len(stale)} stale paraphrases left out (fix or drop them in {paraphrases.name}): "
            + ", ".join(stale[:10])
        )
    rule = (
        f"hash split of source passages (sha256, seed {seed}): about half dev, half test; "
        "all variants of a sentence, and all sentences of a passage, in one part"
    )
    return ContrastSet(tuple(items), rule, tuple(notes), tuple(skipped))


def limit_sources(contrast: ContrastSet, limit: int) -> ContrastSet:
    """The variants of the first ``limit`` source sentences of each part."""
    kept: dict[Part, list[str]] = {"dev": [], "test": []}
    for item in contrast.items:
        ids = kept[item.part]
        if item.source.id not in ids and len(ids) < limit:
            ids.append(item.source.id)
    keep = {*kept["dev"], *kept["test"]}
    items = tuple(item for item in contrast.items if item.source.id in keep)
    note = f"limited to the first {limit} source sentences of each part"
    return replace(contrast, items=items, notes=(*contrast.notes, note))
