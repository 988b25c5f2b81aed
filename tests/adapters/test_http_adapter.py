"""The HTTP adapter: mapping, secrets, status codes, timeouts, SSE and chunked streaming."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from ragcard.adapters import AgentCall, AgentReply, HttpAdapter, RateLimitedError
from ragcard.adapters.testing import FaultPlan, FaultServer, canned_response
from ragcard.errors import AgentOutputError, AgentTimeout, AgentTransportError, ConfigError

QUESTION = "How many days of leave?"
REQUEST = {"question": QUESTION, "asker": "staff", "program": None, "cutoff": "2025-01-01"}
SECRET = "s3cr3t-Value-9f8e7d"


def call(attempt: int = 1, timeout_s: float = 5.0) -> AgentCall:
    return AgentCall(request=dict(REQUEST), item_id="HR-1", attempt=attempt, timeout_s=timeout_s)


def mock(
    handler: Callable[[httpx.Request], httpx.Response],
    url: str = "http://agent/answer",
    **options: Any,
) -> HttpAdapter:
    return HttpAdapter(url, transport=httpx.MockTransport(handler), **options)


EVENTS = {"content-type": "text/event-stream; charset=utf-8"}


def answering(
    status: int = 200,
    body: Any = None,
    *,
    text: str | None = None,
    headers: dict[str, str] | None = None,
    seen: list[httpx.Request] | None = None,
) -> Callable[[httpx.Request], httpx.Response]:
    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        content = text if text is not None else json.dumps(body)
        return httpx.Response(status, content=content.encode(), headers=headers)

    return handler


@pytest.fixture
async def server() -> AsyncIterator[FaultServer]:
    with FaultServer(stream_delay_s=0.06, deltas=4) as running:
        yield running


async def test_identity_request_and_response() -> None:
    seen: list[httpx.Request] = []
    body = {
        "answer": "25 days.",
        "retrieved": [{"id": "p1", "score": 0.9}],
        "flag": None,
        "extra": {"kept": True},
    }
    adapter = mock(answering(body=body, seen=seen))
    reply = await adapter.respond(call())
    await adapter.aclose()
    assert json.loads(seen[0].content) == REQUEST and seen[0].method == "POST"
    assert reply.response.answer == "25 days." and reply.response.retrieved_ids == ["p1"]
    assert reply.response.model_extra == {"extra": {"kept": True}}
    assert reply.latency_ms >= 0 and reply.first_token_ms is None


async def test_request_map_body_and_send_attempt() -> None:
    seen: list[httpx.Request] = []
    adapter = mock(
        answering(body={"answer": "x"}, seen=seen),
        body={"model": "prod"},
        request_map={"input.query": "question", "role": "asker", "seed": "attempt"},
        send_attempt=True,
    )
    await adapter.respond(call(attempt=3))
    assert json.loads(seen[0].content) == {
        "model": "prod",
        "input": {"query": QUESTION},
        "role": "staff",
        "seed": 3,
    }


async def test_get_sends_the_fields_as_a_query_string() -> None:
    seen: list[httpx.Request] = []
    await mock(answering(body={"answer": "x"}, seen=seen), method="get").respond(call())
    assert seen[0].method == "GET" and seen[0].url.params["question"] == QUESTION
    assert "program" not in seen[0].url.params  # None values are left out


async def test_response_map_reads_dotted_paths_and_list_indexes() -> None:
    body = {
        "choices": [{"message": {"content": "Twenty-five."}}],
        "context": [{"id": "p7", "score": 0.4}],
        "flag": "none_needed",
    }
    adapter = mock(
        answering(body=body),
        response_map={"answer": "choices.0.message.content", "retrieved": "context"},
    )
    reply = await adapter.respond(call())
    assert reply.response.answer == "Twenty-five." and reply.response.retrieved_ids == ["p7"]
    assert reply.response.flag == "none_needed"  # unmapped fields come from the top level


async def test_a_mapped_path_that_is_missing_is_an_output_error() -> None:
    adapter = mock(answering(body={"output": {}}), response_map={"answer": "output.text"})
    with pytest.raises(AgentOutputError, match="'output.text'") as caught:
        await adapter.respond(call())
    assert caught.value.raw == '{"output": {}}'


async def test_headers_expand_the_environment_and_never_leak(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAGCARD_TEST_TOKEN", SECRET)
    seen: list[httpx.Request] = []
    adapter = mock(
        answering(401, text="unauthorized", seen=seen),
        url="http://agent/answer?api_key=${RAGCARD_TEST_TOKEN}",
        headers={"Authorization": "Bearer ${RAGCARD_TEST_TOKEN}", "X-Team": "hr"},
    )
    with pytest.raises(AgentTransportError) as caught:
        await adapter.respond(call())
    assert seen[0].headers["authorization"] == f"Bearer {SECRET}"
    assert seen[0].url.params["api_key"] == SECRET
    described = adapter.describe()
    assert described["headers"] == ["Authorization", "X-Team"]
    for shown in (json.dumps(described), str(caught.value), repr(caught.value.raw)):
        assert SECRET not in shown
    assert not caught.value.transient and "HTTP 401" in str(caught.value)


def test_describe_hides_literal_secrets_in_the_url() -> None:
    adapter = HttpAdapter("https://user:pw123@agent/answer?token=abc&lang=en")
    assert adapter.describe()["url"] == "https://user:***@agent/answer?token=***&lang=en"


async def test_a_missing_environment_variable_is_a_config_error() -> None:
    adapter = mock(answering(body={}), headers={"Authorization": "Bearer ${RAGCARD_UNSET_VAR}"})
    with pytest.raises(ConfigError, match=r"header 'Authorization'.*RAGCARD_UNSET_VAR"):
        await adapter.respond(call())


@pytest.mark.parametrize(
    ("status", "transient"),
    [(500, True), (503, True), (429, True), (400, False), (404, False), (422, False)],
)
async def test_status_codes(status: int, transient: bool) -> None:
    with pytest.raises(AgentTransportError) as caught:
        await mock(answering(status, text="nope")).respond(call())
    assert caught.value.transient is transient and caught.value.kind == "transport"
    assert f"HTTP {status}" in str(caught.value) and caught.value.raw == "nope"


async def test_429_carries_retry_after() -> None:
    with pytest.raises(RateLimitedError) as caught:
        await mock(answering(429, text="", headers={"Retry-After": "2"})).respond(call())
    assert caught.value.retry_after_s == 2.0
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    with pytest.raises(RateLimitedError) as caught:
        await mock(answering(429, text="", headers={"Retry-After": later})).respond(call())
    assert caught.value.retry_after_s is not None and 20 < caught.value.retry_after_s <= 30
    with pytest.raises(RateLimitedError) as caught:
        await mock(answering(429, text="", headers={"Retry-After": "soon"})).respond(call())
    assert caught.value.retry_after_s is None


async def test_a_body_that_is_not_json_keeps_the_raw_text_truncated() -> None:
    with pytest.raises(AgentOutputError, match="not JSON") as caught:
        await mock(answering(text="<html>" + "z" * 9000)).respond(call())
    assert caught.value.raw is not None and caught.value.raw.startswith("<html>")
    assert len(caught.value.raw) < 4200
    with pytest.raises(AgentOutputError, match="not a valid response"):
        await mock(answering(body={"answer": ["not", "text"]})).respond(call())
    with pytest.raises(AgentOutputError, match="expected a JSON object"):
        await mock(answering(body=["a", "list"])).respond(call())


async def test_transport_errors_and_timeouts() -> None:
    def read_timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    with pytest.raises(AgentTimeout, match="ReadTimeout"):
        await mock(read_timeout).respond(call())
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    adapter = HttpAdapter(f"http://127.0.0.1:{port}/answer")
    with pytest.raises(AgentTransportError, match="ConnectError") as caught:
        await adapter.respond(call())
    await adapter.aclose()
    assert caught.value.transient


async def test_a_stalled_server_times_out() -> None:
    with FaultServer(FaultPlan(timeout_rate=1.0), stall_s=1.0) as stalled:
        adapter = HttpAdapter(stalled.url + "/answer")
        with pytest.raises(AgentTimeout):
            await adapter.respond(call(timeout_s=0.2))
        await adapter.aclose()


async def test_sse_measures_the_first_token_well_before_the_end(server: FaultServer) -> None:
    adapter = HttpAdapter(server.url + "/sse", stream="sse")
    reply = await adapter.respond(call())
    await adapter.aclose()
    expected = canned_response(QUESTION)
    assert reply.response.answer == expected["answer"]
    assert reply.response.retrieved_ids == expected["retrieved"]
    assert reply.first_token_ms is not None
    # the server pauses 3 × 60 ms after the first delta
    assert reply.latency_ms - reply.first_token_ms >= 150


async def test_chunked_measures_the_first_chunk_well_before_the_end(server: FaultServer) -> None:
    adapter = HttpAdapter(server.url + "/chunked", stream="chunked")
    reply = await adapter.respond(call())
    await adapter.aclose()
    assert reply.response.answer == canned_response(QUESTION)["answer"]
    assert reply.first_token_ms is not None
    assert reply.latency_ms - reply.first_token_ms >= 100  # 2 × 60 ms between chunks


async def test_plain_json_and_retrieval_from_the_server(server: FaultServer) -> None:
    adapter = HttpAdapter(server.url + "/answer", retrieve_url=server.url + "/retrieve")
    assert adapter.supports_retrieval
    reply = await adapter.respond(call())
    assert reply.response.answer == canned_response(QUESTION)["answer"]
    retrieved = await adapter.retrieve(call())
    await adapter.aclose()
    assert retrieved.response.retrieved_ids == canned_response(QUESTION)["retrieved"]
    assert retrieved.response.answer == ""


async def test_retrieval_needs_retrieve_url() -> None:
    adapter = HttpAdapter("http://agent/answer")
    assert not adapter.supports_retrieval
    with pytest.raises(ConfigError, match="retrieve_url"):
        await adapter.retrieve(call())


async def test_retrieval_accepts_a_bare_list() -> None:
    adapter = mock(answering(body=["p1", {"id": "p2"}]), retrieve_url="http://agent/r")
    assert (await adapter.retrieve(call())).response.retrieved_ids == ["p1", "p2"]


@pytest.mark.parametrize("route", ["/answer", "/sse", "/chunked"])
async def test_server_faults_become_the_right_errors(route: str) -> None:
    stream = {"/answer": None, "/sse": "sse", "/chunked": "chunked"}[route]
    for plan, error, transient in [
        (FaultPlan(malformed_rate=1.0), AgentOutputError, False),
        (FaultPlan(error_rate=1.0), AgentTransportError, True),
        (FaultPlan(bug_rate=1.0), AgentTransportError, False),
    ]:
        with FaultServer(plan) as faulty:
            adapter = HttpAdapter(faulty.url + route, stream=stream)
            with pytest.raises(error) as caught:
                await adapter.respond(call())
            await adapter.aclose()
        assert caught.value.transient is transient and caught.value.raw


SSE_BODY = (
    ": a comment\n"
    "event: message\n"
    'data: {"choices": [{"delta": {"content": "Twenty"}}]}\n\n'
    'data: {"choices": [{"delta": {"content": "-five."}}]}\n\n'
    'data: {"docs": ["p1", "p2"], "timing": {"first": 12.5}}\n\n'
    "data: [DONE]\n\n"
    'data: {"ignored": "after done"}\n\n'
)


async def test_sse_with_a_delta_path_and_a_response_map() -> None:
    adapter = mock(
        answering(text=SSE_BODY, headers=EVENTS),
        stream="sse",
        delta_field="choices.0.delta.content",
        response_map={"retrieved": "docs", "first_token_ms": "timing.first"},
    )
    reply = await adapter.respond(call())
    assert reply.response.answer == "Twenty-five."
    assert reply.response.retrieved_ids == ["p1", "p2"]
    assert reply.first_token_ms == 12.5  # the agent's own figure wins …
    assert "measured_first_token_ms" in reply.meta  # … and ours is kept


async def test_sse_final_event_answer_wins_over_the_deltas() -> None:
    body = (
        'data: {"delta": "draft"}\n\n'
        'data: {"answer": "Final.", "citations": ["p1"], "flag": null}\n\n'
        "data: [DONE]\n\n"
    )
    reply = await mock(answering(text=body, headers=EVENTS), stream="sse").respond(call())
    assert reply.response.answer == "Final." and reply.response.cited_ids() == ["p1"]


async def test_sse_events_must_be_json_objects() -> None:
    with pytest.raises(AgentOutputError, match="not an object") as caught:
        await mock(
            answering(text='data: {"delta": "a"}\n\ndata: [1, 2]\n\n', headers=EVENTS),
            stream="sse",
        ).respond(call())
    assert caught.value.raw is not None and '"delta": "a"' in caught.value.raw


async def sse(body: str, content_type: str = "text/event-stream", **options: Any) -> AgentReply:
    headers = {"content-type": content_type}
    return await mock(answering(text=body, headers=headers), stream="sse", **options).respond(
        call()
    )


async def test_sse_joins_an_event_split_over_several_data_lines() -> None:
    body = 'data: {"answer":\ndata: "Twenty-five days."}\n\ndata: [DONE]\n\n'
    assert (await sse(body)).response.answer == "Twenty-five days."


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/json", '{"answer": "25 days", "retrieved": ["p1"]}'),  # plain JSON
        ("text/html", "<html>502 Bad Gateway</html>"),
        ("", 'data: {"delta": "x"}\n\ndata: [DONE]\n\n'),  # no Content-Type at all
    ],
)
async def test_a_body_that_is_not_an_event_stream_is_malformed_not_an_empty_answer(
    content_type: str, body: str
) -> None:
    with pytest.raises(AgentOutputError, match="not text/event-stream") as caught:
        await sse(body, content_type)
    assert not caught.value.transient and caught.value.raw == body


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("", "held no answer"),  # an empty stream, ended cleanly
        ("data: [DONE]\n\n", "held no answer"),
        ('data: {"delta": 42}\n\ndata: [DONE]\n\n', "'delta' is a int, not text"),
        ('data: {"delta": "Ann"}\n\nevent: error\ndata: model overloaded\n\n', "reported an error"),
    ],
)
async def test_streams_of_the_wrong_shape_are_malformed(body: str, message: str) -> None:
    with pytest.raises(AgentOutputError, match=message):
        await sse(body, end_marker="" if not body else "[DONE]")


async def test_a_stream_without_its_end_marker_is_incomplete_and_retried() -> None:
    cut = 'data: {"delta": "Annual leave is 25 da"}\n\n'
    with pytest.raises(AgentTransportError, match="ended before its end marker") as caught:
        await sse(cut)
    assert caught.value.transient and caught.value.raw and "25 da" in caught.value.raw
    # an agent that ends its streams by closing them says so with end_marker = ""
    assert (await sse(cut, end_marker="")).response.answer == "Annual leave is 25 da"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"url": "http://a", "strem": "sse"}, "unknown key 'strem' (did you mean 'stream'?)"),
        ({"url": "http://a", "stream": "websocket"}, "stream"),
        ({"url": "http://a", "request_map": {"q": "gold"}}, "not a request field"),
        ({"url": "http://a", "request_map": {"q": "attempt"}}, "not a request field"),
        ({"url": "http://a", "request_map": {"a": "question", "a.b": "asker"}}, "inside 'a'"),
        ({"url": "http://a", "response_map": {"answr": "x"}}, "not a response field"),
        ({"url": "http://a", "method": "DELETE"}, "method"),
        ({}, "url"),
    ],
)
def test_config_errors_list_what_is_valid(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match="type = 'http'") as caught:
        HttpAdapter.from_config(options)
    assert message in str(caught.value)


def test_from_config_and_describe() -> None:
    adapter = HttpAdapter.from_config(
        {"url": "http://agent/answer", "stream": "sse", "timeout": 12, "headers": {"X-Key": "abc"}}
    )
    described = adapter.describe()
    assert described["type"] == "http" and described["stream"] == "sse"
    assert described["delta_field"] == "delta" and described["timeout"] == 12.0
    assert "abc" not in json.dumps(described)
