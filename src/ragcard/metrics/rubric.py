"""Grounding (faithfulness) and the 0–3 rubric (docs/metrics.md#measures, docs/metrics.md#rubric).

The hard-zero rules come first and need no judge: a leak, a superseded answer, an answer
where the item calls for abstention, or (ragcard's reading of "wrong") an abstention on a
question the sources answer, a missing required flag, or no answer at all because the agent
failed. ``must_pass_zeros`` counts must-pass items with a zero in any attempt.

With a judge, the levels follow docs/metrics.md#rubric. Where the item has an expected answer, the
judge's
correctness verdict (:mod:`ragcard.metrics.correctness`) caps the level: ``wrong`` is 0,
``partial`` at most 2 when it has the main point (a score of at least
:data:`ragcard.judges.base.MAIN_POINT`: the main question answered, a secondary detail
missing) and otherwise at most 1, and only ``correct`` reaches 3. Within the cap, grounding
decides: every sentence supported by the retrieved passages and every citation supporting its
sentence is 3; supported but a citation that misses the exact passage is 2; an unsupported
claim is 1 (a claim the judge cannot tie to a passage may change what the asker does, so the
item fails, reported as level 1 and never hidden among the passes).

With no expected answer, grounding alone decides (faithful and cited right 3, faithful 2, at
least half supported 1, less 0), and an answer the judge says does not address the question
is at most 1. An abstention on an unanswerable item is the right answer: 3.

An answerable item passes only at level 2 or above: :mod:`ragcard.aggregation.diagnosis` reports
every lower level as a failure with its cause.
"""

from __future__ import annotations

from collections.abc import Mapping

from ragcard.judges.base import MAIN_POINT, Verdict
from ragcard.metrics._text import states_something
from ragcard.metrics.abstention import abstention_of, judged_of
from ragcard.metrics.base import (
    NEEDS_JUDGE,
    AttemptContext,
    LayerScore,
    MetricSpec,
    ScoringSettings,
)
from ragcard.metrics.judged import JudgedAnswer

__all__ = ["RubricLayer", "correctness_cap", "hard_zero_reasons", "rubric_level"]


def hard_zero_reasons(ctx: AttemptContext, values: Mapping[str, float]) -> list[str]:
    """Why this attempt scores 0 whatever a judge says (empty when no rule applies)."""
    if ctx.failure is not None:
        return [f"no answer: agent failed ({ctx.failure.kind})"]
    if ctx.settings.retrieval_only:
        return ["restricted content revealed"] if values.get("access_leaks") else []
    reasons = []
    if values.get("access_leaks"):
        reasons.append("restricted content revealed")
    if values.get("superseded_answers"):
        reasons.append("answer from a superseded version")
    if values.get("correct_abstention") == 0.0:
        reasons.append("answered where it should abstain")
    if values.get("false_abstention") == 1.0:
        reasons.append("abstained on a question the sources answer")
    expected = ctx.question.expected_flag
    if expected and values.get("flag_accuracy") == 0.0:
        reasons.append(f"did not raise the required flag {expected!r}")
    return reasons


def rubric_level(judged: JudgedAnswer, faithfulness: float | None) -> int:
    """The 0–3 level from the judge's verdicts (hard zeros are applied before this)."""
    correct = judged.correctness
    if correct is not None and correct.grade is not None:
        return min(correctness_cap(correct.grade, correct.score), _grounding(judged, faithfulness))
    level = _grounding(judged, faithfulness, lenient=True)
    if judged.relevance is not None and not judged.relevance.supported:
        return min(level, 1)
    return level


def correctness_cap(grade: str, score: float) -> int:
    """The highest level a correctness verdict allows (docs/metrics.md#rubric)."""
    if grade == "wrong":
        return 0
    if grade == "partial":
        return 2 if score >= MAIN_POINT else 1
    return 3


def _grounding(judged: JudgedAnswer, faithfulness: float | None, lenient: bool = False) -> int:
    """The level grounding allows: faithful and cited right 3, faithful 2; an unsupported
    claim 1 — or, with no expected answer to judge against (``lenient``), 1 when at least
    half the sentences are supported and 0 below."""
    if faithfulness == 1.0:
        return 3 if all(v.supported for _, _, v in judged.citations) else 2
    if not lenient:
        return 1
    return 1 if (faithfulness or 0.0) >= 0.5 else 0


class RubricLayer:
    """Faithfulness per answer, then (after the other layers) hard zeros and rubric levels."""

    name = "rubric"

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]:
        return (
            MetricSpec(
                "faithfulness",
                "grounding",
                "mean",
                True,
                "share of answer sentences the retrieved passages support",
                NEEDS_JUDGE,
                share=True,
            ),
            MetricSpec(
                "must_pass_zeros",
                self.name,
                "count",
                False,
                "must-pass items with a rubric 0 in any attempt",
                "no must-pass item",
            ),
            MetricSpec(
                "rubric_mean", self.name, "mean", True, "mean 0–3 rubric level", NEEDS_JUDGE
            ),
        )

    def score(self, ctx: AttemptContext) -> LayerScore:
        result = LayerScore()
        if ctx.response is None or ctx.settings.retrieval_only:
            return result
        judged, why = ctx.judgement()
        if judged is None:
            result.unscored["faithfulness"] = result.unscored["rubric_mean"] = why or NEEDS_JUDGE
            return result
        if judged.sentences and not _abstained(ctx):
            # a sentence with no content word ("No.", "Thanks!") states nothing to support
            claims = [i for i, text in enumerate(judged.sentences) if states_something(text)]
            verdicts = judged.support or tuple(Verdict("not_supported", 0.0) for _ in claims)
            if judged.support:
                verdicts = tuple(judged.support[i] for i in claims)
            if claims:
                supported = [v.supported for v in verdicts]
                result.values["faithfulness"] = sum(supported) / len(supported)
                unsupported = [i for i, v in zip(claims, verdicts, strict=True) if not v.supported]
                if unsupported:
                    result.evidence["unsupported_sentences"] = unsupported
        return result

    def finish(self, ctx: AttemptContext, values: dict[str, float]) -> LayerScore:
        """Apply the hard-zero rules and the judge's levels once every layer has scored."""
        result = LayerScore()
        reasons = hard_zero_reasons(ctx, values)
        level: int | None = 0 if reasons else None
        judged, _ = ctx.judgement()
        if level is None and ctx.response is not None and not ctx.settings.retrieval_only:
            if values.get("correct_abstention") == 1.0:
                level = 3  # abstaining where the sources are silent is the right answer
            elif judged is not None:
                level = rubric_level(judged, values.get("faithfulness"))
                if level == 0:
                    reasons.append(_zero_reason(judged))
        if reasons:
            result.evidence["rubric_zero"] = reasons
        if level is not None and judged is not None:
            result.values["rubric_mean"] = float(level)
            result.evidence["rubric_level"] = level
        if ctx.question.must_pass:
            result.values["must_pass_zeros"] = 1.0 if reasons else 0.0
        return result


def _zero_reason(judged: JudgedAnswer) -> str:
    verdict = judged.correctness
    if verdict is not None and verdict.grade == "wrong":
        return f"wrong answer (judge): {verdict.reason}"
    return "mostly unsupported (judge)"


def _abstained(ctx: AttemptContext) -> bool:
    return ctx.response is not None and abstention_of(ctx.response, ctx.settings, judged_of(ctx))[0]
