"""The ``llm`` judge: any OpenAI-compatible chat endpoint, through :mod:`httpx`.

TOML (``[judge]`` table)::

    [judge]
    backend = "llm"
    base_url = "http://127.0.0.1:8080/v1"  # …/chat/completions is appended
    model = "qwen2.5-7b-instruct"
    api_key_env = "OPENAI_API_KEY"     # the NAME of the variable; keys live only in the env
    threshold = 0.5                    # a "supported" verdict scoring below it counts as not
    response_format = "auto"           # or json_schema | json_object_schema | json_object | none
    seed = 0                           # sent while the server accepts it; null: never sent
    timeout_s = 60                     # per request, whole
    max_retries = 4                    # on 429, 5xx, timeouts and connection errors
    parse_retries = 2                  # on an unusable reply (asks again, saying what was wrong)
    concurrency = 4                    # requests in flight at once
    requests_per_minute = 60           # token bucket; absent: no limit
    backoff_s = 1.0                    # first retry delay, doubled each time, with jitter
    backoff_max_s = 30
    max_tokens = 1024                  # absent: sized from the number of claims
    cache = true                       # or a path; false: no cache
    price_prompt_per_1k = 0.00015      # optional, for the cost line of the scorecard
    price_completion_per_1k = 0.0006
    extra_body = {}                    # added to every request body
    score = "stated"                   # or "probability": P(supported) from the logprobs

Structured output, ``auto``: ask for ``json_schema`` (OpenAI); when the server rejects it
(HTTP 400/422 about the response format — llama-cpp-python's server does) fall back to
``{"type": "json_object", "schema": …}`` (llama.cpp: grammar-constrained), then to plain
``json_object``, then to none. The mode that works is kept for the rest of the judge's life and
shown in its identity. Temperature is always 0.

Score: by default the number the model writes in each verdict's ``score`` field. With
``score = "probability"`` the request asks for ``logprobs`` (``top_logprobs = 20``) and each
verdict's score is the model's probability of "supported" where it writes the verdict, as the
``local`` judge reads it (:mod:`ragcard.judges.verdict_probability`); the label is still the
one written. A server that refuses log-probabilities, or replies without them, is a judge
failure that says so (set ``score = "stated"``). A reply in which some verdict's probability
cannot be read (no label among the top alternatives) keeps its stated scores, and each
verdict's reason says so. The cache keeps the two kinds of score apart.

Failures: transport errors are retried with exponential backoff and full jitter, seeded by
``seed`` (Retry-After honoured up to 120 s: :class:`ragcard.agent._retry.Backoff`, the runner's
policy); an unusable reply is retried ``parse_retries`` times; then :class:`JudgeError`, which
the metric records on the item. The API key is read from the environment at each
request and appears in no identity, message or cache entry.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from typing import Any, Literal, Self

import httpx
from pydantic import Field

from ragcard.agent import _secrets
from ragcard.agent._retry import Backoff, parse_retry_after
from ragcard.errors import ConfigError
from ragcard.judges.base import JudgeContext, JudgeError, JudgeIdentity
from ragcard.judges.cache import ChatOptions, estimate_tokens, load_options
from ragcard.judges.prompts import (
    LABELS,
    PROMPT_VERSION,
    TASK_PROMPT_VERSIONS,
    ChatJudge,
    Reply,
    reply_schema,
    truncate_raw,
)
from ragcard.judges.verdict_probability import distributions_from_logprobs

__all__ = ["MODES", "LlmJudge", "LlmOptions", "RateLimiter"]

Mode = Literal["json_schema", "json_object_schema", "json_object", "none"]
#: Structured-output modes, in fallback order.
MODES: tuple[Mode, ...] = ("json_schema", "json_object_schema", "json_object", "none")
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "schema", "grammar")
#: Alternatives asked for at each reply token with ``score = "probability"`` (OpenAI's most).
TOP_LOGPROBS = 20
_NO_LOGPROBS_FIX = (
    'set score = "stated" in [judge], or use a server that returns them '
    "(OpenAI, vLLM, llama.cpp's servers do)"
)


def _request_refused(status: int, body: str) -> bool:
    """Whether the server refused the request itself, so that a changed request may pass.

    llama-cpp-python's server (0.3.x) reports a request that fails validation — a
    ``json_schema`` response format among them — as HTTP 500, not 422: such a 500 is a
    refusal, not an outage, and is not retried.
    """
    if status in (400, 422):
        return True
    lowered = body.lower()
    return status >= 500 and "validation error" in lowered and "'body'" in lowered


class LlmOptions(ChatOptions):
    """The ``[judge]`` keys of the ``llm`` backend."""

    base_url: str = Field(min_length=1)
    model: str = Field(min_length=1)
    api_key_env: str | None = None
    response_format: Literal["auto", "json_schema", "json_object_schema", "json_object", "none"] = (
        "auto"
    )
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=4, ge=0)
    concurrency: int = Field(default=4, ge=1)
    requests_per_minute: float | None = Field(default=None, gt=0)
    backoff_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=30.0, ge=0)
    price_prompt_per_1k: float | None = Field(default=None, ge=0)
    price_completion_per_1k: float | None = Field(default=None, ge=0)
    extra_body: dict[str, Any] = Field(default_factory=dict)
    score: Literal["stated", "probability"] = "stated"


class RateLimiter:
    """A token bucket: at most ``per_minute`` acquisitions a minute, evenly spaced."""

    def __init__(self, per_minute: float | None) -> None:
        self.rate = per_minute / 60.0 if per_minute else None
        self._tokens = 1.0
        self._updated = time.monotonic()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        """Wait until a request may be sent."""
        if self.rate is None:
            return
        async with self._lock:
            while True:
                now = time.monotonic()
                self._tokens = min(1.0, self._tokens + (now - self._updated) * self.rate)
                self._updated = now
                if self._tokens >= 1.0:
                    self._tokens -= 1.0
                    return
                await asyncio.sleep((1.0 - self._tokens) / self.rate)


class _LoopState:
    """What belongs to one event loop: the client, the concurrency gate, the rate limiter."""

    def __init__(self, options: LlmOptions, transport: httpx.AsyncBaseTransport | None) -> None:
        self.loop = asyncio.get_running_loop()
        self.client = httpx.AsyncClient(transport=transport, timeout=options.timeout_s)
        self.gate = asyncio.Semaphore(options.concurrency)
        self.limiter = RateLimiter(options.requests_per_minute)


class LlmJudge(ChatJudge):
    """Judges claims with a chat model behind an OpenAI-compatible HTTP endpoint."""

    backend = "llm"

    def __init__(
        self, *, transport: httpx.AsyncBaseTransport | None = None, **options: Any
    ) -> None:
        """``options``: the ``[judge]`` keys (module docstring); ``transport``: for tests."""
        self.options = load_options(LlmOptions, options, self.backend)
        if self.options.api_key_env and self.options.api_key_env not in os.environ:
            name = self.options.api_key_env
            raise ConfigError(
                f"judge 'llm': api_key_env = {name!r}, but ${name} is not set; "
                f"export {name}=… before running"
            )
        if self.options.api_key_env:  # a key HTTP cannot carry stops the run now, unnamed
            self._key_header()
        super().__init__(
            self.options,
            self.options.model,
            self.options.price_prompt_per_1k,
            self.options.price_completion_per_1k,
        )
        url = httpx.URL(self.options.base_url.rstrip("/") + "/chat/completions")
        if url.scheme not in ("http", "https") or not url.host:
            raise ConfigError(
                f"judge 'llm': base_url must be an http(s) URL such as "
                f"'http://127.0.0.1:8080/v1', got {self.options.base_url!r}"
            )
        self._url = url
        self._host = url.host + (f":{url.port}" if url.port else "")
        start = self.options.response_format
        self._mode: Mode = "json_schema" if start == "auto" else start
        self._send_seed = self.options.seed is not None
        self._transport = transport
        self._state: _LoopState | None = None
        # the runner's policy: full jitter, seeded with the judge's seed; Retry-After up to 120 s
        self._backoff = Backoff(
            self.options.backoff_s,
            self.options.backoff_max_s,
            self.options.seed,
            retry_after_max_s=max(120.0, self.options.backoff_max_s),
        )
        if self.options.score == "probability":
            self.score_source = "+verdict-probability"
        self.identity = self._identity()

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> Self:
        """Build from the ``[judge]`` table (``backend``/``type`` keys are ignored)."""
        return cls(**dict(options))

    @property
    def mode(self) -> Mode:
        """The structured-output mode in use (after any fallback)."""
        return self._mode

    def _identity(self) -> JudgeIdentity:
        settings = {
            "host": self._host,
            "mode": self._mode,
            "temperature": 0,
            "seed": self.options.seed if self._send_seed else None,
            "cache": self.cache is not None,
        }
        if self.options.score == "probability":
            settings["score"] = "P(supported): the model's token probability of the verdict"
        return JudgeIdentity(
            "llm",
            self.options.model,
            PROMPT_VERSION,
            self.options.threshold,
            None,
            settings,
            dict(TASK_PROMPT_VERSIONS),
        )

    async def release(self) -> None:
        """Close what belongs to the running event loop (the HTTP client); the judge stays
        usable: a later call on another loop opens a new client."""
        if self._state is not None and self._state.loop is asyncio.get_running_loop():
            await self._state.client.aclose()
        self._state = None

    async def aclose(self) -> None:
        """Close the HTTP client and the cache."""
        await self.release()
        self.close()

    def _loop_state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        if self._state is None or self._state.loop is not loop:
            self._state = _LoopState(self.options, self._transport)
        return self._state

    def _headers(self) -> dict[str, str]:
        name = self.options.api_key_env
        if not name:
            return {}
        key = os.environ.get(name)
        if key is None:
            raise JudgeError(f"llm judge ({self._host}): ${name} is no longer set")
        return {"Authorization": self._key_header()}

    def _key_header(self) -> str:
        """``Bearer <key>``, the key remembered as a secret (scrubbed from every output) and
        checked: a CR, LF or non-Latin-1 character is a ConfigError naming the variable."""
        name = self.options.api_key_env or ""
        key = os.environ.get(name, "")
        _secrets.remember(key)
        problem = _secrets.check_header_value(f"Bearer {key}", "Authorization", [name])
        if problem is not None:
            raise ConfigError(problem.replace("[agent] header", "[judge] api_key_env:", 1))
        return f"Bearer {key}"

    def _payload(
        self, messages: list[dict[str, str]], ctx: JudgeContext, max_tokens: int
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.options.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": max_tokens,
        }
        if self._send_seed:
            payload["seed"] = self.options.seed
        if self._wants_logprobs(ctx):
            payload["logprobs"] = True
            payload["top_logprobs"] = TOP_LOGPROBS
        if self._mode == "json_schema":
            name = "verdicts" if ctx.task == "support" else "answer_check"
            schema = {"name": name, "strict": True, "schema": reply_schema(ctx)}
            payload["response_format"] = {"type": "json_schema", "json_schema": schema}
        elif self._mode == "json_object_schema":
            payload["response_format"] = {
                "type": "json_object",
                "schema": reply_schema(ctx, positional=True),
            }
        elif self._mode == "json_object":
            payload["response_format"] = {"type": "json_object"}
        payload.update(self.options.extra_body)
        return payload

    def _wants_logprobs(self, ctx: JudgeContext) -> bool:
        return self.options.score == "probability" and ctx.task == "support"

    def _fall_back(self, mode: Mode, body: str) -> bool:
        """After the server refused a request in ``mode``: drop the seed or move to the next
        mode, if that may help. Returns whether to try again."""
        lowered = body.lower()
        if self._send_seed and "seed" in lowered:
            self._send_seed = False
        elif (
            self.options.response_format == "auto"
            and mode != "none"
            and any(word in lowered for word in _FORMAT_WORDS)
        ):
            if self._mode == mode:  # another request may already have moved on
                self._mode = MODES[MODES.index(mode) + 1]
        elif self._mode == mode:
            return False
        self.identity = self._identity()
        return True

    async def _complete(
        self, messages: list[dict[str, str]], ctx: JudgeContext, max_tokens: int
    ) -> Reply:
        while True:
            mode = self._mode
            response = await self._send(self._payload(messages, ctx, max_tokens))
            status = response.status_code
            refused = _request_refused(status, response.text)
            if refused and self._wants_logprobs(ctx) and "logprob" in response.text.lower():
                raise JudgeError(
                    f"llm judge ({self._host}, model {self.options.model!r}): the server "
                    f"refused log-probabilities (HTTP {status}); {_NO_LOGPROBS_FIX}",
                    truncate_raw(response.text),
                )
            if refused and self._fall_back(mode, response.text):
                continue
            if status >= 400:
                raise JudgeError(
                    f"llm judge ({self._host}, model {self.options.model!r}): HTTP {status} "
                    f"in mode {mode!r}",
                    truncate_raw(response.text),
                )
            return self._reply(response, messages, self._wants_logprobs(ctx))

    def _reply(
        self, response: httpx.Response, messages: list[dict[str, str]], logprobs: bool
    ) -> Reply:
        try:
            body = response.json()
            choice = body["choices"][0]
            text = choice["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError):
            raise JudgeError(
                f"llm judge ({self._host}): the reply is not an OpenAI chat completion",
                truncate_raw(response.text),
            ) from None
        if not isinstance(text, str):
            raise JudgeError(
                f"llm judge ({self._host}): message content is not text",
                truncate_raw(response.text),
            )
        usage = body.get("usage") if isinstance(body, dict) else None
        prompt = usage.get("prompt_tokens") if isinstance(usage, dict) else None
        completion = usage.get("completion_tokens") if isinstance(usage, dict) else None
        estimated = not (isinstance(prompt, int) and isinstance(completion, int))
        if estimated:
            prompt = sum(estimate_tokens(m["content"]) + 4 for m in messages)
            completion = estimate_tokens(text)
        self.ledger.add_usage(int(prompt or 0), int(completion or 0), estimated)
        truncated = choice.get("finish_reason") == "length"
        if not logprobs:
            return Reply(text, truncated)
        found = choice.get("logprobs")
        content = found.get("content") if isinstance(found, dict) else None
        if not isinstance(content, list) or not all(isinstance(e, dict) for e in content):
            raise JudgeError(
                f"llm judge ({self._host}, model {self.options.model!r}): the reply carries "
                f"no log-probabilities; {_NO_LOGPROBS_FIX}",
                truncate_raw(response.text),
            )
        return Reply(text, truncated, distributions_from_logprobs(content, LABELS), probed=True)

    async def _send(self, payload: dict[str, Any]) -> httpx.Response:
        """POST with retries on 429, 5xx, timeouts and connection errors."""
        state = self._loop_state()
        problem = ""
        for attempt in range(self.options.max_retries + 1):
            if attempt:
                self.ledger.retries += 1
            await state.limiter.acquire()
            retry_after: float | None = None
            async with state.gate:
                self.ledger.calls += 1
                try:
                    async with asyncio.timeout(self.options.timeout_s):
                        response = await state.client.post(
                            self._url, json=payload, headers=self._headers()
                        )
                except (TimeoutError, httpx.TimeoutException):
                    problem = f"no reply within {self.options.timeout_s:g} s"
                except httpx.TransportError as error:
                    problem = f"{type(error).__name__}: {error}".rstrip(": ")
                else:
                    status = response.status_code
                    if status < 500 and status != 429 or _request_refused(status, response.text):
                        return response
                    problem = f"HTTP {response.status_code}"
                    retry_after = parse_retry_after(response.headers.get("retry-after"))
            if attempt < self.options.max_retries:
                await asyncio.sleep(self._backoff.delay(attempt + 1, retry_after))
        raise JudgeError(
            f"llm judge ({self._host}, model {self.options.model!r}): {problem}, "
            f"after {self.options.max_retries + 1} attempt(s)"
        )
