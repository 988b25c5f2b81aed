"""Diagnosis: every failing item-attempt gets a layer, symptom, likely cause and what to try.

Rules read the attempt's scores and evidence (docs/metrics.md#diagnosis table, made decidable).
Each rule
returns at most one :class:`Diagnosis`; an attempt with no diagnosis passed every check that
could be made without a judge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ragcard.inputs.questions import Question

__all__ = ["Diagnosis", "diagnose"]


@dataclass(frozen=True, slots=True)
class Diagnosis:
    layer: str
    symptom: str
    cause: str
    fix: str
    rule: str

    def to_json(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class _Facts:
    question: Question
    values: Mapping[str, float]
    evidence: Mapping[str, Any]
    k: int

    def value(self, name: str) -> float | None:
        return self.values.get(name)


def _retrieval(f: _Facts) -> Diagnosis | None:
    if f.value(f"recall@{f.k}") != 0.0:
        return None
    category = f.question.category
    if f.evidence.get("gold_doc_in_top_k"):
        return Diagnosis(
            "retrieval",
            "right document, wrong passage",
            "chunks split a rule from its conditions",
            "chunk by structure; keep headings with chunks",
            "retrieval.chunking",
        )
    if category == "paraphrase":
        return Diagnosis(
            "retrieval",
            "low recall on paraphrases",
            "vocabulary mismatch",
            "hybrid keyword and vector search; query rewriting",
            "retrieval.paraphrase",
        )
    if category == "exact_term":
        return Diagnosis(
            "retrieval",
            "low recall on exact terms",
            "vector search alone",
            "add keyword search",
            "retrieval.exact_term",
        )
    return Diagnosis(
        "retrieval",
        f"gold passage not in the top {f.k}",
        "query and passage wording differ, or the passage is not indexed",
        "check the gold passage is indexed; try hybrid search and reranking",
        "retrieval.miss",
    )


def _leak(f: _Facts) -> Diagnosis | None:
    leaks = f.evidence.get("leaks")
    if not leaks:
        return None
    channels = {c for leak in leaks for c in leak.get("channels", [])}
    if channels & {"retrieved", "cited"}:
        return Diagnosis(
            "access",
            "restricted passage reached the asker",
            "filtering after ranking",
            "filter by the asker's identity before retrieval",
            "access.after_ranking",
        )
    return Diagnosis(
        "access",
        "restricted content reproduced in the answer",
        "restricted text in the prompt or the model's memory",
        "filter by the asker's identity before retrieval; keep restricted text "
        "out of prompts and fine-tuning data",
        "access.content",
    )


def _superseded(f: _Facts) -> Diagnosis | None:
    if not f.value("superseded_answers"):
        return None
    return Diagnosis(
        "currency",
        "answer from a superseded version",
        "old versions still indexed",
        "effective dates; retire superseded versions",
        "currency.superseded",
    )


def _abstention(f: _Facts) -> Diagnosis | None:
    if f.value("false_abstention") == 1.0:
        if f.value(f"recall@{f.k}") == 0.0:
            return Diagnosis(
                "abstention",
                "false abstention",
                "retrieval misses",
                "check retrieval first",
                "abstention.false.retrieval",
            )
        return Diagnosis(
            "abstention",
            "false abstention",
            "an over-strict instruction or abstention threshold",
            "check retrieval first, then relax the abstention rule",
            "abstention.false",
        )
    if f.value("correct_abstention") == 0.0:
        return Diagnosis(
            "abstention",
            "answered a question the sources do not answer",
            "no cite-or-abstain contract, or an abstention threshold set too low",
            "cite-or-abstain contract; abstain when the best passage is weak",
            "abstention.missed",
        )
    return None


def _flag(f: _Facts) -> Diagnosis | None:
    if f.value("flag_accuracy") != 0.0 or f.value("correct_abstention") == 0.0:
        return None  # a missed abstention is already diagnosed; its missing flag adds nothing
    flag = f.evidence.get("flag", {})
    raised = repr(flag["raised"]) if flag.get("raised") else "no flag"
    expected = repr(flag["expected"]) if flag.get("expected") else "none"
    return Diagnosis(
        "abstention",
        f"raised {raised}, expected {expected}",
        "policy rules or flag mapping miss this case",
        "review the flag rules for this category",
        "abstention.flag",
    )


def _citation(f: _Facts) -> Diagnosis | None:
    problems = f.evidence.get("invalid_citations")
    if not problems:
        return None
    reasons = {p["reason"] for p in problems}
    if reasons == {"after_cutoff"}:
        return Diagnosis(
            "citation",
            "cites a source dated after the cutoff",
            "the cutoff is not enforced at retrieval",
            "filter sources by date on or before the cutoff",
            "citation.cutoff",
        )
    return Diagnosis(
        "citation",
        "citations that were not retrieved or do not exist",
        "citations attached after writing",
        "cite per sentence, from passage ids",
        "citation.invalid",
    )


def _attribution(f: _Facts) -> Diagnosis | None:
    if f.value("b_attribution") != 0.0:
        return None
    return Diagnosis(
        "citation",
        "tier-B content stated as fact",
        "secondary sources not marked in the prompt",
        "label tier-B passages and require attribution",
        "attribution.missing",
    )


def _grounding(f: _Facts) -> Diagnosis | None:
    if not f.evidence.get("unsupported_sentences"):
        return None
    if f.value(f"recall@{f.k}") == 0.0:
        return None  # the retrieval miss explains it
    return Diagnosis(
        "grounding",
        "good recall, poor faithfulness",
        "outside knowledge, or too many passages",
        "cite-or-abstain contract; fewer, reranked passages",
        "grounding.unsupported",
    )


def _citation_support(f: _Facts) -> Diagnosis | None:
    if not f.evidence.get("unsupported_citations"):
        return None
    return Diagnosis(
        "citation",
        "citations that do not support the sentence",
        "citations attached after writing",
        "cite per sentence, from passage ids",
        "citation.unsupported",
    )


def _off_topic(f: _Facts) -> Diagnosis | None:
    if f.value("answer_relevance") != 0.0 or f.value("correct_abstention") == 0.0:
        return None  # answering where it should abstain is already the failure
    if (f.evidence.get("correctness") or {}).get("verdict") in ("wrong", "partial"):
        return None  # the correctness verdict says more precisely what is wrong
    if f.value(f"recall@{f.k}") == 0.0:
        return None  # the retrieval miss explains it
    return Diagnosis(
        "relevance",
        "answer does not address the question",
        "the agent answered a neighbouring question, or drew on passages about something else",
        "check the passages it drew on; instruct it to answer the question asked, or abstain",
        "relevance.off_topic",
    )


def _wrong_answer(f: _Facts) -> Diagnosis | None:
    """A ``wrong`` correctness verdict: a wrong value, the opposite of the source, or a
    neighbouring question answered."""
    verdict = f.evidence.get("correctness") or {}
    if verdict.get("verdict") != "wrong":
        return None
    reason = str(verdict.get("reason") or "")
    if reason.startswith("the answer says '"):
        return Diagnosis(
            "correctness",
            "wrong value: " + reason.removeprefix("the answer ").replace("says", "states", 1),
            "the figure comes from another rule or passage, or a condition was dropped",
            "keep each figure with its rule when chunking; cite per sentence and check the "
            "cited passage states that figure",
            "correctness.wrong_value",
        )
    if reason.startswith(("the answer affirms", "the answer denies", "the answer says")):
        return Diagnosis(
            "correctness",
            "states the opposite of the source",
            "a negation or an exception was lost between the passage and the answer",
            "quote the rule with its exceptions; check the sentence against its passage",
            "correctness.opposite",
        )
    return Diagnosis(
        "correctness",
        "answered a neighbouring question",
        "the passages it drew on answer a nearby question, or the agent picked the wrong one",
        "check the gold passage is retrieved and used; instruct it to answer the question "
        "asked, or abstain",
        "correctness.neighbouring",
    )


def _incomplete(f: _Facts) -> Diagnosis | None:
    """A ``partial`` verdict that misses the main point (rubric level 1)."""
    verdict = f.evidence.get("correctness") or {}
    if verdict.get("verdict") != "partial" or f.evidence.get("rubric_level", 3) >= 2:
        return None
    gold = f.question.gold_ids
    if f.question.category == "multi_passage" or len(gold) > 1:
        cited = set(f.evidence.get("cited", ()))
        if f.question.category == "multi_passage" or len(cited & set(gold)) < len(gold):
            return Diagnosis(
                "correctness",
                "incomplete multi-passage answer",
                "the answer draws on one passage where the question needs several",
                "retrieve and combine every passage the question needs (raise k, or "
                "retrieve per sub-question)",
                "correctness.incomplete_multi",
            )
    return Diagnosis(
        "correctness",
        "incomplete answer: the main point is missing",
        "the answer leaves out the fact or condition that answers the question",
        "keep rules with their conditions; instruct it to answer the question fully",
        "correctness.incomplete",
    )


_RULES: tuple[Callable[[_Facts], Diagnosis | None], ...] = (
    _leak,
    _superseded,
    _abstention,
    _flag,
    _retrieval,
    _citation,
    _attribution,
    _grounding,
    _citation_support,
    _off_topic,
    _wrong_answer,
    _incomplete,
)


def diagnose(
    question: Question,
    values: Mapping[str, float],
    evidence: Mapping[str, Any],
    k: int,
    failure_kind: str | None = None,
) -> list[Diagnosis]:
    """All diagnoses for one item-attempt, most severe first."""
    if failure_kind is not None:
        return [
            Diagnosis(
                "agent",
                f"agent failed ({failure_kind})",
                _AGENT_CAUSES.get(failure_kind, "the agent raised an error"),
                "see the error on the item; rerun with --resume once fixed",
                f"agent.{failure_kind}",
            )
        ]
    facts = _Facts(question, values, evidence, k)
    found = [d for rule in _RULES if (d := rule(facts)) is not None]
    level = evidence.get("rubric_level")
    if level is not None and level >= 2 and question.is_answerable:
        # level 2 is "supported, a citation misses the exact passage", and level 2 passes
        # (docs/metrics.md#rubric): the citation shows in citation_accuracy, not as a failure
        found = [d for d in found if d.rule != "citation.unsupported"]
    if not found and level is not None and level < 2 and question.is_answerable:
        # docs/metrics.md#rubric: an answerable item passes only at level 2 or above
        found.append(
            Diagnosis(
                "rubric",
                f"rubric level {level}: partly correct, or a claim no passage supports",
                "the answer is not fully right and grounded",
                "read the answer against the expected answer and the passages it cites",
                "rubric.weak",
            )
        )
    return found


_AGENT_CAUSES = {
    "timeout": "the agent did not answer within the timeout",
    "transport": "the agent could not be reached or failed (connection or HTTP error, or its "
    "command exited with an error)",
    "malformed_output": "the agent's output is not a valid response",
    "agent_exception": "the agent's code raised an exception",
    "not_recorded": "no recorded response for this attempt",
}
