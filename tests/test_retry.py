"""The one retry policy (ragcard.agent._retry): seeded full jitter, Retry-After read one way."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from ragcard.adapters.base import AgentCall
from ragcard.adapters.http import HttpAdapter, RateLimitedError
from ragcard.agent._retry import Backoff, parse_retry_after

NOW = datetime(2015, 10, 21, 7, 27, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        ("0", 0.0),
        (" 7 ", 7.0),
        ("1.5", 1.5),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 30.0),
        ("Wed, 21 Oct 2015 07:28:00 -0000", 30.0),  # obsolete zone: naive in email.utils
        ("Wed, 21 Oct 2015 07:28:00 +0000", 30.0),
        ("Wed, 21 Oct 2015 09:28:00 +0200", 30.0),
        ("Wed, 21 Oct 2015 07:00:00 GMT", 0.0),  # in the past: no wait
    ],
)
def test_retry_after_seconds_and_http_dates(value: str, seconds: float) -> None:
    assert parse_retry_after(value, NOW) == pytest.approx(seconds)


@pytest.mark.parametrize(
    "value",
    [None, "", "   ", "soon", "-5", "nan", "inf", "1e400", "Wed, 99 Foo 2015", "0x10", "💥",
     "Wed, 21 Oct 2015 25:61:00 GMT", "a" * 10_000],
)
def test_retry_after_garbage_is_no_advice_never_an_exception(value: str | None) -> None:
    assert parse_retry_after(value, NOW) is None


def test_retry_after_date_counts_from_the_clock_by_default() -> None:
    soon = datetime.now(UTC) + timedelta(seconds=40)
    value = soon.strftime("%a, %d %b %Y %H:%M:%S -0000")
    found = parse_retry_after(value)
    assert found is not None and 30 < found <= 40


def test_full_jitter_is_seeded_bounded_and_capped() -> None:
    first, second = Backoff(0.5, 4.0, seed=3), Backoff(0.5, 4.0, seed=3)
    draws = [first.delay(n) for n in range(1, 9)]
    assert draws == [second.delay(n) for n in range(1, 9)]
    ceilings = [0.5, 1.0, 2.0, 4.0, 4.0, 4.0, 4.0, 4.0]
    assert all(0.0 <= d <= c for d, c in zip(draws, ceilings, strict=True))
    # full jitter: draws spread over the whole range, not [ceiling/2, ceiling]
    many = Backoff(1.0, 1.0, seed=5)
    assert min(many.delay(1) for _ in range(200)) < 0.1


def test_retry_after_is_a_floor_capped_and_garbage_ignored() -> None:
    assert Backoff(0.001, 20.0, seed=1).delay(1, 2.5) == 2.5
    assert Backoff(0.001, 20.0, seed=1).delay(1, 300.0) == 20.0
    assert Backoff(0.001, 20.0, seed=1, retry_after_max_s=120).delay(1, 300.0) == 120.0
    assert Backoff(0.001, 20.0, seed=1).delay(1, float("nan")) < 0.01
    assert Backoff(0.001, 20.0, seed=1).delay(1, -3.0) < 0.01


async def test_http_adapter_and_llm_judge_share_the_parser() -> None:
    """The adapter's 429 carries what parse_retry_after reads from the same header."""
    header = "Wed, 21 Oct 2015 07:28:00 -0000"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": header}, json={})

    adapter = HttpAdapter("http://agent.test/ask", transport=httpx.MockTransport(handler))
    try:
        with pytest.raises(RateLimitedError) as caught:
            await adapter.respond(AgentCall({"question": "q"}, "i", 1, 5.0))
    finally:
        await adapter.aclose()
    assert caught.value.retry_after_s == 0.0  # a date in the past, read without a TypeError
