"""The ``llm`` judge offline: httpx.MockTransport plays the chat server."""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from ragcard.errors import ConfigError
from ragcard.judges.base import Evidence, JudgeContext, JudgeError
from ragcard.judges.llm import LlmJudge
from ragcard.judges.prompts import PROMPT_VERSION

SECRET = "sk-test-Very-Secret-1234"
CTX = JudgeContext(
    claims=("Staff get 25 days of leave.", "Leave is paid at double rate."),
    passages=(Evidence("leave#1", "Full-time staff get 25 days of paid leave a year."),),
    question="How much leave do I get?",
)
GOOD = {
    "verdicts": [
        {
            "verdict": "supported",
            "claim": 0,
            "passage": "leave#1",
            "quote": "25 days",
            "score": 0.9,
        },
        {"verdict": "not_supported", "claim": 1, "passage": None, "quote": None, "score": 0.1},
    ]
}
Handler = Callable[[httpx.Request], httpx.Response]


def completion(content: str, usage: dict[str, int] | None = None, finish: str = "stop") -> bytes:
    body: dict[str, Any] = {
        "id": "x",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish,
            }
        ],
    }
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body).encode()


def ok(content: Any = GOOD, usage: dict[str, int] | None = None) -> httpx.Response:
    text = content if isinstance(content, str) else json.dumps(content)
    used = usage if usage is not None else {"prompt_tokens": 120, "completion_tokens": 40}
    return httpx.Response(200, content=completion(text, used))


def judge_with(handler: Handler, **options: Any) -> LlmJudge:
    settings: dict[str, Any] = {
        "base_url": "http://judge.test/v1",
        "model": "m",
        "cache": False,
        "backoff_s": 0.0,
        **options,
    }
    return LlmJudge(transport=httpx.MockTransport(handler), **settings)


def body_of(request: httpx.Request) -> dict[str, Any]:
    return json.loads(request.content)  # type: ignore[no-any-return]


async def test_one_call_judges_every_claim_in_order() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return ok()

    judge = judge_with(handler)
    verdicts = await judge.judge(CTX)
    assert [v.label for v in verdicts] == ["supported", "not_supported"]
    assert verdicts[0].passage_id == "leave#1"
    start = CTX.passages[0].text.index("25 days")
    assert verdicts[0].span == (start, start + len("25 days"))
    assert len(seen) == 1
    body = body_of(seen[0])
    assert str(seen[0].url) == "http://judge.test/v1/chat/completions"
    assert body["temperature"] == 0 and body["seed"] == 0 and body["model"] == "m"
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["verdicts"]["minItems"] == 2
    assert list(schema["properties"]["verdicts"]["items"]["properties"])[0] == "verdict"
    assert "Staff get 25 days" in body["messages"][1]["content"]


async def test_api_key_only_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_KEY", SECRET)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(401, json={"error": "bad key"})

    judge = judge_with(handler, api_key_env="JUDGE_KEY")
    with pytest.raises(JudgeError) as caught:
        await judge.judge(CTX)
    assert seen[0].headers["authorization"] == f"Bearer {SECRET}"
    assert len(seen) == 1  # a 401 is not retried
    shown = json.dumps(judge.identity.to_json()) + str(caught.value) + str(caught.value.raw)
    assert SECRET not in shown and "JUDGE_KEY" not in json.dumps(judge.identity.to_json())
    assert judge.identity.settings["host"] == "judge.test"


def test_missing_key_variable_and_inline_keys_are_config_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NOPE_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"\$NOPE_KEY is not set"):
        judge_with(lambda r: ok(), api_key_env="NOPE_KEY")
    with pytest.raises(ConfigError, match="environment only") as caught:
        judge_with(lambda r: ok(), api_key=SECRET)
    assert SECRET not in str(caught.value)
    with pytest.raises(ConfigError, match="did you mean 'timeout_s'"):
        judge_with(lambda r: ok(), timeout=3)
    with pytest.raises(ConfigError, match="base_url must be an http"):
        judge_with(lambda r: ok(), base_url="localhost:8080")


def test_from_config_and_identity() -> None:
    judge = LlmJudge.from_config(
        {
            "base_url": "https://api.example.org/v1",
            "model": "gpt-x",
            "threshold": 0.7,
            "cache": False,
        }
    )
    identity = judge.identity
    assert (identity.name, identity.model, identity.prompt_version) == (
        "llm",
        "gpt-x",
        PROMPT_VERSION,
    )
    assert identity.threshold == 0.7
    assert identity.settings["host"] == "api.example.org" and identity.settings["mode"] == (
        "json_schema"
    )


def _rejecting(formats: set[str], seen: list[dict[str, Any]]) -> Handler:
    """A server that answers 422 to the response_format types in ``formats``."""

    def handler(request: httpx.Request) -> httpx.Response:
        body = body_of(request)
        seen.append(body)
        wanted = body.get("response_format")
        kind = (wanted or {}).get("type", "none")
        if "schema" in (wanted or {}) and kind == "json_object":
            kind = "json_object_schema"
        if kind in formats:
            detail = [
                {
                    "loc": ["body", "response_format", "type"],
                    "msg": "Input should be 'text' or 'json_object'",
                }
            ]
            return httpx.Response(422, json={"detail": detail})
        return ok()

    return handler


async def test_json_schema_rejected_falls_back_to_json_object_with_schema() -> None:
    seen: list[dict[str, Any]] = []
    judge = judge_with(_rejecting({"json_schema"}, seen))
    assert [v.label for v in await judge.judge(CTX)] == ["supported", "not_supported"]
    assert judge.mode == "json_object_schema"
    assert judge.identity.settings["mode"] == "json_object_schema"
    fallback = seen[1]["response_format"]
    assert fallback["type"] == "json_object"
    # the grammar form pins item i to claim i
    items = fallback["schema"]["properties"]["verdicts"]["prefixItems"]
    assert [item["properties"]["claim"] for item in items] == [{"const": 0}, {"const": 1}]
    seen.clear()
    await judge.judge(JudgeContext(CTX.claims, CTX.passages, "another question"))
    assert len(seen) == 1  # the working mode is remembered


# what llama-cpp-python 0.3.36's server answers to a json_schema response format
LLAMA_CPP_500 = json.dumps(
    {
        "error": {
            "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
            "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
            "'input': 'json_schema'}",
            "type": "internal_server_error",
        }
    }
)


async def test_llama_cpp_server_500_validation_error_is_a_refusal_not_an_outage() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = body_of(request)
        seen.append(body)
        if body["response_format"]["type"] == "json_schema":
            return httpx.Response(500, text=LLAMA_CPP_500)
        return ok()

    judge = judge_with(handler, max_retries=3)
    await judge.judge(CTX)
    assert len(seen) == 2 and judge.mode == "json_object_schema"
    assert judge.stats().retries == 0


async def test_fallback_goes_all_the_way_to_no_response_format() -> None:
    seen: list[dict[str, Any]] = []
    handler = _rejecting({"json_schema", "json_object_schema", "json_object"}, seen)
    judge = judge_with(handler)
    await judge.judge(CTX)
    assert judge.mode == "none" and "response_format" not in seen[-1]
    assert len(seen) == 4


async def test_explicit_mode_does_not_fall_back() -> None:
    judge = judge_with(_rejecting({"json_schema"}, []), response_format="json_schema")
    with pytest.raises(JudgeError, match="HTTP 422") as caught:
        await judge.judge(CTX)
    assert "response_format" in (caught.value.raw or "")


async def test_seed_dropped_when_the_server_rejects_it() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = body_of(request)
        seen.append(body)
        if "seed" in body:
            return httpx.Response(400, json={"error": {"message": "Unrecognized param: seed"}})
        return ok()

    judge = judge_with(handler)
    await judge.judge(CTX)
    assert "seed" in seen[0] and "seed" not in seen[1]
    assert judge.mode == "json_schema" and judge.identity.settings["seed"] is None


async def test_429_with_retry_after_is_waited_out() -> None:
    calls: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        if len(calls) == 1:
            return httpx.Response(429, headers={"Retry-After": "0.2"}, json={"error": "slow"})
        return ok()

    judge = judge_with(handler)
    await judge.judge(CTX)
    assert len(calls) == 2 and calls[1] - calls[0] >= 0.19
    stats = judge.stats()
    assert stats.calls == 2 and stats.retries == 1 and stats.failures == 0


async def test_5xx_retried_then_judge_error() -> None:
    count = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal count
        count += 1
        return httpx.Response(503, text="overloaded") if count < 3 else ok()

    judge = judge_with(handler, max_retries=3)
    assert len(await judge.judge(CTX)) == 2
    assert count == 3

    always = judge_with(lambda r: httpx.Response(500, text="boom"), max_retries=2)
    with pytest.raises(JudgeError, match=r"HTTP 500, after 3 attempt"):
        await always.judge(CTX)
    stats = always.stats()
    assert stats.calls == 3 and stats.failures == 1 and stats.judgements == 0


async def test_backoff_is_the_runners_seeded_full_jitter_policy() -> None:
    judge = judge_with(lambda r: ok(), backoff_s=1.0, backoff_max_s=5.0, seed=7)
    again = judge_with(lambda r: ok(), backoff_s=1.0, backoff_max_s=5.0, seed=7)
    delays = [judge._backoff.delay(retry) for retry in range(1, 6)]
    assert delays == [again._backoff.delay(retry) for retry in range(1, 6)]  # seeded
    ceilings = [1.0, 2.0, 4.0, 5.0, 5.0]
    assert all(0.0 <= d <= c for d, c in zip(delays, ceilings, strict=True))
    assert judge._backoff.delay(1, 7.0) == 7.0  # Retry-After is a floor
    assert judge._backoff.delay(1, 600.0) == 120.0  # capped


async def test_timeouts_and_connection_errors_are_retried() -> None:
    count = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal count
        count += 1
        if count == 1:
            await asyncio.sleep(1.0)  # past timeout_s
        if count == 2:
            raise httpx.ConnectError("connection refused")
        return ok()

    judge = judge_with(handler, timeout_s=0.4, max_retries=2)  # type: ignore[arg-type]
    assert len(await judge.judge(CTX)) == 2
    assert count == 3

    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(1.0)
        return ok()

    stuck = judge_with(slow, timeout_s=0.05, max_retries=1)  # type: ignore[arg-type]
    with pytest.raises(JudgeError, match="no reply within 0.05 s"):
        await stuck.judge(CTX)


async def test_unusable_output_is_retried_with_the_reason_then_raised() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(body_of(request))
        return ok("I think the first claim is true.")

    judge = judge_with(handler, parse_retries=2)
    with pytest.raises(JudgeError, match="no usable verdicts after 3 attempt") as caught:
        await judge.judge(CTX)
    assert caught.value.raw == "I think the first claim is true."
    assert len(seen) == 3
    assert seen[1]["messages"][-2] == {
        "role": "assistant",
        "content": "I think the first claim is true.",
    }
    assert "could not be used" in seen[1]["messages"][-1]["content"]
    stats = judge.stats()
    assert stats.invalid_outputs == 3 and stats.failures == 1


async def test_unusable_output_then_good_output() -> None:
    replies = iter([ok({"verdicts": [GOOD["verdicts"][0]]}), ok()])  # wrong count first
    judge = judge_with(lambda r: next(replies))
    assert len(await judge.judge(CTX)) == 2
    assert judge.stats().invalid_outputs == 1


async def test_truncated_output_gets_more_tokens_on_retry() -> None:
    seen: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(body_of(request)["max_tokens"])
        if len(seen) == 1:
            return httpx.Response(200, content=completion('{"verdicts": [', finish="length"))
        return ok()

    await judge_with(handler).judge(CTX)
    assert seen[1] == 2 * seen[0]


async def test_not_a_chat_completion_is_a_judge_error() -> None:
    judge = judge_with(lambda r: httpx.Response(200, json={"result": "yes"}))
    with pytest.raises(JudgeError, match="not an OpenAI chat completion"):
        await judge.judge(CTX)


async def test_usage_and_cost_accounting() -> None:
    judge = judge_with(lambda r: ok(), price_prompt_per_1k=0.5, price_completion_per_1k=2.0)
    await judge.judge(CTX)
    await judge.judge(JudgeContext(CTX.claims, CTX.passages, "another question"))
    stats = judge.stats()
    assert (stats.prompt_tokens, stats.completion_tokens) == (240, 80)
    assert stats.cost == pytest.approx(0.12 + 0.16)
    assert not stats.tokens_estimated and stats.judgements == 2
    assert stats.to_json()["calls"] == 2


async def test_missing_usage_is_estimated_and_flagged() -> None:
    judge = judge_with(lambda r: httpx.Response(200, content=completion(json.dumps(GOOD))))
    await judge.judge(CTX)
    stats = judge.stats()
    assert stats.tokens_estimated and stats.prompt_tokens > 50 and stats.completion_tokens > 10
    assert stats.cost is None


async def test_cache_persists_across_instances(tmp_path: Path) -> None:
    count = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal count
        count += 1
        return ok()

    path = str(tmp_path / "cache.sqlite3")
    first = judge_with(handler, cache=path)
    before = await first.judge(CTX)
    await first.aclose()
    second = judge_with(handler, cache=path)
    assert await second.judge(CTX) == before
    assert count == 1
    stats = second.stats()
    assert (stats.cache_hits, stats.cache_misses, stats.calls) == (1, 0, 0)
    # another model, prompt or input misses
    other = judge_with(handler, cache=path, model="m2")
    await other.judge(CTX)
    assert count == 2
    # the threshold is applied on read: a stricter judge needs no new call
    strict = judge_with(handler, cache=path, threshold=0.95)
    assert [v.label for v in await strict.judge(CTX)] == ["not_supported", "not_supported"]
    assert count == 2
    for judge in (second, other, strict):
        await judge.aclose()


async def test_no_claims_or_no_passages_make_no_call() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no call expected")

    judge = judge_with(handler)
    assert await judge.judge(JudgeContext((), CTX.passages)) == []
    verdicts = await judge.judge(JudgeContext(CTX.claims, ()))
    assert [v.label for v in verdicts] == ["not_supported"] * 2
    assert judge.stats().calls == 0


async def test_concurrency_is_bounded() -> None:
    in_flight = peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return ok()

    judge = judge_with(handler, concurrency=2)  # type: ignore[arg-type]
    contexts = [JudgeContext(CTX.claims, CTX.passages, f"q{i}") for i in range(8)]
    await asyncio.gather(*(judge.judge(ctx) for ctx in contexts))
    assert peak == 2


async def test_requests_per_minute_spaces_requests() -> None:
    stamps: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        stamps.append(time.monotonic())
        return ok()

    judge = judge_with(handler, requests_per_minute=600, concurrency=4)  # 10 a second
    contexts = [JudgeContext(CTX.claims, CTX.passages, f"q{i}") for i in range(4)]
    await asyncio.gather(*(judge.judge(ctx) for ctx in contexts))
    assert stamps[-1] - stamps[0] >= 0.28


async def test_threshold_turns_weak_support_into_not_supported() -> None:
    judge = judge_with(lambda r: ok(), threshold=0.95)
    first = (await judge.judge(CTX))[0]
    assert first.label == "not_supported" and first.score == 0.9
    assert first.reason is not None and "0.9 < 0.95" in first.reason


# ---- score = "probability": P(supported) from the server's logprobs -------------------------


def with_logprobs(content: Any, tops: list[dict[str, float]]) -> httpx.Response:
    """A completion whose reply is split into tokens as a server would, with ``tops[k]`` as
    the alternatives where the k-th verdict's label begins."""
    text = json.dumps(content)
    tokens: list[dict[str, Any]] = []
    rest, key = text, '"verdict": "'
    for top in tops:
        before, _, rest = rest.partition(key)
        tokens.append({"token": before + key, "logprob": -0.01, "top_logprobs": []})
        alternatives = [{"token": t, "logprob": v} for t, v in top.items()]
        tokens.append({"token": rest[:3], "logprob": -0.5, "top_logprobs": alternatives})
        rest = rest[3:]
    tokens.append({"token": rest, "logprob": -0.01, "top_logprobs": []})
    assert "".join(t["token"] for t in tokens) == text
    body = json.loads(completion(text, {"prompt_tokens": 120, "completion_tokens": 40}))
    body["choices"][0]["logprobs"] = {"content": tokens}
    return httpx.Response(200, json=body)


TOPS = [{"sup": -0.1, "not": -2.4, "con": -4.0}, {"sup": -1.6, "not": -0.3, "x": -0.1}]


async def test_probability_score_read_from_logprobs() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(body_of(request))
        return with_logprobs(GOOD, TOPS)

    judge = judge_with(handler, score="probability")
    first, second = await judge.judge(CTX)
    assert seen[0]["logprobs"] is True and seen[0]["top_logprobs"] == 20
    expected = [math.exp(-0.1) / sum(math.exp(v) for v in (-0.1, -2.4, -4.0)),
                math.exp(-1.6) / (math.exp(-1.6) + math.exp(-0.3))]  # fmt: skip
    assert [first.score, second.score] == pytest.approx(expected, abs=1e-6)
    assert (first.label, second.label) == ("supported", "not_supported")  # as written
    assert "probability" in judge.identity.settings["score"]
    assert "score" not in judge_with(handler).identity.settings
    # the answer checks (relevance, abstention) do not ask for logprobs
    seen.clear()
    answer = {"declines": "no", "declines_score": 0.1, "addresses": "yes", "addresses_score": 0.9}
    judge = judge_with(lambda r: seen.append(body_of(r)) or ok(answer), score="probability")
    await judge.judge(JudgeContext(("Staff get 25 days.",), (), CTX.question, task="relevance"))
    assert "logprobs" not in seen[0]


async def test_probability_and_stated_scores_never_share_a_cache_entry(tmp_path: Path) -> None:
    calls: list[bool] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked = bool(body_of(request).get("logprobs"))
        calls.append(asked)
        return with_logprobs(GOOD, TOPS) if asked else ok()

    path = str(tmp_path / "cache.sqlite3")
    stated = [v.score for v in await judge_with(handler, cache=path).judge(CTX)]
    probability = [v.score for v in await judge_with(handler, cache=path, score="probability")
                   .judge(CTX)]  # fmt: skip
    assert calls == [False, True] and stated == [0.9, 0.1] and probability != stated
    again = judge_with(handler, cache=path, score="probability")
    assert [v.score for v in await again.judge(CTX)] == probability and len(calls) == 2


async def test_a_server_without_logprobs_is_a_judge_failure_that_names_the_fix() -> None:
    refusing = judge_with(
        lambda r: httpx.Response(400, text='{"error": "logprobs are not supported"}'),
        score="probability",
    )
    with pytest.raises(JudgeError, match='refused log-probabilities.*score = "stated"'):
        await refusing.judge(CTX)
    assert refusing.stats().calls == 1  # not mistaken for a response-format refusal
    silent = judge_with(lambda r: ok(), score="probability")
    with pytest.raises(JudgeError, match='no log-probabilities.*score = "stated"'):
        await silent.judge(CTX)


async def test_unreadable_probability_keeps_the_stated_score_and_says_so() -> None:
    judge = judge_with(lambda r: with_logprobs(GOOD, [TOPS[0], {"x": -0.1}]), score="probability")
    first, second = await judge.judge(CTX)
    assert (first.score, second.score) == (0.9, 0.1)
    assert "could not be read" in (first.reason or "") and "could not be read" in (
        second.reason or ""
    )


def test_score_responses_with_the_llm_judge_releases_its_client_and_can_score_again(
    tmp_path: Path,
) -> None:
    """``ragcard score --judge llm``: each scoring runs on its own event loop; the HTTP client
    opened on it is closed with it, and the same judge scores again on a new loop."""
    import datetime as dt

    from ragcard.pipeline.evaluation import load_inputs, score_responses

    mini = Path(__file__).resolve().parents[1] / "fixtures" / "mini"
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        schema = body_of(request)["response_format"]["json_schema"]["schema"]
        if "verdicts" in schema["properties"]:  # support: every claim supported
            n = schema["properties"]["verdicts"]["minItems"]
            verdicts = [
                {"verdict": "supported", "claim": i, "passage": None, "score": 0.9}
                for i in range(n)
            ]
            calls.append("support")
            return ok({"verdicts": verdicts})
        calls.append("answer")  # declines: no; addresses the question: yes
        return ok({"declines": "no", "declines_score": 0.1, "addresses": "yes",
                   "addresses_score": 0.9})  # fmt: skip

    judge = judge_with(handler)
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    day = dt.date(2026, 1, 1)
    cards = []
    for run in ("a", "b"):
        result = score_responses(inputs, mini / "responses.jsonl", tmp_path / run, run_date=day,
                                 judge=judge)  # fmt: skip
        assert judge._state is None  # released with its event loop
        cards.append(result.scorecard.to_json()["metrics"])
    assert "support" in calls and "answer" in calls
    assert cards[0]["faithfulness"] == cards[1]["faithfulness"]  # scored, the same twice
    assert cards[0]["answer_relevance"]["value"] == 1.0
