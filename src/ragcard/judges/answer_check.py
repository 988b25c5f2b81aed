"""The chat backends' prompt for the tasks about a whole answer.

One request per answer asks every question about it — does the answer decline
(abstention), does it address the question (relevance), and, when the item has an expected
answer, is it right (correctness: correct / partial / wrong against the expected answer and
the gold passages) — so a run adds one call per answer, not three; the chat judge keeps the
verdicts and answers the other tasks from them (:class:`ragcard.judges.prompts.ChatJudge`).
Support keeps its own prompt and its one call per answer and passage set.

The reply is one JSON object, each verdict before its score::

    {"declines": "yes"|"no", "declines_score": 0..1,
     "addresses": "yes"|"no", "addresses_score": 0..1,
     "verdict": "correct"|"partial"|"wrong", "verdict_score": 0..1, "deciding_fact": "…"}

(the last three only with an expected answer). Scores are the model's belief in *yes* (for
the verdict: that the answer is correct). As for support, the decision threshold is applied
when the verdicts are read, and an unusable reply is asked again, then becomes a judge failure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ragcard.judges.base import GRADES, Evidence, JudgeError, Verdict, correctness_verdict

__all__ = [
    "ANSWER_PROMPT_VERSION",
    "ANSWER_SYSTEM_PROMPT",
    "ANSWER_TASKS",
    "answer_schema",
    "build_answer_messages",
    "parse_answer_checks",
]

#: Changes whenever this prompt, its schema or its parser changes meaning.
ANSWER_PROMPT_VERSION = "answer-v2"
#: The tasks one answer-check request decides, in the order of the stored verdicts
#: (correctness only when the item has an expected answer).
ANSWER_TASKS = ("abstention", "relevance", "correctness")
_FIELDS = {"abstention": "declines", "relevance": "addresses"}

ANSWER_SYSTEM_PROMPT = """\
You read a question and the answer an assistant gave to it, and decide two things.
- "declines": "yes" when the answer declines to answer, or says that its sources or records \
do not hold the answer (for example "the handbook does not cover this", "I could not find \
that in the records"), even if it then suggests where to ask; "no" when it gives an answer.
- "addresses": "yes" when the answer responds to what the question asks, even if it may be \
wrong or incomplete; "no" when it talks about something else or does not respond to the \
question.
Judge only what the answer says, not whether it is true. Reply with one JSON object and \
nothing else."""

_CORRECTNESS_PROMPT = """\
- "verdict": compare the answer with the expected answer, using the source passages to \
understand it. "correct" when the answer states the expected answer's key facts (figures, \
conditions, who, what, when), in any words, even with extra true information; "partial" \
when it states some of the key facts and nothing false that would change what the asker \
does; "wrong" when it states a wrong fact (another number, date, amount or condition), \
answers a neighbouring question instead of the one asked, or would lead the asker to do the \
wrong thing.
- "deciding_fact": the fact that decided the verdict, in a few words."""

_INSTRUCTIONS = """\
Reply with {"declines": "yes" or "no", "declines_score": <from 0 to 1: how sure you are that \
it declines>, "addresses": "yes" or "no", "addresses_score": <from 0 to 1: how sure you are \
that it addresses the question>}"""
_INSTRUCTIONS_WITH_VERDICT = """\
Reply with {"declines": "yes" or "no", "declines_score": <from 0 to 1: how sure you are that \
it declines>, "addresses": "yes" or "no", "addresses_score": <from 0 to 1: how sure you are \
that it addresses the question>, "verdict": "correct" or "partial" or "wrong", \
"verdict_score": <from 0 to 1: how sure you are that the answer is correct>, \
"deciding_fact": "<a few words>"}"""

_GRAMMAR_SCORES = [round(step / 20, 2) for step in range(21)]  # 0.0, 0.05, …, 1.0


def build_answer_messages(
    question: str,
    answer: str,
    reference: str | None = None,
    passages: Sequence[Evidence] = (),
) -> list[dict[str, str]]:
    """The chat messages that ask whether ``answer`` declines and addresses ``question`` and,
    given the expected answer ``reference``, whether it is right."""
    if reference is None:
        user = f"Question:\n{question}\n\nAnswer:\n{answer}\n\n{_INSTRUCTIONS}"
        system = ANSWER_SYSTEM_PROMPT
    else:
        sources = "\n\n".join(f"[{p.id}]\n{p.text}" for p in passages) or "(none given)"
        user = (
            f"Question:\n{question}\n\nExpected answer:\n{reference}\n\nSource passages:\n"
            f"{sources}\n\nAnswer:\n{answer}\n\n{_INSTRUCTIONS_WITH_VERDICT}"
        )
        system = ANSWER_SYSTEM_PROMPT.replace(
            "decide two things.", "decide three things."
        ).replace("Judge only what the answer says, not whether it is true.", _CORRECTNESS_PROMPT
                  + "\nFor declines and addresses, judge only what the answer says.")  # fmt: skip
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def answer_schema(*, grammar: bool = False, verdict: bool = False) -> dict[str, Any]:
    """JSON schema of the reply (``verdict``: with the correctness fields). ``grammar=True``
    lists the scores it may give (llama.cpp's schema converter ignores a number's bounds)."""
    score: dict[str, Any] = (
        {"enum": _GRAMMAR_SCORES} if grammar else {"type": "number", "minimum": 0, "maximum": 1}
    )
    properties: dict[str, Any] = {}
    for name in _FIELDS.values():  # property order = generation order: verdict, then score
        properties[name] = {"type": "string", "enum": ["yes", "no"]}
        properties[f"{name}_score"] = score
    if verdict:
        properties["verdict"] = {"type": "string", "enum": list(GRADES)}
        properties["verdict_score"] = score
        properties["deciding_fact"] = {"type": "string", "maxLength": 200}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _yes_no(value: Any, name: str, raw: str) -> bool:
    normal = value.strip().lower() if isinstance(value, str) else value
    if isinstance(normal, bool):
        return normal
    if normal not in ("yes", "no"):
        raise JudgeError(f'{name!r} must be "yes" or "no", got {value!r}', raw)
    return bool(normal == "yes")


def parse_answer_checks(text: str, verdict: bool = False) -> list[Verdict]:
    """The (abstention, relevance[, correctness]) verdicts in a model's reply, in
    :data:`ANSWER_TASKS` order (``verdict``: the reply must hold the correctness fields).

    Raises :class:`JudgeError` (``raw`` = the reply) when a field is missing or invalid.
    """
    from ragcard.judges.prompts import _extract_json, truncate_raw  # (prompts imports this)

    raw = truncate_raw(text)
    data = _extract_json(text)
    if not isinstance(data, dict):
        raise JudgeError("the judge's JSON is not an object", raw)
    verdicts = []
    for task in ANSWER_TASKS[:2]:
        name = _FIELDS[task]
        if name not in data:
            raise JudgeError(f"the judge's JSON has no {name!r} field", raw)
        yes = _yes_no(data[name], name, raw)
        score = data.get(f"{name}_score", 1.0 if yes else 0.0)
        if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
            raise JudgeError(f"'{name}_score' must be a number in [0, 1], got {score!r}", raw)
        reason = f"{re.sub('_', ' ', name)}: {'yes' if yes else 'no'}"
        verdicts.append(Verdict("supported" if yes else "not_supported", float(score), None,
                                None, reason))  # fmt: skip
    if verdict:
        verdicts.append(_correctness(data, raw))
    return verdicts


def _correctness(data: dict[str, Any], raw: str) -> Verdict:
    grade = data.get("verdict")
    grade = grade.strip().lower() if isinstance(grade, str) else grade
    if grade not in GRADES:
        raise JudgeError(f"'verdict' must be one of {', '.join(GRADES)}, got {grade!r}", raw)
    score = data.get("verdict_score", {"correct": 1.0, "partial": 0.5}.get(grade, 0.0))
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        raise JudgeError(f"'verdict_score' must be a number in [0, 1], got {score!r}", raw)
    fact = data.get("deciding_fact")
    reason = f"{grade}: {fact}" if isinstance(fact, str) and fact.strip() else grade
    return correctness_verdict(grade, float(score), reason)
