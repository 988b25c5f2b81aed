"""Ask the judge once per answer, before the layers score it.

:func:`judge_answer` puts the questions the judge-dependent measures need to the run's judge,
batched per answer (all sentences in one call per passage set), and returns a frozen
:class:`JudgedAnswer` the synchronous layers read from :class:`AttemptContext`:

* every sentence against the retrieved passages the asker may see (faithfulness, tier-B use);
* every sentence against each passage it cites (citation accuracy, per pair);
* every sentence against the not-in-force versions of the documents in play (superseded
  answers by content: supported by an old version and not by what is in force);
* the expected answer against the answer text (the rubric's "is it correct and complete?");
* two yes/no questions about the whole answer, when the judge answers them
  (:func:`ragcard.judges.base.answers_task`): does it address the question (answer relevance),
  and — when the agent sent no ``abstained`` field — does it decline (abstention from text).

A judge failure on support is kept on the answer (``error``) and turns the judge-dependent
measures of that item into "unscored: judge failed", never a zero. A yes/no question the judge
cannot answer, or failed on, leaves its verdict None with the reason in ``notes``: the
abstention layer then falls back to its phrase list, answer relevance is unscored on the item.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ragcard.corpus import Corpus, Passage
from ragcard.judges.base import (
    Evidence,
    Judge,
    JudgeContext,
    JudgeError,
    Task,
    TaskNotSupportedError,
    Verdict,
    answers_task,
)
from ragcard.questions import Question
from ragcard.responses import AgentResponse

__all__ = ["JudgedAnswer", "judge_answer"]

_Pairs = tuple[tuple[int, str, Verdict], ...]


@dataclass(frozen=True, slots=True)
class JudgedAnswer:
    """The judge's verdicts on one answer."""

    sentences: tuple[str, ...]
    support: tuple[Verdict, ...] = ()
    citations: tuple[tuple[int, str, Verdict], ...] = ()
    stale: tuple[tuple[int, str, Verdict], ...] = ()
    correctness: Verdict | None = None
    error: str | None = None
    abstention: Verdict | None = None
    relevance: Verdict | None = None
    notes: tuple[tuple[str, str], ...] = ()

    def note(self, task: str) -> str | None:
        """Why there is no verdict on ``task`` (``abstention``/``relevance``), if known."""
        return next((why for name, why in self.notes if name == task), None)


def _evidence(passages: list[Passage]) -> tuple[Evidence, ...]:
    return tuple(Evidence(p.id, p.text) for p in passages)


def _old_versions(
    corpus: Corpus, response: AgentResponse, question: Question, run_date_ok: set[str]
) -> list[Passage]:
    """Not-in-force passages of the documents the answer drew on (retrieved or cited)."""
    ids = set(response.retrieved_ids) | set(response.cited_ids())
    docs = {p.doc for pid in ids if (p := corpus.get(pid)) is not None}
    return [
        p
        for p in corpus
        if p.doc in docs and p.id not in run_date_ok and p.visible_to(question.asker)
    ]


async def judge_answer(
    judge: Judge,
    question: Question,
    response: AgentResponse,
    corpus: Corpus,
    in_force: set[str],
) -> JudgedAnswer:
    """All the judge calls for one answer; ``in_force`` = ids in force on the run date."""
    sentences = tuple(response.sentences())
    if not sentences:
        empty = (("abstention", "empty answer"), ("relevance", "empty answer"))
        return JudgedAnswer(sentences, notes=empty)
    abstention: Verdict | None = None
    notes: list[tuple[str, str]] = []
    if response.abstained is None:  # the agent did not say: ask the judge
        abstention, why = await _ask_yes_no(judge, "abstention", question, response)
        notes += [("abstention", why)] if why else []
    relevance, why = await _ask_yes_no(judge, "relevance", question, response)
    notes += [("relevance", why)] if why else []
    checked = JudgedAnswer(sentences, abstention=abstention, relevance=relevance,
                           notes=tuple(notes))  # fmt: skip
    try:
        support, citations, stale, correctness = await _judge_support(
            judge, question, response, corpus, sentences, in_force
        )
    except JudgeError as error:
        return replace(checked, error=str(error))
    return replace(
        checked, support=support, citations=citations, stale=stale, correctness=correctness
    )


async def _judge_support(
    judge: Judge,
    question: Question,
    response: AgentResponse,
    corpus: Corpus,
    sentences: tuple[str, ...],
    in_force: set[str],
) -> tuple[tuple[Verdict, ...], _Pairs, _Pairs, Verdict | None]:
    """Support of the sentences by the passages seen, by the passages cited, by old versions;
    and of the expected answer by the answer."""
    visible = [
        p
        for pid in response.retrieved_ids
        if (p := corpus.get(pid)) is not None and p.visible_to(question.asker)
    ]
    support: tuple[Verdict, ...] = ()
    if visible:
        support = tuple(
            await judge.judge(JudgeContext(sentences, _evidence(visible), question.question))
        )
    citations = await _judge_citations(judge, question, response, corpus, sentences)
    stale = await _judge_stale(judge, question, response, corpus, sentences, in_force)
    correctness = None
    if question.expected_answer:
        (correctness,) = await judge.judge(
            JudgeContext(
                (question.expected_answer,),
                (Evidence("answer", response.answer),),
                question.question,
            )
        )
    return support, citations, stale, correctness


async def _ask_yes_no(
    judge: Judge, task: Task, question: Question, response: AgentResponse
) -> tuple[Verdict | None, str | None]:
    """The judge's verdict on a yes/no task about the answer, or why there is none."""
    if not answers_task(judge, task):
        return None, f"judge '{judge.identity.name}' cannot judge {task}"
    ctx = JudgeContext((response.answer,), (), question.question, task)
    try:
        verdicts = await judge.judge(ctx)
    except TaskNotSupportedError as error:
        return None, str(error)
    except JudgeError as error:
        return None, f"judge failed: {error}"
    if len(verdicts) != 1:
        return None, f"judge failed: {len(verdicts)} verdicts for one answer"
    return verdicts[0], None


async def _judge_citations(
    judge: Judge,
    question: Question,
    response: AgentResponse,
    corpus: Corpus,
    sentences: tuple[str, ...],
) -> tuple[tuple[int, str, Verdict], ...]:
    by_passage: dict[str, list[int]] = {}
    for citation in response.resolved_citations():
        indices = range(len(sentences)) if citation.sentence is None else [citation.sentence]
        for index in indices:
            if index < len(sentences) and corpus.get(citation.id) is not None:
                by_passage.setdefault(citation.id, []).append(index)
    pairs: list[tuple[int, str, Verdict]] = []
    for pid, indices in by_passage.items():
        passage = corpus.passages[pid]
        claims = tuple(sentences[i] for i in indices)
        verdicts = await judge.judge(JudgeContext(claims, _evidence([passage]), question.question))
        pairs.extend((i, pid, v) for i, v in zip(indices, verdicts, strict=True))
    return tuple(pairs)


async def _judge_stale(
    judge: Judge,
    question: Question,
    response: AgentResponse,
    corpus: Corpus,
    sentences: tuple[str, ...],
    in_force: set[str],
) -> tuple[tuple[int, str, Verdict], ...]:
    old = _old_versions(corpus, response, question, in_force)
    if not old:
        return ()
    verdicts = await judge.judge(JudgeContext(sentences, _evidence(old), question.question))
    return tuple((i, v.passage_id or old[0].id, v) for i, v in enumerate(verdicts) if v.supported)
