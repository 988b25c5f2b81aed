"""The data of a run report a team reads (``ragcard report RUN``): the scorecard, and what only
the result lines hold — pass rates by category, the latency distribution, the recall@k curve,
the failing items with their answers, passages and diagnosis — plus the comparison with a
baseline run, the blind review and red-teaming when present.

Rendering is elsewhere (:mod:`.html`, :mod:`.persona`). Restricted text is redacted here, once,
so no renderer can show it: a passage whose ``access`` names roles is shown by id and roles
only, and an answer that leaked restricted content is withheld.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcard.aggregation.stats import wilson_interval
from ragcard.decision.baseline import Comparison, compare_runs
from ragcard.errors import ConfigError, InputError
from ragcard.inputs.questions import Question
from ragcard.metrics.base import MetricValue, Unscored
from ragcard.metrics.restricted import reproduced
from ragcard.report.loaded import load_scorecard
from ragcard.report.scorecard import Scorecard
from ragcard.review._run import RunData, load_run

__all__ = [
    "CategoryRow",
    "FailureView",
    "MeasureView",
    "PassageView",
    "RunReport",
    "build_run_report",
]

#: Most failing items a report lists (the rest are counted, and in results.jsonl).
MAX_FAILURES = 500
WITHHELD = (
    "[answer withheld: it revealed restricted content — see results.jsonl, itself restricted]"
)
#: An answer or expected answer that quotes a passage the report redacts (the asker could read
#: it; the report's readers may not).
QUOTES_RESTRICTED = (
    "[{what} withheld: it quotes restricted passage(s) {ids} (roles: {roles}), whose text this "
    "report redacts — see results.jsonl and the question set, themselves restricted]"
)


@dataclass(frozen=True, slots=True)
class MeasureView:
    name: str
    layer: str
    kind: str
    higher_is_better: bool
    value: float | None
    low: float | None
    high: float | None
    n: int | None
    unscored: str | None
    description: str

    @property
    def unit_interval(self) -> bool:
        """A rate or a mean that lives in [0, 1] (drawn as a bar)."""
        return (
            self.value is not None
            and self.kind in ("rate", "mean", "pooled")
            and 0.0 <= self.value <= 1.0
            and (self.low is None or -1.0 <= self.low)
        )


@dataclass(frozen=True, slots=True)
class CategoryRow:
    category: str
    items: int
    failing: int
    pass_rate: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class PassageView:
    id: str
    doc: str | None
    tier: str | None
    text: str | None  # None when redacted or unknown
    note: str | None
    cited: bool
    rank: int | None


@dataclass(frozen=True, slots=True)
class FailureView:
    item: str
    category: str
    must_pass: bool
    split: str
    attempts: tuple[int, ...]
    layers: tuple[str, ...]
    causes: tuple[str, ...]
    symptoms: tuple[str, ...]
    question: str
    asker: str
    expected: str | None
    answer: str | None
    flag: str | None
    error: str | None
    passages: tuple[PassageView, ...]
    diagnoses: tuple[dict[str, str], ...]


@dataclass(frozen=True, slots=True)
class RunReport:
    card: Scorecard
    folder: Path
    measures: dict[str, list[MeasureView]]
    categories: list[CategoryRow]
    latency_ms: list[float]
    first_token_ms: list[float]
    recall_curve: list[tuple[int, float, int]]
    failures: list[FailureView]
    failures_total: int
    comparison: Comparison | None = None
    comparison_note: str | None = None
    review: dict[str, Any] | None = None
    redteam: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    questions: tuple[Question, ...] = ()


def _measure(name: str, card: Scorecard) -> MeasureView:
    spec = card.specs[name]
    result = card.metrics[name]
    value = low = high = None
    n = None
    if isinstance(result, MetricValue):
        value, n = result.value, result.n
        if result.ci is not None:
            low, high = result.ci
    return MeasureView(
        name, spec.layer, spec.kind, spec.higher_is_better, value, low, high, n,
        result.reason if isinstance(result, Unscored) else None, spec.description,
    )  # fmt: skip


def _measures(card: Scorecard) -> dict[str, list[MeasureView]]:
    layers: dict[str, list[MeasureView]] = {}
    for name in card.metrics:
        view = _measure(name, card)
        layers.setdefault(view.layer, []).append(view)
    return layers


def _by_item(run: RunData) -> dict[str, list[dict[str, Any]]]:
    items: dict[str, list[dict[str, Any]]] = {}
    for (item, _attempt), line in sorted(run.attempts.items()):
        items.setdefault(item, []).append(line)
    return items


def _categories(items: dict[str, list[dict[str, Any]]], run: RunData) -> list[CategoryRow]:
    total: Counter[str] = Counter()
    failing: Counter[str] = Counter()
    by_id = run.by_id
    for item, lines in items.items():
        question = by_id.get(item)
        category = (question.category if question else None) or "uncategorised"
        total[category] += 1
        failing[category] += not all(line.get("passed") for line in lines)
    rows = []
    for category, n in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])):
        passed = n - failing[category]
        low, high = wilson_interval(passed, n)
        rows.append(CategoryRow(category, n, failing[category], passed / n, low, high))
    return rows


def _recall_curve(items: dict[str, list[dict[str, Any]]]) -> list[tuple[int, float, int]]:
    """recall@k for k = 1…10 over the recall population (answerable items with gold): each
    item's attempts averaged first, as the scorecard's recall@k."""
    ranks: list[list[int | None]] = []
    for lines in items.values():
        found = [
            line["evidence"].get("first_gold_rank")
            for line in lines
            if "first_gold_rank" in (line.get("evidence") or {})
        ]
        if found:
            ranks.append(found)
    if not ranks:
        return []
    curve = []
    for k in range(1, 11):
        per_item = [sum(r is not None and r <= k for r in rs) / len(rs) for rs in ranks]
        curve.append((k, sum(per_item) / len(per_item), len(per_item)))
    return curve


def _passages(run: RunData, line: dict[str, Any]) -> tuple[PassageView, ...]:
    response = line.get("response") or {}
    retrieved = [r if isinstance(r, str) else r.get("id") for r in response.get("retrieved", [])]
    cited = {c if isinstance(c, str) else c.get("id") for c in response.get("citations", [])}
    cited |= set((line.get("evidence") or {}).get("cited", []))
    order = list(
        dict.fromkeys([*(str(r) for r in retrieved if r), *sorted(str(c) for c in cited if c)])
    )
    views = []
    for pid in order:
        passage = run.corpus.get(pid)
        rank = retrieved.index(pid) + 1 if pid in retrieved else None
        if passage is None:
            views.append(PassageView(pid, None, None, None, "no passage of the corpus has this id",
                                     pid in cited, rank))  # fmt: skip
        elif passage.restricted:
            note = f"restricted passage (roles: {', '.join(passage.access)}): text redacted"
            views.append(
                PassageView(pid, passage.doc, passage.tier, None, note, pid in cited, rank)
            )
        else:
            views.append(PassageView(pid, passage.doc, passage.tier, passage.text, None,
                                     pid in cited, rank))  # fmt: skip
    return tuple(views)


def _failure(run: RunData, item: str, lines: list[dict[str, Any]]) -> FailureView:
    failed = [line for line in lines if not line.get("passed")]
    shown = failed[0]
    question = run.by_id.get(item)
    diagnoses = [d for line in failed for d in (line.get("diagnosis") or [])]
    response = shown.get("response") or {}
    leaked = any((line.get("scores") or {}).get("access_leaks") for line in lines)
    answer = None if shown.get("response") is None else str(response.get("answer", ""))
    expected = question.expected_answer if question else None
    if answer is not None and not leaked:
        answer = _unless_restricted(run, answer, "answer")
    expected = _unless_restricted(run, expected, "expected answer")
    error = (shown.get("error") or {}).get("message")
    return FailureView(
        item=item,
        category=(question.category if question else None) or "uncategorised",
        must_pass=bool(question and question.must_pass),
        split=question.split if question else "dev",
        attempts=tuple(int(line["attempt"]) for line in failed),
        layers=tuple(dict.fromkeys(str(d.get("layer")) for d in diagnoses)),
        causes=tuple(dict.fromkeys(str(d.get("cause")) for d in diagnoses)),
        symptoms=tuple(dict.fromkeys(str(d.get("symptom")) for d in diagnoses)),
        question=question.question if question else "",
        asker=question.asker if question else "",
        expected=expected,
        answer=WITHHELD if leaked and answer is not None else answer,
        flag=response.get("flag"),
        error=str(error) if error else None,
        passages=_passages(run, shown),
        diagnoses=_distinct(diagnoses),
    )


def _unless_restricted(run: RunData, text: str | None, what: str) -> str | None:
    """``text``, or a note in its place when it quotes a passage this report redacts."""
    ids = reproduced(text, run.corpus)
    if not ids:
        return text
    roles = sorted({r for pid in ids if (p := run.corpus.get(pid)) for r in p.access})
    return QUOTES_RESTRICTED.format(what=what, ids=", ".join(ids), roles=", ".join(roles))


def _distinct(diagnoses: list[dict[str, Any]]) -> tuple[dict[str, str], ...]:
    """Each diagnosis once (the same one on several attempts), in order."""
    seen: dict[tuple[str, ...], dict[str, str]] = {}
    for d in diagnoses:
        row = {k: str(d.get(k, "")) for k in ("layer", "symptom", "cause", "fix")}
        seen.setdefault(tuple(row.values()), row)
    return tuple(seen.values())


def _failures(
    run: RunData, items: dict[str, list[dict[str, Any]]]
) -> tuple[list[FailureView], int]:
    failing = [item for item, lines in items.items() if not all(x.get("passed") for x in lines)]
    by_id = run.by_id

    def order(item: str) -> tuple[bool, str, str]:
        q = by_id.get(item)
        return (not (q and q.must_pass), (q.category if q else None) or "", item)

    failing.sort(key=order)
    return [_failure(run, i, items[i]) for i in failing[:MAX_FAILURES]], len(failing)


def _redteam(card: Scorecard) -> dict[str, Any] | None:
    block = card.header.get("redteam")
    measures = {
        name: m.to_json()
        for name, m in card.metrics.items()
        if name.startswith("redteam_") and isinstance(m, MetricValue)
    }
    if not block and not measures:
        return None
    return {"measures": measures, **(block if isinstance(block, dict) else {})}


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def build_run_report(
    folder: Path,
    *,
    baseline: Path | None = None,
    questions: Path | None = None,
    corpus: Path | None = None,
) -> RunReport:
    """Everything a report shows about the run in ``folder`` (compared with ``baseline``, a
    run folder, when given)."""
    run = load_run(folder, questions=questions, corpus=corpus)
    card = load_scorecard(folder / "scorecard.json")
    items = _by_item(run)
    failures, total = _failures(run, items)
    answered = [line for line in run.attempts.values() if line.get("error") is None]
    latency = [float(x["latency_ms"]) for x in answered if _number(x.get("latency_ms"))]
    first = [float(x["first_token_ms"]) for x in answered if _number(x.get("first_token_ms"))]
    comparison, note = None, None
    if baseline is not None:
        try:
            comparison = compare_runs(baseline, folder)
        except (ConfigError, InputError) as error:
            note = f"not compared with {baseline}: {error}"
    else:
        note = "no baseline run given (ragcard report RUN --baseline shipped|RUN)"
    notes = []
    if total > len(failures):
        notes.append(f"{total - len(failures)} more failing items are in results.jsonl")
    review = card.header.get("review")
    return RunReport(
        card=card, folder=folder, measures=_measures(card), categories=_categories(items, run),
        latency_ms=latency, first_token_ms=first, recall_curve=_recall_curve(items),
        failures=failures, failures_total=total, comparison=comparison, comparison_note=note,
        review=review if isinstance(review, dict) else None, redteam=_redteam(card), notes=notes,
        questions=run.questions.questions,
    )  # fmt: skip
