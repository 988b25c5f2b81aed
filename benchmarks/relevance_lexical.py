"""The lexical judge's relevance check on CLAPNQ dev: does an answer address the question?

Positives: each answerable CLAPNQ dev question with its first human-written answer. Negatives,
two kinds: *shifted* — the answer of another question (the next one in the file: almost
always a different topic, easy); *nearest* — the answer of the other question whose content
terms overlap this question's most (same topic words, a different question: hard). The
threshold :data:`RELEVANCE_THRESHOLD` was chosen on questions 0–149 (``--tune``); figures are
reported on questions 150–299, which it never saw. Needs ``../shared/data/clapnq``.

    .venv/bin/python benchmarks/relevance_lexical.py          # report on 150-299
    .venv/bin/python benchmarks/relevance_lexical.py --tune   # the tuning run on 0-149
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

from ragcard.judges.lexical import content_terms
from ragcard.judges.lexical_tasks import RELEVANCE_THRESHOLD, question_coverage
from ragcard.judges.metaeval.metrics import auroc, balanced_accuracy, tune_threshold

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "clapnq"


def load(path: Path) -> list[tuple[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))[1:]
    return [(row[1], row[3].split("::")[0]) for row in rows]


def _score(question: str, answer: str) -> float:
    share, _ = question_coverage(question, answer)
    return 1.0 if share is None else share  # no content word to look for: the judge says yes


def pairs(rows: list[tuple[str, str]]) -> list[tuple[str, str, bool, str]]:
    """(question, answer, addresses it, kind) for the positives and both kinds of negative."""
    terms = [content_terms(q) for q, _ in rows]
    out = []
    for i, (question, answer) in enumerate(rows):
        out.append((question, answer, True, "own"))
        out.append((question, rows[(i + 1) % len(rows)][1], False, "shifted"))
        overlap = [len(terms[i] & t) if j != i else -1 for j, t in enumerate(terms)]
        out.append((question, rows[int(np.argmax(overlap))][1], False, "nearest"))
    return out


def report(name: str, chosen: list[tuple[str, str, bool, str]], threshold: float) -> None:
    scores = np.array([_score(q, a) for q, a, _, _ in chosen])
    human = np.array([h for _, _, h, _ in chosen])
    ba = balanced_accuracy(human, scores >= threshold)
    print(f"{name}: n={len(chosen)} AUROC {auroc(human, scores):.3f} "
          f"balanced accuracy {ba:.3f} at threshold {threshold:g}; "
          f"own answers judged relevant {np.mean(scores[human] >= threshold):.3f}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tune", action="store_true", help="the tuning run on questions 0-149")
    args = parser.parse_args()
    path = DATA / "question_dev_answerable.tsv"
    if not path.is_file():
        print(f"skipped: {path} not found (CLAPNQ dev, see ../shared/data)", file=sys.stderr)
        return 0
    rows = load(path)
    part = rows[:150] if args.tune else rows[150:]
    data = pairs(part)
    if args.tune:
        scores = [_score(q, a) for q, a, _, _ in data]
        best = tune_threshold(scores, [h for _, _, h, _ in data])
        print(f"tuned on questions 0-149 (both negative kinds): best threshold {best:.4f}")
    label = "tuning part 0-149" if args.tune else "reported part 150-299"
    for kind in ("shifted", "nearest"):
        chosen = [x for x in data if x[3] in ("own", kind)]
        report(f"{label}, negatives {kind}", chosen, RELEVANCE_THRESHOLD)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
