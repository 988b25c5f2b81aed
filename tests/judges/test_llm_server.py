"""The ``llm`` judge end to end against a real llama-cpp-python server on loopback.

The server runs SmolLM2-135M (``ragcard judges install-local --model smollm2-135m``): it cannot
judge entailment, so these tests check the transport and the JSON handling, never the labels.
What they exercise for real: the json_schema → json_object+schema fallback (llama-cpp-python's
server rejects json_schema with a 422), a retried 500, the persistent cache (a rerun makes no
HTTP call), a server killed mid-run (the rest become JudgeErrors, the cached still answer) and a
restart that completes them, and the probability score read from the server's logprobs.
Skipped, saying why, without llama-cpp-python[server] or the model; tests/judges/README.md has
the install lines CI runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest
from llama_server import Server, why_skip

from ragcard.judges.base import Evidence, JudgeContext, JudgeError, Verdict
from ragcard.judges.llm import LlmJudge

pytestmark = pytest.mark.skipif(why_skip() is not None, reason=why_skip() or "")

PASSAGES = (
    Evidence("leave#1", "Full-time staff get 25 days of paid annual leave."),
    Evidence("leave#2", "Leave requests are approved by the line manager."),
)
CONTEXTS = [
    JudgeContext(
        (f"Staff get {days} days of leave.", "Managers approve leave."),
        PASSAGES,
        f"How much leave? ({days})",
    )
    for days in (20, 25, 30, 35, 40, 45)
]


class Wire(httpx.AsyncBaseTransport):
    """The real transport, counting requests; can fail the first ones with a 500 and run a
    hook after each successful reply."""

    def __init__(
        self, fail_first: int = 0, after_ok: Callable[[int], Awaitable[None]] | None = None
    ) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.fail_first, self.after_ok = fail_first, after_ok
        self.requests = self.ok = 0
        self.statuses: list[int] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        if self.requests <= self.fail_first:
            self.statuses.append(500)
            return httpx.Response(500, text="injected failure")
        response = await self.inner.handle_async_request(request)
        self.statuses.append(response.status_code)
        if response.status_code == 200:
            self.ok += 1
            if self.after_ok is not None:
                await self.after_ok(self.ok)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def judge_for(server: Server, wire: Wire, cache: Path, **options: object) -> LlmJudge:
    settings: dict[str, object] = {
        "base_url": server.url,
        "model": "smollm2",
        "cache": str(cache),
        "backoff_s": 0.05,
        "backoff_max_s": 0.2,
        "max_retries": 2,
        "parse_retries": 2,
        "timeout_s": 600,  # SmolLM2 on a busy 2-core machine can take minutes a call
        "concurrency": 1,
        **options,
    }
    return LlmJudge(transport=wire, **settings)


def check_shape(verdicts: list[Verdict], ctx: JudgeContext) -> None:
    assert len(verdicts) == len(ctx.claims)
    for verdict in verdicts:
        assert verdict.label in ("supported", "not_supported", "contradicted")
        assert 0.0 <= verdict.score <= 1.0
        assert verdict.passage_id in (None, "leave#1", "leave#2")


async def test_fallback_retry_and_cache_against_a_real_server(
    server: Server, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite3"
    wire = Wire(fail_first=1)
    judge = judge_for(server, wire, cache)
    first = [await judge.judge(ctx) for ctx in CONTEXTS[:3]]
    for verdicts, ctx in zip(first, CONTEXTS, strict=False):
        check_shape(verdicts, ctx)
    # the injected 500 (retried), then json_schema refused (llama-cpp-python says so with a
    # 500 that carries a validation error: not retried), then json_object + schema works
    assert wire.statuses[:3] == [500, 500, 200]
    assert judge.mode == "json_object_schema"
    stats = judge.stats()
    assert stats.retries == 1 and stats.judgements == 3 and stats.failures == 0
    assert stats.prompt_tokens > 0 and not stats.tokens_estimated
    await judge.aclose()

    again_wire = Wire()
    again = judge_for(server, again_wire, cache)
    assert [await again.judge(ctx) for ctx in CONTEXTS[:3]] == first
    assert again_wire.requests == 0  # an unchanged rerun makes no call at all
    assert again.stats().cache_hits == 3
    await again.aclose()


async def test_probability_score_from_a_real_servers_logprobs(
    server: Server, tmp_path: Path
) -> None:
    judge = judge_for(server, Wire(), tmp_path / "cache.sqlite3", score="probability")
    stated = judge_for(server, Wire(), tmp_path / "cache.sqlite3")
    for ctx in CONTEXTS[:2]:
        verdicts = await judge.judge(ctx)
        check_shape(verdicts, ctx)
        # read from the logprobs, not the grammar's 0.05 steps, and none fell back
        assert all(round(v.score * 20) != v.score * 20 for v in verdicts), verdicts
        assert not any("could not be read" in (v.reason or "") for v in verdicts)
        assert [v.score for v in await stated.judge(ctx)] != [v.score for v in verdicts]
    assert judge.stats().failures == 0 and judge.mode == "json_object_schema"
    await judge.aclose()
    await stated.aclose()


async def test_server_killed_mid_run_then_restarted(server: Server, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite3"

    async def kill_after_two(ok: int) -> None:
        if ok == 2:
            await asyncio.to_thread(server.kill)

    wire = Wire(after_ok=kill_after_two)
    judge = judge_for(server, wire, cache, response_format="json_object_schema")
    results = await asyncio.gather(*(judge.judge(c) for c in CONTEXTS), return_exceptions=True)
    await judge.aclose()
    done = {i for i, r in enumerate(results) if isinstance(r, list)}
    failed = {i for i, r in enumerate(results) if isinstance(r, JudgeError)}
    assert done | failed == set(range(len(CONTEXTS)))  # nothing else: no NaN, no silent pass
    assert 1 <= len(done) <= 2 and len(failed) >= 4
    assert judge.stats().failures == len(failed)

    # server still down: the cached items answer without a call, the rest fail again
    down_wire = Wire()
    down = judge_for(server, down_wire, cache, response_format="json_object_schema")
    rerun = await asyncio.gather(*(down.judge(c) for c in CONTEXTS), return_exceptions=True)
    await down.aclose()
    assert {i for i, r in enumerate(rerun) if isinstance(r, list)} == done
    assert all(rerun[i] == results[i] for i in done)
    assert down.stats().cache_hits == len(done)

    # restarted: the failed items complete, the cached ones still make no call
    server.start()
    up_wire = Wire()
    up = judge_for(server, up_wire, cache, response_format="json_object_schema")
    final = await asyncio.gather(*(up.judge(c) for c in CONTEXTS), return_exceptions=True)
    await up.aclose()
    for verdicts, ctx in zip(final, CONTEXTS, strict=True):
        assert isinstance(verdicts, list), verdicts
        check_shape(verdicts, ctx)
    stats = up.stats()
    assert stats.cache_hits == len(done) and stats.judgements == len(failed)
    assert up_wire.ok == stats.calls - stats.retries >= len(failed)
