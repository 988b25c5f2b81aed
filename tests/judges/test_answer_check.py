"""The chat backends' answer check (relevance + abstention in one request), offline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_llm import body_of, judge_with, ok  # tests/judges is on sys.path (prepend mode)

from ragcard.judges.answer_check import (
    ANSWER_PROMPT_VERSION,
    answer_schema,
    build_answer_messages,
    parse_answer_checks,
)
from ragcard.judges.base import Evidence, JudgeContext, JudgeError
from ragcard.judges.cache import cache_key
from ragcard.judges.prompts import PROMPT_VERSION, TASK_PROMPT_VERSIONS, reply_schema

QUESTION = "How much notice must I give?"
ANSWER = "You must give four weeks' notice."
REPLY = {"declines": "no", "declines_score": 0.05, "addresses": "yes", "addresses_score": 0.9}


def ask(task: str, answer: str = ANSWER, reference: str | None = None) -> JudgeContext:
    gold = (Evidence("leave#2", "Anything longer needs at least four weeks' notice."),)
    return JudgeContext((answer,), gold if reference else (), QUESTION, task,  # type: ignore[arg-type]
                        reference)  # fmt: skip


def test_schema_puts_each_verdict_before_its_score() -> None:
    schema = answer_schema()
    assert list(schema["properties"]) == [
        "declines",
        "declines_score",
        "addresses",
        "addresses_score",
    ]
    assert schema["required"] == list(schema["properties"])
    assert answer_schema(grammar=True)["properties"]["addresses_score"]["enum"][-1] == 1.0
    assert reply_schema(ask("relevance")) == schema
    assert "verdicts" in reply_schema(JudgeContext(("a",), (Evidence("p", "a"),)))["properties"]


def test_prompt_names_the_question_and_the_answer() -> None:
    system, user = build_answer_messages(QUESTION, ANSWER)
    assert system["role"] == "system" and "declines" in system["content"]
    assert QUESTION in user["content"] and ANSWER in user["content"]


def test_parse() -> None:
    declines, addresses = parse_answer_checks("```json\n" + json.dumps(REPLY) + "\n```")
    assert (declines.label, declines.score) == ("not_supported", 0.05)
    assert (addresses.label, addresses.score) == ("supported", 0.9)
    bare = parse_answer_checks('{"declines": "YES", "addresses": "no"}')
    assert [v.score for v in bare] == [1.0, 0.0]
    for bad, message in [
        ('{"declines": "no"}', "no 'addresses' field"),
        ('{"declines": "maybe", "addresses": "yes"}', 'must be "yes" or "no"'),
        ('{"declines": "no", "addresses": "yes", "addresses_score": 2}', "in \\[0, 1\\]"),
        ("[1, 2]", "not an object"),
        ("no json here", "no JSON object"),
    ]:
        with pytest.raises(JudgeError, match=message):
            parse_answer_checks(bad)


def test_cache_keys_differ_by_task_and_prompt_version() -> None:
    support = JudgeContext((ANSWER,), (), QUESTION)
    base = cache_key("llm:m", PROMPT_VERSION, support)
    assert base == cache_key("llm:m", PROMPT_VERSION, support, task="support")
    check = cache_key("llm:m", ANSWER_PROMPT_VERSION, ask("relevance"), task="answer-check")
    assert len({base, check, cache_key("llm:m", "answer-v0", ask("relevance"), task="answer-check"),
                cache_key("llm:m", PROMPT_VERSION, ask("relevance"))}) == 4  # fmt: skip
    assert TASK_PROMPT_VERSIONS == {
        "abstention": "answer-v2", "relevance": "answer-v2", "correctness": "answer-v2"
    }  # fmt: skip
    with_reference = ask("relevance", reference="Four weeks.")
    assert check != cache_key("llm:m", ANSWER_PROMPT_VERSION, with_reference, task="answer-check")


async def test_one_request_answers_both_tasks() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return ok(REPLY)

    judge = judge_with(handler)
    (declines,) = await judge.judge(ask("abstention"))
    (addresses,) = await judge.judge(ask("relevance"))
    assert not declines.supported and addresses.supported
    assert len(seen) == 1  # the second task is read from the first request's reply
    body = body_of(seen[0])
    assert body["response_format"]["json_schema"]["name"] == "answer_check"
    assert body["response_format"]["json_schema"]["schema"] == answer_schema()
    assert QUESTION in body["messages"][1]["content"]
    assert judge.identity.tasks == TASK_PROMPT_VERSIONS
    assert judge.stats().judgements == 1


async def test_threshold_applies_to_yes() -> None:
    judge = judge_with(lambda r: ok({**REPLY, "addresses_score": 0.3}), threshold=0.5)
    (addresses,) = await judge.judge(ask("relevance"))
    assert addresses.label == "not_supported" and "0.3 < 0.5" in (addresses.reason or "")


async def test_grammar_fallback_sends_the_answer_schema() -> None:
    bodies: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = body_of(request)
        bodies.append(body)
        if body["response_format"]["type"] == "json_schema":
            return httpx.Response(400, text="response_format json_schema is not supported")
        return ok(REPLY)

    judge = judge_with(handler)
    await judge.judge(ask("relevance"))
    assert bodies[-1]["response_format"] == {
        "type": "json_object",
        "schema": answer_schema(grammar=True),
    }


async def test_unparseable_reply_is_asked_again_then_a_judge_failure() -> None:
    replies = iter([ok("not json"), ok(REPLY)])
    judge = judge_with(lambda r: next(replies))
    (addresses,) = await judge.judge(ask("relevance"))
    assert addresses.supported and judge.stats().invalid_outputs == 1

    calls: list[int] = []

    def garbage(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return ok('{"declines": "perhaps"}')

    failing = judge_with(garbage, parse_retries=1)
    with pytest.raises(JudgeError, match="no usable verdicts after 2 attempt"):
        await failing.judge(ask("abstention"))
    assert len(calls) == 2 and failing.stats().failures == 1


async def test_persistent_cache_makes_a_rerun_free(tmp_path: Path) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return ok(REPLY)

    path = str(tmp_path / "cache.sqlite3")
    first = judge_with(handler, cache=path)
    await first.judge(ask("relevance"))
    first.close()
    again = judge_with(handler, cache=path)
    (declines,) = await again.judge(ask("abstention"))
    (addresses,) = await again.judge(ask("relevance", "Something else entirely."))
    assert not declines.supported
    assert len(calls) == 2  # the first answer from the cache; the new answer asked
    assert again.stats().cache_hits == 1
    again.close()


async def test_question_is_required_and_unknown_tasks_refused() -> None:
    judge = judge_with(lambda r: ok(REPLY))
    with pytest.raises(JudgeError, match="needs the question"):
        await judge.judge(JudgeContext((ANSWER,), (), None, "relevance"))


VERDICT = {**REPLY, "verdict": "partial", "verdict_score": 0.6, "deciding_fact": "no Harbour"}


async def test_one_request_answers_all_three_tasks_with_the_expected_answer() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return ok(VERDICT)

    judge = judge_with(handler)
    expected = "Four weeks' notice, booked in Harbour."
    (declines,) = await judge.judge(ask("abstention", reference=expected))
    (grade,) = await judge.judge(ask("correctness", reference=expected))
    (addresses,) = await judge.judge(ask("relevance", reference=expected))
    assert len(seen) == 1
    assert (grade.grade, grade.label, grade.score) == ("partial", "not_supported", 0.6)
    assert grade.reason == "partial: no Harbour"
    assert not declines.supported and addresses.supported
    body = body_of(seen[0])
    assert body["response_format"]["json_schema"]["schema"] == answer_schema(verdict=True)
    prompt = body["messages"][1]["content"]
    assert expected in prompt and "four weeks' notice." in prompt and ANSWER in prompt


def test_the_verdict_fields_are_parsed_and_checked() -> None:
    *_, grade = parse_answer_checks(json.dumps({**REPLY, "verdict": "WRONG"}), verdict=True)
    assert (grade.grade, grade.label, grade.score) == ("wrong", "contradicted", 0.0)
    for bad, message in [
        ({**REPLY}, "'verdict' must be one of"),
        ({**REPLY, "verdict": "maybe"}, "'verdict' must be one of"),
        ({**REPLY, "verdict": "correct", "verdict_score": 3}, "in \\[0, 1\\]"),
    ]:
        with pytest.raises(JudgeError, match=message):
            parse_answer_checks(json.dumps(bad), verdict=True)


async def test_correctness_without_the_expected_answer_is_a_judge_failure() -> None:
    judge = judge_with(lambda r: ok(VERDICT))
    with pytest.raises(JudgeError, match="needs the expected answer"):
        await judge.judge(ask("correctness"))
