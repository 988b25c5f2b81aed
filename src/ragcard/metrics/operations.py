"""Latency and reliability: p50/p95 time to first token and to the full answer; agent errors.

Latency is the agent's own report when it gives one, otherwise what the adapter measured.
Failed attempts are excluded from every other metric and counted here instead.
"""

from __future__ import annotations

from ragcard.metrics.base import AttemptContext, LayerScore, MetricSpec, ScoringSettings

__all__ = ["OperationsLayer"]


class OperationsLayer:
    name = "operations"

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]:
        no_first = "the agent reported no first-token time and the adapter did not stream"
        return (
            MetricSpec(
                "latency_p50_ms",
                "latency",
                "quantile",
                False,
                "median time to the full answer (ms)",
                "no latency measured",
                0.5,
            ),
            MetricSpec(
                "latency_p95_ms",
                "latency",
                "quantile",
                False,
                "95th percentile time to the full answer (ms)",
                "no latency measured",
                0.95,
            ),
            MetricSpec(
                "first_token_p50_ms",
                "latency",
                "quantile",
                False,
                "median time to first token (ms)",
                no_first,
                0.5,
            ),
            MetricSpec(
                "first_token_p95_ms",
                "latency",
                "quantile",
                False,
                "95th percentile time to first token (ms)",
                no_first,
                0.95,
            ),
            MetricSpec(
                "agent_error_rate",
                "operations",
                "rate",
                False,
                "item-attempts on which the agent failed (timeout, error, bad output)",
                "no attempt",
            ),
        )

    def score(self, ctx: AttemptContext) -> LayerScore:
        result = LayerScore()
        result.values["agent_error_rate"] = 1.0 if ctx.failure is not None else 0.0
        if ctx.failure is not None:
            result.evidence["error"] = {"kind": ctx.failure.kind, "message": ctx.failure.message}
            return result
        if ctx.latency_ms is not None:
            result.values["latency_p50_ms"] = result.values["latency_p95_ms"] = ctx.latency_ms
        if ctx.first_token_ms is not None:
            result.values["first_token_p50_ms"] = ctx.first_token_ms
            result.values["first_token_p95_ms"] = ctx.first_token_ms
        return result
