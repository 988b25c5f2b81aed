"""The replay adapter: recorded responses by (item, attempt), never silently reused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcard.adapters import AgentCall, NotRecordedError, ReplayAdapter
from ragcard.agent.runner import AttemptOutcome, RunSettings, run_attempts
from ragcard.errors import ConfigError, InputError
from ragcard.inputs.questions import Question

RECORDS = [
    {
        "item": "HR-1",
        "attempt": 1,
        "answer": "25 days. [leave#1]",
        "retrieved": ["leave#1"],
        "latency_ms": 812.0,
        "first_token_ms": 95.5,
        "model": "kept",
    },
    {"item": "HR-1", "attempt": 2, "answer": "Twenty-five days.", "retrieved": ["leave#2"]},
    {"item": "HR-2", "attempt": 1, "answer": "No.", "flag": "not_in_record"},
]


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in RECORDS), encoding="utf-8")
    return path


def call(item: str, attempt: int) -> AgentCall:
    return AgentCall(request={"question": "?"}, item_id=item, attempt=attempt, timeout_s=1.0)


async def test_replays_by_item_and_attempt_with_recorded_timings(recording: Path) -> None:
    adapter = ReplayAdapter.from_config({"path": str(recording)})
    first = await adapter.respond(call("HR-1", 1))
    assert first.response.answer == "25 days. [leave#1]" and first.response.cited_ids() == [
        "leave#1"
    ]
    assert (first.latency_ms, first.first_token_ms) == (812.0, 95.5)
    assert first.response.model_extra == {"model": "kept"} and first.meta == {}
    second = await adapter.respond(call("HR-1", 2))
    assert second.response.answer == "Twenty-five days." and second.first_token_ms is None
    assert second.latency_ms < 100  # measured: the lookup itself
    assert (await adapter.respond(call("HR-2", 1))).response.flag == "not_in_record"


async def test_a_missing_attempt_is_not_recorded_never_reused(recording: Path) -> None:
    adapter = ReplayAdapter.from_path(recording)
    with pytest.raises(NotRecordedError) as caught:
        await adapter.respond(call("HR-1", 3))
    error = caught.value
    assert (error.kind, error.transient) == ("not_recorded", False)
    assert str(error).startswith("no recorded response for item HR-1 attempt 3")
    assert "recorded attempts: 1, 2" in str(error)
    with pytest.raises(NotRecordedError, match="not in the recording"):
        await adapter.respond(call("HR-9", 1))


async def test_the_runner_records_not_recorded_without_retrying(recording: Path) -> None:
    questions = [Question(id="HR-1", question="Leave?"), Question(id="HR-2", question="Pay?")]
    outcomes: list[AttemptOutcome] = []
    summary = await run_attempts(
        questions,
        ReplayAdapter.from_path(recording),
        RunSettings(attempts=3, retries=3),
        outcomes.append,
        progress=False,
    )
    verdicts = {(o.item_id, o.attempt): (o.verdict, o.tries) for o in outcomes}
    assert verdicts == {
        ("HR-1", 1): ("ok", 1),
        ("HR-1", 2): ("ok", 1),
        ("HR-1", 3): ("not_recorded", 1),
        ("HR-2", 1): ("ok", 1),
        ("HR-2", 2): ("not_recorded", 1),
        ("HR-2", 3): ("not_recorded", 1),
    }
    assert summary.errors == {"not_recorded": 3} and summary.retries == 0


async def test_retrieve_returns_only_the_recorded_passages(recording: Path) -> None:
    reply = await ReplayAdapter.from_path(recording).retrieve(call("HR-1", 1))
    assert reply.response.retrieved_ids == ["leave#1"] and reply.response.answer == ""


def test_describe_names_the_recording(recording: Path) -> None:
    described = ReplayAdapter.from_path(recording).describe()
    assert described["type"] == "replay" and described["responses"] == 3
    assert described["path"] == str(recording) and len(described["sha256"]) == 64


def test_bad_recordings_and_config(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        ReplayAdapter.from_config({"path": str(tmp_path / "missing.jsonl")})
    with pytest.raises(ConfigError, match="path"):
        ReplayAdapter.from_config({})
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"item": "A", "attempt": 1}\n{"item": "A", "attempt": 1}\n', "utf-8")
    with pytest.raises(InputError, match="already on line 1"):
        ReplayAdapter.from_path(bad)
