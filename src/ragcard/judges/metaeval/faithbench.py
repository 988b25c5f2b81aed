"""FaithBench (Bao et al., NAACL 2025): LLM summaries with human hallucination labels,
sample level. **Licence CC BY-NC-SA 4.0: evaluation only, never for training, not shipped.**

Claims = the summary's sentences (all must be supported); evidence = the source passage.
Gold is the authors' binarisation of the worst label: ``Consistent``/``Benign`` → supported
(consistent), ``Questionable``/``Unwanted`` → not supported (hallucinated). Samples were chosen
because existing detectors disagree on them: they are hard by construction, and the best
detectors score near 50% balanced accuracy. Split by a seeded hash of the row id; the group
is the summarising LLM.

:func:`faithbench_reference_results` recomputes the detectors' balanced accuracy from the
predictions shipped in the batch files (on the 750 samples that have them).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from ragcard.judges.base import Evidence
from ragcard.judges.metaeval.examples import (
    SPLIT_SEED,
    Dataset,
    LabelledExample,
    Reference,
    hash_part,
    hash_split_rule,
    require_file,
    split_sentences,
)
from ragcard.judges.metaeval.metrics import balanced_accuracy

__all__ = ["DETECTORS", "faithbench_reference_results", "read_faithbench"]

LICENCE = "CC BY-NC-SA 4.0: non-commercial, evaluation only, never for training"
CREDIT = (
    "FaithBench: Bao et al., 'FaithBench: A Diverse Hallucination Benchmark for Summarization "
    "by Modern LLMs', NAACL 2025; github.com/vectara/FaithBench"
)
CONSISTENT = frozenset({"Consistent", "Benign"})
#: Detector predictions shipped in the batch files' metadata (1 or prob. = consistent).
DETECTORS = (
    "gpt_4o", "gpt-4-turbo", "gpt-3.5-turbo", "trueteacher", "true_nli", "hhem-2.1",
    "hhem-2.1-english", "hhemv1",
)  # fmt: skip


def _read_csv(data_dir: Path) -> list[dict[str, str]]:
    path = require_file(
        data_dir / "faithbench" / "FaithBench.csv", "FaithBench", "faithbench/FaithBench.csv"
    )
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def read_faithbench(data_dir: Path, seed: int = SPLIT_SEED) -> Dataset:
    """Read ``data_dir/faithbench/FaithBench.csv`` (800 samples), hash-split by row id."""
    examples = []
    for number, row in enumerate(_read_csv(data_dir), start=1):
        example_id = f"faithbench-{number:03d}"
        claims = split_sentences(row["summary"]) or (row["summary"].strip(),)
        examples.append(
            LabelledExample(
                id=example_id,
                claims=claims,
                evidence_sets=((Evidence("source", row["source"]),),),
                supported=row["worst-label"] in CONSISTENT,
                label=row["worst-label"],
                part=hash_part(example_id, seed),
                group=row["LLM"],
            )
        )
    return Dataset(
        name="faithbench",
        title="FaithBench, LLM summaries vs. source (sample level)",
        examples=tuple(examples),
        split_rule=hash_split_rule(seed),
        licence=LICENCE,
        credit=CREDIT,
        notes=(
            "gold: worst label binarised (Consistent/Benign = consistent)",
            "hard by construction: samples chosen where detectors disagree",
        ),
        references=faithbench_reference_results(data_dir),
    )


def faithbench_reference_results(data_dir: Path) -> tuple[Reference, ...]:
    """Balanced accuracy of the detectors whose predictions ship with the data.

    As the data README computes it: the 750 samples of the batch files, gold = the CSV's worst
    label binarised, prediction = consistent when the value >= 0.5, a missing prediction
    counted as hallucinated. Returns nothing when the batch files are absent.
    """
    gold = {
        (r["source"], r["summary"]): r["worst-label"] in CONSISTENT for r in _read_csv(data_dir)
    }
    batches = sorted((data_dir / "faithbench" / "batches").glob("batch_*.json"))
    samples = [
        sample
        for path in batches
        for sample in json.loads(path.read_text(encoding="utf-8"))["samples"]
        if (sample["source"], sample["summary"]) in gold
    ]
    if not samples:
        return ()
    human = np.array([gold[(s["source"], s["summary"])] for s in samples])
    references = []
    for detector in DETECTORS:
        values = [s["metadata"].get(detector) for s in samples]
        predicted = np.array([v is not None and float(v) >= 0.5 for v in values])
        value = balanced_accuracy(human, predicted)
        if value is not None:
            references.append(
                Reference(
                    detector,
                    {"balanced_accuracy": value},
                    f"{len(samples)} samples with detector outputs (full set, not our test part)",
                    "recomputed from the predictions in batches/*.json; the paper reports the "
                    "best detectors near 50% balanced accuracy",
                )
            )
    return tuple(references)
