"""The judging prompt, its schema and the strict parser."""

from __future__ import annotations

import json

import pytest

from ragcard.judges.base import Evidence, JudgeContext, JudgeError
from ragcard.judges.prompts import (
    LABELS,
    PROMPT_VERSION,
    build_messages,
    parse_verdicts,
    verdict_schema,
)

PASSAGES = (
    Evidence("p1", "Staff get 25 days of paid leave a year."),
    Evidence("p2", "Leave requests go to   the line manager."),
)


def reply(*items: dict[str, object]) -> str:
    return json.dumps({"verdicts": list(items)})


def item(
    verdict: str = "supported",
    claim: int = 0,
    passage: str | None = "p1",
    quote: str | None = "25 days",
    score: float = 0.9,
) -> dict[str, object]:
    return {"verdict": verdict, "claim": claim, "passage": passage, "quote": quote, "score": score}


def test_prompt_version_and_labels() -> None:
    assert PROMPT_VERSION == "support-v2"
    assert LABELS == ("supported", "not_supported", "contradicted")


def test_messages_hold_question_passages_and_numbered_claims() -> None:
    ctx = JudgeContext(("Staff get 25 days.", "Leave is unpaid."), PASSAGES, "How much leave?")
    system, user = build_messages(ctx)
    assert system["role"] == "system" and "outside knowledge" in system["content"]
    text = user["content"]
    assert "How much leave?" in text
    assert "[p1] Staff get 25 days of paid leave a year." in text
    assert "0: Staff get 25 days." in text and "1: Leave is unpaid." in text
    assert "exactly 2 object(s)" in text
    # decision first; the fixed wording lives in the system prompt (a stable prefix)
    assert system["content"].index('"verdict"') < system["content"].index('"score"')
    assert '"quote"' not in system["content"] + text
    no_question = build_messages(JudgeContext(("c",), PASSAGES))[1]["content"]
    assert "Question" not in no_question


def test_portable_schema() -> None:
    schema = verdict_schema(3, ["p1", "p2"])
    array = schema["properties"]["verdicts"]
    assert array["minItems"] == array["maxItems"] == 3
    properties = array["items"]["properties"]
    assert list(properties) == ["verdict", "claim", "passage", "score"]
    assert properties["verdict"]["enum"] == list(LABELS)
    assert properties["passage"] == {"type": ["string", "null"], "enum": ["p1", "p2", None]}
    assert properties["claim"] == {"type": "integer", "minimum": 0, "maximum": 2}
    assert array["items"]["additionalProperties"] is False
    assert schema["required"] == ["verdicts"]


def test_positional_schema_pins_each_claim() -> None:
    array = verdict_schema(2, ["p1"], positional=True)["properties"]["verdicts"]
    assert [i["properties"]["claim"] for i in array["prefixItems"]] == [{"const": 0}, {"const": 1}]
    assert array["items"] is False
    # llama.cpp reads a list "type" before "enum": the grammar form gives a bare enum
    first = array["prefixItems"][0]["properties"]
    assert first["passage"] == {"enum": ["p1", None]}
    assert first["score"]["enum"][:3] == [0.0, 0.05, 0.1] and first["score"]["enum"][-1] == 1.0


def test_parse_plain_json_with_span() -> None:
    (verdict,) = parse_verdicts(reply(item()), 1, PASSAGES)
    assert verdict.label == "supported" and verdict.score == 0.9
    assert verdict.passage_id == "p1" and verdict.span == (10, 17)
    assert PASSAGES[0].text[10:17] == "25 days" and verdict.reason == "25 days"


@pytest.mark.parametrize(
    "wrapped",
    [
        "```json\n{body}\n```",
        "```\n{body}\n```",
        "Here are my verdicts:\n{body}\nHope this helps.",
        "Sure! {{not json}} then {body}",
    ],
)
def test_parse_tolerates_fences_and_prose(wrapped: str) -> None:
    text = wrapped.format(body=reply(item()))
    assert parse_verdicts(text, 1, PASSAGES)[0].label == "supported"


def test_parse_accepts_a_bare_list_and_label_spellings() -> None:
    text = json.dumps([item("Not Supported", 0, None, None, 0.2), item("CONTRADICTED", 1)])
    labels = [v.label for v in parse_verdicts(text, 2, PASSAGES)]
    assert labels == ["not_supported", "contradicted"]


def test_parse_orders_by_claim_index() -> None:
    text = reply(item("contradicted", 1, score=0.0), item("supported", 0))
    assert [v.label for v in parse_verdicts(text, 2, PASSAGES)] == ["supported", "contradicted"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (reply(item()), "expected 2 verdict"),
        (reply(item(), item(claim=1), item(claim=1)), "expected 2 verdict"),
        (reply(item("maybe"), item(claim=1)), "unknown verdict 'maybe'"),
        (reply(item(), item(claim=0)), "claim 0 judged twice"),
        (reply(item(), item(claim=5)), "'claim' must be a claim number 0..1"),
        (reply(item(), item(claim=1, score=1.5)), r"'score' must be a number in \[0, 1\]"),
        ('{"answer": "yes"}', "no 'verdicts' list"),
        ("no JSON at all", "holds no JSON object"),
        (json.dumps({"verdicts": ["supported", "supported"]}), "expected an object"),
    ],
)
def test_parse_rejects_with_raw_kept(text: str, message: str) -> None:
    with pytest.raises(JudgeError, match=message) as caught:
        parse_verdicts(text, 2, PASSAGES)
    assert caught.value.raw == text


def test_unknown_label_lists_the_allowed_ones() -> None:
    with pytest.raises(JudgeError, match="allowed: supported, not_supported, contradicted"):
        parse_verdicts(reply(item("entailed")), 1, PASSAGES)


def test_missing_score_defaults_from_the_label() -> None:
    text = json.dumps({"verdicts": [{"verdict": "supported"}, {"verdict": "contradicted"}]})
    assert [v.score for v in parse_verdicts(text, 2, PASSAGES)] == [1.0, 0.0]


def test_quote_found_ignoring_case_and_spacing() -> None:
    (verdict,) = parse_verdicts(
        reply(item(passage="p2", quote="go to the LINE manager")), 1, PASSAGES
    )
    start, end = verdict.span or (0, 0)
    assert PASSAGES[1].text[start:end] == "go to   the line manager"


def test_quote_locates_the_passage_when_none_or_a_wrong_one_is_named() -> None:
    (no_id,) = parse_verdicts(reply(item(passage=None, quote="line manager")), 1, PASSAGES)
    assert no_id.passage_id == "p2" and no_id.span is not None
    (wrong,) = parse_verdicts(reply(item(passage="p9", quote="paid leave")), 1, PASSAGES)
    assert wrong.passage_id == "p1"
    (unknown,) = parse_verdicts(reply(item(passage="p9", quote="not there")), 1, PASSAGES)
    assert unknown.passage_id is None and unknown.span is None
    assert unknown.reason is not None and "'p9'" in unknown.reason


def test_quote_not_in_the_passage_gives_no_span() -> None:
    (verdict,) = parse_verdicts(reply(item(quote="thirty days")), 1, PASSAGES)
    assert verdict.passage_id == "p1" and verdict.span is None


def test_bad_field_types_are_rejected() -> None:
    with pytest.raises(JudgeError, match="'passage' must be"):
        parse_verdicts(reply(item(passage=3)), 1, PASSAGES)  # type: ignore[arg-type]
    with pytest.raises(JudgeError, match="'quote' must be"):
        parse_verdicts(reply(item(quote=["x"])), 1, PASSAGES)  # type: ignore[arg-type]
    with pytest.raises(JudgeError, match="'score' must be"):
        parse_verdicts(reply(item(score=True)), 1, PASSAGES)  # type: ignore[arg-type]
