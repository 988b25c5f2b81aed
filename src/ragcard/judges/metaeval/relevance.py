"""Human labels of answer relevance (does the answer address the question?), for measuring a
judge's ``relevance`` task as support is measured.

Your own labels: one JSON object per line (JSON Lines, UTF-8)::

    {"question": "How many days of leave do I get?", "answer": "25 days a year.",
     "label": "relevant", "group": "hr", "id": "R-001", "split": "test"}

* ``question``, ``answer`` (required) — what was asked and what the agent said.
* ``label`` (required) — ``relevant`` | ``not_relevant``.
* ``group``, ``id``, ``split`` — as in the support labels (:mod:`.userlabels`).

``ragcard judges evaluate --dataset FILE.jsonl`` tells the two formats apart by their fields
(``answer`` and ``question``, no ``claim``). The report's "supported" reads "relevant".

Built in: ``clapnq-relevance`` — CLAPNQ dev's 300 answerable questions, each against its own
first human answer (relevant), the next question's answer (not relevant: another topic) and the
answer of the question sharing most of its content words (not relevant: same words, another
question), both taken from the question's own part. Questions 0–149 are the dev part (a
threshold is tuned there), 150–299 the reported part: the protocol the relevance thresholds
of the ``lexical`` and ``embedding`` judges were set by (``benchmarks/relevance_lexical.py``).
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ragcard.inputs._jsonl import load_records
from ragcard.judges.metaeval.examples import (
    SPLIT_SEED,
    Dataset,
    LabelledExample,
    require_file,
)
from ragcard.judges.metaeval.userlabels import labels_dataset, line_part, repeated_id

__all__ = ["RelevanceRecord", "read_clapnq_relevance", "read_relevance_labels"]

_NOTE = "relevance: 'supported' in this report means the answer addresses the question"


class RelevanceRecord(BaseModel):
    """One line of a relevance labels file (see the module docstring)."""

    model_config = ConfigDict(extra="allow")
    question: str = Field(min_length=1)
    answer: str
    label: Literal["relevant", "not_relevant"]
    group: str | None = None
    id: str | None = None
    split: Literal["dev", "test", "heldout"] | None = None

    def stable_id(self) -> str:
        if self.id:
            return self.id
        text = f"{self.question}\x1f{self.answer}"
        return "h" + hashlib.sha256(text.encode()).hexdigest()[:12]


def read_relevance_labels(path: Path, seed: int = SPLIT_SEED) -> Dataset:
    """Read a relevance labels file; raises :class:`InputError` listing every bad line."""
    records, problems = load_records(path, RelevanceRecord, "labelled answer")
    examples: list[LabelledExample] = []
    seen: dict[str, int] = {}
    for line, record in records:
        example_id = record.stable_id()
        problems += repeated_id(seen, path, line, example_id)
        examples.append(
            LabelledExample(
                id=example_id,
                claims=(record.answer,),
                evidence_sets=(),
                supported=record.label == "relevant",
                label=record.label,
                part=line_part(record.split, example_id, seed),
                group=record.group,
                task="relevance",
                question=record.question,
            )
        )
    return labels_dataset(
        path,
        seed,
        examples,
        problems,
        what="labelled answers",
        note=_NOTE,
        fixed_split=any(record.split for _, record in records),
        task="relevance",
    )


CLAPNQ_FILE = "question_dev_answerable.tsv"


def read_clapnq_relevance(data_dir: Path) -> Dataset:
    """The built-in ``clapnq-relevance`` set (see the module docstring)."""
    from ragcard.judges.lexical import content_terms  # (importing ragcard.judges loads no judge)

    path = data_dir / "clapnq" / CLAPNQ_FILE
    require_file(path, "CLAPNQ", f"clapnq/{CLAPNQ_FILE}")
    with path.open(encoding="utf-8", newline="") as handle:
        table = list(csv.reader(handle, delimiter="\t"))[1:]  # id, question, doc ids, answers
    rows = [(row[0], row[1], row[3].split("::")[0]) for row in table]
    examples = [
        *_pairs(rows[:150], "dev", content_terms),
        *_pairs(rows[150:], "test", content_terms),
    ]
    return Dataset(
        name="clapnq-relevance",
        title="CLAPNQ dev, answer relevance (own answer vs. two others)",
        examples=tuple(examples),
        split_rule="questions 0-149 dev (threshold tuned), 150-299 test (reported)",
        licence="Apache-2.0 (CLAPNQ); passage text from Wikipedia via Natural Questions",
        credit="Rosenthal et al., CLAPnq (TACL 2024), github.com/primeqa/clapnq",
        notes=(_NOTE, "groups: own (relevant), shifted and nearest (not relevant)"),
        fixed_split=True,
        task="relevance",
    )


def _pairs(
    rows: list[tuple[str, str, str]],
    part: Literal["dev", "test"],
    content_terms: Callable[[str], set[str]],
) -> list[LabelledExample]:
    """Each question of one part with its own answer and two wrong ones from the same part:
    the next question's, and that of the question sharing most content words."""
    terms = [content_terms(question) for _, question, _ in rows]
    examples = []
    for i, (qid, question, answer) in enumerate(rows):
        overlap = [len(terms[i] & t) if j != i else -1 for j, t in enumerate(terms)]
        nearest = max(range(len(rows)), key=lambda j: (overlap[j], -j))  # first of the best
        for kind, text, relevant in (
            ("own", answer, True),
            ("shifted", rows[(i + 1) % len(rows)][2], False),
            ("nearest", rows[nearest][2], False),
        ):
            examples.append(
                LabelledExample(
                    id=f"{qid}:{kind}",
                    claims=(text,),
                    evidence_sets=(),
                    supported=relevant,
                    label="relevant" if relevant else "not_relevant",
                    part=part,
                    group=kind,
                    task="relevance",
                    question=question,
                )
            )
    return examples
