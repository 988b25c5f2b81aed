"""WiCE (Kamoi et al., EMNLP 2023): Wikipedia claims vs. the articles they cite, claim level,
with **oracle retrieval** (the authors' oracle chunks), as the authors evaluate it.

Each claim has usually three chunks (an annotator's supporting sentences plus distractors);
each chunk is one evidence set, scored separately, and the claim's score is the maximum over
its chunks (the authors' protocol). Binary task: ``supported`` vs. partially or not supported.
Labels are taken from the oracle-chunk file, the authors' own evaluation input (it differs
from ``claim_test.jsonl`` on one claim, ``test02178``).

Two datasets are read from the same file:

* ``wice`` — all 358 claims, split by the seeded hash of the claim id.
* ``wice-100`` — the authors' 100-claim subset (the first 100 distinct ids in file order) is
  the reported part; the other 258 claims are the tuning part. Published figures refer to it.

Anything reported on these must say "oracle retrieval", per the authors.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ragcard.judges.base import Evidence
from ragcard.judges.metaeval.examples import (
    SPLIT_SEED,
    Dataset,
    LabelledExample,
    Part,
    Reference,
    hash_part,
    hash_split_rule,
    require_file,
)
from ragcard.judges.metaeval.metrics import accuracy, auroc, f1

__all__ = ["PUBLISHED_SUBSET_SIZE", "read_wice", "wice_reference_results"]

CHUNKS_FILE = "oracle_chunks_claim_test.jsonl"
PUBLISHED_SUBSET_SIZE = 100
LICENCE = (
    "annotations ODC-BY 1.0; claims from Wikipedia (CC BY-SA); evidence from Common Crawl "
    "(Common Crawl terms of use)"
)
CREDIT = (
    "WiCE: Kamoi, Goyal, Rodriguez, Durrett, 'WiCE: Real-World Entailment for Claims in "
    "Wikipedia', EMNLP 2023; github.com/ryokamoi/wice"
)
_POPULATION = "100-claim subset, oracle retrieval, claim level"
# Authors' reference outputs (MIT), recomputed by wice_reference_results: file stem → system.
_REFERENCE_SYSTEMS = {
    "claim_gpt-4-0613_test": "GPT-4 (authors' outputs)",
    "claim_t5-3b-anli-wice_test": "T5-3B ANLI+WiCE (authors' outputs)",
}
# Rows of the authors' result_table.tex with no released outputs here: claim F1 and accuracy.
_TABLE_ONLY = {
    "T5-3B ANLI (paper table)": {"f1_supported": 0.618, "accuracy": 0.740},
    "GPT-3.5 (paper table)": {"f1_supported": 0.393, "accuracy": 0.320},
}


def _read_chunks(data_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Chunk rows grouped by claim id, in file order."""
    path = require_file(data_dir / "wice" / CHUNKS_FILE, "WiCE", f"wice/{CHUNKS_FILE}")
    grouped: dict[str, list[dict[str, Any]]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                grouped.setdefault(row["meta"]["id"], []).append(row)
    return grouped


def read_wice(data_dir: Path, published_subset: bool = False, seed: int = SPLIT_SEED) -> Dataset:
    """Read WiCE claims with oracle chunks from ``data_dir/wice``.

    ``published_subset``: report on the authors' 100-claim subset and tune on the other 258
    claims (``wice-100``); otherwise all 358 claims with a hash split (``wice``).
    """
    grouped = _read_chunks(data_dir)
    subset = set(list(grouped)[:PUBLISHED_SUBSET_SIZE])
    examples = []
    for claim_id, rows in grouped.items():
        label = rows[0]["label"]
        part: Part
        if published_subset:
            part = "test" if claim_id in subset else "dev"
        else:
            part = hash_part(claim_id, seed)
        evidence_sets = tuple(
            (Evidence(f"{claim_id}#chunk{k}", "\n".join(row["evidence"])),)
            for k, row in enumerate(rows)
        )
        examples.append(
            LabelledExample(
                id=claim_id,
                claims=(rows[0]["claim"],),
                evidence_sets=evidence_sets,
                supported=label == "supported",
                label=label,
                part=part,
            )
        )
    if published_subset:
        name, title = "wice-100", "WiCE, published 100-claim subset (oracle retrieval)"
        rule = (
            "authors' split: tuned on the 258 claims outside the published 100-claim subset, "
            "reported on the subset (first 100 claim ids of the oracle-chunk file)"
        )
    else:
        name, title = "wice", "WiCE, all 358 test claims (oracle retrieval)"
        rule = hash_split_rule(seed)
    references = wice_reference_results(data_dir) if published_subset else ()
    return Dataset(
        name=name,
        title=title,
        examples=tuple(examples),
        split_rule=rule,
        licence=LICENCE,
        credit=CREDIT,
        notes=("binary: supported vs. partially/not supported; claim score = max over chunks",),
        references=references,
        fixed_split=published_subset,
    )


def wice_reference_results(data_dir: Path) -> tuple[Reference, ...]:
    """The authors' figures, recomputed with our metric code from their released outputs.

    Exactly as in their evaluation: the 100-claim subset, positive class ``supported``,
    predict supported when score **>** the threshold in their evaluation file (0.5 for GPT-4,
    0.54 for T5). A test checks the results equal the published numbers (GPT-4 F1 0.6102,
    accuracy 0.77, AUROC 0.8024; T5 F1 0.7778, accuracy 0.88, AUROC 0.9470).
    """
    grouped = _read_chunks(data_dir)
    labels = {claim_id: rows[0]["label"] == "supported" for claim_id, rows in grouped.items()}
    folder = data_dir / "wice" / "reference_outputs"
    references = []
    for stem, system in _REFERENCE_SYSTEMS.items():
        scores_path = folder / f"{stem}.entailment_score.json"
        evaluation_path = folder / f"{stem}.entailment_score.evaluation.json"
        if not (scores_path.is_file() and evaluation_path.is_file()):
            continue
        scores: dict[str, float] = json.loads(scores_path.read_text(encoding="utf-8"))
        evaluation = json.loads(evaluation_path.read_text(encoding="utf-8"))
        threshold = float(evaluation["f1"]["0_vs_1,2"]["threshold"])
        ids = list(scores)
        human = np.array([labels[i] for i in ids])
        values = np.array([scores[i] for i in ids], dtype=float)
        predicted = values > threshold
        metrics = {
            "f1_supported": f1(human, predicted, positive=True),
            "accuracy": accuracy(human, predicted),
            "auroc": auroc(human, values),
        }
        kept = {name: value for name, value in metrics.items() if value is not None}
        references.append(
            Reference(system, kept, _POPULATION, f"recomputed from {scores_path.name} (MIT)")
        )
    references += [
        Reference(system, metrics, _POPULATION, "result_table.tex (Kamoi et al., 2023)")
        for system, metrics in _TABLE_ONLY.items()
    ]
    return tuple(references)
