"""Ask the judge once per answer, before the layers score it.

:func:`judge_answer` puts the questions the judge-dependent measures need to the run's judge,
batched per answer (all sentences in one call per passage set), and returns a frozen
:class:`JudgedAnswer` the synchronous layers read from :class:`AttemptContext`:

* every sentence against the retrieved passages the asker may see (faithfulness, tier-B use),
  less a superseded version whose in-force version was retrieved too, unless the sentence
  cites it (a claim is judged against the passage it cites and the version in force);
* every sentence against each passage it cites (citation accuracy, per pair);
* every sentence against the not-in-force versions of the documents in play (superseded
  answers by content: supported by an old version and not by what is in force);
* the answer against the item's expected answer, given the question and the gold passages
  (the ``correctness`` task: correct / partial / wrong; answer correctness and the rubric). A
  judge that does not answer that task is asked instead whether the answer supports the
  expected answer (contradicted → wrong, supported → correct, else partial from a score of
  0.5, wrong below), and the verdict says so;
* two yes/no questions about the whole answer, when the judge answers them
  (:func:`ragcard.judges.base.answers_task`): does it address the question (answer relevance),
  and — when the agent sent no ``abstained`` field — does it decline (abstention from text).

Every question about the whole answer carries the same context (answer, gold passages,
question, expected answer), so a chat judge answers them all in one request.

A judge failure on support is kept on the answer (``error``) and turns the judge-dependent
measures of that item into "unscored: judge failed", never a zero. A question about the whole
answer the judge cannot answer, or failed on, leaves its verdict None with the reason in
``notes``: the abstention layer then falls back to its phrase list, answer relevance and
answer correctness are unscored on the item.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ragcard.inputs.corpus import Corpus, Passage
from ragcard.inputs.questions import Question
from ragcard.inputs.responses import AgentResponse
from ragcard.judges.base import (
    Evidence,
    Grade,
    Judge,
    JudgeContext,
    JudgeError,
    Task,
    TaskNotSupportedError,
    Verdict,
    answers_task,
    correctness_verdict,
)

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
        """Why there is no verdict on ``task`` (``abstention``, ``relevance``,
        ``correctness``), if known."""
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
        empty = tuple((task, "empty answer") for task in ("abstention", "relevance", "correctness"))
        return JudgedAnswer(sentences, notes=empty)
    whole = JudgeContext(
        (response.answer,),
        _evidence([p for gid in question.gold_ids if (p := corpus.get(gid)) is not None]),
        question.question,
        reference=question.expected_answer or None,
    )
    abstention: Verdict | None = None
    notes: list[tuple[str, str]] = []
    if response.abstained is None:  # the agent did not say: ask the judge
        abstention, why = await _ask_whole(judge, "abstention", whole)
        notes += [("abstention", why)] if why else []
    relevance, why = await _ask_whole(judge, "relevance", whole)
    notes += [("relevance", why)] if why else []
    correctness: Verdict | None = None
    if whole.reference is not None:
        correctness, why = await _correctness(judge, whole, whole.reference)
        notes += [("correctness", why)] if why else []
    checked = JudgedAnswer(sentences, abstention=abstention, relevance=relevance,
                           correctness=correctness, notes=tuple(notes))  # fmt: skip
    try:
        support, citations, stale = await _judge_support(
            judge, question, response, corpus, sentences, in_force
        )
    except JudgeError as error:
        return replace(checked, error=str(error))
    return replace(checked, support=support, citations=citations, stale=stale)


async def _judge_support(
    judge: Judge,
    question: Question,
    response: AgentResponse,
    corpus: Corpus,
    sentences: tuple[str, ...],
    in_force: set[str],
) -> tuple[tuple[Verdict, ...], _Pairs, _Pairs]:
    """Support of the sentences by the passages seen, by the passages cited, by old versions."""
    visible = [
        p
        for pid in response.retrieved_ids
        if (p := corpus.get(pid)) is not None and p.visible_to(question.asker)
    ]
    support: tuple[Verdict, ...] = ()
    if visible:
        support = await _judge_seen(judge, question, response, corpus, sentences, visible, in_force)
    citations = await _judge_citations(judge, question, response, corpus, sentences)
    stale = await _judge_stale(judge, question, response, corpus, sentences, in_force)
    return support, citations, stale


def _replaced(visible: list[Passage], in_force: set[str]) -> set[str]:
    """Ids of the visible passages not in force whose in-force version is visible too (the
    passage named by ``superseded_by``, or the in-force passage of the same document and
    section)."""
    current = [p for p in visible if p.id in in_force]
    replaced = set()
    for old in visible:
        if old.id in in_force:
            continue
        for new in current:
            named = old.superseded_by is not None and old.superseded_by in (
                new.id, new.version, f"{new.doc}@{new.version}"
            )
            same_section = old.section is not None and old.section == new.section
            if new.doc == old.doc and (named or same_section):
                replaced.add(old.id)
                break
    return replaced


async def _judge_seen(
    judge: Judge,
    question: Question,
    response: AgentResponse,
    corpus: Corpus,
    sentences: tuple[str, ...],
    visible: list[Passage],
    in_force: set[str],
) -> tuple[Verdict, ...]:
    """Each sentence against the retrieved passages it may rest on: a claim is judged against
    the passage it cites and the version in force, so a superseded version retrieved beside
    its in-force version is left out for the sentences that do not cite it (a figure only the
    old version states is the currency layer's business, never a support failure of a sentence
    the in-force passage supports)."""
    replaced = _replaced(visible, in_force)
    if not replaced:
        ctx = JudgeContext(sentences, _evidence(visible), question.question)
        return tuple(await judge.judge(ctx))
    citing_old = {
        index
        for citation in response.resolved_citations()
        if citation.id in replaced
        for index in (range(len(sentences)) if citation.sentence is None else [citation.sentence])
    }
    groups = {
        True: [i for i in range(len(sentences)) if i in citing_old],
        False: [i for i in range(len(sentences)) if i not in citing_old],
    }
    verdicts: dict[int, Verdict] = {}
    for cites_old, indices in groups.items():
        if not indices:
            continue
        passages = visible if cites_old else [p for p in visible if p.id not in replaced]
        claims = tuple(sentences[i] for i in indices)
        found = await judge.judge(JudgeContext(claims, _evidence(passages), question.question))
        verdicts.update(zip(indices, found, strict=True))
    return tuple(verdicts[i] for i in range(len(sentences)))


async def _correctness(
    judge: Judge, whole: JudgeContext, reference: str
) -> tuple[Verdict | None, str | None]:
    """The correctness verdict on the answer, or why there is none: from the ``correctness``
    task, or, for a judge without it, from support of the expected answer by the answer."""
    if answers_task(judge, "correctness"):
        return await _ask_whole(judge, "correctness", whole)
    ctx = JudgeContext((reference,), (Evidence("answer", whole.claims[0]),), whole.question)
    try:
        (support,) = await judge.judge(ctx)
    except (JudgeError, ValueError) as error:
        return None, f"judge failed: {error}"
    name = judge.identity.name
    if support.label == "contradicted":
        grade: Grade = "wrong"
    elif support.supported:
        grade = "correct"
    else:
        grade = "partial" if support.score >= 0.5 else "wrong"
    reason = (
        f"judge '{name}' does not answer correctness: support of the expected answer by the "
        f"answer: {support.label} ({support.score:.2f})"
    )
    return correctness_verdict(grade, support.score, reason), None


async def _ask_whole(
    judge: Judge, task: Task, whole: JudgeContext
) -> tuple[Verdict | None, str | None]:
    """The judge's verdict on a task about the whole answer, or why there is none."""
    if not answers_task(judge, task):
        return None, f"judge '{judge.identity.name}' cannot judge {task}"
    ctx = replace(whole, task=task)
    try:
        verdicts = await judge.judge(ctx)
    except TaskNotSupportedError as error:
        return None, str(error)
    except JudgeError as error:
        return None, f"judge failed: {error}"
    if len(verdicts) != 1:
        return None, f"judge failed: {len(verdicts)} verdicts for one answer"
    if task == "correctness" and verdicts[0].grade is None:
        return None, f"judge failed: judge '{judge.identity.name}' gave no correctness grade"
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
