"""Answer correctness measured against people: a judge's correct / partial / wrong verdicts
beside a reader's, on answers to real questions.

Your own labels: one JSON object per line (JSON Lines, UTF-8)::

    {"question": "How far ahead must I book two weeks off?",
     "expected_answer": "At least four weeks' notice, booked in Harbour.",
     "answer": "Book it in Harbour with at least two weeks' notice.",
     "label": "wrong", "main_point": null,
     "passages": [{"id": "annual-leave@2025#2.1", "text": "…"}],
     "id": "HB-0003", "group": "handbook", "split": "dev"}

* ``question``, ``expected_answer`` (alias ``reference``), ``answer`` (required).
* ``label`` (required) — ``correct`` | ``partial`` | ``wrong`` (docs/metrics.md defines them).
* ``main_point`` — for a ``partial``: does the answer give the main point, with only a
  secondary detail missing (rubric level 2, not 1)?
* ``passages`` — the gold passages the reader had, ``[{"id", "text"}]``.
* ``group``, ``id``, ``split`` — as for support labels (``heldout`` is the test part; a hash
  of the id decides when ``split`` is absent).

Built in: ``demo-correctness`` — the bundled examples' reference-agent answers (handbook and
persona), each read by one careful reader against its expected answer and gold passages
(``judges/metaeval/data/README.md`` says who and how). Its ``split`` is the question set's.

Reported per part (dev, test) and per group: exact agreement on the grade with a Wilson
interval, Cohen's κ over the three grades, the confusion matrix, agreement on pass/fail (the
reader's correct or partial-with-the-main-point against the judge's level cap of 2 or more),
and the wrong answers the judge would pass, by id — the error that matters most.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from ragcard.aggregation.stats import wilson_interval
from ragcard.errors import InputError
from ragcard.goldset.agreement import cohen_kappa
from ragcard.inputs._jsonl import iter_json_lines, load_records
from ragcard.judges.base import GRADES, MAIN_POINT, Evidence, Judge, JudgeContext, JudgeError
from ragcard.judges.metaeval.examples import SPLIT_SEED, Part
from ragcard.judges.metaeval.userlabels import PassageRecord, line_part, repeated_id

__all__ = [
    "BUILTIN_CORRECTNESS",
    "CorrectnessEvaluation",
    "CorrectnessExample",
    "CorrectnessReport",
    "correctness_line",
    "correctness_record",
    "evaluate_correctness",
    "format_correctness",
    "is_correctness_labels",
    "load_correctness",
    "shipped_correctness",
]

#: The labels shipped with ragcard (name → file in ``judges/metaeval/data``).
BUILTIN_CORRECTNESS = {"demo-correctness": "demo-correctness.jsonl"}


class CorrectnessRecord(BaseModel):
    """One line of a correctness labels file (module docstring)."""

    model_config = ConfigDict(extra="allow")
    question: str = Field(min_length=1)
    expected_answer: str = Field(
        min_length=1, validation_alias=AliasChoices("expected_answer", "reference")
    )
    answer: str
    label: Literal["correct", "partial", "wrong"]
    main_point: bool | None = None
    passages: list[PassageRecord] = Field(default_factory=list)
    group: str | None = None
    id: str | None = None
    split: Literal["dev", "test", "heldout"] | None = None

    def stable_id(self) -> str:
        if self.id:
            return self.id
        text = "\x1f".join([self.question, self.expected_answer, self.answer])
        return "h" + hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class CorrectnessExample:
    """A reader's grade of one answer."""

    id: str
    question: str
    expected: str
    answer: str
    passages: tuple[Evidence, ...]
    label: str
    passes: bool  # correct, or partial with the main point
    part: Part
    group: str | None = None


def is_correctness_labels(path: Path) -> bool:
    """Whether a labels file holds correctness labels (its first object has ``answer`` and an
    ``expected_answer`` or ``reference``)."""
    try:
        for _number, data, _error in iter_json_lines(path):
            return (
                isinstance(data, dict)
                and "answer" in data
                and ("expected_answer" in data or "reference" in data)
            )
    except InputError:
        return False
    return False


def load_correctness(name: str, seed: int = SPLIT_SEED) -> tuple[str, list[CorrectnessExample]]:
    """(title, examples) of a built-in set (:data:`BUILTIN_CORRECTNESS`) or a labels file."""
    if name in BUILTIN_CORRECTNESS:
        source = resources.files("ragcard.judges.metaeval").joinpath(
            "data", BUILTIN_CORRECTNESS[name]
        )
        with resources.as_file(source) as path:
            return name, _read(path, seed)
    return Path(name).name, _read(Path(name), seed)


def _read(path: Path, seed: int) -> list[CorrectnessExample]:
    records, problems = load_records(path, CorrectnessRecord, "labelled answer")
    seen: dict[str, int] = {}
    examples = []
    for line, record in records:
        example_id = record.stable_id()
        problems += repeated_id(seen, path, line, example_id)
        main = record.label == "partial" and bool(record.main_point)
        examples.append(
            CorrectnessExample(
                example_id,
                record.question,
                record.expected_answer,
                record.answer,
                tuple(Evidence(p.id, p.text) for p in record.passages),
                record.label,
                record.label == "correct" or main,
                line_part(record.split, example_id, seed),
                record.group,
            )
        )
    if problems:
        raise InputError(problems, f"{path}: {len(problems)} problem(s) in the labels")
    return examples


@dataclass(frozen=True, slots=True)
class CorrectnessReport:
    """Agreement on one part (or group) of the labels."""

    name: str
    n: int
    agree: int
    kappa: float | None
    confusion: dict[str, dict[str, int]]  # reader's grade → judge's grade → count
    pass_agree: int
    wrong_passing: tuple[str, ...]
    failures: tuple[str, ...] = ()

    def accuracy(self) -> tuple[float, tuple[float, float]] | None:
        if not self.n:
            return None
        return self.agree / self.n, wilson_interval(self.agree, self.n)

    def pass_accuracy(self) -> tuple[float, tuple[float, float]] | None:
        if not self.n:
            return None
        return self.pass_agree / self.n, wilson_interval(self.pass_agree, self.n)


@dataclass(frozen=True, slots=True)
class CorrectnessEvaluation:
    judge: str
    dataset: str
    reports: tuple[CorrectnessReport, ...]
    #: (id, the reader's grade, the judge's grade) wherever they differ
    disagreements: tuple[tuple[str, str, str], ...] = field(default=())


async def _grade(judge: Judge, example: CorrectnessExample) -> tuple[str, bool] | str:
    """(grade, passes) from the judge, or why it gave none."""
    ctx = JudgeContext(
        (example.answer,), example.passages, example.question, "correctness", example.expected
    )
    try:
        (verdict,) = await judge.judge(ctx)
    except (JudgeError, ValueError) as error:
        return f"judge failed: {error}"
    if verdict.grade is None:
        return "no grade"
    passes = verdict.grade == "correct" or (
        verdict.grade == "partial" and verdict.score >= MAIN_POINT
    )
    return verdict.grade, passes


def _report(
    name: str, examples: Sequence[CorrectnessExample], graded: dict[str, tuple[str, bool] | str]
) -> CorrectnessReport:
    scored = [(e, r) for e in examples if isinstance(r := graded[e.id], tuple)]
    confusion: dict[str, dict[str, int]] = {h: {j: 0 for j in GRADES} for h in GRADES}
    for example, (grade, _) in scored:
        confusion[example.label][grade] += 1
    humans, judged = [e.label for e, _ in scored], [g for _, (g, _) in scored]
    return CorrectnessReport(
        name,
        len(scored),
        sum(1 for h, j in zip(humans, judged, strict=True) if h == j),
        cohen_kappa(humans, judged),
        confusion,
        sum(1 for e, (_, passes) in scored if passes == e.passes),
        tuple(e.id for e, (_, passes) in scored if e.label == "wrong" and passes),
        tuple(e.id for e in examples if isinstance(graded[e.id], str)),
    )


def evaluate_correctness(
    judge: Judge, dataset: str, examples: Sequence[CorrectnessExample]
) -> CorrectnessEvaluation:
    """The judge's grades against the reader's, per part and group (nothing is tuned here:
    the judge decides with its own rule)."""

    async def grade_all() -> list[tuple[str, bool] | str]:
        return await asyncio.gather(*(_grade(judge, e) for e in examples))

    graded = dict(zip((e.id for e in examples), asyncio.run(grade_all()), strict=True))
    reports = [
        _report(part, [e for e in examples if e.part == part], graded) for part in ("dev", "test")
    ]
    groups = sorted({e.group for e in examples if e.group})
    reports += [
        _report(f"group {g}", [e for e in examples if e.group == g], graded) for g in groups
    ]
    reports.append(_report("all", examples, graded))
    disagreements = tuple(
        (e.id, e.label, result[0])
        for e in examples
        if isinstance(result := graded[e.id], tuple) and result[0] != e.label
    )
    return CorrectnessEvaluation(
        judge.identity.name, dataset, tuple(r for r in reports if r.n or r.failures), disagreements
    )


def _kappa_words(kappa: float | None) -> str:
    """Landis & Koch's reading of κ."""
    if kappa is None:
        return "undefined"
    for bound, words in ((0.0, "poor"), (0.2, "slight"), (0.4, "fair"), (0.6, "moderate"),
                         (0.8, "substantial")):  # fmt: skip
        if kappa <= bound:
            return words
    return "almost perfect"


def format_correctness(evaluation: CorrectnessEvaluation) -> str:
    """The evaluation as text for the terminal."""
    lines = [f"judge {evaluation.judge} · correctness against {evaluation.dataset}", ""]
    header = (
        f"{'part':<16} {'n':>4}  {'grade agreement':<22} {'κ':>6}  "
        f"{'pass/fail agreement':<22} wrong passed"
    )
    lines += [header, "-" * len(header)]
    for report in evaluation.reports:
        accuracy, passing = report.accuracy(), report.pass_accuracy()
        if accuracy is None or passing is None:
            lines.append(f"{report.name:<16} {0:>4}  (no verdicts; {len(report.failures)} failed)")
            continue
        kappa = "–" if report.kappa is None else f"{report.kappa:.2f}"
        grade = f"{accuracy[0]:.3f} [{accuracy[1][0]:.2f}, {accuracy[1][1]:.2f}]"
        passed = f"{passing[0]:.3f} [{passing[1][0]:.2f}, {passing[1][1]:.2f}]"
        wrong = ", ".join(report.wrong_passing) or "none"
        lines.append(
            f"{report.name:<16} {report.n:>4}  {grade:<22} {kappa:>6}  {passed:<22} {wrong}"
        )
    overall = evaluation.reports[-1]
    if overall.kappa is not None:
        lines += ["", f"κ {overall.kappa:.2f} over all labels: {_kappa_words(overall.kappa)} "
                  "agreement (Landis & Koch)"]  # fmt: skip
    lines += ["", "confusion (rows: reader, columns: judge), all labels:"]
    lines.append(f"{'':<9}" + "".join(f"{g:>9}" for g in GRADES))
    for human in GRADES:
        lines.append(f"{human:<9}" + "".join(f"{overall.confusion[human][j]:>9}" for j in GRADES))
    if evaluation.disagreements:
        pairs = sorted(Counter((h, j) for _, h, j in evaluation.disagreements))
        lines += ["", "disagreements:"]
        for h, j in pairs:
            ids = [i for i, hh, jj in evaluation.disagreements if (hh, jj) == (h, j)]
            lines.append(f"  reader {h}, judge {j}: {', '.join(ids)}")
    failures = [f for report in evaluation.reports[-1:] for f in report.failures]
    if failures:
        lines += ["", f"no verdict on {len(failures)} answer(s): {', '.join(failures[:10])}"]
    return "\n".join(lines) + "\n"


def correctness_record(evaluation: CorrectnessEvaluation, task: str | None) -> dict[str, Any]:
    """What ``judges evaluate --save`` keeps of a correctness evaluation, and what the
    scorecard shows for a judge configured as measured (its name and correctness task)."""
    overall = evaluation.reports[-1]
    accuracy, passing = overall.accuracy(), overall.pass_accuracy()
    parts = {
        r.name: {"n": r.n, "grade_agreement": round(r.agree / r.n, 4) if r.n else None,
                 "pass_agreement": round(r.pass_agree / r.n, 4) if r.n else None,
                 "kappa": None if r.kappa is None else round(r.kappa, 4),
                 "wrong_passing": list(r.wrong_passing)}
        for r in evaluation.reports
    }  # fmt: skip
    return {
        "schema": "ragcard.correctness-calibration/1",
        "date": dt.date.today().isoformat(),
        "judge": evaluation.judge,
        "task": task,
        "dataset": evaluation.dataset,
        "n": overall.n,
        "grade_agreement": round(accuracy[0], 4) if accuracy else None,
        "pass_agreement": round(passing[0], 4) if passing else None,
        "kappa": None if overall.kappa is None else round(overall.kappa, 4),
        "wrong_passing": list(overall.wrong_passing),
        "parts": parts,
    }


def correctness_line(record: Mapping[str, Any]) -> str:
    """The record in one line for the judge line of a scorecard."""
    kappa = record.get("kappa")
    said = "" if kappa is None else f", κ {kappa:.2f} ({_kappa_words(kappa)})"
    wrong = len(record.get("wrong_passing") or [])
    return (
        f"correctness vs {record['n']} labels ({record['dataset']}): grade agreement "
        f"{record['grade_agreement']:.2f}{said}, pass/fail {record['pass_agreement']:.2f}, "
        f"{wrong} wrong answer(s) passed"
    )


def shipped_correctness(name: str, task: str | None) -> dict[str, Any] | None:
    """The correctness calibration ragcard's developers measured for a built-in judge whose
    correctness task is ``task`` (``judges/calibrations/correctness-<name>.json``), else None."""
    if task is None:
        return None
    entry = resources.files("ragcard.judges").joinpath("calibrations", f"correctness-{name}.json")
    if not entry.is_file():
        return None
    record: dict[str, Any] = json.loads(entry.read_text(encoding="utf-8"))
    return record if record.get("judge") == name and record.get("task") == task else None
