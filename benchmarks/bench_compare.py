"""``ragcard compare`` of two large runs, and the exact McNemar test behind its pass-rate gate.

Two runs of one seeded synthetic question set (``bench_score``'s generator: ``--items`` items,
``--attempts`` attempts each, 50,000 x 1 by default) are scored with ``score_responses``: the
baseline, then a current run in which a share (``--changed``) of the items got a fresh draw of
their responses, so thousands of items flip between pass and fail (the discordant pairs of the
McNemar test). Then, each in a fresh process, best of ``--repeat``:

* ``compare_runs(baseline, current)`` as ``ragcard compare`` calls it: wall and CPU seconds,
  and peak RSS (``ru_maxrss``);
* with ``--before``, the same with ``ragcard.decision.baseline`` as it was at ``--before-rev``
  (git; the commit before issue 16 by default), with the exact big-integer McNemar sum and the
  ``json.loads``-over-``readlines()`` reader it used then, so the ratio is measured in the same
  run on the same files.

And in this process, the McNemar p-value alone at 1,000 / 10,000 / 50,000 discordant pairs (45%
one way): ragcard, ``scipy.stats.binomtest`` (when scipy is installed: it is a development
dependency only) and, up to ``--exact-up-to`` pairs, the exact integer sum it replaced.

    nice -n 10 .venv/bin/python benchmarks/bench_compare.py --before
    nice -n 10 .venv/bin/python benchmarks/bench_compare.py --items 5000 --repeat 1   # quick

Writes ``benchmarks/results/compare.json``. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_score  # noqa: E402  (the synthetic generator shared with the score benchmark)
from _before import load_before  # noqa: E402  (benchmarks/_before.py)

RESULTS = HERE / "results" / "compare.json"
TARGET_S = 10.0
BEFORE_REV = "89cca6f"  # main before issue 16: integer McNemar, json reader, per-item dicts
PAIRS = (1_000, 10_000, 50_000)


def exact_integer_mcnemar(regressed: int, fixed: int) -> float:
    """The McNemar test ragcard used before: the exact tail as a big-integer sum."""
    n = regressed + fixed
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(regressed, fixed) + 1))
    return min(1.0, float(2 * tail / 2**n))


def json_read_results(path: Path) -> Any:
    """The results reader ragcard used before: ``readlines()`` then ``json.loads``."""
    with path.open(encoding="utf-8") as handle:
        lines = handle.readlines()
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield number, json.loads(line)


def generate(folder: Path, items: int, attempts: int, changed: float, seed: int) -> None:
    """baseline/ and current/ project folders (one question set), each with responses."""
    rng = random.Random(seed)
    words = bench_score.Words(rng)
    corpus = bench_score.make_corpus(rng, words, 2000)
    project = bench_score.Project(corpus)
    questions = [bench_score.make_question(rng, words, project, n + 1) for n in range(items)]
    base, current = [], []
    for question in questions:
        for attempt in range(1, attempts + 1):
            response = bench_score.make_response(rng, words, project, question, attempt)
            base.append(response)
            redraw = rng.random() < changed
            current.append(
                bench_score.make_response(rng, words, project, question, attempt)
                if redraw
                else response
            )
    for name, responses in (("baseline", base), ("current", current)):
        target = folder / name
        target.mkdir(parents=True, exist_ok=True)
        bench_score.write_jsonl(target / "corpus.jsonl", corpus)
        bench_score.write_jsonl(target / "questions.jsonl", questions)
        bench_score.write_jsonl(target / "responses.jsonl", responses)
        (target / "thresholds.toml").write_text(bench_score.THRESHOLDS_TOML, encoding="utf-8")


def score(folder: Path) -> None:
    from ragcard.pipeline.evaluation import load_inputs, score_responses

    inputs = load_inputs(
        folder / "questions.jsonl", folder / "corpus.jsonl", folder / "thresholds.toml"
    )
    score_responses(
        inputs,
        folder / "responses.jsonl",
        folder / "out",
        run_date=dt.date.fromisoformat(bench_score.RUN_DATE),
    )


def before_module(rev: str) -> Any:
    """``ragcard.decision.baseline`` as it was at ``rev`` (git), with the exact integer McNemar sum
    and the ``json.loads`` reader it used then (the later modules are imported otherwise)."""
    module = load_before(rev, "src/ragcard/baseline.py", "ragcard_baseline_before")
    module.mcnemar_exact = exact_integer_mcnemar
    module.read_results = json_read_results
    return module


def child(data: Path, before: str) -> dict[str, Any]:
    """compare_runs in this (fresh) process: today's, or ``ragcard.decision.baseline`` at git
    revision ``before`` as it was then."""
    import ragcard.decision.baseline

    baseline = before_module(before) if before else ragcard.decision.baseline
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    wall, cpu = time.perf_counter(), time.process_time()
    result = baseline.compare_runs(data / "baseline" / "out", data / "current" / "out")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    pass_rate = next(m for m in result.measures if m.name == baseline.PASS_RATE)
    return {
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "rss_after_imports_mib": round(rss_before, 1),
        "items": result.items_compared,
        "flips": len(result.flips),
        "regressions": len(result.regressions),
        "pass_rate_p": pass_rate.p_value,
        "gate": result.gate,
        "verdicts": {m.name: m.verdict for m in result.measures},
    }


def run_child(data: Path, before: str, repeat: int) -> dict[str, Any]:
    best: dict[str, Any] | None = None
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(data), "--before-mode", before],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-4000:])
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if best is None or result["cpu_s"] < best["cpu_s"]:
            best = result
    assert best is not None
    return best


def mcnemar_table(exact_up_to: int) -> list[dict[str, Any]]:
    from ragcard.aggregation.stats import mcnemar_exact

    try:
        from scipy.stats import binomtest  # type: ignore[import-untyped]
    except ImportError:  # scipy is a development dependency only
        binomtest = None

    def best_of(function: Any, *args: int) -> tuple[float, float]:
        times = []
        for _ in range(5):
            start = time.process_time()
            value = function(*args)
            times.append(time.process_time() - start)
        return min(times) * 1000, float(value)

    rows = []
    for n in PAIRS:
        k = int(n * 0.45)
        ms, p = best_of(mcnemar_exact, k, n - k)
        row: dict[str, Any] = {"pairs": n, "regressed": k, "ragcard_ms": round(ms, 3), "p": p}
        if binomtest is not None:
            scipy_ms, scipy_p = best_of(lambda a, b: binomtest(a, a + b, 0.5).pvalue, k, n - k)
            row.update(scipy_ms=round(scipy_ms, 3), scipy_p=scipy_p,
                       relative_error=abs(p - scipy_p) / scipy_p)  # fmt: skip
        if n <= exact_up_to:
            start = time.process_time()
            exact = exact_integer_mcnemar(k, n - k)
            row.update(exact_integer_ms=round((time.process_time() - start) * 1000, 3),
                       exact_integer_p=exact)  # fmt: skip
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--attempts", type=int, default=1)
    parser.add_argument("--changed", type=float, default=0.5, help="share of items redrawn")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--before",
        action="store_true",
        help="also time ragcard.decision.baseline as it was at --before-rev",
    )
    parser.add_argument(
        "--before-rev", default=BEFORE_REV, help="git revision of the code it replaced"
    )
    parser.add_argument("--exact-up-to", type=int, default=10_000)
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument(
        "--data", help="keep the generated runs in this folder and reuse them when there"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--before-mode", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child), args.before_mode)))
        return
    print(f"machine: {os.cpu_count()} cores, {platform.platform()}, load {os.getloadavg()}")
    report: dict[str, Any] = {"mcnemar": mcnemar_table(args.exact_up_to)}
    for row in report["mcnemar"]:
        print("McNemar", json.dumps(row), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-compare-") as tmp:
        data = Path(args.data or tmp)
        if not (data / "current" / "out" / "results.jsonl").is_file():
            start = time.perf_counter()
            generate(data, args.items, args.attempts, args.changed, args.seed)
            for name in ("baseline", "current"):
                score(data / name)
            print(f"generated and scored two runs in {time.perf_counter() - start:.0f} s")
        size = (data / "current" / "out" / "results.jsonl").stat().st_size / 2**20
        print(f"two runs of {args.items:,} items x {args.attempts} ({size:.0f} MiB of "
              "results each)", flush=True)  # fmt: skip
        report["after"] = run_child(data, "", args.repeat)
        print("compare now   ", json.dumps(report["after"]), flush=True)
        if args.before:
            report["before"] = run_child(data, args.before_rev, args.repeat)
            report["before_rev"] = args.before_rev
            same = all(report["before"][k] == report["after"][k]
                       for k in ("items", "flips", "regressions", "gate", "verdicts"))  # fmt: skip
            report["same_verdicts"] = same
            print(f"same flips, gate and verdicts before and now: {same}")
            print("compare before", json.dumps(report["before"]), flush=True)
            ratio = report["before"]["wall_s"] / report["after"]["wall_s"]
            print(f"before / now: {ratio:.1f}x wall, "
                  f"{report['before']['cpu_s'] / report['after']['cpu_s']:.1f}x CPU")  # fmt: skip
        report["results_mib"] = round(size, 1)
    verdict = "under" if report["after"]["wall_s"] < TARGET_S else "OVER"
    print(f"compare of two {args.items:,}-item runs: {report['after']['wall_s']:.1f} s wall "
          f"({verdict} the {TARGET_S:.0f} s target)")  # fmt: skip
    report.update(
        command=" ".join([Path(sys.executable).name, *sys.argv]),
        options=vars(args),
        machine={"cores": os.cpu_count(), "platform": platform.platform(),
                 "python": sys.version.split()[0], "load_after": os.getloadavg()},
        commit=bench_score.provenance(),
    )  # fmt: skip
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
