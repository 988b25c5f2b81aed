"""The fault-injecting agent server against the runner and the whole pipeline: every fault at
concurrency 16 over 501 item-attempts, nothing lost, retries only for what is transient, and a
decision that matches the failures."""

from __future__ import annotations

import json
import socket
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from chaos_support import (
    HTTP_OUTCOME,
    NO_FAILURES,
    SHIP_THRESHOLDS,
    http_agent,
    make_project,
    planned,
    read_lines,
)

from ragcard.adapters.http import HttpAdapter
from ragcard.adapters.testing import FaultPlan, FaultServer, synthetic_questions
from ragcard.agent.runner import RunSettings, run_attempts
from ragcard.pipeline.running import run_evaluation

PLAN = FaultPlan(
    seed=12,
    timeout_rate=0.02,
    error_rate=0.08,
    malformed_rate=0.03,
    bug_rate=0.02,
    refused_rate=0.02,
    rate_limited_rate=0.06,
    closed_rate=0.05,
    cut_rate=0.08,
    wrong_body_rate=0.08,
    max_latency_s=0.004,
    retry_after="0.05",
)
QUESTIONS = 167  # × 3 attempts = 501 item-attempts
# a stall outlasts the timeout with room; an answer takes ~30 ms: 60× headroom under load
SERVER = {"stall_s": 2.6, "stream_delay_s": 0.003}
SETTINGS = {"attempts": 3, "concurrency": 16, "timeout_s": 2.0, "retries": 2, "seed": 12}


def test_the_plan_exercises_every_stream_fault() -> None:
    expected = planned(PLAN, synthetic_questions(QUESTIONS), 3, 2)
    faults = Counter(
        PLAN.fault(q.question, a, t) for q in synthetic_questions(QUESTIONS)
        for a in (1, 2, 3) for t in (1, 2, 3)
    )  # fmt: skip
    assert {f for f, n in faults.items() if n} >= set(HTTP_OUTCOME) - {"echo"}
    assert len(expected) == 501 and {v for v, _ in expected.values()} == {
        "ok", "timeout", "transport", "malformed_output"}


async def test_every_fault_at_concurrency_16_loses_nothing_and_retries_only_transients() -> None:
    questions = synthetic_questions(QUESTIONS)
    expected = planned(PLAN, questions, 3, 2)
    outcomes: list[Any] = []
    with FaultServer(PLAN, **SERVER) as server:
        adapter = HttpAdapter(server.url + "/sse", stream="sse", send_attempt=True)
        try:
            summary = await run_attempts(
                questions, adapter, RunSettings(**SETTINGS, backoff_base_s=0.005,
                                                backoff_max_s=0.2),
                outcomes.append, progress=False,
            )
        finally:
            await adapter.aclose()
        log = server.log
    got = {(o.item_id, o.attempt): (o.verdict, o.tries) for o in outcomes}
    assert len(outcomes) == 501 and got == expected  # nothing lost, each as planned
    assert summary.done == 501 and summary.failed == sum(v != "ok" for v, _ in expected.values())
    # tries equal the requests the server received, per item-attempt
    by_text = {q.question: q.id for q in questions}
    received = Counter((by_text[q], a) for q, a, _t, _f, _w in log)
    assert received == Counter({key: tries for key, (_, tries) in got.items()})
    # retried only after a transient fault; Retry-After (50 ms) waited out
    tries: dict[tuple[str, int], list[tuple[str, float]]] = defaultdict(list)
    for question, attempt, _try, fault, when in sorted(log, key=lambda row: row[2]):
        tries[(question, attempt)].append((fault, when))
    for sequence in tries.values():
        for (fault, when), (_, after) in zip(sequence, sequence[1:], strict=False):
            assert HTTP_OUTCOME[fault][1], f"retried after {fault}, which is not transient"
            if fault == "rate_limited":
                assert after - when >= 0.045
    # no unusable body became a success: every ok answer is the whole canned answer
    for outcome in outcomes:
        if outcome.reply is not None:
            assert outcome.reply.response.answer.startswith("The sources answer:")
            assert outcome.reply.response.answer.endswith("]")


def test_a_whole_run_against_the_fault_server_decides_on_the_failures(tmp_path: Path) -> None:
    questions = synthetic_questions(QUESTIONS)
    expected = planned(PLAN, questions, 3, 2)
    failures = Counter(v for v, _ in expected.values() if v != "ok")
    with FaultServer(PLAN, **SERVER) as server:
        agent = http_agent(server.url + "/sse", stream="sse")
        project = make_project(tmp_path / "p", agent, questions=QUESTIONS,
                               thresholds=SHIP_THRESHOLDS + NO_FAILURES, run=SETTINGS)
        result = run_evaluation(project, out_dir=tmp_path / "out", progress=False,
                                eval_dir=tmp_path / "eval")
    lines = read_lines(tmp_path / "out" / "results.jsonl")
    assert len(lines) == 501 and len({(x["item"], x["attempt"]) for x in lines}) == 501
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert card["coverage"]["failed_attempts"] == sum(failures.values())
    assert card["coverage"]["failed_by_kind"] == dict(failures)
    assert result.scorecard.decision.decision == "hold" and result.exit_code == 1
    reason = next(r for r in card["decision_reasons"] if r.startswith("must-pass agent_error"))
    assert f"{sum(failures.values())} of 501 item-attempts failed" in reason
    rate = card["metrics"]["agent_error_rate"]["value"]
    assert rate == pytest.approx(sum(failures.values()) / 501, abs=1e-6)


@pytest.mark.parametrize("sent", [b"", b'{"question": '])
def test_a_request_cut_before_its_body_arrives_is_not_logged(sent: bytes) -> None:
    """A client killed between its headers and its body (as the kill-and-resume harness does)
    sent no question: the server drops the connection and logs nothing, not a question ''."""
    server = FaultServer(FaultPlan(seed=1)).start()
    try:
        host, port = urlsplit(server.url).hostname, urlsplit(server.url).port
        with socket.create_connection((host, port), timeout=5) as raw:
            raw.sendall(b"POST /answer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        b"Content-Length: 40\r\n\r\n" + sent)
            raw.shutdown(socket.SHUT_WR)
            assert raw.recv(1024) == b""  # closed, no answer
        assert server.log == []
    finally:
        server.stop()
