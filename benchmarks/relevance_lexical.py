"""The judges' relevance check on CLAPNQ dev: does an answer address the question?

Positives: each answerable CLAPNQ dev question with its first human-written answer. Negatives,
two kinds: *shifted* — the answer of another question (the next one in the file: almost
always a different topic, easy); *nearest* — the answer of the other question whose content
terms overlap this question's most (same topic words, a different question: hard). Each
threshold was chosen on questions 0–149 (``--tune``, maximum balanced accuracy over both
kinds); figures are reported on questions 150–299, which it never saw. Needs
``../shared/data/clapnq``.

Two judges, through their own code: ``lexical`` (share of the question's content terms in the
answer, :data:`ragcard.judges.lexical_tasks.RELEVANCE_THRESHOLD`) and, when the ``embed``
extra is installed, ``embedding`` (question–answer cosine,
:data:`ragcard.judges.embedding.RELEVANCE_THRESHOLD`; the ``ensemble`` judge answers relevance
the same way).

    .venv/bin/python benchmarks/relevance_lexical.py          # report on 150-299
    .venv/bin/python benchmarks/relevance_lexical.py --tune   # the tuning run on 0-149
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import sys
from pathlib import Path

import numpy as np

from ragcard.judges.base import JudgeContext
from ragcard.judges.lexical import LexicalJudge, content_terms
from ragcard.judges.lexical_tasks import RELEVANCE_THRESHOLD as LEXICAL_THRESHOLD
from ragcard.judges.metaeval.metrics import auroc, balanced_accuracy, tune_threshold

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "clapnq"


def load(path: Path) -> list[tuple[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))[1:]
    return [(row[1], row[3].split("::")[0]) for row in rows]


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


def scores(judge: object, data: list[tuple[str, str, bool, str]]) -> np.ndarray:
    """The judge's relevance score of each (question, answer), asked one question at a time
    with its three answers, as a run asks about an item's answers."""

    async def ask() -> list[float]:
        found: list[float] = []
        for start in range(0, len(data), 3):
            group = data[start : start + 3]
            ctx = JudgeContext(tuple(a for _, a, _, _ in group), (), group[0][0], "relevance")
            found += [v.score for v in await judge.judge(ctx)]  # type: ignore[attr-defined]
        return found

    return np.array(asyncio.run(ask()))


def report(name: str, chosen: np.ndarray, s: np.ndarray, human: np.ndarray, t: float) -> None:
    h, x = human[chosen], s[chosen]
    print(f"{name}: n={len(x)} AUROC {auroc(h, x):.3f} "
          f"balanced accuracy {balanced_accuracy(h, x >= t):.3f} at threshold {t:g}; "
          f"own answers judged relevant {np.mean(x[h] >= t):.3f}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tune", action="store_true", help="the tuning run on questions 0-149")
    args = parser.parse_args()
    path = DATA / "question_dev_answerable.tsv"
    if not path.is_file():
        print(f"skipped: {path} not found (CLAPNQ dev, see ../shared/data)", file=sys.stderr)
        return 0
    rows = load(path)
    data = pairs(rows[:150] if args.tune else rows[150:300])
    judges: list[tuple[str, object, float]] = [("lexical", LexicalJudge(), LEXICAL_THRESHOLD)]
    try:
        from ragcard.judges.embedding import RELEVANCE_THRESHOLD, EmbeddingJudge

        judges.append(("embedding", EmbeddingJudge(), RELEVANCE_THRESHOLD))
    except ImportError as error:  # the embed extra is not installed
        print(f"embedding judge skipped: {error}", file=sys.stderr)
    human = np.array([h for _, _, h, _ in data])
    kinds = np.array([k for _, _, _, k in data])
    label = "tuning part 0-149" if args.tune else "reported part 150-299"
    for name, judge, threshold in judges:
        s = scores(judge, data)
        if args.tune:
            best = tune_threshold(list(s), list(human))
            print(f"{name}: tuned on questions 0-149 (both negative kinds): best {best:.4f}")
        for kind in ("shifted", "nearest"):
            chosen = (kinds == "own") | (kinds == kind)
            report(f"{name}, {label}, negatives {kind}", chosen, s, human, threshold)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
