"""Fault-injecting fake agents, for users' tests and ours (no network, no model).

* :class:`FaultPlan` decides, from a seed, what happens to each try of each item-attempt:
  ``ok``, ``timeout`` (the agent stalls past any sane timeout), ``error`` (a transient
  failure; over HTTP a 500), ``malformed`` (output that is not a response) or ``bug`` (an
  exception in the agent's own code; over HTTP a 422), and over HTTP also ``refused`` (400),
  ``rate_limited`` (429 with ``Retry-After``), ``closed`` (the connection dropped without an
  answer), ``cut`` (a body or stream stopped short: no end marker, a short body), ``wrong_body``
  (a 200 whose body is not the declared format: plain JSON or an HTML page on the stream
  endpoint, an empty stream, events of the wrong types) and ``echo`` (a 401 whose body echoes
  the request's credentials back, as careless gateways do). The decision is a hash of
  ``(seed, question, attempt, try)``, so a rerun — or a resumed run — meets exactly the same
  faults.
* :class:`FaultyAgent` is an async callable for the ``callable`` adapter.
* :class:`FaultServer` is a real HTTP agent on ``127.0.0.1`` (a free port, a background
  thread) with the same faults: HTTP 500s, malformed JSON, stalls, slow SSE streams and
  chunked bodies, at ``/answer`` (JSON), ``/sse``, ``/chunked`` and ``/retrieve``.

The agents learn the attempt number from the request's ``attempt`` field (set
``send_attempt = true`` on the adapter) and count tries per (question, attempt) themselves;
without ``attempt`` they count calls per question instead. Use a fresh agent or server per
run (or :meth:`FaultyAgent.reset`) so the counts start from zero.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, cast

from ragcard.agent._retry import parse_retry_after
from ragcard.errors import AgentTransportError, ConfigError
from ragcard.inputs.questions import Question

__all__ = [
    "FAULTS",
    "FaultPlan",
    "FaultServer",
    "FaultyAgent",
    "canned_response",
    "faulty_agent",
    "synthetic_questions",
]

Fault = Literal[
    "ok", "timeout", "error", "malformed", "bug", "refused", "rate_limited", "closed", "cut",
    "wrong_body", "echo",
]  # fmt: skip
#: Every fault a plan can choose, in the order its rates are applied.
FAULTS: tuple[Fault, ...] = (
    "ok", "timeout", "error", "malformed", "bug", "refused", "rate_limited", "closed", "cut",
    "wrong_body", "echo",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class FaultPlan:
    """Seeded fault rates (each a probability per try) and per-try latency bounds."""

    seed: int = 0
    timeout_rate: float = 0.0
    error_rate: float = 0.0
    malformed_rate: float = 0.0
    bug_rate: float = 0.0
    min_latency_s: float = 0.0
    max_latency_s: float = 0.0
    refused_rate: float = 0.0
    rate_limited_rate: float = 0.0
    closed_rate: float = 0.0
    cut_rate: float = 0.0
    wrong_body_rate: float = 0.0
    echo_rate: float = 0.0
    #: the ``Retry-After`` a ``rate_limited`` answer carries (seconds, or any header text)
    retry_after: str = "0"

    def __post_init__(self) -> None:
        rates = self.rates()
        if any(not 0.0 <= rate <= 1.0 for rate in rates) or sum(rates) > 1.0 + 1e-9:
            raise ConfigError(f"fault rates must lie in [0, 1] and sum to at most 1: {rates}")
        if self.min_latency_s < 0 or self.max_latency_s < 0:
            raise ConfigError("latencies cannot be negative")
        if self.max_latency_s > 60:
            raise ConfigError("latencies are bounded: at most 60 s a try")

    def rates(self) -> tuple[float, ...]:
        """The rate of each fault of :data:`FAULTS` after ``ok``, in that order."""
        return tuple(getattr(self, f"{fault}_rate") for fault in FAULTS[1:])

    def fault(self, question: str, attempt: int, try_number: int) -> Fault:
        """What happens to this try (deterministic)."""
        draw = _uniform(self.seed, "fault", question, attempt, try_number)
        threshold = 0.0
        for fault, rate in zip(FAULTS[1:], self.rates(), strict=True):
            threshold += rate
            if draw < threshold:
                return fault
        return "ok"

    def variant(self, question: str, attempt: int, try_number: int, choices: int) -> int:
        """Which of ``choices`` forms a fault takes on this try (deterministic)."""
        draw = _uniform(self.seed, "variant", question, attempt, try_number)
        return min(int(draw * choices), choices - 1)

    def latency_s(self, question: str, attempt: int, try_number: int) -> float:
        """How long this try takes before answering (deterministic)."""
        high = max(self.max_latency_s, self.min_latency_s)
        draw = _uniform(self.seed, "latency", question, attempt, try_number)
        return self.min_latency_s + (high - self.min_latency_s) * draw


def _uniform(seed: int, salt: str, question: str, attempt: int, try_number: int) -> float:
    key = f"{seed}\x1f{salt}\x1f{question}\x1f{attempt}\x1f{try_number}".encode()
    digest = hashlib.blake2b(key, digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


def canned_response(question: str) -> dict[str, Any]:
    """The deterministic answer the fakes give: three passages, the first cited inline."""
    number = int.from_bytes(hashlib.blake2b(question.encode(), digest_size=4).digest(), "big")
    retrieved = [f"doc-{(number + step) % 97}#p{step}" for step in range(3)]
    return {
        "answer": f"The sources answer: {question.rstrip('?')}. [{retrieved[0]}]",
        "retrieved": retrieved,
        "citations": [{"id": retrieved[0], "sentence": 0}],
    }


def synthetic_questions(count: int, *, prefix: str = "SYN") -> list[Question]:
    """``count`` distinct questions with ids ``SYN-0001`` …, for runner tests and benchmarks."""
    return [
        Question(id=f"{prefix}-{n:04d}", question=f"What does rule {n} of the handbook say?")
        for n in range(1, count + 1)
    ]


class _TryCounter:
    """Counts tries per (question, attempt); thread-safe (sync agents run in threads)."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, int], int] = {}
        self._lock = threading.Lock()
        self.total = 0

    def next(self, question: str, attempt: int) -> int:
        with self._lock:
            count = self._counts.get((question, attempt), 0) + 1
            self._counts[(question, attempt)] = count
            self.total += 1
            return count

    def reset(self) -> None:
        with self._lock:
            self._counts.clear()
            self.total = 0


def _identify(request: Mapping[str, Any]) -> tuple[str, int]:
    attempt = request.get("attempt")
    return str(request.get("question", "")), attempt if isinstance(attempt, int) else 0


class FaultyAgent:
    """An async agent callable that follows a :class:`FaultPlan`.

    ``timeout`` sleeps ``stall_s`` (choose it longer than the run's timeout), ``error`` raises
    a transient :class:`~ragcard.errors.AgentTransportError`, ``malformed`` returns a string
    instead of a response, ``bug`` raises :class:`RuntimeError`.
    """

    def __init__(self, plan: FaultPlan | None = None, *, stall_s: float = 5.0) -> None:
        self.plan = plan or FaultPlan()
        self.stall_s = stall_s
        self.calls = 0
        self._tries = _TryCounter()

    def reset(self) -> None:
        """Forget the try counts (a fresh run)."""
        self._tries.reset()
        self.calls = 0

    async def __call__(self, request: Mapping[str, Any]) -> Any:
        """Answer one request (or fail as planned)."""
        question, fault = await self._follow_plan(request)
        if fault == "malformed":
            return "<html>502 Bad Gateway</html>"  # not a response object
        if fault == "wrong_body":
            return {"answer": 5, "retrieved": "doc"}  # an object of the wrong types
        return canned_response(question)

    async def retrieve(self, request: Mapping[str, Any]) -> Any:
        """Retrieval only: the canned passages (or fail as planned)."""
        question, fault = await self._follow_plan(request)
        if fault == "malformed":
            return "<html>502 Bad Gateway</html>"
        return canned_response(question)["retrieved"]

    async def _follow_plan(self, request: Mapping[str, Any]) -> tuple[str, Fault]:
        """Sleep and raise as planned; return the question and the fault left to act on."""
        self.calls += 1
        question, attempt = _identify(request)
        try_number = self._tries.next(question, attempt)
        fault = self.plan.fault(question, attempt, try_number)
        await asyncio.sleep(self.plan.latency_s(question, attempt, try_number))
        if fault == "timeout":
            await asyncio.sleep(self.stall_s)
        elif fault in ("error", "closed", "cut"):
            raise AgentTransportError(f"injected transient {fault} (try {try_number})")
        elif fault == "rate_limited":
            raise AgentTransportError(
                f"injected rate limit (try {try_number})",
                retry_after_s=parse_retry_after(self.plan.retry_after),
            )
        elif fault in ("refused", "echo"):
            raise AgentTransportError(f"injected refusal (try {try_number})", transient=False)
        elif fault == "bug":
            raise RuntimeError("injected bug in the agent")
        return question, fault


def faulty_agent(options: Mapping[str, Any]) -> FaultyAgent:
    """A :class:`FaultyAgent` from ``[agent.options]`` (the FaultPlan fields plus ``stall_s``).

    Use it as ``factory = "ragcard.adapters.testing:faulty_agent"`` with ``type = "callable"``.
    """
    options = dict(options)
    stall_s = float(options.pop("stall_s", 5.0))
    try:
        plan = FaultPlan(**options)
    except TypeError as error:
        raise ConfigError(
            f"faulty_agent options: {error}; valid: stall_s, "
            f"{', '.join(FaultPlan.__dataclass_fields__)}"
        ) from None
    return FaultyAgent(plan, stall_s=stall_s)


class _ServerState:
    def __init__(
        self, plan: FaultPlan, stall_s: float, stream_delay_s: float, deltas: int, echo: bool
    ) -> None:
        self.plan, self.stall_s = plan, stall_s
        self.stream_delay_s, self.deltas = stream_delay_s, deltas
        self.echo = echo
        self.tries = _TryCounter()
        self.log: list[tuple[str, int, int, Fault, float]] = []
        self.lock = threading.Lock()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 refuses bursts from a concurrent runner
    state: _ServerState

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that time out hang up mid-answer; that is expected, not an error."""


_ROUTES = ("/answer", "/retrieve", "/sse", "/chunked")
# what a ``wrong_body`` fault sends: (content type, body), one chosen per try
_WRONG_SSE = (
    ("application/json", b'{"answer": "a whole JSON body", "retrieved": ["doc-1#p0"]}'),
    ("text/html", b"<html><body>502 Bad Gateway</body></html>"),
    ("text/event-stream", b"data: [DONE]\n\n"),  # complete, and empty
    ("text/event-stream", b'data: [1, 2, 3]\n\ndata: [DONE]\n\n'),
    ("text/event-stream", b'data: {"delta": 42}\n\ndata: [DONE]\n\n'),
    ("text/event-stream", b"event: error\ndata: upstream model overloaded\n\n"),
)
_WRONG_JSON = (
    ("text/html", b"<html><body>502 Bad Gateway</body></html>"),
    ("application/json", b"[1, 2, 3]"),
    ("application/json", b'{"answer": 5, "retrieved": "doc"}'),
    ("application/json", b""),
)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked transfer

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request log on stderr."""

    def do_POST(self) -> None:
        state = cast(_Server, self.server).state
        try:
            self._serve(state)
        except OSError:  # the client hung up (a timeout): drop the connection
            self.close_connection = True

    def _serve(self, state: _ServerState) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if len(body) < length:  # the client died mid-send: no request arrived, none is logged
            self.close_connection = True
            return
        route = self.path.split("?", 1)[0]
        if route not in _ROUTES:
            self._send(404, b'{"error": "no such endpoint"}')
            return
        try:
            request = json.loads(body or b"{}")
        except json.JSONDecodeError:
            self._send(400, b'{"error": "request is not JSON"}')
            return
        question, attempt = _identify(request if isinstance(request, dict) else {})
        try_number = state.tries.next(question, attempt)
        fault = state.plan.fault(question, attempt, try_number)
        with state.lock:
            state.log.append((question, attempt, try_number, fault, time.monotonic()))
        time.sleep(state.plan.latency_s(question, attempt, try_number))
        variant = state.plan.variant(question, attempt, try_number, 6)
        if self._refuse(state, fault):
            return
        if fault == "wrong_body":
            wrong = _WRONG_SSE if route == "/sse" else _WRONG_JSON
            content_type, data = wrong[variant % len(wrong)]
            self._send(200, data, content_type)
        elif route == "/sse":
            self._sse(state, question, fault)
        elif route == "/chunked":
            self._chunked(state, question, fault)
        else:
            self._json(state, question, fault, retrieve=route == "/retrieve")

    def _refuse(self, state: _ServerState, fault: Fault) -> bool:
        """Answer the faults that need no body of the route; whether one was answered."""
        if fault == "error":
            self._send(500, b'{"error": "injected server error"}')
        elif fault == "bug":
            self._send(422, b'{"error": "injected unprocessable request"}')
        elif fault == "refused":
            self._send(400, b'{"error": "injected bad request"}')
        elif fault == "rate_limited":
            retry = {"Retry-After": state.plan.retry_after}
            self._send(429, b'{"error": "slow down"}', headers=retry)
        elif fault == "echo":  # a gateway that quotes the credentials it refused
            seen = {k: v for k, v in self.headers.items() if k.lower() != "content-length"}
            echoed = json.dumps({"error": "invalid credentials", "headers": seen}).encode()
            self._send(401, echoed)
        elif fault == "closed":
            self.close_connection = True  # no status line at all
        else:
            return False
        return True

    def _answer(self, state: _ServerState, question: str) -> dict[str, Any]:
        response = canned_response(question)
        if state.echo:  # an agent that repeats what it was sent, credentials included
            sent = {k: v for k, v in self.headers.items() if k.lower() != "content-length"}
            response["answer"] += f" You sent {json.dumps(sent)}."
        return response

    def _json(self, state: _ServerState, question: str, fault: Fault, *, retrieve: bool) -> None:
        if fault == "timeout":
            time.sleep(state.stall_s)
        response = self._answer(state, question)
        body = {"retrieved": response["retrieved"]} if retrieve else response
        data = json.dumps(body).encode()
        if fault == "cut":  # promise the whole body, send half, hang up
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self._send(200, data[: len(data) // 2] if fault == "malformed" else data)

    def _sse(self, state: _ServerState, question: str, fault: Fault) -> None:
        response = self._answer(state, question)
        answer = response.pop("answer")
        size = -(-len(answer) // state.deltas)
        self._start_chunks("text/event-stream")
        for index in range(0, len(answer), size):
            if index:
                time.sleep(state.stream_delay_s)
            self._chunk(
                b"data: " + json.dumps({"delta": answer[index : index + size]}).encode() + b"\n\n"
            )
            if fault == "timeout":  # stall mid-stream: a first token does not beat the timeout
                time.sleep(state.stall_s)
                self.close_connection = True
                return
            if fault == "malformed":
                self._chunk(b'data: {"delta": "unterminated\n\n')
            if fault == "cut":  # a clean end of the body, but no end marker: answer cut short
                self._end_chunks()
                return
        self._chunk(b"data: " + json.dumps(response).encode() + b"\n\n")
        self._chunk(b"data: [DONE]\n\n")
        self._end_chunks()

    def _chunked(self, state: _ServerState, question: str, fault: Fault) -> None:
        data = json.dumps(canned_response(question)).encode()
        if fault == "malformed":
            data = data[:-5]
        self._start_chunks("application/json")
        third = -(-len(data) // 3)
        for index in range(0, len(data), third):
            if index:
                time.sleep(state.stream_delay_s)
            self._chunk(data[index : index + third])
            if fault in ("timeout", "cut"):
                if fault == "timeout":
                    time.sleep(state.stall_s)
                self.close_connection = True  # no terminating chunk
                return
        self._end_chunks()

    def _send(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _start_chunks(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class FaultServer:
    """A real HTTP agent on 127.0.0.1 following a :class:`FaultPlan`; a context manager.

    ``stream_delay_s`` is the pause between SSE deltas and between body chunks (a slow
    stream); ``stall_s`` how long a ``timeout`` fault hangs; ``deltas`` how many pieces the
    SSE answer is cut into; ``echo_headers`` makes every answer repeat the request's headers
    (credentials included), as a careless agent might. Bounded: it listens on 127.0.0.1 only,
    and a stall lasts at most 60 s.
    """

    def __init__(
        self,
        plan: FaultPlan | None = None,
        *,
        stall_s: float = 5.0,
        stream_delay_s: float = 0.0,
        deltas: int = 4,
        echo_headers: bool = False,
    ) -> None:
        if not 0 <= stall_s <= 60 or not 0 <= stream_delay_s <= 10:
            raise ConfigError(
                "FaultServer: stall_s must lie in [0, 60] and stream_delay_s in [0, 10]"
            )
        self.plan = plan or FaultPlan()
        self._state = _ServerState(
            self.plan, stall_s, stream_delay_s, max(1, deltas), echo_headers
        )
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (the server must be started)."""
        if self._server is None:
            raise RuntimeError("the FaultServer is not started; use it as a context manager")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> int:
        """Requests to known endpoints so far (handler threads count under a lock)."""
        return self._state.tries.total

    @property
    def log(self) -> list[tuple[str, int, int, Fault, float]]:
        """Every request to a known endpoint so far: ``(question, attempt, try, fault,
        time.monotonic() when it arrived)``."""
        with self._state.lock:
            return list(self._state.log)

    def reset_tries(self) -> None:
        """Count tries from zero again (a resumed run meets the faults a fresh one would); the
        request log is kept."""
        self._state.tries.reset()

    def start(self) -> FaultServer:
        """Bind a free port and serve from a daemon thread."""
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = self._state
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="ragcard-fault-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (stalled handlers finish on their own)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
