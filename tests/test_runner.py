"""The runner: attempts, concurrency, retries, timeouts, failures as records, resume."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Collection
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from ragcard.adapters import AgentCall, AgentReply, CallableAdapter, HttpAdapter
from ragcard.adapters.testing import FaultPlan, FaultServer, synthetic_questions
from ragcard.agent.runner import (
    AttemptOutcome,
    Backoff,
    RunSettings,
    RunSummary,
    completed_attempts,
    run_attempts,
)
from ragcard.errors import (
    AgentOutputError,
    AgentTimeout,
    AgentTransportError,
    ConfigError,
    InputError,
)
from ragcard.inputs.questions import Question
from ragcard.inputs.responses import AgentResponse, RecordedResponse

SCRIPTS = Path(__file__).parent / "_scripts"
FAST = {"timeout_s": 1.0, "backoff_base_s": 0.001, "backoff_max_s": 0.002}


class ScriptedAdapter:
    """Follows a script per (item, attempt): one action per try (exception, delay or None)."""

    name = "scripted"

    def __init__(
        self, script: dict[tuple[str, int], list[Any]] | None = None, delay: float = 0.0
    ) -> None:
        self.script = script or {}
        self.delay = delay
        self.calls: list[tuple[str, int]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.max_tasks = 0

    async def respond(self, call: AgentCall) -> AgentReply:
        tries = self.calls.count((call.item_id, call.attempt))
        self.calls.append((call.item_id, call.attempt))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.max_tasks = max(self.max_tasks, len(asyncio.all_tasks()))
        try:
            actions = self.script.get((call.item_id, call.attempt), [])
            action = actions[tries] if tries < len(actions) else None
            if isinstance(action, BaseException):
                raise action
            await asyncio.sleep(action if isinstance(action, float) else self.delay)
            answer = f"{call.item_id} #{call.attempt}"
            return AgentReply(AgentResponse(answer=answer, retrieved=["p1"]), latency_ms=1.0)
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        pass

    def describe(self) -> dict[str, Any]:
        return {"type": self.name}


class RetrievingScripted(ScriptedAdapter):
    async def retrieve(self, call: AgentCall) -> AgentReply:
        return await self.respond(call)


def questions(count: int) -> list[Question]:
    return [Question(id=f"Q{n}", question=f"question {n}?") for n in range(1, count + 1)]


async def run(
    adapter: Any,
    count: int = 3,
    *,
    skip: Any = (),
    **settings: Any,
) -> tuple[list[AttemptOutcome], RunSummary]:
    outcomes: list[AttemptOutcome] = []
    summary = await run_attempts(
        questions(count),
        adapter,
        RunSettings(**{**FAST, **settings}),
        outcomes.append,
        skip=skip,
        progress=False,
    )
    return outcomes, summary


async def test_every_item_attempt_is_reported_once() -> None:
    outcomes, summary = await run(ScriptedAdapter(), 10, attempts=3, concurrency=4)
    keys = [(o.item_id, o.attempt) for o in outcomes]
    assert sorted(keys) == sorted((f"Q{n}", a) for n in range(1, 11) for a in (1, 2, 3))
    assert all(o.verdict == "ok" and o.tries == 1 and o.error is None for o in outcomes)
    assert outcomes[0].reply is not None and outcomes[0].reply.response.answer.startswith("Q")
    assert datetime.fromisoformat(outcomes[0].started_at).utcoffset().total_seconds() == 0
    assert (summary.planned, summary.done, summary.succeeded, summary.skipped) == (30, 30, 30, 0)
    assert summary.failed == 0 and summary.retries == 0 and summary.wall_s > 0


async def test_a_fixed_pool_of_workers_bounds_concurrency() -> None:
    adapter = ScriptedAdapter(delay=0.002)
    await run(adapter, 100, attempts=2, concurrency=5)
    assert adapter.max_in_flight == 5
    assert adapter.max_tasks <= 5 + 1  # the workers and the test's own task, nothing per item


async def test_transient_errors_are_retried_until_success() -> None:
    script = {("Q1", 1): [AgentTransportError("HTTP 503"), AgentTimeout("slow"), None]}
    outcomes, summary = await run(ScriptedAdapter(script), 1, attempts=1, retries=3)
    (outcome,) = outcomes
    assert outcome.verdict == "ok" and outcome.tries == 3
    assert summary.retries == 2


async def test_retries_exhausted_records_the_last_error() -> None:
    script = {("Q1", 1): [AgentTransportError(f"HTTP 50{n}", raw="busy") for n in range(5)]}
    outcomes, summary = await run(ScriptedAdapter(script), 1, attempts=1, retries=2)
    (outcome,) = outcomes
    assert outcome.error is not None and outcome.reply is None
    assert (outcome.error.kind, outcome.error.transient, outcome.tries) == ("transport", True, 3)
    assert outcome.error.message == "HTTP 502" and outcome.error.raw == "busy"
    assert summary.errors == {"transport": 1} and summary.failed == 1


async def test_non_transient_errors_are_not_retried_and_raw_is_truncated() -> None:
    script = {
        ("Q1", 1): [AgentOutputError("not JSON", raw="x" * 10_000)],
        ("Q2", 1): [AgentTransportError("HTTP 404", transient=False)],
    }
    outcomes, _ = await run(ScriptedAdapter(script), 2, attempts=1, retries=3)
    by_item = {o.item_id: o for o in outcomes}
    error = by_item["Q1"].error
    assert error is not None and error.kind == "malformed_output" and by_item["Q1"].tries == 1
    assert error.raw is not None and 4096 <= len(error.raw) < 4200
    assert by_item["Q2"].verdict == "transport" and by_item["Q2"].tries == 1


async def test_the_runner_times_out_each_call_and_retries_it() -> None:
    script = {("Q1", 1): [5.0, 5.0, 5.0]}
    outcomes, summary = await run(ScriptedAdapter(script), 1, attempts=1, retries=1, timeout_s=0.05)
    (outcome,) = outcomes
    assert outcome.error is not None and outcome.error.kind == "timeout"
    assert outcome.error.transient and outcome.tries == 2 and "0.05 s" in outcome.error.message
    assert summary.errors == {"timeout": 1}


async def test_a_bug_in_the_agent_is_recorded_and_the_run_goes_on() -> None:
    script = {("Q2", 1): [ValueError("index out of range in my agent")]}
    outcomes, summary = await run(ScriptedAdapter(script), 3, attempts=1)
    by_item = {o.item_id: o for o in outcomes}
    error = by_item["Q2"].error
    assert error is not None and error.kind == "agent_exception" and not error.transient
    assert error.message == "ValueError: index out of range in my agent"
    assert error.raw is not None and "Traceback" in error.raw and by_item["Q2"].tries == 1
    assert by_item["Q1"].verdict == by_item["Q3"].verdict == "ok"
    assert summary.errors == {"agent_exception": 1}


async def test_skipped_item_attempts_are_neither_called_nor_reported() -> None:
    adapter = ScriptedAdapter()
    skip = {("Q1", 1), ("Q2", 3), ("elsewhere", 1)}
    outcomes, summary = await run(adapter, 2, attempts=3, skip=skip)
    keys = {(o.item_id, o.attempt) for o in outcomes}
    assert keys.isdisjoint(skip) and len(keys) == len(outcomes) == 4
    assert set(adapter.calls) == keys
    assert (summary.planned, summary.skipped, summary.done) == (6, 2, 4)


async def test_a_configuration_error_stops_the_run() -> None:
    script = {("Q2", 1): [ConfigError("header 'Authorization' refers to ${TOKEN}")]}
    with pytest.raises(ConfigError, match="TOKEN"):
        await run(ScriptedAdapter(script, delay=0.01), 5, attempts=1, concurrency=2)
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_an_error_in_on_outcome_stops_the_run() -> None:
    def explode(outcome: AttemptOutcome) -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        await run_attempts(
            questions(5), ScriptedAdapter(), RunSettings(**FAST), explode, progress=False
        )
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_cancelling_stops_workers_and_keeps_what_was_reported() -> None:
    outcomes: list[AttemptOutcome] = []
    task = asyncio.create_task(
        run_attempts(
            questions(200),
            ScriptedAdapter(delay=0.005),
            RunSettings(**FAST, concurrency=4),
            outcomes.append,
            progress=False,
        )
    )
    while len(outcomes) < 10:
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    reported = len(outcomes)
    await asyncio.sleep(0.05)
    assert len(outcomes) == reported < 600
    assert len({(o.item_id, o.attempt) for o in outcomes}) == reported
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_retrieval_only_keeps_only_retrieved() -> None:
    outcomes, _ = await run(RetrievingScripted(), 2, attempts=1, retrieval_only=True)
    for outcome in outcomes:
        assert outcome.reply is not None
        response = outcome.reply.response
        assert response.answer == "" and response.retrieved_ids == ["p1"]
        assert response.model_fields_set == {"retrieved"}


async def test_retrieval_only_needs_an_adapter_that_retrieves() -> None:
    with pytest.raises(ConfigError, match="cannot run retrieval alone"):
        await run(ScriptedAdapter(), retrieval_only=True)

    async def answer_only(request: dict[str, Any]) -> dict[str, Any]:
        return {"answer": "x"}

    with pytest.raises(ConfigError, match="retrieval"):
        await run(CallableAdapter(answer_only), retrieval_only=True)


async def test_fewer_than_three_attempts_warns_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    await run(ScriptedAdapter(), 1, attempts=2)
    assert "fewer than 3 attempts: must-pass checks use the worst of N" in capsys.readouterr().err
    await run(ScriptedAdapter(), 1, attempts=3)
    await run(RetrievingScripted(), 1, attempts=1, retrieval_only=True)
    assert "fewer than 3" not in capsys.readouterr().err


async def test_the_progress_bar_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    await run_attempts(questions(2), ScriptedAdapter(), RunSettings(**FAST), lambda o: None)
    captured = capsys.readouterr()
    assert "6/6" in captured.err and "0 errors" in captured.err and captured.out == ""


def test_backoff_is_exponential_with_full_jitter_and_seeded() -> None:
    first, second = Backoff(0.5, 4.0, seed=3), Backoff(0.5, 4.0, seed=3)
    delays = [first.delay(n) for n in range(1, 9)]
    assert delays == [second.delay(n) for n in range(1, 9)]
    for retry, delay in enumerate(delays, start=1):
        assert 0.0 <= delay <= min(4.0, 0.5 * 2 ** (retry - 1))
    assert Backoff(0.5, 4.0, seed=4).delay(3) != Backoff(0.5, 4.0, seed=3).delay(3)


def test_backoff_honours_retry_after_up_to_the_maximum() -> None:
    assert Backoff(0.001, 20.0, seed=1).delay(1, retry_after_s=2.5) == 2.5
    assert Backoff(0.001, 20.0, seed=1).delay(1, retry_after_s=300.0) == 20.0


def test_settings_are_validated() -> None:
    with pytest.raises(ConfigError, match="attempts = 0, timeout_s = 0"):
        RunSettings(attempts=0, timeout_s=0)
    with pytest.raises(ConfigError, match="backoff_max_s"):
        RunSettings(backoff_base_s=5.0, backoff_max_s=1.0)


async def test_duplicate_item_ids_are_refused() -> None:
    twice = [Question(id="Q1", question="a?"), Question(id="Q1", question="b?")]
    with pytest.raises(ConfigError, match="Q1"):
        await run_attempts(twice, ScriptedAdapter(), RunSettings(), lambda o: None, progress=False)


async def test_records_are_json_and_response_records_load_as_recorded_responses() -> None:
    script = {("Q2", 1): [AgentOutputError("bad", raw="<html>")]}
    outcomes, _ = await run(ScriptedAdapter(script), 2, attempts=1)
    by_item = {o.item_id: o for o in outcomes}
    good, bad = by_item["Q1"].as_record(), by_item["Q2"].as_record()
    json.dumps(good), json.dumps(bad)
    assert good["verdict"] == "ok" and good["response"]["answer"] == "Q1 #1"
    assert bad["error"] == {
        "kind": "malformed_output",
        "message": "bad",
        "raw": "<html>",
        "transient": False,
    }
    assert by_item["Q2"].response_record() is None
    line = by_item["Q1"].response_record()
    assert line is not None
    recorded = RecordedResponse.model_validate(json.loads(json.dumps(line)))
    assert (recorded.item, recorded.attempt, recorded.latency_ms) == ("Q1", 1, 1.0)


def test_completed_attempts_ignores_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    assert completed_attempts(path) == set()
    path.write_text(
        '{"item": "Q1", "attempt": 1}\n\n{"item": "Q1", "attempt": 2}\n{"item": "Q2", "att',
        encoding="utf-8",
    )
    assert completed_attempts(path) == {("Q1", 1), ("Q1", 2)}


def test_completed_attempts_reports_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text('{"item": "Q1", "attempt": 1}\nnot json\n{"item": "Q2"}\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        completed_attempts(path)
    assert [problem.line for problem in caught.value.problems] == [2, 3]


# --- acceptance: faults at concurrency 16 over 501 item-attempts, killed and resumed --------

ACCEPTANCE: dict[str, Any] = {
    "plan": {
        "seed": 11,
        "timeout_rate": 0.05,
        "error_rate": 0.10,
        "malformed_rate": 0.04,
        "bug_rate": 0.02,
        "max_latency_s": 0.004,
    },
    # a stall outlasts the timeout; a normal answer (~25 ms) has 80× headroom under load (at
    # 40× a loaded machine once timed an ok answer out)
    "server": {"stall_s": 2.6, "stream_delay_s": 0.004},
    "settings": {
        "attempts": 3,
        "concurrency": 16,
        "timeout_s": 2.0,
        "retries": 1,
        "backoff_base_s": 0.005,
        "backoff_max_s": 0.02,
        "seed": 11,
    },
    "questions": 167,
}
# over HTTP: a planned bug is a 422 (refused, not retried), an error a 500 (retried)
_VERDICT = {
    "ok": "ok",
    "timeout": "timeout",
    "error": "transport",
    "malformed": "malformed_output",
    "bug": "transport",
}


def planned_verdicts() -> dict[tuple[str, int], tuple[str, int]]:
    """What the plan says each item-attempt ends as: (verdict, tries)."""
    plan, tries_allowed = FaultPlan(**ACCEPTANCE["plan"]), ACCEPTANCE["settings"]["retries"] + 1
    expected = {}
    for question in synthetic_questions(ACCEPTANCE["questions"]):
        for attempt in range(1, ACCEPTANCE["settings"]["attempts"] + 1):
            for try_number in range(1, tries_allowed + 1):
                fault = plan.fault(question.question, attempt, try_number)
                if fault not in ("timeout", "error") or try_number == tries_allowed:
                    expected[(question.id, attempt)] = (_VERDICT[fault], try_number)
                    break
    return expected


async def run_against_fresh_server(
    skip: Collection[tuple[str, int]] = (),
) -> tuple[list[dict[str, Any]], RunSummary]:
    records: list[dict[str, Any]] = []
    with FaultServer(FaultPlan(**ACCEPTANCE["plan"]), **ACCEPTANCE["server"]) as server:
        adapter = HttpAdapter(server.url + "/sse", stream="sse", send_attempt=True)
        try:
            summary = await run_attempts(
                synthetic_questions(ACCEPTANCE["questions"]),
                adapter,
                RunSettings(**ACCEPTANCE["settings"]),
                lambda o: records.append(o.as_record()),
                skip=skip,
                progress=False,
            )
        finally:
            await adapter.aclose()
    return records, summary


def verdicts(records: list[dict[str, Any]]) -> dict[tuple[str, int], tuple[str, int]]:
    return {(r["item"], r["attempt"]): (r["verdict"], r["tries"]) for r in records}


def kill_mid_run(tmp_path: Path, lines_before_kill: int) -> Path:
    config, out = tmp_path / "config.json", tmp_path / "results.jsonl"
    config.write_text(json.dumps(ACCEPTANCE), encoding="utf-8")
    out.touch()
    process = subprocess.Popen(
        [sys.executable, str(SCRIPTS / "faulty_run.py"), str(config), str(out)],
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while out.read_bytes().count(b"\n") < lines_before_kill:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        assert time.monotonic() < deadline, "the run wrote too little"
        time.sleep(0.005)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    if process.stderr:
        process.stderr.close()
    return out


async def test_faulty_http_agent_loses_nothing_and_resumes_to_the_same_results(
    tmp_path: Path,
) -> None:
    expected = planned_verdicts()
    assert len(expected) == 501
    assert {v for v, _ in expected.values()} == {"ok", "timeout", "transport", "malformed_output"}

    reference, summary = await run_against_fresh_server()
    assert len(reference) == 501 and verdicts(reference) == expected  # nothing lost, all kinds
    assert summary.done == 501 and summary.failed == sum(v != "ok" for v, _ in expected.values())

    out = kill_mid_run(tmp_path, lines_before_kill=120)
    data = out.read_bytes()
    assert data.count(b"\n") < 501, "the run finished before it was killed"
    if data.endswith(b"\n"):  # make sure a torn last line is exercised, as a kill mid-write leaves
        out.write_bytes(data[:-12])
    done_before = completed_attempts(out)
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    before = [json.loads(line) for line in lines if line.endswith("\n")]
    assert len(before) == len(done_before) >= 119

    resumed, resumed_summary = await run_against_fresh_server(skip=done_before)
    assert resumed_summary.skipped == len(done_before)
    assert {(r["item"], r["attempt"]) for r in resumed}.isdisjoint(done_before)
    assert len(before) + len(resumed) == 501
    assert verdicts(before + resumed) == verdicts(reference)


async def test_answers_still_with_the_judge_when_the_agent_is_done_get_a_bar(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from types import SimpleNamespace

    from ragcard.pipeline.running import _judged

    scorer = SimpleNamespace(judge_failures=0)

    async def judged(seconds: float, fails: bool) -> None:
        await asyncio.sleep(seconds)
        scorer.judge_failures += fails

    pending = {asyncio.create_task(judged(0.01 * i, i == 2)) for i in range(4)}
    await _judged(pending, scorer, progress=True)  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert "judge" in err and "4/4" in err and "1 failed" in err
    quiet = {asyncio.create_task(judged(0.0, False))}
    await _judged(quiet, scorer, progress=False)  # type: ignore[arg-type]
    assert capsys.readouterr().err == "" and all(task.done() for task in quiet)
