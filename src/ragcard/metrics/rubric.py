"""Grounding (faithfulness) and the 0–3 rubric (SPEC §2, §2.1).

The hard-zero rules come first and need no judge: a leak, a superseded answer, an answer
where the item calls for abstention, or (ragcard's reading of "wrong") an abstention on a
question the sources answer, a missing required flag, or no answer at all because the agent
failed. ``must_pass_zeros`` counts must-pass items with a zero in any attempt.

With a judge, the levels come from yes/no questions put to it:

* *correct* — does the answer support the expected answer? (contradicted = wrong)
* *faithful* — is every sentence supported by the retrieved passages?
* *cited right* — does every cited passage support its sentence?

* *addresses the question* — asked only when the item has no expected answer (otherwise
  *correct* already says whether it answers), and only of a judge that answers relevance.

3 = correct, faithful and cited right (or, with no expected answer, faithful and cited right);
2 = correct and faithful but a citation misses the exact passage, or faithful but incomplete
(the judge gives the expected answer a partial score ≥ 0.5); 1 = correct with an
unsupported claim, or not shown correct but mostly supported; 0 = contradicted, or mostly
unsupported and not shown correct. With no expected answer, an answer the judge says does not
address the question is at most 1 (faithful, but not an answer to what was asked). An
abstention on an unanswerable item is the right answer: 3.
"""

from __future__ import annotations

from collections.abc import Mapping

from ragcard.metrics.abstention import abstention_of, judged_of
from ragcard.metrics.base import (
    NEEDS_JUDGE,
    AttemptContext,
    LayerScore,
    MetricSpec,
    ScoringSettings,
)
from ragcard.metrics.judged import JudgedAnswer

__all__ = ["RubricLayer", "hard_zero_reasons", "rubric_level"]


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
    level = _level(judged, faithfulness)
    if judged.correctness is None and judged.relevance is not None:
        if not judged.relevance.supported:
            return min(level, 1)
    return level


def _level(judged: JudgedAnswer, faithfulness: float | None) -> int:
    faithful = faithfulness == 1.0
    cited_right = all(v.supported for _, _, v in judged.citations)
    correct = judged.correctness
    if correct is not None and correct.label == "contradicted":
        return 0
    if correct is None or correct.supported:
        if faithful:
            return 3 if cited_right else 2
        if correct is not None:
            return 1
    elif faithful and correct.score >= 0.5:
        return 2  # supported but incomplete: the expected answer is only partly there
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
            supported = [v.supported for v in judged.support] or [False] * len(judged.sentences)
            result.values["faithfulness"] = sum(supported) / len(supported)
            unsupported = [i for i, ok in enumerate(supported) if not ok]
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
                    reasons.append("wrong or mostly unsupported (judge)")
        if reasons:
            result.evidence["rubric_zero"] = reasons
        if level is not None and judged is not None:
            result.values["rubric_mean"] = float(level)
            result.evidence["rubric_level"] = level
        if ctx.question.must_pass:
            result.values["must_pass_zeros"] = 1.0 if reasons else 0.0
        return result


def _abstained(ctx: AttemptContext) -> bool:
    return ctx.response is not None and abstention_of(ctx.response, ctx.settings, judged_of(ctx))[0]
