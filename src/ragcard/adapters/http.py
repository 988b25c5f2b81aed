"""Call an agent over HTTP: a JSON request in, a JSON body or a stream out.

TOML (``[agent]`` table)::

    [agent]
    type = "http"
    url = "https://agent.example.org/v1/answer"
    method = "POST"                        # POST (default), PUT, or GET (fields as query string)
    headers = { Authorization = "Bearer ${AGENT_TOKEN}" }   # ${VAR} read at call time
    body = { model = "prod" }              # static fields added to every request
    request_map = { query = "question", role = "asker" }    # agent field <- ragcard field
    response_map = { answer = "output.text", retrieved = "context" }  # ragcard field <- path
    timeout = 30                           # seconds; default: the run's timeout
    stream = "sse"                         # or "chunked"; absent: one JSON body
    delta_field = "delta"                  # SSE: dotted path of each text delta
    end_marker = "[DONE]"                  # SSE: the data that ends a complete stream; "" = close
    retrieve_url = "https://agent.example.org/v1/retrieve"  # retrieval-only runs
    send_attempt = false                   # add "attempt": n to the request

``request_map`` sends only the mapped fields (dotted names nest); ``response_map`` reads each
mapped field from its path (digits index lists), the rest from the top level.

``sse``: the body must be ``text/event-stream`` (parsed by httpx-sse); each event's data is one
JSON object; text deltas accumulate into the answer, events with response fields are merged
into the response, and the ``end_marker`` (``[DONE]``) ends a complete stream. A body that is
not an event stream, an ``event: error`` or an event that is not an object is
``malformed_output``; a stream cut before its end marker is an incomplete response, retried as
transient. ``chunked``: the chunks concatenate into one JSON response. Both measure time to
first token (first non-empty delta or chunk) from the start of the request.

Errors: 5xx, 429 (:class:`RateLimitedError`, with ``Retry-After``), connection and read errors
are transient :class:`~ragcard.errors.AgentTransportError`; other 4xx are not; timeouts are
:class:`AgentTimeout`; an unusable body is :class:`AgentOutputError` with the raw text. Header
values never appear in :meth:`HttpAdapter.describe` or in error messages.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

import httpx
from httpx_sse import EventSource, SSEError
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ragcard.adapters._common import (
    RAW_LIMIT,
    deadline,
    decode_json,
    expand_env,
    expand_header,
    load_config,
    make_reply,
    parse_response,
    redact_secrets,
    truncate,
)
from ragcard.adapters.base import AgentCall, AgentReply
from ragcard.agent._retry import parse_retry_after
from ragcard.errors import (
    AgentOutputError,
    AgentTimeout,
    AgentTransportError,
    ConfigError,
    RateLimitedError,
)

__all__ = ["REQUEST_FIELDS", "RESPONSE_FIELDS", "HttpAdapter", "HttpConfig", "RateLimitedError"]

#: ragcard request fields a ``request_map`` may send (docs/agents.md).
REQUEST_FIELDS = ("question", "asker", "program", "cutoff")
#: ragcard response fields a ``response_map`` may fill (docs/agents.md).
RESPONSE_FIELDS = tuple(
    "answer retrieved citations flag abstained first_token_ms latency_ms meta".split()
)

_MISSING: Any = object()
_Reader = Callable[[httpx.Response, float], Awaitable[AgentReply]]  # reads one kind of body


class HttpConfig(BaseModel):
    """The ``[agent]`` keys of ``type = "http"``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(min_length=1)
    method: Literal["POST", "PUT", "GET"] = "POST"
    headers: dict[str, str] = Field(default_factory=dict)
    body: dict[str, Any] = Field(default_factory=dict)
    request_map: dict[str, str] = Field(default_factory=dict)
    response_map: dict[str, str] = Field(default_factory=dict)
    timeout: float | None = Field(default=None, gt=0)
    stream: Literal["sse", "chunked"] | None = None
    delta_field: str = Field(default="delta", min_length=1)
    end_marker: str = "[DONE]"
    retrieve_url: str | None = None
    send_attempt: bool = False

    @field_validator("method", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _check_maps(self) -> HttpConfig:
        sources = REQUEST_FIELDS + (("attempt",) if self.send_attempt else ())
        for name, source in self.request_map.items():
            if source not in sources:
                raise ValueError(
                    f"request_map.{name} = {source!r}: not a request field; "
                    f"choose one of {', '.join(sources)}"
                )
            parent = next((p for p in self.request_map if name.startswith(p + ".")), None)
            if parent:
                raise ValueError(f"request_map: {name!r} is inside {parent!r}, mapped too")
        for name in self.response_map:
            if name not in RESPONSE_FIELDS:
                raise ValueError(
                    f"response_map.{name}: not a response field; choose one of "
                    f"{', '.join(RESPONSE_FIELDS)}"
                )
        return self


class HttpAdapter:
    """Calls an agent's HTTP endpoint with :mod:`httpx` (one pooled client per event loop)."""

    name = "http"

    def __init__(
        self, url: str, *, transport: httpx.AsyncBaseTransport | None = None, **options: Any
    ) -> None:
        """``options``: the other ``[agent]`` keys (see the module docstring), validated."""
        self.config = load_config(HttpConfig, {"url": url, **options}, "http")
        self._transport = transport  # httpx.MockTransport in tests
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> HttpAdapter:
        """Build from the ``[agent]`` table (without ``type``)."""
        return cls(**load_config(HttpConfig, config, "http").model_dump())

    @property
    def supports_retrieval(self) -> bool:
        """Whether ``retrieve_url`` is set (retrieval-only runs)."""
        return self.config.retrieve_url is not None

    async def respond(self, call: AgentCall) -> AgentReply:
        """Send the request; parse the JSON body or the stream into a reply."""
        stream = self.config.stream
        read = self._read_sse if stream == "sse" else self._read_body
        return await self._exchange(self.config.url, call, read)

    async def retrieve(self, call: AgentCall) -> AgentReply:
        """POST the request to ``retrieve_url``; it answers a list or ``{"retrieved": […]}``."""
        if self.config.retrieve_url is None:
            raise ConfigError(
                "the http agent cannot run retrieval alone: set retrieve_url in "
                "[agent] to the endpoint that returns retrieved passages"
            )
        return await self._exchange(self.config.retrieve_url, call, self._read_retrieved)

    async def aclose(self) -> None:
        """Close the connection pool."""
        if self._client is not None:
            await self._client.aclose()
            self._client = self._client_loop = None

    def describe(self) -> dict[str, Any]:
        """Settings recorded with the run: header names only, never their values."""
        config, described = self.config, self.config.model_dump()
        described.update(
            type=self.name, url=redact_url(config.url), body=redact_secrets(config.body)
        )
        described["headers"] = sorted(config.headers)
        described["retrieve_url"] = config.retrieve_url and redact_url(config.retrieve_url)
        if config.stream != "sse":
            del described["delta_field"], described["end_marker"]
        return described

    # --- one exchange ---------------------------------------------------------------------

    async def _exchange(self, url_template: str, call: AgentCall, read: _Reader) -> AgentReply:
        config = self.config
        shown = f"{config.method} {redact_url(url_template)}"
        url = expand_env(url_template, "[agent] url")
        headers = self._headers()
        if config.stream == "sse" and "accept" not in {k.lower() for k in headers}:
            headers["Accept"] = "text/event-stream"
        payload = self._payload(call)
        timeout = config.timeout or call.timeout_s
        client = self._client_for_this_loop()
        start = time.monotonic()
        try:
            async with (
                deadline(timeout, shown),
                client.stream(
                    config.method, url, headers=headers, timeout=timeout, **payload
                ) as response,
            ):
                if response.status_code >= 300:
                    await response.aread()
                    raise _status_error(response, shown)
                return await read(response, start)
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:
            raise ConfigError(f"[agent] url {redact_url(url_template)!r}: {error}") from None
        except httpx.TimeoutException as error:
            raise AgentTimeout(f"{shown}: {type(error).__name__} (timeout {timeout:g} s)") from None
        except httpx.TransportError as error:
            detail = str(error) or "connection failed"
            raise AgentTransportError(f"{shown}: {type(error).__name__}: {detail}") from None
        except httpx.DecodingError as error:
            raise AgentOutputError(f"{shown}: could not decode the body: {error}") from None

    def preflight(self) -> None:
        """Before the first call: every ``${VAR}`` of the url and headers is set, and every
        header value is one HTTP can carry (:func:`expand_header`)."""
        expand_env(self.config.url, "[agent] url")
        if self.config.retrieve_url:
            expand_env(self.config.retrieve_url, "[agent] retrieve_url")
        self._headers()

    def _headers(self) -> dict[str, str]:
        return {name: expand_header(name, value) for name, value in self.config.headers.items()}

    def _client_for_this_loop(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            # A pooled client belongs to the loop that opened its connections.
            # no connection cap: the runner's concurrency is the limit
            limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
            self._client = httpx.AsyncClient(transport=self._transport, limits=limits)
            self._client_loop = loop
        return self._client

    def _payload(self, call: AgentCall) -> dict[str, Any]:
        request: dict[str, Any] = dict(call.request)
        if self.config.send_attempt:
            request["attempt"] = call.attempt
        if self.config.request_map:
            mapped: dict[str, Any] = {}
            for agent_field, source in self.config.request_map.items():
                _set_path(mapped, agent_field, request.get(source))
            request = mapped
        body = {**self.config.body, **request}
        if self.config.method == "GET":
            return {"params": {key: value for key, value in body.items() if value is not None}}
        return {"json": body}

    # --- readers: one per kind of body ----------------------------------------------------

    async def _read_body(self, response: httpx.Response, start: float) -> AgentReply:
        chunks: list[bytes] = []
        first_chunk_ms: float | None = None
        async for chunk in response.aiter_bytes():
            if chunk and first_chunk_ms is None:
                first_chunk_ms = _elapsed_ms(start)
            chunks.append(chunk)
        measured = _elapsed_ms(start)
        text = b"".join(chunks).decode(response.encoding or "utf-8", errors="replace")
        fields = self._fields(decode_json(text), text, strict=True)
        # a plain body's first bytes arrive with the whole answer: no first-token time
        first = first_chunk_ms if self.config.stream == "chunked" else None
        return make_reply(
            parse_response(fields, text),
            measured_latency_ms=measured,
            measured_first_token_ms=first,
        )

    async def _read_sse(self, response: httpx.Response, start: float) -> AgentReply:
        """An event stream, parsed by httpx-sse (events split over several ``data:`` lines are
        joined). Refused as ``malformed_output``: a body that is not ``text/event-stream``, an
        event that is not a JSON object, a delta that is not text, ``event: error``, a stream
        with no answer. A stream that stops before its end marker is an incomplete response:
        a transient error, retried."""
        transcript: deque[str] = deque(maxlen=64)  # the last events, for error reports
        deltas: list[str] = []
        fields: dict[str, Any] = {}
        first_token_ms: float | None = None
        end, ended, events = self.config.end_marker, False, 0
        try:
            async for event in EventSource(response).aiter_sse():
                transcript.append(f"event: {event.event}\ndata: {event.data}")
                if event.event == "error":
                    raise AgentOutputError(
                        f"the stream reported an error: {event.data[:200]}", _tail(transcript)
                    )
                if end and event.data == end:
                    ended = True
                    break
                if not event.data:
                    continue
                events += 1
                data = _decode_event(event.data, transcript)
                delta = _get_path(data, self.config.delta_field)
                if isinstance(delta, str):
                    deltas.append(delta)
                elif delta is not _MISSING and delta is not None:
                    raise AgentOutputError(
                        f"SSE event: {self.config.delta_field!r} is a {type(delta).__name__}, "
                        "not text",
                        _tail(transcript),
                    )
                fields.update(self._fields(data, event.data, skip=self.config.delta_field))
                if first_token_ms is None and (any(deltas) or fields.get("answer")):
                    first_token_ms = _elapsed_ms(start)
        except SSEError:
            await response.aread()
            kind = response.headers.get("content-type") or "no Content-Type"
            raise AgentOutputError(
                f"stream = 'sse', but the agent answered {kind}, not text/event-stream "
                "(a whole body, not an event stream): fix the endpoint, or remove `stream` "
                "from [agent] if it answers one JSON body",
                truncate(response.text),
            ) from None
        if end and not ended:
            raise AgentTransportError(
                f"the event stream ended before its end marker {end!r} after {events} "
                "event(s): an incomplete response (set end_marker = \"\" if this agent "
                "ends its streams by closing them)",
                _tail(transcript),
            )
        if not deltas and not fields:
            raise AgentOutputError(
                "the event stream held no answer: no text delta at "
                f"{self.config.delta_field!r} and no response field",
                _tail(transcript) or "(no events)",
            )
        measured = _elapsed_ms(start)
        if fields.get("answer") is None:
            fields["answer"] = "".join(deltas)
        return make_reply(
            parse_response(fields, _tail(transcript)),
            measured_latency_ms=measured,
            measured_first_token_ms=first_token_ms,
        )

    async def _read_retrieved(self, response: httpx.Response, start: float) -> AgentReply:
        await response.aread()
        measured, text = _elapsed_ms(start), response.text
        data = decode_json(text)
        retrieved = data if isinstance(data, list) else self._fields(data, text).get("retrieved")
        if retrieved is None:
            raise AgentOutputError("the retrieval answer holds no 'retrieved' list", truncate(text))
        return make_reply(
            parse_response({"retrieved": retrieved}, text), measured_latency_ms=measured
        )

    def _fields(
        self, data: Any, raw: str, *, strict: bool = False, skip: str | None = None
    ) -> dict[str, Any]:
        """The ragcard response fields found in the agent's JSON, via ``response_map``."""
        if not isinstance(data, dict):
            raise AgentOutputError(
                f"expected a JSON object, got {type(data).__name__}", truncate(raw)
            )
        mapping = self.config.response_map
        if not mapping and skip is None:
            return data  # identity: unknown fields are kept with the response
        found: dict[str, Any] = {}
        for field in RESPONSE_FIELDS:
            path = mapping.get(field, field)
            if path == skip:
                continue  # an SSE text delta is not the answer itself
            value = _get_path(data, path)
            if value is not _MISSING:
                found[field] = value
            elif strict and field in mapping:
                raise AgentOutputError(
                    f"the agent's JSON has no {path!r} (response_map.{field})", truncate(raw)
                )
        return found


def _tail(transcript: deque[str]) -> str:
    """The end of the stream, where it went wrong: what errors keep as the raw output."""
    return "\n\n".join(transcript)[-RAW_LIMIT:]


def _decode_event(payload: str, transcript: deque[str]) -> dict[str, Any]:
    raw = _tail(transcript)
    try:
        event = decode_json(payload)
    except AgentOutputError as error:
        raise AgentOutputError(f"SSE event {error}", raw) from None
    if not isinstance(event, dict):
        raise AgentOutputError(f"SSE event is a JSON {type(event).__name__}, not an object", raw)
    return event


def _elapsed_ms(start: float) -> float:
    return (time.monotonic() - start) * 1000.0


def _status_error(response: httpx.Response, shown: str) -> AgentTransportError:
    status = response.status_code
    raw = truncate(response.text)
    message = f"{shown} answered HTTP {status}"
    if status == 429:
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        return RateLimitedError(message + " (rate limited)", raw, retry_after)
    if status >= 500:
        return AgentTransportError(message, raw)
    refused = ": refused, so not retried; check the url, method, headers and request_map"
    return AgentTransportError(message + refused, raw, transient=False)


def _get_path(data: Any, path: str) -> Any:
    """``data`` at dotted ``path`` (digits index lists), or ``_MISSING``."""
    current = data
    for part in path.split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return _MISSING
    return current


def _set_path(target: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for part in parents:
        target = target.setdefault(part, {})
    target[last] = value


_USERINFO = re.compile(r"//([^/@:]+):[^/@]*@")
_SECRET_QUERY = re.compile(
    r"([?&][^=&#]*(?:key|token|secret|sig|passw|auth)[^=&#]*=)[^&#]*", re.IGNORECASE
)


def redact_url(url: str) -> str:
    """``url`` with a password and secret-looking query values replaced by ``***``."""
    return _SECRET_QUERY.sub(r"\1***", _USERINFO.sub(r"//\1:***@", url))
