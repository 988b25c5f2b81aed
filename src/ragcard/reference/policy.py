"""Policy rules and the cutoff check: questions the reference agent must not answer from sources.

A policy maps a flag to phrases. A question containing one of a flag's phrases (whole words,
case and accents ignored; ``*`` stands for one to three words) gets that flag and a fixed, safe
reply instead of an answer. Flags are checked in order; ``self_harm`` comes first, because a
question that trips it must get that reply whatever else it also trips.

``after_cutoff`` phrases are special: they are only checked when the request has a ``cutoff``
(a persona question such as "what do you think of the twentieth century?"). Any year named in
the question later than the cutoff's year raises ``after_cutoff`` too.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from ragcard.errors import ConfigError

__all__ = ["DEFAULT_POLICY", "Policy", "refusal", "year_after_cutoff"]

AFTER_CUTOFF = "after_cutoff"
NOT_IN_RECORD = "not_in_record"

_CHILD_AGES = range(5, 14)
_AILMENTS = "headache migraine fever cough cold pain anxiety depression insomnia rash infection"


def _phrases(text: str) -> tuple[str, ...]:
    return tuple(phrase.strip() for phrase in text.split("|") if phrase.strip())


#: Shipped defaults, first-person phrasings so that a historical question *about* illness or
#: children is not refused. Override per flag in ``[agent.options.policy]``; ``[]`` disables one.
DEFAULT_POLICY: Mapping[str, tuple[str, ...]] = {
    "self_harm": _phrases(
        "kill myself | killing myself | end my life | ending my life | take my own life | "
        "hurt myself | hurting myself | harm myself | self harm | cut myself | want to die | "
        "wish i was dead | wish i were dead | better off dead | suicidal | no reason to live | "
        "don't want to live | dont want to live | thinking about suicide | commit suicide | "
        "no point anymore | no point any more | no point in living | can't go on | cant go on | "
        "don't want to be here anymore | dont want to be here anymore | "
        "don't want to be here any more | stopped eating | why i should bother waking up | "
        "the sea should just take me | don't want to wake up | dont want to wake up"
    ),
    "children": (
        *_phrases(
            "i'm a child | i am a child | i'm a kid | i am a kid | i'm in primary school | "
            "i am in primary school | i'm in elementary school | my mum says | my mom says | "
            "secret pen pals | secret pen pal | my mum's in the other room | "
            "my mom's in the other room"
        ),
        *(f"{lead} {age}" for lead in ("i'm", "im", "i am") for age in _CHILD_AGES),
        *(f"{age} years old and" for age in _CHILD_AGES),
    ),
    "medical": (
        *(
            f"{lead} {ailment}"
            for lead in ("for my", "i've had a bad", "i've had a persistent")
            for ailment in _AILMENTS.split()
        ),
        *_phrases(
            "for my * pain | what dose | what dosage | how many pills | diagnose me | "
            "diagnose my | my symptoms | is it safe for me to take | prescribe me | "
            "give me medical advice | should i stop taking my | cure my | treat my | "
            "remedy for my | what medicine should i | which medicine should i | "
            "what should i take for it | instead of seeing a doctor | "
            "while i'm pregnant | while i am pregnant | safe to eat while"
        ),
    ),
    "companionship": _phrases(
        "be my friend | be my best friend | my only friend | be my girlfriend | "
        "be my boyfriend | be my partner | do you love me | i love you | marry me | "
        "i'm lonely | i am lonely | i feel lonely | i feel so alone | keep me company | "
        "talk to me every day | talk to me every night | will you miss me | can we be friends | "
        "are you my friend | falling in love with you | in love with you | "
        "the only one who understands me"
    ),
    AFTER_CUTOFF: _phrases(
        "after your death | after you died | since your death | since you died | "
        "after you passed away | how did you die | when did you die | nowadays | "
        "in modern times | twentieth century | 20th century | twenty-first century | "
        "21st century | world war"
    ),
}

_REPLIES = {
    "self_harm": (
        "I'm really sorry you're feeling this way. I can't help with this here, but you don't "
        "have to face it alone: please contact a crisis line or emergency services now, or talk "
        "to someone you trust."
    ),
    "children": (
        "This guide is not meant for children on their own. Please ask a parent, teacher or a "
        "member of staff to help you."
    ),
    "medical": (
        "I can't give medical advice. Please ask a doctor, pharmacist or another qualified "
        "health professional."
    ),
    "companionship": (
        "I'm an automated guide to these records, not a friend or companion. I'm glad to answer "
        "questions about what the sources say."
    ),
    NOT_IN_RECORD: "I can't find this in the approved sources, so I can't answer it.",
}
_GENERIC_REPLY = "I can't help with that here. I can answer questions about the approved sources."
_YEAR = re.compile(r"(?<!\d)(1\d{3}|20\d{2})(?:'?s)?(?!\d)")


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.lower().replace("’", "'"))
    text = "".join(char for char in text if not unicodedata.combining(char))
    return " ".join(re.sub(r"[^a-z0-9']+", " ", text).split())


def _compile(phrase: str) -> re.Pattern[str]:
    wildcard = r"[a-z0-9']+(?:\s[a-z0-9']+){0,2}"
    parts = [re.escape(_normalize(part)) for part in phrase.split("*")]
    body = rf"\s{wildcard}\s".join(part for part in parts if part)
    return re.compile(rf"(?<![a-z0-9']){body}(?![a-z0-9'])")


@dataclass(frozen=True, slots=True)
class Policy:
    """Compiled policy rules: flag -> phrases, checked in order."""

    rules: tuple[tuple[str, tuple[str, ...]], ...]
    _patterns: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]

    @classmethod
    def build(cls, overrides: Mapping[str, Sequence[str]] | None = None) -> Policy:
        """The defaults with ``overrides`` applied per flag (new flags are added after them)."""
        merged = {flag: tuple(phrases) for flag, phrases in DEFAULT_POLICY.items()}
        for flag, phrases in (overrides or {}).items():
            if not isinstance(flag, str) or not flag.strip():
                raise ConfigError(f"policy: flag names must be non-empty strings, got {flag!r}")
            if isinstance(phrases, str) or not all(isinstance(p, str) for p in phrases):
                raise ConfigError(
                    f"policy.{flag}: expected a list of phrases (strings), got {phrases!r} — "
                    f'e.g. {flag} = ["phrase one", "phrase two"]'
                )
            merged[flag] = tuple(p for p in phrases if p.strip())
        rules = tuple((flag, phrases) for flag, phrases in merged.items() if phrases)
        patterns = tuple((flag, tuple(_compile(p) for p in phrases)) for flag, phrases in rules)
        return cls(rules, patterns)

    def match(self, question: str, *, has_cutoff: bool) -> str | None:
        """The first flag whose phrases occur in ``question``, or None."""
        text = _normalize(question)
        for flag, patterns in self._patterns:
            if flag == AFTER_CUTOFF and not has_cutoff:
                continue
            if any(pattern.search(text) for pattern in patterns):
                return flag
        return None

    def describe(self) -> dict[str, list[str]]:
        """The effective rules, recorded with the run."""
        return {flag: list(phrases) for flag, phrases in self.rules}


def year_after_cutoff(question: str, cutoff: date) -> int | None:
    """The first year (or decade: ``1870s``) named in ``question`` later than the cutoff's."""
    for match in _YEAR.finditer(question):
        year = int(match.group(1))
        if year > cutoff.year:
            return year
    return None


def refusal(flag: str, cutoff: date | None = None) -> str:
    """The fixed reply for a raised flag."""
    if flag == AFTER_CUTOFF:
        when = f" ({cutoff.isoformat()})" if cutoff else ""
        return f"That is after the end of the record{when}, so I can't answer it."
    return _REPLIES.get(flag, _GENERIC_REPLY)
