"""Runner overhead: N item-attempts at concurrency C against an agent that takes L per call.

A perfect runner needs N·L/C of wall time; the ratio measured / ideal shows what the runner
itself costs (target: within 1.10). Every outcome is serialised and appended to a JSON Lines
file with a flush, as ``ragcard run`` does, so the figure includes that work. Each point also
reports the floor: bare asyncio tasks doing nothing but the same sleeps, whose ratio is the
event loop's own timer overshoot. Each point is run ``--repeat`` times; the best run counts
(the least disturbed by other load on the machine) and the median is shown too.

    .venv/bin/python benchmarks/bench_runner.py                  # default points
    .venv/bin/python benchmarks/bench_runner.py --points 2000x8 --latency-ms 50

Writes ``benchmarks/results/runner.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ragcard.adapters import CallableAdapter
from ragcard.adapters.testing import synthetic_questions
from ragcard.agent.runner import AttemptOutcome, RunSettings, run_attempts

ATTEMPTS = 5  # item-attempts = questions × 5
# (N, C, agent kind, progress bar)
DEFAULT_POINTS = [
    (2000, 8, "async", False),
    (2000, 32, "async", False),
    (5000, 64, "async", False),
    (2000, 32, "async", True),
    (2000, 32, "sync", False),
]


def make_agent(kind: str, latency_s: float) -> CallableAdapter:
    """A fixed-latency agent: ``async`` sleeps on the loop, ``sync`` in a worker thread."""
    answer = {"answer": "The handbook says 25 days. [leave#1]", "retrieved": ["leave#1"]}

    async def async_agent(request: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(latency_s)
        return answer

    def sync_agent(request: dict[str, Any]) -> dict[str, Any]:
        time.sleep(latency_s)
        return answer

    return CallableAdapter(async_agent if kind == "async" else sync_agent)


async def measure(
    total: int, concurrency: int, kind: str, progress: bool, latency_s: float
) -> dict[str, Any]:
    """Run one point; return its figures."""
    questions = synthetic_questions(total // ATTEMPTS)
    adapter = make_agent(kind, latency_s)
    settings = RunSettings(attempts=ATTEMPTS, concurrency=concurrency, timeout_s=10.0)
    with (
        tempfile.TemporaryDirectory() as folder,
        open(Path(folder) / "results.jsonl", "w", encoding="utf-8") as sink,
    ):

        def write(outcome: AttemptOutcome) -> None:
            sink.write(json.dumps(outcome.as_record()) + "\n")
            sink.flush()

        summary = await run_attempts(questions, adapter, settings, write, progress=progress)
    await adapter.aclose()
    ideal = total * latency_s / concurrency
    return {
        "n": total,
        "concurrency": concurrency,
        "agent": kind,
        "progress": progress,
        "latency_ms": latency_s * 1000,
        "wall_s": round(summary.wall_s, 4),
        "ideal_s": round(ideal, 4),
        "ratio": round(summary.wall_s / ideal, 4),
        "overhead_ms_per_attempt": round((summary.wall_s - ideal) * concurrency / total * 1000, 4),
        "errors": summary.failed,
    }


async def floor(total: int, concurrency: int, latency_s: float) -> float:
    """Wall time of bare asyncio workers sleeping ``latency_s`` per job: the loop's own cost."""
    jobs = iter(range(total))

    async def worker() -> None:
        for _ in jobs:
            await asyncio.sleep(latency_s)

    start = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.monotonic() - start


def best_of(repeat: int, point: tuple[int, int, str, bool], latency_s: float) -> dict[str, Any]:
    """Run a point ``repeat`` times: the best run's figures, the median wall and the floor."""
    total, concurrency, kind, progress = point
    runs = sorted(
        (
            asyncio.run(measure(total, concurrency, kind, progress, latency_s))
            for _ in range(repeat)
        ),
        key=lambda row: row["wall_s"],
    )
    best = dict(runs[0])
    best["median_wall_s"] = runs[len(runs) // 2]["wall_s"]
    floor_s = min(asyncio.run(floor(total, concurrency, latency_s)) for _ in range(repeat))
    best["floor_ratio"] = round(floor_s / best["ideal_s"], 4)
    return best


def parse_points(text: str | None) -> list[tuple[int, int, str, bool]]:
    if not text:
        return DEFAULT_POINTS
    points = []
    for item in text.split(","):
        total, concurrency = item.lower().split("x")
        points.append((int(total), int(concurrency), "async", False))
    return points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--points", help="comma-separated NxC, e.g. 2000x8,5000x64")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "runner.json"))
    args = parser.parse_args()
    latency_s = args.latency_ms / 1000
    rows = []
    for point in parse_points(args.points):
        row = best_of(args.repeat, point, latency_s)
        rows.append(row)
        total, concurrency, kind, progress = point
        print(
            f"N={total:>5} C={concurrency:>3} {kind:<5} progress={'on ' if progress else 'off'}"
            f"  wall {row['wall_s']:.3f} s (median {row['median_wall_s']:.3f})"
            f"  ideal {row['ideal_s']:.3f} s  ratio {row['ratio']:.3f}"
            f"  floor {row['floor_ratio']:.3f}  overhead {row['overhead_ms_per_attempt']:.2f} ms",
            flush=True,
        )
    result = {
        "benchmark": "runner overhead against a fixed-latency agent",
        "ideal": "N * latency / concurrency",
        "target_ratio": 1.10,
        "repeat": args.repeat,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "rows": rows,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
