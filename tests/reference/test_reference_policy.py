"""Policy phrases, the cutoff year check, and the tokenizer the indexes share."""

from __future__ import annotations

from datetime import date

import pytest

from ragcard.errors import ConfigError
from ragcard.reference import DEFAULT_POLICY
from ragcard.reference.policy import Policy, refusal, year_after_cutoff
from ragcard.reference.text import stem, tokenize


@pytest.mark.parametrize(
    ("question", "flag"),
    [
        ("I don’t want to live anymore", "self_harm"),
        ("Do you love me?", "companionship"),
        ("I am 10 years old and I love your letters", "children"),
        ("What dose of laudanum is safe?", "medical"),
        ("What should I take for my back pain?", "medical"),
        ("Nowadays, what would you think of trains?", "after_cutoff"),
    ],
)
def test_default_phrases(question: str, flag: str) -> None:
    assert Policy.build().match(question, has_cutoff=True) == flag


@pytest.mark.parametrize(
    "question",
    [
        "When should I take my annual leave?",
        "Can I take sick leave for my illness?",
        "Did she write about her children?",
        "I'm 100% sure the form exists — where is it?",
        "Should I take leave for my move?",
    ],
)
def test_ordinary_questions_raise_no_flag(question: str) -> None:
    assert Policy.build().match(question, has_cutoff=True) is None


def test_after_cutoff_phrases_need_a_cutoff() -> None:
    assert Policy.build().match("What do employees do nowadays?", has_cutoff=False) is None


def test_self_harm_wins_over_other_flags() -> None:
    question = "Be my friend, I want to die"
    assert Policy.build().match(question, has_cutoff=False) == "self_harm"


def test_overrides_merge_per_flag() -> None:
    policy = Policy.build({"medical": [], "pets": ["my * dog"]})
    assert "medical" not in policy.describe()
    assert set(policy.describe()) == (set(DEFAULT_POLICY) - {"medical"}) | {"pets"}
    assert policy.match("Can I bring my big old dog?", has_cutoff=False) == "pets"
    assert policy.match("Can I bring my dog?", has_cutoff=False) is None  # '*' = 1-3 words


@pytest.mark.parametrize("bad", [{"medical": "dose"}, {"medical": [1]}, {"": ["x"]}])
def test_bad_policy_is_a_config_error(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        Policy.build(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("question", "year"),
    [
        ("What happened in 1851?", 1851),
        ("Tell me about the 1860s", 1860),
        ("What did you do in 1849?", None),
        ("Was the 1850 edition better?", None),
        ("Room 21850 is where?", None),
    ],
)
def test_year_after_cutoff(question: str, year: int | None) -> None:
    assert year_after_cutoff(question, date(1850, 6, 1)) == year


def test_refusals_name_the_cutoff() -> None:
    assert "1850-06-01" in refusal("after_cutoff", date(1850, 6, 1))
    assert refusal("something_custom")
    assert refusal("not_in_record") != refusal("self_harm")


@pytest.mark.parametrize(
    ("words", "shared"),
    [
        (["leave", "leaves", "leaving"], "leav"),
        (["approve", "approved", "approval"], "approv"),
        (["policy", "policies"], "polici"),
        (["travel", "travelled", "travelling"], "travel"),
        (["manager", "managers", "management"], "manag"),
    ],
)
def test_stemmer_conflates_word_forms(words: list[str], shared: str) -> None:
    assert {stem(word) for word in words} == {shared}


def test_tokenize_drops_question_words_and_keeps_codes() -> None:
    assert tokenize("How many days of annual leave do I get? Form P45, Café") == [
        "day",
        "annu",
        "leav",
        "form",
        "p45",
        "cafe",
    ]
