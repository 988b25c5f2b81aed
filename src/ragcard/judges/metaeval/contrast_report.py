"""Run a judge over the contrast benchmark's variants and print, per kind, the share it gets
right: caught (called unsupported) for a contrast, supported for a faithful rewrite, with Wilson
95% intervals (docs/metrics.md, "The contrast benchmark").

Each variant is judged alone, as one claim against its source's passage, with the judge's own
verdict (nothing is tuned here: the contrast set has no threshold to learn). A variant the judge
fails on is counted as a failure and left out of its kind's share.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from ragcard.aggregation.stats import wilson_interval
from ragcard.errors import one_line
from ragcard.judges.base import Evidence, Judge, JudgeContext, JudgeError, JudgeIdentity
from ragcard.judges.metaeval.contrast import CONTRAST_KINDS, KINDS
from ragcard.judges.metaeval.contrast_data import ContrastItem, ContrastSet
from ragcard.judges.metaeval.examples import Part

__all__ = ["ContrastEvaluation", "JudgedItem", "KindRow", "evaluate_contrast", "format_contrast"]

LICENCES = (
    "CLAPNQ: Apache-2.0 (primeqa/clapnq; Wikipedia text CC BY-SA) · WiCE: ODC-BY 1.0 "
    "annotations, Wikipedia claims CC BY-SA, Common Crawl evidence · BEGIN: CC BY 4.0 "
    "(google/BEGIN-dataset; Wizard of Wikipedia, Dinan et al.) · handbook, persona: ragcard's own"
)


@dataclass(frozen=True, slots=True)
class JudgedItem:
    item: ContrastItem
    supported: bool | None
    score: float | None
    reason: str | None

    @property
    def right(self) -> bool | None:
        return None if self.supported is None else self.supported == self.item.variant.supported


@dataclass(frozen=True, slots=True)
class KindRow:
    """One kind (or one kind within one corpus): how many the judge got right."""

    kind: str
    corpus: str
    n: int
    right: int
    failures: int
    #: The same over the variants whose unchanged sentence the judge supports (a contrast
    #: caught only because the judge refuses the original too is no contrast caught).
    paired_n: int = 0
    paired_right: int = 0

    @property
    def share(self) -> float | None:
        return self.right / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.right, self.n) if self.n else None


@dataclass(frozen=True, slots=True)
class ContrastEvaluation:
    judge: JudgeIdentity
    part: Part
    judged: tuple[JudgedItem, ...]
    contrast: ContrastSet

    def rows(self, corpus: str = "all") -> list[KindRow]:
        supported = {
            j.item.source.id
            for j in self.judged
            if j.item.variant.kind == "original" and j.supported
        }
        rows = []
        for kind in KINDS:
            mine = [
                j for j in self.judged
                if j.item.variant.kind == kind and corpus in ("all", j.item.source.corpus)
            ]  # fmt: skip
            scored = [j for j in mine if j.right is not None]
            paired = [j for j in scored if j.item.source.id in supported]
            right = sum(bool(j.right) for j in scored)
            rows.append(
                KindRow(
                    kind,
                    corpus,
                    len(scored),
                    right,
                    len(mine) - len(scored),
                    len(paired),
                    sum(bool(j.right) for j in paired),
                )  # fmt: skip
            )
        return rows


async def _judge_one(judge: Judge, item: ContrastItem) -> JudgedItem:
    source = item.source
    ctx = JudgeContext((item.variant.text,), (Evidence(source.passage_key, source.passage),))
    try:
        (verdict,) = await judge.judge(ctx)
    except JudgeError as error:
        return JudgedItem(item, None, None, one_line(str(error)))
    except ValueError:
        return JudgedItem(item, None, None, "not one verdict for the claim")
    return JudgedItem(item, verdict.supported, verdict.score, verdict.reason)


async def _judge_all(
    judge: Judge, items: Sequence[ContrastItem], concurrency: int
) -> list[JudgedItem]:
    gate = asyncio.Semaphore(max(1, concurrency))

    async def bounded(item: ContrastItem) -> JudgedItem:
        async with gate:
            return await _judge_one(judge, item)

    return list(await asyncio.gather(*(bounded(item) for item in items)))


def evaluate_contrast(
    judge: Judge, contrast: ContrastSet, part: Part = "test", concurrency: int = 8
) -> ContrastEvaluation:
    """Judge every variant of ``part`` (one claim against its passage each)."""
    judged = asyncio.run(_judge_all(judge, contrast.part(part), concurrency))
    return ContrastEvaluation(judge.identity, part, tuple(judged), contrast)


def _row_line(row: KindRow) -> str:
    wanted = "caught" if row.kind in CONTRAST_KINDS else "supported"
    if not row.n:
        return f"  {row.kind:<17} {wanted:<10} {'n/a':>6}  {'':<16}  n={row.n:<5}"
    low, high = row.interval or (0.0, 0.0)
    failed = f"  judge failures {row.failures}" if row.failures else ""
    paired = ""
    if row.kind != "original" and row.paired_n:
        paired = f"  original supported: {row.paired_right / row.paired_n:.1%} of {row.paired_n}"
    return (
        f"  {row.kind:<17} {wanted:<10} {row.share:>6.1%}  [{low:.1%}, {high:.1%}]".ljust(48)
        + f"  n={row.n:<5}{paired}{failed}"
    )


def _miss_lines(evaluation: ContrastEvaluation, kind: str, count: int) -> list[str]:
    misses = [j for j in evaluation.judged if j.item.variant.kind == kind and j.right is False]
    lines = []
    for judged in sorted(misses, key=lambda j: j.item.id)[:count]:
        item = judged.item
        verdict = "supported" if judged.supported else "unsupported"
        lines += [
            f"    {item.id}  [{item.variant.change}]  judged {verdict} "
            f"(score {judged.score:.3f}): {judged.reason or '-'}",
            f"      sentence: {item.source.sentence}",
        ]
        if item.variant.kind != "original":
            lines.append(f"      variant:  {item.variant.text}")
    return lines


def format_contrast(evaluation: ContrastEvaluation, misses: int = 0) -> str:
    """The table: per kind, the share right with its interval and n; then per corpus; then
    up to ``misses`` misses of each kind."""
    identity = evaluation.judge
    contrast = evaluation.contrast
    corpora = sorted({j.item.source.corpus for j in evaluation.judged})
    lines = [
        f"judge: {identity.name} (model {identity.model or '-'}) · the judge's own verdicts",
        f"contrast benchmark [contrast], {evaluation.part} part",
        f"  split: {contrast.split_rule}",
        "  contrast kinds: share caught (judged unsupported); faithful kinds: share supported; "
        "95% Wilson intervals; then the same over the variants whose unchanged sentence the "
        "judge supports",
        *(_row_line(row) for row in evaluation.rows()),
        "  by corpus (share right, n):",
    ]
    for corpus in corpora:
        cells = [
            f"{row.kind} {row.share:.0%} ({row.n})"
            for row in evaluation.rows(corpus) if row.n
        ]  # fmt: skip
        lines.append(f"    {corpus:<9} " + " · ".join(cells))
    if misses > 0:
        for kind in KINDS:
            found = _miss_lines(evaluation, kind, misses)
            if found:
                lines += [f"  misses, {kind} (first {misses} by id):", *found]
    lines += [f"  note: {note}" for note in contrast.notes]
    lines += [f"  note: {message}" for message in contrast.skipped]
    lines.append(f"  data licences: {LICENCES}")
    return "\n".join(lines) + "\n"
