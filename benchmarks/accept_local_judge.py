"""The judge acceptance fixture, case by case: labels, pass rate, seconds per claim.

Runs a judge (default: ``local``, Qwen2.5-Coder-1.5B-Instruct, as the library configures it)
over tests/judges/fixtures/judge_acceptance.jsonl — 48 hand-made claims (20 supported,
10 unsupported, 18 contradicted) over HR-handbook, product-manual and museum-archive passages —
one call per claim, and prints each case, the binary pass rate (the acceptance rule: the
judge's "supported" agrees with the human's; contradicted and not_supported both count as not
supported), the 3-way agreement, passes by kind of case, and seconds per claim.
tests/judges/test_judge_acceptance.py holds the same rule as a test.

Run::

    nice -n 10 .venv/bin/python benchmarks/accept_local_judge.py
    .venv/bin/python benchmarks/accept_local_judge.py --option n_threads=2 --json out.json
    .venv/bin/python benchmarks/accept_local_judge.py --judge lexical
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "judges" / "fixtures" / "judge_acceptance.jsonl"
PASS_RATE = 0.90


async def run(judge: Any, lines: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    from ragcard.judges.base import Evidence, JudgeContext, JudgeError

    rows = []
    for line in lines:
        passages = tuple(Evidence(p["id"], p["text"]) for p in line["passages"])
        ctx = JudgeContext(claims=(line["claim"],), passages=passages)
        started = time.monotonic()
        try:
            (verdict,) = await judge.judge(ctx)
            label, score, reason = verdict.label, verdict.score, verdict.reason
        except JudgeError as error:
            label, score, reason = "FAILURE", None, str(error)
        seconds = time.monotonic() - started
        human_supported = line["label"] == "supported"
        rows.append(
            {
                "id": line["id"],
                "kind": line["kind"],
                "group": line["group"],
                "human": line["label"],
                "judge": label,
                "score": score,
                "pass": label != "FAILURE" and (label == "supported") == human_supported,
                "three_way": label == line["label"],
                "seconds": round(seconds, 2),
                "claim": line["claim"],
                "reason": reason,
            }
        )
    return rows


def summary(rows: Sequence[dict[str, Any]], seconds: float) -> dict[str, Any]:
    n = len(rows)
    passed = sum(r["pass"] for r in rows)
    by_kind: dict[str, list[int]] = {}
    for row in rows:
        key = f"{row['human']}/{row['kind']}"
        by_kind.setdefault(key, [0, 0])
        by_kind[key][0] += row["pass"]
        by_kind[key][1] += 1
    return {
        "cases": n,
        "passed": passed,
        "pass_rate": round(passed / n, 4),
        "accepted": passed / n >= PASS_RATE,
        "three_way_agreement": sum(r["three_way"] for r in rows),
        "failures": sum(r["judge"] == "FAILURE" for r in rows),
        "seconds_per_claim": round(seconds / n, 3),
        "labels_given": dict(Counter(r["judge"] for r in rows)),
        "by_kind": {k: f"{v[0]}/{v[1]}" for k, v in sorted(by_kind.items())},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", default="local", help="a registered backend name")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        help="key=value for the judge's [judge] table (value read as TOML), e.g. n_threads=2",
    )
    parser.add_argument("--fixture", type=Path, default=FIXTURE)
    parser.add_argument("--json", type=Path, help="also write the rows and summary here")
    args = parser.parse_args(argv)

    from ragcard._cli._common import parse_options
    from ragcard.judges.registry import build_judge

    options: dict[str, Any] = {"cache": False} if args.judge in ("local", "llm") else {}
    options.update(parse_options(args.option))  # values read as TOML, as `judges evaluate` does
    lines = [json.loads(x) for x in args.fixture.read_text(encoding="utf-8").splitlines()]
    judge = build_judge({"backend": args.judge, **options})
    started, cpu = time.monotonic(), time.process_time()
    try:
        rows = asyncio.run(run(judge, lines))
    finally:
        close = getattr(judge, "close", None)
        if callable(close):
            close()
    seconds, cpu_seconds = time.monotonic() - started, time.process_time() - cpu
    result = summary(rows, seconds)
    result["cpu_seconds_per_claim"] = round(cpu_seconds / len(rows), 3)
    result["load_average"] = list(os.getloadavg())
    result["judge"] = judge.identity.to_json()

    print(f"{'id':<6} {'kind':<10} {'human':<13} {'judge':<13} {'score':>5} {'s':>5}  pass")
    for r in rows:
        score = "" if r["score"] is None else f"{r['score']:.2f}"
        mark = "ok" if r["pass"] else "FAIL"
        print(
            f"{r['id']:<6} {r['kind']:<10} {r['human']:<13} {r['judge']:<13} {score:>5} "
            f"{r['seconds']:>5.1f}  {mark}"
        )
    identity = judge.identity
    print(f"\njudge: {identity.name} {identity.model or ''} prompt {identity.prompt_version}")
    print(
        f"pass rate (binary): {result['passed']}/{result['cases']} = {result['pass_rate']:.1%} "
        f"(bar {PASS_RATE:.0%}: {'met' if result['accepted'] else 'NOT met'}); "
        f"3-way agreement {result['three_way_agreement']}/{result['cases']}"
    )
    print(
        f"seconds per claim: {result['seconds_per_claim']} wall, "
        f"{result['cpu_seconds_per_claim']} CPU (load average {result['load_average'][0]:.1f})"
    )
    print("by kind: " + ", ".join(f"{k} {v}" for k, v in result["by_kind"].items()))
    if args.json:
        args.json.write_text(json.dumps({"summary": result, "rows": rows}, indent=2) + "\n")
    return 0 if result["accepted"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
