"""The chat backends' prompt for the yes/no tasks about a whole answer.

One request per answer asks both questions — does the answer decline (abstention), does it
address the question (relevance) — so a run adds one call per answer, not two; the chat judge
keeps the pair and answers the second task from it (:class:`ragcard.judges.prompts.ChatJudge`).
Support keeps its own prompt and its one call per answer and passage set.

The reply is one JSON object, each verdict before its score::

    {"declines": "yes"|"no", "declines_score": 0..1,
     "addresses": "yes"|"no", "addresses_score": 0..1}

Scores are the model's belief in *yes*. As for support, the decision threshold is applied when
the verdicts are read, and an unusable reply is asked again, then becomes a judge failure.
"""

from __future__ import annotations

import re
from typing import Any

from ragcard.judges.base import JudgeError, Verdict

__all__ = [
    "ANSWER_PROMPT_VERSION",
    "ANSWER_SYSTEM_PROMPT",
    "ANSWER_TASKS",
    "answer_schema",
    "build_answer_messages",
    "parse_answer_checks",
]

#: Changes whenever this prompt, its schema or its parser changes meaning.
ANSWER_PROMPT_VERSION = "answer-v1"
#: The tasks one answer-check request decides, in the order of the stored verdicts.
ANSWER_TASKS = ("abstention", "relevance")
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

_INSTRUCTIONS = """\
Reply with {"declines": "yes" or "no", "declines_score": <from 0 to 1: how sure you are that \
it declines>, "addresses": "yes" or "no", "addresses_score": <from 0 to 1: how sure you are \
that it addresses the question>}"""

_GRAMMAR_SCORES = [round(step / 20, 2) for step in range(21)]  # 0.0, 0.05, …, 1.0


def build_answer_messages(question: str, answer: str) -> list[dict[str, str]]:
    """The chat messages that ask whether ``answer`` declines and addresses ``question``."""
    user = f"Question:\n{question}\n\nAnswer:\n{answer}\n\n{_INSTRUCTIONS}"
    return [
        {"role": "system", "content": ANSWER_SYSTEM_PROMPT},
        {"role": "user", "content": user},
    ]


def answer_schema(*, grammar: bool = False) -> dict[str, Any]:
    """JSON schema of the reply. ``grammar=True`` lists the scores it may give (llama.cpp's
    schema converter ignores a number's bounds)."""
    score: dict[str, Any] = (
        {"enum": _GRAMMAR_SCORES} if grammar else {"type": "number", "minimum": 0, "maximum": 1}
    )
    properties: dict[str, Any] = {}
    for name in _FIELDS.values():  # property order = generation order: verdict, then score
        properties[name] = {"type": "string", "enum": ["yes", "no"]}
        properties[f"{name}_score"] = score
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


def parse_answer_checks(text: str) -> list[Verdict]:
    """The (abstention, relevance) verdicts in a model's reply, in :data:`ANSWER_TASKS` order.

    Raises :class:`JudgeError` (``raw`` = the reply) when a field is missing or invalid.
    """
    from ragcard.judges.prompts import _extract_json, truncate_raw  # (prompts imports this)

    raw = truncate_raw(text)
    data = _extract_json(text)
    if not isinstance(data, dict):
        raise JudgeError("the judge's JSON is not an object", raw)
    verdicts = []
    for task in ANSWER_TASKS:
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
    return verdicts
