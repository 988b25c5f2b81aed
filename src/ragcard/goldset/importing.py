"""``import``: turn real question logs into a labelling sample.

Real askers' wording is what a golden set most needs and what hand-written sets most lack.
The pipeline, in order:

1. read a CSV (a named column) or JSON Lines (a named field, dots for nesting) log;
2. normalise each question: Unicode NFC, whitespace collapsed, ends stripped;
3. remove personal data (:mod:`ragcard.goldset.pii`) — before deduplication, so that two
   questions differing only in a name or a phone number count as one;
4. drop exact duplicates (same words, case and punctuation aside) and near-duplicates
   (word-shingle Jaccard ≥ threshold, as in ``check``), keeping the first;
5. draw ``n`` questions, seeded: to the target category mix when the log carries a category
   guess, else uniformly at random.

The result is a questions.jsonl skeleton (``id``, ``question``, ``source``, ``category`` when
known); ``answerable`` and ``gold`` are left for the labellers.
"""

from __future__ import annotations

import csv
import json
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ragcard.errors import ConfigError, InputError, Problem
from ragcard.goldset._text import clean_text, comparison_key, similar_pairs
from ragcard.goldset.pii import LIMITATIONS, PLACEHOLDERS, redact_pii
from ragcard.goldset.targets import Targets, resolve_targets
from ragcard.inputs._jsonl import iter_json_lines

__all__ = ["ImportOptions", "ImportResult", "ImportedQuestion", "import_logs"]

LogFormat = Literal["csv", "jsonl"]


@dataclass(frozen=True, slots=True)
class ImportOptions:
    """How to read the log and draw the sample (``n=None``: keep every question)."""

    column: str = "question"
    category_column: str | None = "category"
    format: LogFormat | None = None
    n: int | None = None
    seed: int = 0
    near_duplicate: float = 0.8
    shingle_size: int = 2
    id_prefix: str = "LOG-"
    kit: str | None = None
    targets_file: Path | None = None

    def __post_init__(self) -> None:
        if self.n is not None and self.n < 1:
            raise ConfigError(f"n must be a positive number of questions, got {self.n}")
        if not 0.0 < self.near_duplicate <= 1.0:
            raise ConfigError(
                f"near-duplicate threshold must be above 0 and at most 1, got {self.near_duplicate}"
            )


@dataclass(frozen=True, slots=True)
class ImportedQuestion:
    """One question of the skeleton."""

    id: str
    question: str
    source: str
    category: str | None

    def to_record(self) -> dict[str, Any]:
        record: dict[str, Any] = {"id": self.id, "question": self.question, "source": self.source}
        if self.category:
            record["category"] = self.category
        return record


@dataclass(frozen=True, slots=True)
class ImportResult:
    """The sample and what happened on the way."""

    source: str
    rows: int
    missing: int
    empty: int
    exact_duplicates: int
    near_duplicates: int
    unique: int
    removed: Mapping[str, int]
    sampling: Literal["all", "stratified", "uniform"]
    seed: int
    quotas: Mapping[str, int]
    questions: tuple[ImportedQuestion, ...]
    limitations: tuple[str, ...] = field(default=LIMITATIONS)

    @property
    def removed_by_placeholder(self) -> dict[str, int]:
        totals: Counter[str] = Counter()
        for kind, count in self.removed.items():
            totals[PLACEHOLDERS[kind]] += count
        return dict(totals)

    def sampled_by_category(self) -> dict[str, int]:
        return dict(Counter(q.category or "unknown" for q in self.questions))

    def to_jsonl(self) -> str:
        return "".join(json.dumps(q.to_record(), ensure_ascii=False) + "\n" for q in self.questions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "rows": self.rows,
            "missing_question": self.missing,
            "empty": self.empty,
            "exact_duplicates": self.exact_duplicates,
            "near_duplicates": self.near_duplicates,
            "unique": self.unique,
            "personal_data_removed": dict(self.removed),
            "personal_data_removed_by_placeholder": self.removed_by_placeholder,
            "sampling": self.sampling,
            "seed": self.seed,
            "quotas": dict(self.quotas),
            "sampled": len(self.questions),
            "sampled_by_category": self.sampled_by_category(),
            "not_detected": list(self.limitations),
        }


@dataclass(slots=True)
class _Row:
    source: str
    text: str | None
    category: str | None


def _lookup(record: Mapping[str, Any], dotted: str) -> Any:
    value: Any = record
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _text_or_none(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return text.strip() or None


def _read_csv(path: Path, options: ImportOptions) -> Iterator[_Row]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        columns = reader.fieldnames or []
        if options.column not in columns:
            raise InputError(
                Problem(
                    str(path),
                    1,
                    options.column,
                    "no such column in the header",
                    fix=f"choose the question column with --column; columns: {', '.join(columns)}",
                )
            )
        start = reader.line_num + 1
        for row in reader:
            category = row.get(options.category_column) if options.category_column else None
            yield _Row(f"{path.name}:{start}", row.get(options.column), _text_or_none(category))
            start = reader.line_num + 1


def _read_jsonl(path: Path, options: ImportOptions) -> Iterator[_Row]:
    problems = []
    rows = []
    for line, record, error in iter_json_lines(path):
        if error is not None:
            problems.append(error.problem(str(path), line, "one log record per line"))
            continue
        if not isinstance(record, dict):
            problems.append(Problem(str(path), line, None, "expected a JSON object",
                                    fix="one log record per line"))  # fmt: skip
            continue
        text = _lookup(record, options.column)
        category = _lookup(record, options.category_column) if options.category_column else None
        text = text if text is None or isinstance(text, str) else str(text)
        rows.append(_Row(f"{path.name}:{line}", text, _text_or_none(category)))
    if problems:
        raise InputError(problems, f"{path}: {len(problems)} bad line(s) in the log")
    if rows and all(row.text is None for row in rows):
        raise InputError(
            Problem(
                str(path),
                None,
                options.column,
                "no record has this field",
                fix="name the question field with --column (dots for nesting: a.b)",
            )
        )
    yield from rows


def _read(path: Path, options: ImportOptions) -> list[_Row]:
    kind = options.format or ("csv" if path.suffix.lower() == ".csv" else "jsonl")
    if not path.exists():
        raise InputError(Problem(str(path), None, None, "file not found", fix="check the path"))
    reader = _read_csv if kind == "csv" else _read_jsonl
    try:
        return list(reader(path, options))
    except (UnicodeDecodeError, csv.Error) as error:
        raise InputError(
            Problem(
                str(path),
                None,
                None,
                f"cannot read the log ({error})",
                fix="save it as UTF-8 CSV or JSON Lines, or set --format",
            )
        ) from None


def _quotas(n: int, shares: Mapping[str, float]) -> dict[str, int]:
    """Largest-remainder apportionment of ``n`` items to the shares (ties: listed order)."""
    total = sum(shares.values()) or 1.0
    raw = {name: n * share / total for name, share in shares.items()}
    quotas = {name: int(value) for name, value in raw.items()}
    order = sorted(shares, key=lambda name: -(raw[name] - quotas[name]))
    for name in order[: n - sum(quotas.values())]:
        quotas[name] += 1
    return quotas


def _draw(
    rows: Sequence[_Row], n: int | None, targets: Targets, rng: random.Random
) -> tuple[list[int], Literal["all", "stratified", "uniform"], dict[str, int]]:
    indices = list(range(len(rows)))
    if n is None or n >= len(rows):
        return indices, "all", {}
    known = {row.category for row in rows if row.category}
    if not known or not targets.shares:
        return sorted(rng.sample(indices, n)), "uniform", {}
    quotas = _quotas(n, targets.shares)
    chosen: list[int] = []
    for name, quota in quotas.items():
        members = [i for i in indices if rows[i].category == name]
        chosen += rng.sample(members, min(quota, len(members)))
    # A category short of its quota is topped up from everything left, at random.
    rest = sorted(set(indices) - set(chosen))
    chosen += rng.sample(rest, n - len(chosen))
    return sorted(chosen), "stratified", quotas


def import_logs(
    path: str | Path, options: ImportOptions | None = None, targets: Targets | None = None
) -> ImportResult:
    """Read, clean, deduplicate and sample a question log (see the module docstring).

    The target mix is ``targets`` when given, else resolved from ``options.kit`` and
    ``options.targets_file``, the kit inferred from the log's categories when neither names it.
    """
    options = options or ImportOptions()
    path = Path(path)
    rows = _read(path, options)
    if targets is None:
        targets = resolve_targets(
            (row.category for row in rows), kit=options.kit, path=options.targets_file
        )
    missing = sum(row.text is None for row in rows)
    removed: Counter[str] = Counter()
    cleaned: list[_Row] = []
    for row in rows:
        if row.text is None:
            continue
        redaction = redact_pii(clean_text(row.text))
        removed.update(redaction.counts)
        cleaned.append(_Row(row.source, redaction.text, row.category))
    empty = sum(not row.text for row in cleaned)
    seen: set[str] = set()
    unique: list[_Row] = []
    for row in cleaned:
        key = comparison_key(row.text or "")
        if row.text and key not in seen:
            seen.add(key)
            unique.append(row)
    exact = len(cleaned) - empty - len(unique)
    dropped: set[int] = set()
    texts = [row.text or "" for row in unique]
    for i, j, _ in similar_pairs(texts, options.near_duplicate, options.shingle_size):
        if i not in dropped:
            dropped.add(j)
    kept = [row for index, row in enumerate(unique) if index not in dropped]
    rng = random.Random(options.seed)
    chosen, sampling, quotas = _draw(kept, options.n, targets, rng)
    width = max(4, len(str(len(chosen))))
    questions = tuple(
        ImportedQuestion(
            f"{options.id_prefix}{number:0{width}d}",
            kept[index].text or "",
            kept[index].source,
            kept[index].category,
        )
        for number, index in enumerate(chosen, start=1)
    )
    return ImportResult(
        source=str(path),
        rows=len(rows),
        missing=missing,
        empty=empty,
        exact_duplicates=exact,
        near_duplicates=len(dropped),
        unique=len(kept),
        removed=dict(removed),
        sampling=sampling,
        seed=options.seed,
        quotas=quotas,
        questions=questions,
    )
