"""Retrieval scoring side by side: ragcard vs pytrec_eval (trec_eval in C) vs ranx (numba).

A seeded synthetic run — ``--queries`` queries (100,000 by default), ``--docs`` retrieved documents
each, a few graded judgements per query — is scored by all three in the same process for map,
recip_rank, ndcg_cut_5, ndcg_cut_10, P_5, recall_100 and success_5. Printed: wall time of each
(from the same Python dictionaries to per-query values), ratios, and the largest per-query
difference for each measure. Written: ``benchmarks/results/retrieval.json``.

ranx compiles its kernels with numba on first use: that is paid first on a tiny run (and
reported), then ranx is timed warm: building ``Qrels``/``Run`` and a second ``evaluate`` call.
Scores are rounded to 3 decimals so that ties occur, as they do in real BM25 runs: trec_eval (and
ragcard, and pytrec_eval) break ties by document id descending; ranx does not, so it disagrees on
some tied queries.

Run: ``.venv/bin/python benchmarks/bench_retrieval.py [--queries N]``. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ragcard.trec import evaluate

RESULTS = Path(__file__).resolve().parent / "results" / "retrieval.json"

# ragcard/trec_eval name, pytrec_eval key, ranx metric.
MEASURES = [
    ("map", "map", "map"),
    ("recip_rank", "recip_rank", "mrr"),
    ("ndcg_cut_5", "ndcg_cut_5", "ndcg@5"),
    ("ndcg_cut_10", "ndcg_cut_10", "ndcg@10"),
    ("P_5", "P_5", "precision@5"),
    ("recall_100", "recall_100", "recall@100"),
    ("success_5", "success_5", "hit_rate@5"),
]
RAGCARD_SPECS = ["map", "recip_rank", "ndcg_cut.5,10", "P.5", "recall.100", "success.5"]
PYTREC_SPECS = {"map", "recip_rank", "ndcg_cut.5,10", "P.5", "recall.100", "success.5"}

T = TypeVar("T")


def timed(function: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def make_data(
    queries: int, docs: int, seed: int
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]], np.ndarray]:
    """A seeded run and qrels; also which queries have tied scores."""
    rng = np.random.default_rng(seed)
    corpus_size = 1_000_000
    names = [f"doc{j:07d}" for j in range(corpus_size)]
    picked = rng.integers(0, corpus_size, size=(queries, docs))
    while True:  # no document twice in one ranking
        ordered = np.sort(picked, axis=1)
        repeated = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        if not repeated.any():
            break
        picked[repeated] = rng.integers(0, corpus_size, size=(int(repeated.sum()), docs))
    scores = rng.normal(10.0, 3.0, size=(queries, docs))

    qrels: dict[str, dict[str, int]] = {}
    n_relevant = rng.integers(1, 6, size=queries)
    for q in range(queries):
        judged: dict[str, int] = {}
        for _ in range(n_relevant[q]):
            grade = int(rng.integers(1, 4))
            if rng.random() < 0.7:  # retrieved, and pushed up the ranking a little
                position = int(rng.integers(0, docs))
                scores[q, position] += rng.exponential(4.0)
                judged[names[picked[q, position]]] = grade
            else:
                judged[names[int(rng.integers(0, corpus_size))]] = grade
        for position in rng.integers(0, docs, size=int(rng.integers(0, 5))):
            judged.setdefault(names[picked[q, position]], 0)
        qrels[f"q{q}"] = judged

    scores = np.round(scores, 3)
    ordered_scores = np.sort(scores, axis=1)
    tied = (ordered_scores[:, 1:] == ordered_scores[:, :-1]).any(axis=1)
    run = {
        f"q{q}": dict(
            zip(map(names.__getitem__, picked[q].tolist()), scores[q].tolist(), strict=True)
        )
        for q in range(queries)
    }
    return qrels, run, tied


Call = Callable[[], Any]


def prepare_ragcard(qrels: Any, run: Any) -> tuple[dict[str, Any], Call]:
    return {}, lambda: evaluate(qrels, run, RAGCARD_SPECS, per_query=True)


def prepare_pytrec_eval(qrels: Any, run: Any) -> tuple[dict[str, Any], Call]:
    import pytrec_eval

    setup, evaluator = timed(lambda: pytrec_eval.RelevanceEvaluator(qrels, PYTREC_SPECS))
    return {"setup_s": setup}, lambda: evaluator.evaluate(run)


def prepare_ranx(qrels: Any, run: Any) -> tuple[dict[str, Any], Call]:
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    metrics = [ranx_name for _, _, ranx_name in MEASURES]

    def quietly(call: Call) -> Any:
        with warnings.catch_warnings():
            # ranx's numba kernels warn about an int cast on every call; not our concern here.
            warnings.simplefilter("ignore")
            return call()

    # numba compiles on first use: once for building Qrels/Run, once per metric. A tiny run
    # pays that, so what is timed afterwards is warm code.
    tiny = ({"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 2.0, "c": 0.5}})
    jit, _ = timed(lambda: quietly(lambda: ranx_evaluate(Qrels(tiny[0]), Run(tiny[1]), metrics)))
    build_qrels, ranx_qrels = timed(lambda: quietly(lambda: Qrels(qrels)))
    build_run, ranx_run = timed(lambda: quietly(lambda: Run(run)))
    query_ids = ranx_run.get_query_ids()  # ranx returns arrays in this (sorted) order

    def score() -> Any:
        # Per-query arrays, not ranx's per-query dicts (save_results_in_run), which are slower.
        return quietly(
            lambda: ranx_evaluate(
                ranx_qrels, ranx_run, metrics, return_mean=False, save_results_in_run=False
            )
        )

    first, _ = timed(score)
    info = {
        "jit_warmup_s": jit,
        "build_s": build_qrels + build_run,
        "evaluate_first_s": first,
        "query_ids": query_ids,
        "threads": os.environ.get("NUMBA_NUM_THREADS", str(os.cpu_count())),
    }
    return info, score


def agreement(
    ours: Any, pytrec: Any, ranx: Any, ranx_ids: list[str], tied: np.ndarray
) -> dict[str, Any]:
    """Per measure: largest per-query difference between each pair, and how many differ."""
    ranx_index = {qid: i for i, qid in enumerate(ranx_ids)}
    index = {qid: i for i, qid in enumerate(ours.query_ids)}
    values = {column.name: column.values for column in ours.columns}
    qids = sorted(index)
    position = np.array([index[qid] for qid in qids])
    has_tie = np.array([bool(tied[int(qid[1:])]) for qid in qids])
    report: dict[str, Any] = {}
    for name, pytrec_key, ranx_name in MEASURES:
        mine = values[name][position]
        theirs = np.array([pytrec[qid][pytrec_key] for qid in qids])
        numba = ranx[ranx_name][[ranx_index[qid] for qid in qids]]
        ranx_differs = np.abs(mine - numba) > 1e-9
        report[name] = {
            "max_abs_diff_vs_pytrec_eval": float(np.max(np.abs(mine - theirs))),
            "max_abs_diff_vs_ranx": float(np.max(np.abs(mine - numba))),
            "queries_differing_from_ranx": int(ranx_differs.sum()),
            "of_which_have_tied_scores": int((ranx_differs & has_tie).sum()),
            "mean": {
                "ragcard": float(mine.mean()),
                "pytrec_eval": float(theirs.mean()),
                "ranx": float(numba.mean()),
            },
        }
    return report


def version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=100, help="retrieved documents per query")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per tool (best kept)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    print(f"generating {args.queries:,} queries x {args.docs} documents (seed {args.seed}) …")
    generation, (qrels, run, tied) = timed(lambda: make_data(args.queries, args.docs, args.seed))
    print(f"  done in {generation:.1f} s; {int(tied.sum()):,} queries have tied scores")

    prepared = {
        "ragcard": prepare_ragcard(qrels, run),
        "pytrec_eval": prepare_pytrec_eval(qrels, run),
        "ranx": prepare_ranx(qrels, run),
    }
    # Round-robin, so that load from elsewhere on the machine hits every tool alike; the best
    # call of each tool is kept.
    times: dict[str, list[float]] = {tool: [] for tool in prepared}
    outputs: dict[str, Any] = {}
    for _ in range(args.repeat):
        for tool, (_, call) in prepared.items():
            seconds, outputs[tool] = timed(call)
            times[tool].append(seconds)
    pytrec, ranx = prepared["pytrec_eval"][0], prepared["ranx"][0]

    ragcard_s = min(times["ragcard"])
    pytrec_evaluate_s = min(times["pytrec_eval"])
    pytrec_s = pytrec["setup_s"] + pytrec_evaluate_s
    ranx_evaluate_s = min(times["ranx"])
    ranx_s = ranx["build_s"] + ranx_evaluate_s
    rows = [
        ("ragcard", ragcard_s, "evaluate() from the dicts to per-query values"),
        (
            "pytrec_eval",
            pytrec_s,
            f"RelevanceEvaluator {pytrec['setup_s']:.2f} s + evaluate {pytrec_evaluate_s:.2f} s",
        ),
        (
            "ranx",
            ranx_s,
            f"Qrels+Run {ranx['build_s']:.2f} s + warm evaluate {ranx_evaluate_s:.2f} s "
            f"(first call {ranx['evaluate_first_s']:.2f} s; numba JIT warm-up "
            f"{ranx['jit_warmup_s']:.2f} s not counted)",
        ),
    ]
    print(f"\nbest of {args.repeat} calls each, interleaved")
    print(f"{'tool':<12} {'wall s':>8} {'vs ragcard':>11}  detail")
    for tool, seconds, detail in rows:
        print(f"{tool:<12} {seconds:8.2f} {seconds / ragcard_s:10.2f}x  {detail}")
    print(f"ranx warm evaluate alone vs ragcard end to end: {ranx_evaluate_s / ragcard_s:.2f}x")

    agree = agreement(
        outputs["ragcard"], outputs["pytrec_eval"], outputs["ranx"], ranx["query_ids"], tied
    )
    print(f"\n{'measure':<12} {'max|Δ| pytrec_eval':>19} {'max|Δ| ranx':>12} {'ranx ≠ (tied)':>16}")
    for name, row in agree.items():
        print(
            f"{name:<12} {row['max_abs_diff_vs_pytrec_eval']:19.2e} "
            f"{row['max_abs_diff_vs_ranx']:12.2e} "
            f"{row['queries_differing_from_ranx']:>8,} ({row['of_which_have_tied_scores']:,})"
        )

    report = {
        "benchmark": "retrieval scoring: ragcard vs pytrec_eval vs ranx",
        "command": " ".join(["python benchmarks/bench_retrieval.py", *(argv or sys.argv[1:])]),
        "queries": args.queries,
        "docs_per_query": args.docs,
        "seed": args.seed,
        "queries_with_tied_scores": int(tied.sum()),
        "measures": [name for name, _, _ in MEASURES],
        "repeat": args.repeat,
        "seconds": {
            "ragcard": {"evaluate_calls": times["ragcard"], "best": ragcard_s},
            "pytrec_eval": {
                "setup": pytrec["setup_s"],
                "evaluate_calls": times["pytrec_eval"],
                "best_total": pytrec_s,
            },
            "ranx": {
                "jit_warmup_on_a_tiny_run": ranx["jit_warmup_s"],
                "build_qrels_and_run": ranx["build_s"],
                "evaluate_first_call": ranx["evaluate_first_s"],
                "evaluate_later_calls": times["ranx"],
                "best_total": ranx_s,
            },
        },
        "ratio_to_ragcard": {
            "pytrec_eval": pytrec_s / ragcard_s,
            "ranx_build_plus_warm_evaluate": ranx_s / ragcard_s,
            "ranx_warm_evaluate_only": ranx_evaluate_s / ragcard_s,
        },
        "agreement": agree,
        "environment": {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "ranx_threads": ranx["threads"],
            "versions": {
                p: version(p) for p in ("ragcard", "numpy", "ranx", "pytrec-eval-terrier")
            },
        },
        "notes": [
            "Times are wall seconds in one process, from the same Python dicts to per-query "
            "values, best of `repeat` interleaved calls (every call is listed). ragcard: "
            "evaluate(); "
            "pytrec_eval: evaluator construction + evaluate(); ranx: Qrels()+Run() "
            "construction + evaluate() after a first call, numba's JIT compilation having been "
            "paid on a tiny run (reported, not counted).",
            "Scores have 3 decimals so some queries have ties. trec_eval, pytrec_eval and "
            "ragcard break ties by document id descending; ranx orders tied documents "
            "differently, so its values differ on some tied queries.",
        ],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
