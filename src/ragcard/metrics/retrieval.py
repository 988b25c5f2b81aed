"""Retrieval layer: did the right passage come back, near the top? (docs/metrics.md#measures,
docs/formats.md#resultsjsonl)

``recall@k`` is trec_eval's ``success_k`` (hit rate), ``mrr@10`` its ``recip_rank`` cut at 10
and ``ndcg@k`` its ``ndcg_cut_k``, computed by :mod:`ragcard.metrics.ranking`, whose one-query
functions give the same floats as the batches ``ragcard trec`` computes.
"""

from __future__ import annotations

from ragcard.metrics.base import AttemptContext, LayerScore, MetricSpec, ScoringSettings
from ragcard.metrics.ranking import ndcg_at, reciprocal_rank, success_at

__all__ = ["RetrievalLayer"]

_GOLD_POPULATION = "no answerable item with a gold passage"


class RetrievalLayer:
    name = "retrieval"

    def metrics(self, settings: ScoringSettings) -> tuple[MetricSpec, ...]:
        k = settings.k
        return (
            MetricSpec(
                f"recall@{k}",
                self.name,
                "rate",
                True,
                f"answerable items with a gold passage in the first {k} retrieved",
                _GOLD_POPULATION,
            ),
            MetricSpec(
                "mrr@10",
                self.name,
                "mean",
                True,
                "mean 1/rank of the first gold passage (0 beyond rank 10)",
                _GOLD_POPULATION,
                share=True,
            ),
            MetricSpec(
                f"ndcg@{k}",
                self.name,
                "mean",
                True,
                f"graded nDCG of the first {k} retrieved (trec_eval ndcg_cut)",
                _GOLD_POPULATION,
                share=True,
            ),
            MetricSpec(
                "id_recall",
                self.name,
                "mean",
                True,
                "|gold ∩ retrieved| / |gold| per item (1 when no gold)",
                "no scored item",
                share=True,
            ),
            MetricSpec(
                "id_precision",
                self.name,
                "mean",
                True,
                "|gold ∩ retrieved| / |retrieved| per item",
                "no scored item",
                share=True,
            ),
        )

    def score(self, ctx: AttemptContext) -> LayerScore:
        result = LayerScore()
        if ctx.response is None:
            return result
        ranked = ctx.response.retrieved_ids  # repeats already dropped
        question = ctx.question
        gold = question.gold_ids
        gold_set = set(gold)
        hits = [pid for pid in ranked if pid in gold_set]
        k = ctx.settings.k
        values, evidence = result.values, result.evidence
        values["id_recall"] = len(set(hits)) / len(gold_set) if gold_set else 1.0
        if ranked:
            values["id_precision"] = len(hits) / len(ranked)
        else:
            values["id_precision"] = 0.0 if gold_set else 1.0
        top = ranked[:k]
        if question.is_answerable and gold:
            values[f"recall@{k}"] = success_at(ranked, gold_set, k)
            values["mrr@10"] = reciprocal_rank(ranked, gold_set, 10)
            gains = {pid: float(grade) for pid, grade in question.gold_grades.items()}
            values[f"ndcg@{k}"] = ndcg_at(ranked, gains, k)
            first = next((rank for rank, pid in enumerate(ranked, 1) if pid in gold_set), None)
            evidence["first_gold_rank"] = first
            evidence["gold_doc_in_top_k"] = _gold_document_retrieved(ctx, gold, top)
        evidence["top_k"] = top
        evidence["retrieved_count"] = len(ranked)
        return result


def _gold_document_retrieved(ctx: AttemptContext, gold: list[str], top: list[str]) -> bool:
    """True when a passage of a gold passage's document is in the top k (chunking symptom)."""
    passages = ctx.corpus.passages
    gold_docs = {passages[pid].doc for pid in gold if pid in passages}
    for pid in top:
        passage = passages.get(pid)
        if passage is not None and passage.doc in gold_docs:
            return True
    return False
