"""The 0–3 rubric (SPEC §2.1): hard zeros from the deterministic layers, levels from a judge.

The hard-zero rules are applied first and need no judge: a leak, a superseded answer, an
answer where the item calls for abstention, or (ragcard's reading of "wrong") an abstention on
a question the sources answer, a missing required flag, or no answer at all because the agent
failed. ``must_pass_zeros`` counts must-pass items with a zero in any attempt. The graded
levels 1–3 and ``rubric_mean`` need a judge; without one they are unscored.

Faithfulness (the grounding layer) is declared here too, since it is judge-only for now.
"""

from __future__ import annotations

from collections.abc import Mapping

from ragcard.metrics.base import AttemptContext, LayerScore, MetricSpec, ScoringSettings
from ragcard.metrics.citation import NEEDS_JUDGE

__all__ = ["RubricLayer", "hard_zero_reasons"]


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


class RubricLayer:
    """Declares the rubric and grounding measures; scores run after the other layers."""

    name = "rubric"

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]:
        return (
            MetricSpec(
                "must_pass_zeros",
                self.name,
                "count",
                False,
                "must-pass items with a rubric 0 (hard-zero rule) in any attempt",
                "no must-pass item",
            ),
            MetricSpec(
                "rubric_mean", self.name, "mean", True, "mean 0–3 rubric level", NEEDS_JUDGE
            ),
            MetricSpec(
                "faithfulness",
                "grounding",
                "mean",
                True,
                "share of answer claims the retrieved passages support",
                NEEDS_JUDGE,
            ),
        )

    def score(self, ctx: AttemptContext) -> LayerScore:
        result = LayerScore()
        if ctx.response is not None and not ctx.settings.retrieval_only:
            result.unscored["rubric_mean"] = NEEDS_JUDGE
            result.unscored["faithfulness"] = NEEDS_JUDGE
        return result

    def finish(self, ctx: AttemptContext, values: dict[str, float]) -> LayerScore:
        """Apply the hard-zero rules once every other layer has scored the attempt."""
        result = LayerScore()
        reasons = hard_zero_reasons(ctx, values)
        if reasons:
            result.evidence["rubric_zero"] = reasons
        if ctx.question.must_pass:
            result.values["must_pass_zeros"] = 1.0 if reasons else 0.0
        return result
