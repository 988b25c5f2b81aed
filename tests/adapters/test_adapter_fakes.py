"""The shipped fakes: deterministic fault plans, the faulty callable and the fault server."""

from __future__ import annotations

from collections import Counter

import httpx
import pytest

from ragcard.adapters import AgentCall, CallableAdapter
from ragcard.adapters.testing import (
    FaultPlan,
    FaultServer,
    FaultyAgent,
    canned_response,
    faulty_agent,
    synthetic_questions,
)
from ragcard.agent.runner import AttemptOutcome, RunSettings, run_attempts
from ragcard.errors import AgentTransportError, ConfigError


def test_a_plan_is_deterministic_and_follows_its_rates() -> None:
    rates = {"timeout_rate": 0.1, "error_rate": 0.2, "malformed_rate": 0.1, "bug_rate": 0.05}
    plan, twin = FaultPlan(seed=5, **rates), FaultPlan(seed=5, **rates)
    draws = [plan.fault(f"q{n}", 1, 1) for n in range(4000)]
    assert draws == [twin.fault(f"q{n}", 1, 1) for n in range(4000)]
    assert draws != [FaultPlan(seed=6, **rates).fault(f"q{n}", 1, 1) for n in range(4000)]
    shares = {fault: count / 4000 for fault, count in Counter(draws).items()}
    for fault, rate in [
        ("timeout", 0.1),
        ("error", 0.2),
        ("malformed", 0.1),
        ("bug", 0.05),
        ("ok", 0.55),
    ]:
        assert abs(shares[fault] - rate) < 0.03
    assert [plan.fault("q1", 1, t) for t in (1, 2, 3)] == [
        plan.fault("q1", 1, t) for t in (1, 2, 3)
    ]


def test_latency_stays_in_bounds() -> None:
    plan = FaultPlan(min_latency_s=0.01, max_latency_s=0.02)
    assert all(0.01 <= plan.latency_s(f"q{n}", 1, 1) <= 0.02 for n in range(200))


def test_bad_plans_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="sum to at most 1"):
        FaultPlan(timeout_rate=0.7, error_rate=0.7)
    with pytest.raises(ConfigError, match="negative"):
        FaultPlan(min_latency_s=-1)
    with pytest.raises(ConfigError, match="valid: stall_s, seed"):
        faulty_agent({"eror_rate": 0.1})


async def test_the_faulty_agent_sees_the_same_faults_on_a_rerun() -> None:
    plan = FaultPlan(seed=2, timeout_rate=0.1, error_rate=0.2, malformed_rate=0.1, bug_rate=0.1)
    settings = RunSettings(
        attempts=3,
        concurrency=8,
        # a stall (2 s) outlasts the timeout; an instant answer has ample headroom on a busy CI box
        timeout_s=0.5,
        retries=2,
        backoff_base_s=0.001,
        backoff_max_s=0.002,
    )

    async def one_run() -> dict[tuple[str, int], tuple[str, int]]:
        outcomes: list[AttemptOutcome] = []
        adapter = CallableAdapter(FaultyAgent(plan, stall_s=2.0), send_attempt=True)
        await run_attempts(
            synthetic_questions(40), adapter, settings, outcomes.append, progress=False
        )
        return {(o.item_id, o.attempt): (o.verdict, o.tries) for o in outcomes}

    first, second = await one_run(), await one_run()
    assert first == second and len(first) == 120
    assert set(verdict for verdict, _ in first.values()) == {
        "ok",
        "timeout",
        "transport",
        "malformed_output",
        "agent_exception",
    }


async def test_the_faulty_agent_retrieves_and_counts_tries() -> None:
    agent = FaultyAgent(FaultPlan(error_rate=1.0))
    for request, try_number in [
        ({"question": "q", "attempt": 1}, 1),
        ({"question": "q", "attempt": 1}, 2),
        ({"question": "q", "attempt": 2}, 1),
    ]:
        with pytest.raises(AgentTransportError, match=f"try {try_number}"):
            await agent(request)
    assert agent.calls == 3
    agent.reset()
    with pytest.raises(AgentTransportError, match="try 1"):
        await agent({"question": "q", "attempt": 1})
    passages = await FaultyAgent().retrieve({"question": "q"})
    assert passages == canned_response("q")["retrieved"]
    reply = await CallableAdapter(FaultyAgent()).retrieve(AgentCall({"question": "q"}, "A", 1, 1))
    assert reply.response.retrieved_ids == passages


def test_the_server_counts_tries_per_question_and_attempt() -> None:
    plan = FaultPlan(seed=9, error_rate=0.5)
    with FaultServer(plan) as server, httpx.Client(base_url=server.url) as client:
        statuses = [
            client.post("/answer", json={"question": "q", "attempt": 2}).status_code
            for _ in range(6)
        ]
        assert server.requests == 6
        assert client.post("/nowhere", json={}).status_code == 404
        assert client.post("/answer", content=b"not json").status_code == 400
    expected = [500 if plan.fault("q", 2, t) == "error" else 200 for t in range(1, 7)]
    assert statuses == expected


def test_synthetic_questions_are_distinct() -> None:
    questions = synthetic_questions(12)
    assert len({q.id for q in questions}) == len({q.question for q in questions}) == 12
    assert questions[0].id == "SYN-0001"


def test_the_server_url_needs_a_started_server() -> None:
    with pytest.raises(RuntimeError, match="not started"):
        _ = FaultServer().url
