"""What must keep holding under faults (issue 12), measured at the issue's scale.

1. The fault-injecting server at concurrency 16 over 600 item-attempts (HTTP 500, 429 with
   Retry-After, timeouts, closed connections, cut streams, malformed and wrong bodies,
   refusals): item-attempts lost, tries against requests received, retries after a
   non-transient fault, Retry-After waits shorter than asked, and the decision of a whole run
   against the failures.
2. One-bit flips of results.jsonl, scorecard.json, scorecard.md and the thresholds file of a
   signed run: how many ``ragcard verify`` refuses (exit 1).

Usage: ``python benchmarks/chaos_check.py [--attempts 600] [--flips 40] [--seed 12]``.
Figures, not assertions; the kill-and-resume sweep is ``RAGCARD_CHAOS=full pytest -s
tests/chaos/test_kill_resume.py``. Loopback only; bounded (a stall lasts 2.6 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "chaos"))
from chaos_support import (
    HTTP_OUTCOME,
    NO_FAILURES,
    SHIP_THRESHOLDS,
    http_agent,
    make_project,
    planned,
)

from ragcard._cli.main import app
from ragcard.adapters.http import HttpAdapter
from ragcard.adapters.testing import FaultPlan, FaultServer, synthetic_questions
from ragcard.agent.runner import RunSettings, run_attempts
from ragcard.pipeline.running import run_evaluation


def plan(seed: int) -> FaultPlan:
    return FaultPlan(
        seed=seed, timeout_rate=0.02, error_rate=0.08, malformed_rate=0.03, bug_rate=0.02,
        refused_rate=0.02, rate_limited_rate=0.06, closed_rate=0.05, cut_rate=0.08,
        wrong_body_rate=0.08, max_latency_s=0.004, retry_after="0.05",
    )  # fmt: skip


SERVER = {"stall_s": 2.6, "stream_delay_s": 0.003}
SETTINGS = {"attempts": 3, "concurrency": 16, "timeout_s": 2.0, "retries": 2}


async def runner_figures(attempts: int, seed: int) -> dict[str, Any]:
    questions = synthetic_questions(attempts // 3)
    faults = plan(seed)
    expected = planned(faults, questions, 3, 2)
    outcomes: list[Any] = []
    start = time.monotonic()
    with FaultServer(faults, **SERVER) as server:
        adapter = HttpAdapter(server.url + "/sse", stream="sse", send_attempt=True)
        try:
            await run_attempts(
                questions, adapter,
                RunSettings(**SETTINGS, seed=seed, backoff_base_s=0.005, backoff_max_s=0.2),
                outcomes.append, progress=False,
            )  # fmt: skip
        finally:
            await adapter.aclose()
        log = server.log
    by_text = {q.question: q.id for q in questions}
    got = {(o.item_id, o.attempt): (o.verdict, o.tries) for o in outcomes}
    received = Counter((by_text[q], a) for q, a, *_ in log)
    sequences: dict[tuple[str, int], list[tuple[str, float]]] = defaultdict(list)
    for question, attempt, _try, fault, when in sorted(log, key=lambda row: row[2]):
        sequences[(question, attempt)].append((fault, when))
    wrong_retries = short_waits = 0
    for sequence in sequences.values():
        for (fault, when), (_, after) in zip(sequence, sequence[1:], strict=False):
            wrong_retries += not HTTP_OUTCOME[fault][1]
            short_waits += fault == "rate_limited" and after - when < 0.045
    return {
        "item_attempts": len(expected),
        "lost": len(expected) - len(outcomes),
        "as_planned": sum(got.get(k) == v for k, v in expected.items()),
        "tries_equal_requests": sum(received[k] == got[k][1] for k in got),
        "retries_after_a_non_transient_fault": wrong_retries,
        "retry_after_waits_shorter_than_asked": short_waits,
        "faults_met": dict(Counter(fault for *_, fault, _ in log)),
        "verdicts": dict(Counter(v for v, _ in got.values())),
        "wall_s": round(time.monotonic() - start, 1),
    }


def pipeline_figures(folder: Path, attempts: int, seed: int) -> dict[str, Any]:
    faults = plan(seed)
    questions = synthetic_questions(attempts // 3)
    failures = sum(v != "ok" for v, _ in planned(faults, questions, 3, 2).values())
    with FaultServer(faults, **SERVER) as server:
        agent = http_agent(server.url + "/sse", stream="sse")
        project = make_project(folder / "p", agent, questions=len(questions),
                               thresholds=SHIP_THRESHOLDS + NO_FAILURES,
                               run={**SETTINGS, "seed": seed})
        result = run_evaluation(project, out_dir=folder / "out", progress=False,
                                eval_dir=folder / "eval",
                                history_url=f"sqlite:///{folder / 'h.sqlite'}")
    card = result.scorecard.to_json()
    return {
        "planned_failures": failures,
        "failed_attempts_on_the_scorecard": card["coverage"]["failed_attempts"],
        "decision": card["decision"],
        "exit_code": result.exit_code,
        "first_reason": card["decision_reasons"][0] if card["decision_reasons"] else None,
    }


def flip_figures(folder: Path, flips: int, seed: int) -> dict[str, Any]:
    """Sign a scored run, then flip one random bit of a covered file, ``flips`` times."""
    runner = CliRunner()
    mini = folder / "mini"  # a copy: its thresholds file is flipped too
    shutil.copytree(Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mini", mini)
    out, key = folder / "signed", folder / "ada.pem"
    score = ["score", "--questions", str(mini / "questions.jsonl"), "--corpus",
             str(mini / "corpus.jsonl"), "--responses", str(mini / "responses.jsonl"),
             "--thresholds", str(mini / "thresholds.toml"), "--out", str(out), "--quiet"]
    assert runner.invoke(app, score).exit_code in (0, 1)
    assert runner.invoke(app, ["keys", "new", str(key), "--owner", "Ada"]).exit_code == 0
    sign = ["sign", str(out), "--key", str(key), "--by", "Ada", "--decision", "hold"]
    assert runner.invoke(app, sign).exit_code == 0
    files = [out / "results.jsonl", out / "scorecard.json", out / "scorecard.md",
             mini / "thresholds.toml"]
    rng, refused, by_file = random.Random(seed), 0, Counter()
    for _ in range(flips):
        path = rng.choice(files)
        original = path.read_bytes()
        data = bytearray(original)
        position = rng.randrange(len(data))
        data[position] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
        try:
            code = runner.invoke(app, ["verify", str(out), "--no-require-trusted"]).exit_code
        finally:
            path.write_bytes(original)
        refused += code == 1
        by_file[path.name] += code == 1
    return {"flips": flips, "refused_exit_1": refused, "by_file": dict(by_file)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=600)
    parser.add_argument("--flips", type=int, default=40)
    parser.add_argument("--seed", type=int, default=12)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        figures = {
            "runner": asyncio.run(runner_figures(options.attempts, options.seed)),
            "pipeline": pipeline_figures(folder / "pipeline", options.attempts, options.seed),
            "signature_flips": flip_figures(folder, options.flips, options.seed),
        }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
