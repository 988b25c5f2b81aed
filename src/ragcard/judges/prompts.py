"""The judging prompt shared by the ``llm`` and ``local`` backends, and its strict parser.

One call judges every claim of one answer. The model answers with one JSON object::

    {"verdicts": [{"verdict": "supported" | "not_supported" | "contradicted",
                   "claim": <claim index>,
                   "passage": <passage id or null>,
                   "score": <0..1: belief that the claim is supported>}, ...]}

``verdict`` comes first in each object so that the model commits to a decision before it
writes anything that could read as a rationale. No free-text field is asked for (support-v1
asked for a ``quote``): under llama.cpp's grammar every free-text token is checked against the
whole vocabulary, which made the local judge slow, and a verdict written first cannot use the
quote anyway. A reply that still carries a ``quote`` is parsed as before (span located). All
fixed wording is in the system prompt, so a local model reuses its evaluated prefix. The prompt
is versioned (:data:`PROMPT_VERSION`): a change to its wording, to the schema or to the parser
changes the version, which changes every cache key and is recorded in the judge's identity.

:func:`parse_verdicts` tolerates what chat models wrap around JSON (code fences, a sentence
before it) but nothing in the verdicts themselves: a wrong count, an unknown label, a bad claim
index or a score outside [0, 1] raise :class:`~ragcard.judges.base.JudgeError` with the raw
output kept, so the backend can retry and, failing that, the metric records a judge failure.

:class:`ChatJudge` is the loop both chat backends (``llm``, ``local``) run around the prompt:
no passages → "not_supported" without a call; the cache; ask, parse, and on an unusable reply
ask again saying what was wrong; the decision threshold; the ledger. A backend only supplies
``_complete`` (messages in, reply text out).
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast, get_args

from ragcard.judges.answer_check import (
    ANSWER_PROMPT_VERSION,
    ANSWER_TASKS,
    answer_schema,
    build_answer_messages,
    parse_answer_checks,
)
from ragcard.judges.base import (
    Evidence,
    JudgeContext,
    JudgeError,
    JudgeIdentity,
    Label,
    TaskNotSupportedError,
    Verdict,
)
from ragcard.judges.cache import ChatOptions, JudgeCache, JudgeStats, Ledger, cache_key

__all__ = [
    "LABELS",
    "ChatJudge",
    "Reply",
    "PROMPT_VERSION",
    "STATED_SCORE_NOTE",
    "SYSTEM_PROMPT",
    "build_messages",
    "TASK_PROMPT_VERSIONS",
    "parse_verdicts",
    "reply_schema",
    "truncate_raw",
    "verdict_schema",
    "with_probabilities",
]

#: Changes whenever the prompt, the schema or the parser changes meaning.
PROMPT_VERSION = "support-v2"
#: The tasks beyond support the chat backends answer, with the prompt that answers them
#: (:mod:`ragcard.judges.answer_check`); shown in the judge's identity.
TASK_PROMPT_VERSIONS = {task: ANSWER_PROMPT_VERSION for task in ANSWER_TASKS}

LABELS: tuple[Label, ...] = get_args(Label)

#: Raw model output kept on a JudgeError is cut to about this many characters.
RAW_LIMIT = 4000

SYSTEM_PROMPT = """\
You check whether claims are supported by passages. For each claim choose one verdict:
- "supported": the passages state the claim or directly imply it;
- "contradicted": the passages say something incompatible with the claim: a different \
number, date, limit, name, role or condition, or the opposite (a "not" in one and not the \
other);
- "not_supported": the passages do not mention it, so they neither confirm nor deny it.
Use only the passages, never outside knowledge. Paraphrases and synonyms count as support. \
Every detail of the claim must be supported; if any number, date, name or condition differs \
from the passages, the claim is not supported.
Reply with one JSON object and nothing else: {"verdicts": [...]}, one object per claim, in \
claim order, each with these fields in this order: {"verdict": "supported" or \
"not_supported" or "contradicted", "claim": <the claim number>, "passage": <id of the \
passage that decides it, or null>, "score": <from 0 to 1: how sure you are that the claim \
is supported>}."""

# After the claims, so that everything above it stays the same from call to call (llama.cpp
# reuses the evaluated prefix of the previous prompt: the system prompt is read once).
_INSTRUCTIONS = 'Reply with {{"verdicts": [...]}} holding exactly {n} object(s).'


def build_messages(ctx: JudgeContext) -> list[dict[str, str]]:
    """The chat messages (system + user) that ask for the verdicts on ``ctx``."""
    parts: list[str] = []
    if ctx.question:
        parts.append(f"Question the answer was given to (context only):\n{ctx.question}")
    passages = "\n".join(f"[{p.id}] {p.text}" for p in ctx.passages)
    parts.append(f"Passages:\n{passages}")
    claims = "\n".join(f"{index}: {claim}" for index, claim in enumerate(ctx.claims))
    parts.append(f"Claims:\n{claims}")
    parts.append(_INSTRUCTIONS.format(n=len(ctx.claims)))
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


_GRAMMAR_SCORES = [round(step / 20, 2) for step in range(21)]  # 0.0, 0.05, …, 1.0


def _item_schema(
    claim: dict[str, Any], passage_ids: Sequence[str], grammar: bool
) -> dict[str, Any]:
    # Property order matters: grammar-constrained decoders emit the properties in this order.
    # llama.cpp's schema converter reads a list-valued "type" before "enum", so the grammar
    # form gives the passage ids as a bare enum.
    # It also ignores a number's bounds, so the grammar form lists the scores it may give.
    passage: dict[str, Any] = {"enum": [*passage_ids, None]}
    score: dict[str, Any] = {"enum": _GRAMMAR_SCORES}
    if not grammar:
        passage = {"type": ["string", "null"], **passage}
        score = {"type": "number", "minimum": 0, "maximum": 1}
    return {
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": list(LABELS)},
            "claim": claim,
            "passage": passage,
            "score": score,
        },
        "required": ["verdict", "claim", "passage", "score"],
        "additionalProperties": False,
    }


def verdict_schema(
    n_claims: int, passage_ids: Sequence[str] = (), *, positional: bool = False
) -> dict[str, Any]:
    """JSON schema of the reply for ``n_claims`` claims over passages ``passage_ids``.

    ``positional=False`` gives the portable form (OpenAI-style ``json_schema``: one item
    schema, ``minItems = maxItems = n``). ``positional=True`` pins item *i* to ``claim = i``
    with ``prefixItems``, for grammar-constrained decoders (llama.cpp), so that a small model
    cannot repeat or skip a claim.
    """
    if positional:
        items = [_item_schema({"const": i}, passage_ids, True) for i in range(n_claims)]
        array: dict[str, Any] = {"type": "array", "prefixItems": items, "items": False}
    else:
        claim = {"type": "integer", "minimum": 0, "maximum": max(n_claims - 1, 0)}
        array = {"type": "array", "items": _item_schema(claim, passage_ids, False)}
    array.update(minItems=n_claims, maxItems=n_claims)
    return {
        "type": "object",
        "properties": {"verdicts": array},
        "required": ["verdicts"],
        "additionalProperties": False,
    }


def reply_schema(ctx: JudgeContext, *, positional: bool = False) -> dict[str, Any]:
    """The reply schema for ``ctx``: :func:`verdict_schema` for support, the answer-check
    schema for the yes/no tasks (``positional``: the grammar form, for llama.cpp)."""
    if ctx.task != "support":
        return answer_schema(grammar=positional, verdict=ctx.reference is not None)
    return verdict_schema(len(ctx.claims), [p.id for p in ctx.passages], positional=positional)


def truncate_raw(text: str) -> str:
    """``text`` cut to :data:`RAW_LIMIT` characters, saying how long it was."""
    if len(text) <= RAW_LIMIT:
        return text
    return text[:RAW_LIMIT] + f"… [truncated: {len(text)} characters in all]"


_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)


def _extract_json(text: str) -> Any:
    """The first JSON object or array in ``text``, inside code fences or after prose."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for match in re.finditer(r"[{\[]", candidate):
            try:
                value, _ = decoder.raw_decode(candidate, match.start())
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict | list):
                return value
    raise JudgeError("the judge's output holds no JSON object", truncate_raw(text))


def _label(value: Any, where: str, raw: str) -> Label:
    normal = re.sub(r"[\s-]+", "_", value.strip().lower()) if isinstance(value, str) else value
    if normal not in LABELS:
        allowed = ", ".join(LABELS)
        raise JudgeError(f"{where}: unknown verdict {value!r}; allowed: {allowed}", raw)
    return cast(Label, normal)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _locate(quote: str, text: str) -> tuple[int, int] | None:
    """Where ``quote`` occurs in ``text``: exactly, else ignoring case and runs of spaces."""
    start = text.find(quote)
    if start >= 0:
        return start, start + len(quote)
    words = quote.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(word) for word in words)
    match = re.search(pattern, text, re.IGNORECASE)
    return match.span() if match else None


def _support(
    passage: Any, quote: Any, passages: Sequence[Evidence], where: str, raw: str
) -> tuple[str | None, tuple[int, int] | None, str | None]:
    """``(passage_id, span, reason)`` from the reply's ``passage`` and ``quote`` fields."""
    if passage is not None and not isinstance(passage, str):
        raise JudgeError(f"{where}: 'passage' must be a passage id or null", raw)
    if quote is not None and not isinstance(quote, str):
        raise JudgeError(f"{where}: 'quote' must be a string or null", raw)
    quote = quote.strip() if quote and quote.strip() else None
    by_id = {p.id: p for p in passages}
    if passage is not None and passage in by_id:
        span = _locate(quote, by_id[passage].text) if quote else None
        return passage, span, quote
    # No passage named, or one that was not given: the quote says where the support is.
    for candidate in passages if quote else ():
        span = _locate(quote, candidate.text)
        if span is not None:
            return candidate.id, span, quote
    if passage is not None and passages:
        note = f"the judge named passage {passage!r}, which it was not given"
        return None, None, f"{note}; quote: {quote}" if quote else note
    return passage, None, quote


def _verdicts_list(data: Any, n_claims: int, raw: str) -> list[Any]:
    items = data.get("verdicts") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise JudgeError("the judge's JSON has no 'verdicts' list", raw)
    if len(items) != n_claims:
        raise JudgeError(f"expected {n_claims} verdict(s), one per claim; got {len(items)}", raw)
    return items


def parse_verdicts(text: str, n_claims: int, passages: Sequence[Evidence] = ()) -> list[Verdict]:
    """The verdicts in a model's reply, one per claim in claim order.

    ``passages`` (those the judge was shown) let the parser turn a ``quote`` into a span of
    the passage text. Raises :class:`JudgeError` (``raw`` = the reply) when the reply is not
    exactly one valid verdict per claim.
    """
    raw = truncate_raw(text)
    items = _verdicts_list(_extract_json(text), n_claims, raw)
    found: dict[int, Verdict] = {}
    for position, item in enumerate(items):
        where = f"verdict {position}"
        if not isinstance(item, dict):
            raise JudgeError(f"{where}: expected an object, got {type(item).__name__}", raw)
        label = _label(item.get("verdict", item.get("label")), where, raw)
        claim = item.get("claim", position)
        if not isinstance(claim, int) or isinstance(claim, bool) or not 0 <= claim < n_claims:
            raise JudgeError(f"{where}: 'claim' must be a claim number 0..{n_claims - 1}", raw)
        if claim in found:
            raise JudgeError(f"{where}: claim {claim} judged twice", raw)
        score = item.get("score", 1.0 if label == "supported" else 0.0)
        if not _number(score) or not 0.0 <= score <= 1.0:
            raise JudgeError(f"{where}: 'score' must be a number in [0, 1], got {score!r}", raw)
        passage_id, span, reason = _support(
            item.get("passage"), item.get("quote"), passages, where, raw
        )
        found[claim] = Verdict(label, float(score), passage_id, span, reason)
    return [found[index] for index in range(n_claims)]


# --- the loop around the prompt, shared by the chat backends ---------------------------------


@dataclass(frozen=True, slots=True)
class Reply:
    """A model's reply: its text, whether it was cut by the token limit, and (backends that
    can read them) each verdict's label probabilities, in :data:`LABELS` order, in the order
    the verdicts were written (see :mod:`ragcard.judges.verdict_probability`); ``probed``:
    the backend tried to read them."""

    text: str
    truncated: bool = False
    probabilities: tuple[tuple[float, ...] | None, ...] = ()
    probed: bool = False


#: Added to the reason of a verdict whose probability was sought but could not be read.
STATED_SCORE_NOTE = "score as stated: the model's probability of the verdict could not be read"


def with_probabilities(verdicts: list[Verdict], reply: Reply) -> list[Verdict]:
    """``verdicts`` scored by the model's probability of "supported" where the reply carries
    one for every verdict (else as stated, which a probed reply's reasons then say); the label
    stays the one the model wrote."""
    supported = LABELS.index("supported")
    scores = [p[supported] for p in reply.probabilities if p is not None]
    if len(scores) != len(verdicts) or len(reply.probabilities) != len(verdicts):
        if not reply.probed:
            return verdicts
        return [
            dataclasses.replace(
                verdict,
                reason=f"{verdict.reason}; {STATED_SCORE_NOTE}"
                if verdict.reason
                else STATED_SCORE_NOTE,
            )
            for verdict in verdicts
        ]
    return [
        dataclasses.replace(verdict, score=round(score, 6))
        for verdict, score in zip(verdicts, scores, strict=True)
    ]


_NO_PASSAGES = "no passages to judge against"


class ChatJudge:
    """Base of the chat backends: cache, ask-parse-retry, threshold, ledger.

    Subclasses set ``backend`` and ``identity`` and implement :meth:`_complete`.
    """

    backend: ClassVar[str] = "chat"
    identity: JudgeIdentity
    #: Appended to the model in cache keys when scores do not come from the reply's text.
    score_source: str = ""

    def __init__(
        self,
        options: ChatOptions,
        model: str,
        price_prompt_per_1k: float | None = None,
        price_completion_per_1k: float | None = None,
    ) -> None:
        self.model = model
        self.threshold = options.threshold
        self.parse_retries = options.parse_retries
        self.max_tokens = options.max_tokens
        self.cache = self._open_cache(options.cache)
        self.ledger = Ledger(price_prompt_per_1k, price_completion_per_1k)
        # Answer checks decided lately (key → verdicts): the second task of an answer is read
        # from here, without a call, even when the persistent cache is off.
        self._recent: dict[str, list[Verdict]] = {}

    @staticmethod
    def _open_cache(setting: bool | str) -> JudgeCache | None:
        if setting is False:
            return None
        return JudgeCache(None if setting is True else setting)

    def stats(self) -> JudgeStats:
        """Calls, cache hits and misses, tokens, cost and failures so far."""
        return self.ledger.snapshot(self.cache)

    def close(self) -> None:
        """Close the cache file."""
        if self.cache is not None:
            self.cache.close()

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        """One verdict per claim of ``ctx``, in order; :class:`JudgeError` when the model
        gives no usable answer."""
        if not ctx.claims:
            return []
        if ctx.task != "support":
            return await self._judge_answers(ctx)
        if not ctx.passages:
            return [Verdict("not_supported", 0.0, reason=_NO_PASSAGES) for _ in ctx.claims]
        model = f"{self.backend}:{self.model}{self.score_source}"
        key = cache_key(model, PROMPT_VERSION, ctx)
        if self.cache is not None and (found := self.cache.get(key)) is not None:
            return self._decide(found)
        verdicts = await self._timed(self._ask(ctx))
        if self.cache is not None:
            self.cache.put(key, model, PROMPT_VERSION, verdicts)
        return self._decide(verdicts)

    def _decide(self, verdicts: list[Verdict]) -> list[Verdict]:
        """Apply the threshold: a "supported" verdict scoring below it is not supported."""
        decided = []
        for verdict in verdicts:
            if verdict.label == "supported" and verdict.score < self.threshold:
                note = f"judged supported with score {verdict.score:g} < {self.threshold:g}"
                reason = f"{note}; {verdict.reason}" if verdict.reason else note
                verdict = dataclasses.replace(verdict, label="not_supported", reason=reason)
            decided.append(verdict)
        return decided

    async def _judge_answers(self, ctx: JudgeContext) -> list[Verdict]:
        """A yes/no task: one answer check per answer (both tasks at once, kept)."""
        if ctx.task not in ANSWER_TASKS:
            raise TaskNotSupportedError(self.backend, ctx.task)
        if ctx.question is None:
            raise JudgeError(f"{self.backend} judge: {ctx.task} needs the question")
        if ctx.task == "correctness" and not ctx.reference:
            raise JudgeError(f"{self.backend} judge: correctness needs the expected answer")
        position = ANSWER_TASKS.index(ctx.task)
        verdicts = []
        for answer in ctx.claims:
            checks = await self._answer_checks(dataclasses.replace(ctx, claims=(answer,)))
            verdicts.append(checks[position])
        # a grade keeps its own label: the support threshold does not apply to it
        if ctx.task == "correctness":
            return verdicts
        return self._decide(verdicts)

    async def _answer_checks(self, ctx: JudgeContext) -> list[Verdict]:
        """The (abstention, relevance) verdicts on ``ctx``'s one answer: from memory, the
        cache, or one request."""
        model = f"{self.backend}:{self.model}"
        key = cache_key(model, ANSWER_PROMPT_VERSION, ctx, task="answer-check")
        found = self._recent.get(key)
        if found is None and self.cache is not None:
            found = self.cache.get(key)
        if found is None:
            found = await self._timed(self._ask_answer(ctx))
            if self.cache is not None:
                self.cache.put(key, model, ANSWER_PROMPT_VERSION, found)
        if len(self._recent) >= 4096:
            self._recent.pop(next(iter(self._recent)))
        self._recent[key] = found
        return found

    async def _timed(self, asking: Awaitable[list[Verdict]]) -> list[Verdict]:
        """Await one judgement by the model, counting its time, success or failure."""
        started = time.monotonic()
        try:
            verdicts = await asking
        except JudgeError:
            self.ledger.failures += 1
            raise
        finally:
            self.ledger.seconds += time.monotonic() - started
        self.ledger.judgements += 1
        return verdicts

    async def _ask_answer(self, ctx: JudgeContext) -> list[Verdict]:
        verdict = ctx.reference is not None
        messages = build_answer_messages(
            ctx.question or "", ctx.claims[0], ctx.reference, ctx.passages
        )
        return await self._ask_until_usable(
            messages, ctx, self.max_tokens or (224 if verdict else 128),
            lambda reply: parse_answer_checks(reply.text, verdict),
            f"the JSON object with the {7 if verdict else 4} fields",
        )  # fmt: skip

    async def _ask(self, ctx: JudgeContext) -> list[Verdict]:
        return await self._ask_until_usable(
            build_messages(ctx),
            ctx,
            self.max_tokens or 64 + 160 * len(ctx.claims),
            lambda reply: with_probabilities(
                parse_verdicts(reply.text, len(ctx.claims), ctx.passages), reply
            ),
            "the JSON object, one verdict per claim",
        )

    async def _ask_until_usable(
        self,
        base: list[dict[str, str]],
        ctx: JudgeContext,
        max_tokens: int,
        parse: Callable[[Reply], list[Verdict]],
        wanted: str,
    ) -> list[Verdict]:
        """Ask; on an unusable reply ask again saying what was wrong; then JudgeError."""
        messages = base
        last: JudgeError | None = None
        for _ in range(self.parse_retries + 1):
            reply = await self._complete(messages, ctx, max_tokens)
            try:
                return parse(reply)
            except JudgeError as error:
                self.ledger.invalid_outputs += 1
                last = error
            if reply.truncated:
                max_tokens *= 2
            correction = f"That reply could not be used: {last}. Reply again with only {wanted}."
            messages = [
                *base,
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": correction},
            ]
        raise JudgeError(
            f"{self.backend} judge ({self.model}): no usable verdicts after "
            f"{self.parse_retries + 1} attempt(s): {last}",
            last.raw if last else None,
        )

    async def _complete(
        self, messages: list[dict[str, str]], ctx: JudgeContext, max_tokens: int
    ) -> Reply:
        """Send ``messages`` to the model; the backend's one job."""
        raise NotImplementedError
