"""Recorded latency of a zero-latency agent under ``ragcard run``: does it measure the agent?

A callable agent that answers at once (a fixed answer, no I/O: microseconds) is run through
``ragcard run`` on the handbook with the project's judge, as a user would; every recorded
``latency_ms`` in ``results.jsonl`` should then be the agent's microseconds plus the runner's
own overhead, not the time ragcard's scoring and judging held the event loop (issue 20 item 11;
docs/metrics.md#latency). Reports p50 / p95 / max of the recorded latencies, the run's wall
time and the machine's load (``uptime``) before and after. Acceptance: p95 < 50 ms.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_run_latency.py                # sync agent
    PYTHONPATH=src .venv/bin/python benchmarks/bench_run_latency.py --kind async   # async def
    PYTHONPATH=src .venv/bin/python benchmarks/bench_run_latency.py --judge lexical --attempts 1

Writes ``benchmarks/results/run_latency.json`` (``--out`` to change).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent / "examples" / "handbook"

AGENT = '''
"""Answers at once (no I/O, no search): the question turned into a cited statement, a new
wording each call, so that the judge has every answer to judge (none reused)."""
import itertools

_CALLS = itertools.count()


def answer(request):
    n = next(_CALLS)
    text = f"On {request['question'].rstrip('?')}: employees receive {20 + n % 11} days ({n})."
    return {"answer": text, "retrieved": ["annual-leave@2025#1.1"],
            "citations": [{"id": "annual-leave@2025#1.1", "sentence": 0}],
            "flag": None, "abstained": False}


async def answer_async(request):
    return answer(request)
'''


def load() -> str:
    try:
        done = subprocess.run(["uptime"], capture_output=True, text=True, check=False)
        return done.stdout.strip()
    except OSError:
        return "load: " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(share * (len(ordered) - 1))))
    return ordered[rank]


def project(folder: Path, kind: str, judge: str | None) -> Path:
    """A copy of the handbook whose agent is the zero-latency callable."""
    target = folder / "handbook"
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns("out", "eval", "*.sqlite"))
    (target / "instant_agent.py").write_text(AGENT, encoding="utf-8")
    toml = (target / "ragcard.toml").read_text(encoding="utf-8")
    function = "instant_agent:answer_async" if kind == "async" else "instant_agent:answer"
    toml = toml.replace('factory = "ragcard.reference:build_agent"', f'function = "{function}"')
    toml = re.sub(r'\[agent\.options\]\ncorpus = "corpus\.jsonl"\n', "", toml)
    if judge is not None:
        toml = re.sub(r'(\[judge\]\nbackend = )"[^"]*"', rf'\1"{judge}"', toml)
    (target / "ragcard.toml").write_text(toml, encoding="utf-8")
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=("sync", "async"), default="sync")
    parser.add_argument("--judge", default=None, help="judge backend (default: the project's)")
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=None)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "run_latency.json")
    args = parser.parse_args()

    from ragcard.pipeline.running import run_evaluation

    before = load()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        handbook = project(folder, args.kind, args.judge)
        start = time.monotonic()
        result = run_evaluation(
            handbook, out_dir=folder / "out", eval_dir=folder / "out" / "eval", fresh=True,
            attempts=args.attempts, concurrency=args.concurrency, progress=False,
            history_url=f"sqlite:///{folder / 'history.sqlite'}",
        )  # fmt: skip
        wall_s = time.monotonic() - start
        lines = [json.loads(line) for line in result.results_path.read_text().splitlines()]
        judge = result.scorecard.to_json()["config"].get("judge", {}).get("name")
    after = load()
    latencies = [float(line["latency_ms"]) for line in lines if line.get("latency_ms") is not None]
    if not latencies:
        print("no latency recorded", file=sys.stderr)
        return 1
    report: dict[str, Any] = {
        "agent": args.kind,
        "judge": judge,
        "attempts": len(latencies),
        "p50_ms": round(statistics.median(latencies), 3),
        "p95_ms": round(percentile(latencies, 0.95), 3),
        "max_ms": round(max(latencies), 3),
        "wall_s": round(wall_s, 1),
        "load_before": before,
        "load_after": after,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "acceptance": "p95 < 50 ms",
        "passes": percentile(latencies, 0.95) < 50.0,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0 if report["passes"] else 1


if __name__ == "__main__":
    sys.exit(main())
