"""Cross-validate the ``ensemble`` judge's signals on its training part only.

Before a new signal ships in :mod:`ragcard.judges.ensemble_features`, it has to help on data the
reported figures never see. This script measures that. The 258 WiCE claims outside the published
100 are cut into ``--folds`` folds by a hash of the claim id. Each fold is scored by a model
trained on the other folds plus BEGIN's dev file, through the shipped training code
(:func:`~ragcard.judges.ensemble_train.fit_ensemble`: multiple-instance L2 logistic regression,
threshold of maximum balanced accuracy on its training rows). It then prints the out-of-fold
AUROC and the F1 of the "supported" class (WiCE's binary task) for:

* the shipped signals (``BASE_FEATURES``);
* each candidate signal below added on its own, then all of them;
* each shipped signal dropped in turn (``--drop``), and each ``--l2`` value;
* the shipped signals trained on the WiCE folds alone, without BEGIN's dev file
  (``--no-begin``), and with the ``local`` judge's vote added (``--llm-cache FILE``: its
  verdicts on the 258 claims, e.g. left by ``ragcard judges evaluate --judge local --option
  cache=FILE --dataset wice-100 --threshold tune``; BEGIN's dev file has no votes, so these
  runs train on the WiCE folds alone).

The published 100 claims (WiCE's reported part) and BEGIN's test file are never read into a
model or a threshold here.

Candidates (per claim and evidence set; clauses as in ``ensemble_features.clauses``):
``clause_count`` log(1 + clauses); ``clause_low_share`` share of clauses whose IDF-weighted
coverage by the passages is under 0.75; ``clause_min_sent`` the lowest, over clauses, of the
best single sentence's coverage; ``clause_mean_cov`` mean clause coverage; ``lex_x_emb``
lexical coverage × best cosine; ``coverage_gap`` coverage anywhere minus best-sentence coverage.

Needs the ``embed`` extra and ``../shared/data`` (WiCE, BEGIN); skips with a message otherwise.
Extraction takes ~1.5 min on 2 cores; ``--cache FILE`` keeps the extracted rows for reruns.

    .venv/bin/python benchmarks/ensemble_cv.py --cache /tmp/ensemble-rows.pkl
    .venv/bin/python benchmarks/ensemble_cv.py --drop --l2 1 3 10 30 100

Results: ``benchmarks/results/ensemble_cv.json``. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "ensemble_cv.json"
CANDIDATES = (
    "clause_count",
    "clause_low_share",
    "clause_min_sent",
    "clause_mean_cov",
    "lex_x_emb",
    "coverage_gap",
)
LOW_COVERAGE = 0.75
NO_BEGIN = "shipped signals, no BEGIN dev"
WITH_LLM = "+ llm_vote, no BEGIN dev"


def candidate_values(claim: str, passages: Sequence[Any], base: dict[str, float]) -> list[float]:
    """The :data:`CANDIDATES` of one claim against one evidence set, in order."""
    from ragcard.judges.ensemble_features import clauses
    from ragcard.judges.lexical import _Index, content_terms

    index = _Index(passages)
    everywhere = set(index.document_frequency)
    pieces = clauses(claim)
    coverages, best_sentence = [], []
    for piece in pieces:
        terms = content_terms(piece)
        weights = {term: index.weight(term) for term in terms}
        total = sum(weights.values()) or 1.0
        coverages.append(sum(weights[t] for t in terms & everywhere) / total)
        best_sentence.append(
            max(
                (sum(weights[t] for t in terms & s.terms) / total for s in index.sentences),
                default=0.0,
            )
        )
    return [
        math.log1p(len(pieces)),
        float(np.mean([c < LOW_COVERAGE for c in coverages])),
        min(best_sentence),
        float(np.mean(coverages)),
        base["lexical_coverage"] * base["emb_max"],
        base["coverage_all"] - base["lexical_coverage"],
    ]


def extend(row: Any) -> Any:
    """``row`` with the candidate columns appended to every evidence set's matrix."""
    from ragcard.judges.ensemble_features import FEATURES
    from ragcard.judges.ensemble_train import ExampleFeatures

    sets = []
    for matrix, passages in zip(row.sets, row.example.evidence_sets or ((),), strict=True):
        extra = [
            candidate_values(claim, passages, dict(zip(FEATURES, matrix[c], strict=True)))
            for c, claim in enumerate(row.example.claims)
        ]
        sets.append(np.hstack([matrix, np.array(extra, dtype=np.float64)]))
    return ExampleFeatures(row.example, row.dataset, tuple(sets))


def load_rows(data_dir: Path, cache: Path | None) -> dict[str, list[Any]]:
    """WiCE's 258 training claims and BEGIN dev, with every signal and candidate."""
    if cache is not None and cache.is_file():
        rows: dict[str, list[Any]] = pickle.loads(cache.read_bytes())
        return rows
    from ragcard.judges.ensemble_train import default_extractor, extract_examples
    from ragcard.judges.metaeval.datasets import load_datasets

    wice, begin = load_datasets(["wice-100", "begin"], data_dir, None)
    extractor = default_extractor()
    rows = {
        "wice_dev": [extend(r) for r in extract_examples(extractor, wice, "dev")],
        "begin_dev": [extend(r) for r in extract_examples(extractor, begin, "dev")],
    }
    if cache is not None:
        cache.write_bytes(pickle.dumps(rows))
    return rows


def cross_validate(
    rows: dict[str, list[Any]],
    features: Sequence[str],
    folds: int,
    l2: float,
    with_begin: bool = True,
) -> dict[str, float]:
    """Out-of-fold AUROC and F1 (supported) over the WiCE training claims; each fold's model
    is trained on the other folds, plus BEGIN's dev file unless ``with_begin`` is false."""
    from ragcard.judges.ensemble_train import example_scores, fit_ensemble
    from ragcard.judges.metaeval.metrics import auroc, f1

    wice = rows["wice_dev"]
    fold_of = [int(hashlib.sha256(r.example.id.encode()).hexdigest(), 16) % folds for r in wice]
    scores, predicted = np.zeros(len(wice)), np.zeros(len(wice), dtype=bool)
    for k in range(folds):
        train = [r for r, fold in zip(wice, fold_of, strict=True) if fold != k]
        model = fit_ensemble((rows["begin_dev"] if with_begin else []) + train, features, l2)
        held = [i for i, fold in enumerate(fold_of) if fold == k]
        fold_scores = example_scores([wice[i] for i in held], model)
        scores[held], predicted[held] = fold_scores, fold_scores >= model.threshold
    labels = np.array([r.example.supported for r in wice], dtype=bool)
    # both are None only when the labels hold one class
    figures = {"auroc": auroc(labels, scores), "f1_supported": f1(labels, predicted, True)}
    return {name: round(v, 4) if v is not None else float("nan") for name, v in figures.items()}


def add_llm_votes(rows: dict[str, list[Any]], cache: Path) -> None:
    """Fill the ``llm_vote`` column of the WiCE training rows with the ``local`` judge's
    scores (its defaults: Qwen2.5-Coder-1.5B, probability score), from ``cache`` where it
    holds them (the model is only loaded for what it lacks). BEGIN's rows keep NaN."""
    import asyncio

    from ragcard.judges.base import JudgeContext
    from ragcard.judges.ensemble_features import FEATURES, LLM_FEATURE
    from ragcard.judges.local import LocalJudge

    column = FEATURES.index(LLM_FEATURE)
    judge = LocalJudge(cache=str(cache))

    async def fill() -> None:
        for row in rows["wice_dev"]:
            for matrix, passages in zip(row.sets, row.example.evidence_sets, strict=True):
                verdicts = await judge.judge(JudgeContext(row.example.claims, passages))
                matrix[:, column] = [v.score for v in verdicts]

    try:
        asyncio.run(fill())
    finally:
        print(f"llm votes: {judge.stats().to_json()}", file=sys.stderr)
        judge.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--l2", type=float, nargs="*", default=[], help="also these L2 values")
    parser.add_argument("--drop", action="store_true", help="also drop each shipped signal")
    parser.add_argument(
        "--no-begin", action="store_true", help="also train on the WiCE folds alone (no BEGIN)"
    )
    parser.add_argument(
        "--llm-cache",
        type=Path,
        help="add the local judge's vote, read from this judge cache (WiCE folds alone)",
    )
    parser.add_argument("--cache", type=Path, help="pickle of the extracted rows (reused)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if not (args.data_dir / "wice").is_dir() or not (args.data_dir / "begin").is_dir():
        print(f"skipped: WiCE and BEGIN not found under {args.data_dir}", file=sys.stderr)
        return 0
    from ragcard.reference.embeddings import embeddings_available

    if not embeddings_available():
        print("skipped: needs the embed extra (pip install 'ragcard[embed]')", file=sys.stderr)
        return 0
    import ragcard.judges.ensemble_train as ensemble_train
    from ragcard.judges.ensemble_features import BASE_FEATURES, FEATURES, LLM_FEATURE

    rows = load_rows(args.data_dir, args.cache)
    # the candidates become known feature names for this process only
    setattr(ensemble_train, "FEATURES", (*FEATURES, *CANDIDATES))  # noqa: B010
    default_l2 = ensemble_train.DEFAULT_L2
    runs: list[tuple[str, Sequence[str], float]] = [("shipped signals", BASE_FEATURES, default_l2)]
    if args.no_begin or args.llm_cache:
        runs.append((NO_BEGIN, BASE_FEATURES, default_l2))
    if args.llm_cache:
        add_llm_votes(rows, args.llm_cache)
        runs.append((WITH_LLM, (*BASE_FEATURES, LLM_FEATURE), default_l2))
    runs += [(f"+ {name}", (*BASE_FEATURES, name), default_l2) for name in CANDIDATES]
    runs.append(("+ all candidates", (*BASE_FEATURES, *CANDIDATES), default_l2))
    if args.drop:
        runs += [
            (f"- {name}", tuple(f for f in BASE_FEATURES if f != name), default_l2)
            for name in BASE_FEATURES
        ]
    runs += [(f"l2 = {l2:g}", BASE_FEATURES, l2) for l2 in args.l2]
    results = []
    print(f"{args.folds}-fold CV on {len(rows['wice_dev'])} WiCE training claims (+ BEGIN dev)")
    for label, features, l2 in runs:
        alone = label in (NO_BEGIN, WITH_LLM)  # BEGIN's rows have no LLM vote
        figures = cross_validate(rows, features, args.folds, l2, with_begin=not alone)
        results.append({"run": label, "features": list(features), "l2": l2, **figures})
        auroc, f1 = figures["auroc"], figures["f1_supported"]
        print(f"  {label:<28} AUROC {auroc:.4f}  F1(supported) {f1:.4f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "benchmark": "ensemble signals, cross-validated on the training part only",
                "command": "python benchmarks/ensemble_cv.py " + " ".join(argv or sys.argv[1:]),
                "folds": args.folds,
                "training_claims": len(rows["wice_dev"]),
                "begin_dev_examples": len(rows["begin_dev"]),
                "results": results,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
