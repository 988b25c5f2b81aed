"""The regression gate: compare a run with a baseline run (usually the last shipped one).

Only runs of the same question set compare; a different corpus or ``k`` is noted. Items pair by id
and pass when every attempt passed. The share passing is tested with an exact McNemar test; rates
and means with a seeded paired bootstrap over items (attempts averaged first, as in
:mod:`ragcard.aggregation.scoring`); counts compare as numbers of items. A measure regresses when it
worsens beyond its tolerance (absolute units) and significantly (counts: any increase beyond
tolerance). The gate fails when a measure or a must-pass item regresses.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic_core import from_json

from ragcard.aggregation.stats import mcnemar_exact, paired_bootstrap
from ragcard.errors import ConfigError, InputError, Problem
from ragcard.outputs._runfolder import check_complete
from ragcard.outputs.results import read_results

__all__ = ["PASS_RATE", "Comparison", "Flip", "MeasureComparison", "RunInfo", "compare_runs"]

#: The pseudo-measure for the share of items passing in every attempt; McNemar-tested.
PASS_RATE = "pass_rate"
_PASS_SPEC = {"layer": "items", "kind": "rate", "higher_is_better": True}
Verdict = Literal["regressed", "worse", "unchanged", "improved"]
_EPS = 1e-12  # float noise in means of identical values is not a change


@dataclass(frozen=True, slots=True)
class RunInfo:
    """Where a run is and what it ran on (from its ``scorecard.json``)."""

    path: str
    questions_version: str
    questions_sha256: str
    corpus_version: str
    corpus_sha256: str
    k: int | None
    attempts: int | None
    decision: str
    created_at: str


@dataclass(frozen=True, slots=True)
class Flip:
    """An item whose verdict changed; ``regressed`` means pass→fail. ``symptoms``: the current
    run's diagnosis of a regression, the baseline's of a fix."""

    item: str
    category: str | None
    must_pass: bool
    regressed: bool
    symptoms: tuple[str, ...]

    @property
    def change(self) -> str:
        return "pass→fail" if self.regressed else "fail→pass"


@dataclass(frozen=True, slots=True)
class MeasureComparison:
    """One measure in both runs, over the ``n`` items in both populations. For counts,
    ``baseline``/``current`` are numbers of items and ``items`` those newly counted."""

    name: str
    layer: str
    kind: str
    higher_is_better: bool
    baseline: float
    current: float
    n: int
    tolerance: float
    verdict: Verdict
    reason: str
    ci: tuple[float, float] | None = None
    p_value: float | None = None
    items: tuple[str, ...] = ()

    @property
    def delta(self) -> float:
        return self.current - self.baseline

    def show(self, value: float) -> str:
        """A value of this measure for display: counts whole, rates and means to 3 places."""
        return f"{value:g}" if self.kind == "count" else f"{value:.3f}"


@dataclass(frozen=True, slots=True)
class Comparison:
    """What :func:`compare_runs` found. ``gate`` is ``"fail"`` when a must-pass item or a
    measure regressed, ``reasons`` say which; ``flips`` list regressions first."""

    baseline: RunInfo
    current: RunInfo
    gate: Literal["pass", "fail"]
    reasons: tuple[str, ...]
    measures: tuple[MeasureComparison, ...]
    flips: tuple[Flip, ...]
    items_compared: int
    only_in_baseline: tuple[str, ...]
    only_in_current: tuple[str, ...]
    notes: tuple[str, ...]
    alpha: float

    @property
    def regressions(self) -> tuple[Flip, ...]:
        return tuple(f for f in self.flips if f.regressed)

    @property
    def must_pass_regressions(self) -> tuple[Flip, ...]:
        return tuple(f for f in self.flips if f.regressed and f.must_pass)

    def to_json(self) -> dict[str, Any]:
        """Plain data, e.g. to keep beside the scorecard or in the run history."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class _Item:
    category: str | None
    must_pass: bool
    passed: bool
    symptoms: tuple[str, ...]
    row: int  # this item's row in its run's columns


@dataclass(frozen=True, slots=True)
class _Column:
    """One measure over a run's items, a row per item: the mean and the worst over the
    attempts in its population, and whether the item is in it at all."""

    means: npt.NDArray[np.float64]
    worst: npt.NDArray[np.float64]
    present: npt.NDArray[np.bool_]


_NONE = _Column(np.empty(0), np.empty(0), np.empty(0, dtype=bool))  # a measure never scored


@dataclass(frozen=True, slots=True)
class _Run:
    info: RunInfo
    metrics: list[str]  # scored in this run, with PASS_RATE
    specs: dict[str, Any]
    items: dict[str, _Item]
    columns: dict[str, _Column]


def _load_run(path: Path, problems: list[Problem]) -> _Run | None:
    folder = path.parent if path.name == "scorecard.json" else path
    card_path, results_path = folder / "scorecard.json", folder / "results.jsonl"
    try:
        check_complete(folder, "compare")
    except ConfigError as error:  # left mid-write, or results that are not the scorecard's
        problems.append(Problem(str(folder), None, None, str(error)))
        return None
    fix = "pass the output folder of `ragcard run` or `ragcard score`"
    missing = [p for p in (card_path, results_path) if not p.is_file()]
    problems += [Problem(str(p), None, None, "file not found", fix=fix) for p in missing]
    if missing:
        return None
    try:
        card = from_json(card_path.read_bytes())
        config, metrics = card["config"], [PASS_RATE, *card["metrics"]]
        specs = {PASS_RATE: _PASS_SPEC, **card["metric_specs"]}
        q, c, run = config["questions"], config["corpus"], config.get("run", {})
        info = RunInfo(
            str(folder), str(q.get("version") or q["sha256"][:12]), str(q["sha256"]),
            str(c.get("version") or c["sha256"][:12]), str(c["sha256"]), run.get("k"),
            run.get("attempts"), str(card.get("decision")), str(card.get("created_at", "")),
        )  # fmt: skip
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        message = f"not a ragcard scorecard ({type(error).__name__}: {error})"
        problems.append(Problem(str(card_path), None, None, message, fix=fix))
        return None
    fold = _Fold()
    for number, line in read_results(results_path):
        if isinstance(line.get("passed"), bool) and isinstance(line.get("scores"), dict):
            fold.add(line)
        else:
            problems.append(Problem(str(results_path), number, "passed", "not scored", fix=fix))
    items, columns = fold.finish()
    return _Run(info, metrics, specs, items, columns)


class _Fold:
    """Folds result lines into items (the worst verdict over their attempts, the diagnosis
    symptoms in order) and a :class:`_Column` per measure (each item's mean and worst),
    keeping only positions and values packed, not the lines."""

    def __init__(self) -> None:
        self.rows: dict[str, int] = {}
        self.first: list[tuple[str | None, list[bool], dict[str, None]]] = []
        self.packed: dict[str, tuple[array[int], array[float]]] = {}

    def add(self, line: dict[str, Any]) -> None:
        item = str(line["item"])
        row = self.rows.setdefault(item, len(self.rows))
        if row == len(self.first):  # (category from the item's first line)
            self.first.append((line.get("category"), [False, True], {}))
        flags, symptoms = self.first[row][1], self.first[row][2]
        flags[0] = flags[0] or bool(line.get("must_pass"))
        flags[1] = flags[1] and line["passed"]
        for d in line.get("diagnosis") or ():
            symptoms[str(d.get("symptom", d) if isinstance(d, dict) else d)] = None
        packed = self.packed
        for name, value in line["scores"].items():
            column = packed.get(name)
            if column is None:
                column = packed[name] = (array("q"), array("d"))
            column[0].append(row)
            column[1].append(float(value))

    def finish(self) -> tuple[dict[str, _Item], dict[str, _Column]]:
        items = {
            item: _Item(category, must, passed, tuple(symptoms), row)
            for (item, row), (category, (must, passed), symptoms) in zip(
                self.rows.items(), self.first, strict=True
            )
        }
        passed = np.array([i.passed for i in items.values()], dtype=float)
        everyone = np.ones(len(items), dtype=bool)
        columns = {PASS_RATE: _Column(passed, passed, everyone)}
        for name, (rows, values) in self.packed.items():
            columns[name] = _column(rows, values, len(items))
        return items, columns


def _column(rows: array[int], values: array[float], size: int) -> _Column:
    """Each item's mean (its values added in the order they came, as ``sum`` would) and
    worst value; NaN where the item has none."""
    positions = np.frombuffer(rows, dtype=np.int64)
    data = np.frombuffer(values, dtype=np.float64)
    counts = np.bincount(positions, minlength=size)
    sums = np.bincount(positions, data, minlength=size)
    worst = np.full(size, -np.inf)
    np.maximum.at(worst, positions, data)
    present = counts > 0
    means = np.divide(sums, counts, out=np.full(size, np.nan), where=present)
    return _Column(means, np.where(present, worst, np.nan), present)


def _first(ids: Sequence[str], limit: int = 10) -> str:
    return ", ".join(ids[:limit]) + (f", … (+{len(ids) - limit})" if len(ids) > limit else "")


def _refuse(base: _Run, cur: _Run, only: tuple[list[str], list[str]]) -> ConfigError:
    """The error for runs of different question sets: both versions, and which items differ."""
    b, c = base.info, cur.info
    why = [
        f"cannot compare {c.path} with baseline {b.path}: the question sets differ (baseline "
        f"{b.questions_version}, sha256 {b.questions_sha256[:12]}; current "
        f"{c.questions_version}, sha256 {c.questions_sha256[:12]})."
    ]
    changed = [
        f"{i} ({field} {getattr(base.items[i], field)!r}→{getattr(cur.items[i], field)!r})"
        for i in sorted(base.items.keys() & cur.items.keys())
        for field in ("category", "must_pass")
        if getattr(base.items[i], field) != getattr(cur.items[i], field)
    ]
    labels = ("only in the baseline", "only in the current run", "changed")
    for label, ids in zip(labels, (*only, changed), strict=True):
        why += [f"Items {label} ({len(ids)}): {_first(ids)}."] if ids else []
    if len(why) == 1:
        why.append("The items keep their ids, categories and must-pass flags: their wording, "
                   "gold passages or expected answers changed.")  # fmt: skip
    why.append("Re-run the baseline on this question set, or compare runs of the same set.")
    return ConfigError(" ".join(why))


def _notes(b: RunInfo, c: RunInfo, only: tuple[list[str], list[str]]) -> list[str]:
    notes = [
        f"{len(ids)} item(s) only in the {label}, not compared: {_first(ids)}"
        for label, ids in zip(("baseline", "current run"), only, strict=True)
        if ids
    ]
    if (b.corpus_version, b.corpus_sha256) != (c.corpus_version, c.corpus_sha256):
        notes.append(f"corpus differs: baseline {b.corpus_version} ({b.corpus_sha256[:12]}), "
                     f"current {c.corpus_version} ({c.corpus_sha256[:12]}); changes may come "
                     "from the corpus")  # fmt: skip
    if b.k != c.k:
        notes.append(f"k differs: baseline {b.k}, current {c.k}")
    if b.attempts != c.attempts:
        notes.append(f"attempts per item differ: baseline {b.attempts}, current {c.attempts}")
    return notes


def _verdict(worse_by: float, tolerance: float, significant: bool) -> tuple[Verdict, str]:
    size, beyond = f"{abs(worse_by):.4g}", worse_by > tolerance + _EPS
    if beyond and significant:
        return "regressed", f"worse by {size}, beyond tolerance {tolerance:g}"
    if worse_by > _EPS:
        why = "not significant" if beyond else f"within tolerance {tolerance:g}"
        return "worse", f"worse by {size}, {why}"
    if worse_by < -_EPS and significant:
        return "improved", f"better by {size}"
    return "unchanged", "not significant" if worse_by < -_EPS else "no change"


@dataclass(frozen=True, slots=True)
class _Pairs:
    """The items in both runs, by id, with their rows in each run's columns."""

    ids: list[str]
    base: npt.NDArray[np.int64]
    current: npt.NDArray[np.int64]


def _measure(
    name: str, spec: Mapping[str, Any], pairs: _Pairs, columns: tuple[_Column, _Column],
    tolerance: float, alpha: float, resamples: int,
) -> MeasureComparison | None:  # fmt: skip
    higher, kind = bool(spec["higher_is_better"]), str(spec["kind"])
    was, now = columns
    if was is _NONE or now is _NONE:
        return None
    both = was.present[pairs.base] & now.present[pairs.current]
    if not both.any():
        return None
    by = "worst" if kind == "count" else "means"
    x, y = getattr(was, by)[pairs.base][both], getattr(now, by)[pairs.current][both]
    ci: tuple[float, float] | None = None
    p: float | None = None
    items: tuple[str, ...] = ()
    if kind == "count":  # an item counts when its worst attempt is positive; no test: any
        x, y = (x > 0).astype(float), (y > 0).astype(float)  # increase is a regression
        in_both = np.flatnonzero(both)
        items = tuple(pairs.ids[in_both[i]] for i in np.flatnonzero(y > x))
        before, after = float(x.sum()), float(y.sum())
    else:
        test = paired_bootstrap(x, y, resamples=resamples)
        before, after, ci = float(x.mean()), float(y.mean()), test.ci
        p = (
            mcnemar_exact(int(np.sum(x > y)), int(np.sum(y > x)))
            if name == PASS_RATE
            else test.p_value
        )
    worse_by = before - after if higher else after - before
    significant = kind == "count" or (p is not None and p < alpha)
    verdict, reason = _verdict(worse_by, tolerance, significant)
    return MeasureComparison(
        name, str(spec.get("layer", "")), kind, higher, before, after, len(x), tolerance,
        verdict, reason, ci, p, items,
    )  # fmt: skip


def compare_runs(
    baseline: Path,
    current: Path,
    *,
    tolerances: Mapping[str, float] | None = None,
    default_tolerance: float = 0.0,
    alpha: float = 0.05,
    resamples: int = 2000,
    items: Collection[str] | None = None,
) -> Comparison:
    """Compare the run in folder ``current`` with the run in folder ``baseline`` (on the
    ``items`` given only, when given: like with like, e.g. the items people answered).

    ``tolerances`` maps a measure (``recall@5``, ``access_leaks``, :data:`PASS_RATE`) to the
    worsening it may show without failing the gate, in the measure's own units; the others get
    ``default_tolerance``. Raises :class:`ConfigError` when the question sets differ or an
    option is bad, :class:`InputError` when a run folder is missing or unreadable.
    """
    tolerances = dict(tolerances or {})
    negative = {k: v for k, v in {**tolerances, "default": default_tolerance}.items() if not v >= 0}
    if negative or not 0 < alpha < 1 or resamples < 100:
        raise ConfigError(
            f"bad comparison options: tolerances must be >= 0 (got {negative}), "
            f"0 < alpha < 1 (got {alpha}), resamples >= 100 (got {resamples})"
        )
    problems: list[Problem] = []
    base, cur = _load_run(Path(baseline), problems), _load_run(Path(current), problems)
    if base is None or cur is None or problems:
        raise InputError(problems, f"cannot compare {current} with baseline {baseline}")
    only = (
        sorted(base.items.keys() - cur.items.keys()),
        sorted(cur.items.keys() - base.items.keys()),
    )
    if base.info.questions_sha256 != cur.info.questions_sha256:
        raise _refuse(base, cur, only)
    known = sorted({*base.specs, *cur.specs})
    if unknown := sorted(set(tolerances) - set(known)):
        raise ConfigError(f"tolerance for unknown measure(s) {unknown}; the measures: {known}")
    ids = sorted(base.items.keys() & cur.items.keys() & (set(items) if items is not None
                                                         else cur.items.keys()))  # fmt: skip
    if not ids:
        raise ConfigError(f"cannot compare {current} with baseline {baseline}: no item in both")
    rows = (
        np.fromiter((base.items[i].row for i in ids), dtype=np.int64, count=len(ids)),
        np.fromiter((cur.items[i].row for i in ids), dtype=np.int64, count=len(ids)),
    )
    pairs = _Pairs(ids, *rows)
    flips = [
        Flip(i, c.category, b.must_pass or c.must_pass, b.passed, (c if b.passed else b).symptoms)
        for i, b, c in ((i, base.items[i], cur.items[i]) for i in ids)
        if b.passed != c.passed
    ]
    flips.sort(key=lambda f: (not f.regressed, not f.must_pass, f.item))
    notes, measures, quantiles = _notes(base.info, cur.info, only), [], []
    for name in dict.fromkeys([*base.metrics, *cur.metrics]):
        spec, other = base.specs.get(name), cur.specs.get(name)
        if spec is None or other is None or not (name in base.metrics and name in cur.metrics):
            notes.append(f"{name}: scored in only one run (or without a spec), not compared")
        elif (spec["kind"], spec["higher_is_better"]) != (other["kind"], other["higher_is_better"]):
            notes.append(f"{name}: its kind or direction changed between runs, not compared")
        elif spec["kind"] not in ("rate", "mean", "count"):
            quantiles.append(name)
        else:
            tolerance = tolerances.get(name, default_tolerance)
            columns = (base.columns.get(name, _NONE), cur.columns.get(name, _NONE))
            result = _measure(name, spec, pairs, columns, tolerance, alpha, resamples)
            measures += [result] if result else []
            notes += [] if result else [f"{name}: no item in both runs' populations"]
    if quantiles:
        notes.append(
            "not gated (pooled over claim pairs or quantiles over attempts, so no paired "
            f"per-item values; see the scorecards): {_first(quantiles)}"
        )
    must = [f.item for f in flips if f.regressed and f.must_pass]
    reasons = (
        [f"{len(must)} must-pass item(s) went from pass to fail: {_first(must)}"] if must else []
    )
    reasons += [
        f"{m.name} regressed: {m.show(m.baseline)} → {m.show(m.current)}, {m.reason}"
        for m in measures
        if m.verdict == "regressed"
    ]
    return Comparison(
        base.info, cur.info, "fail" if reasons else "pass", tuple(reasons), tuple(measures),
        tuple(flips), len(ids), tuple(only[0]), tuple(only[1]), tuple(notes), alpha,
    )  # fmt: skip
