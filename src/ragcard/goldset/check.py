"""``check``: is this question set fit to gate a release?

Composition against the target mix (docs/formats.md#categories), categories too small to measure,
must-pass and
held-out counts, duplicates and near-duplicates, and questions written by reading the
documents (they test retrieval on the documents' own wording, which real askers never use).

Every finding names the items it is about. ``blocking`` findings (a category under the
minimum size, duplicate items) make the set unfit; ``warning`` findings deserve a look.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcard.errors import ConfigError, ExitCode
from ragcard.goldset.findings import SEVERITY_ORDER, Finding
from ragcard.goldset.quality import (
    SimilarPair,
    WordingReuse,
    find_duplicates,
    find_near_duplicates,
    find_wording_reuse,
)
from ragcard.goldset.targets import Targets, resolve_targets
from ragcard.inputs.corpus import Corpus, load_corpus
from ragcard.inputs.questions import Question, QuestionSet, load_questions

__all__ = [
    "CategoryRow",
    "CheckOptions",
    "CheckReport",
    "check_file",
    "check_questions",
]

UNCATEGORISED = "uncategorised"


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """Thresholds of :func:`check_questions` (defaults from the golden-set guidance)."""

    near_duplicate: float = 0.8
    shingle_size: int = 2
    reuse_share: float = 0.8
    reuse_run: int = 6
    min_content_words: int = 4
    #: Categories whose questions must use the documents' own terms (so only a long shared
    #: run counts against them, not the share of content words).
    share_exempt: tuple[str, ...] = ("exact_term",)
    share_tolerance: float = 0.05

    def __post_init__(self) -> None:
        for name in ("near_duplicate", "reuse_share"):
            value = getattr(self, name)
            if not 0.0 < value <= 1.0:
                raise ConfigError(f"{name} must be above 0 and at most 1, got {value}")
        if self.shingle_size < 1 or self.reuse_run < 1:
            raise ConfigError("shingle size and reuse run must be at least one word")


@dataclass(frozen=True, slots=True)
class CategoryRow:
    """Counts of one category against its target."""

    category: str
    count: int
    share: float
    target: float | None
    heldout: int
    must_pass: int

    @property
    def heldout_share(self) -> float:
        return self.heldout / self.count if self.count else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "count": self.count,
            "share": round(self.share, 4),
            "target": self.target,
            "heldout": self.heldout,
            "heldout_share": round(self.heldout_share, 4),
            "must_pass": self.must_pass,
        }


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The result of :func:`check_questions`; ``reuse`` is ``None`` when no corpus was given."""

    source: str
    total: int
    targets: Targets
    categories: tuple[CategoryRow, ...]
    must_pass: int
    heldout: int
    duplicates: tuple[tuple[str, ...], ...]
    near_duplicates: tuple[SimilarPair, ...]
    reuse: tuple[WordingReuse, ...] | None
    findings: tuple[Finding, ...] = field(default=())

    @property
    def blocking(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "blocking")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")

    @property
    def exit_code(self) -> int:
        """0 when nothing blocks, 1 when something does."""
        return ExitCode.FAILED if self.blocking else ExitCode.OK

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "ok": not self.blocking,
            "total": self.total,
            "kit": self.targets.kit,
            "targets_from": self.targets.source,
            "min_items": self.targets.min_items,
            "must_pass": self.must_pass,
            "heldout": self.heldout,
            "heldout_share": round(self.heldout / self.total, 4) if self.total else 0.0,
            "categories": [row.to_dict() for row in self.categories],
            "duplicates": [list(group) for group in self.duplicates],
            "near_duplicates": [pair.to_dict() for pair in self.near_duplicates],
            "gold_wording": None if self.reuse is None else [r.to_dict() for r in self.reuse],
            "findings": [finding.to_dict() for finding in self.findings],
        }


def _category_rows(
    questions: Sequence[Question], targets: Targets
) -> tuple[list[CategoryRow], dict[str, list[str]]]:
    members: dict[str, list[str]] = defaultdict(list)
    for question in questions:
        members[question.category or UNCATEGORISED].append(question.id)
    by_id = {q.id: q for q in questions}
    names = list(targets.shares) + sorted(set(members) - set(targets.shares))
    rows = []
    for name in names:
        ids = members.get(name, [])
        rows.append(
            CategoryRow(
                category=name,
                count=len(ids),
                share=len(ids) / len(questions) if questions else 0.0,
                target=targets.shares.get(name),
                heldout=sum(by_id[i].split == "heldout" for i in ids),
                must_pass=sum(by_id[i].must_pass for i in ids),
            )
        )
    return rows, members


def _composition_findings(
    rows: Sequence[CategoryRow], members: dict[str, list[str]], targets: Targets, tolerance: float
) -> list[Finding]:
    findings = []
    any_heldout = any(row.heldout for row in rows)
    for row in rows:
        ids = tuple(members.get(row.category, ()))
        if row.category == UNCATEGORISED:
            findings.append(
                Finding("warning", "uncategorised", f"{row.count} item(s) have no category", ids)
            )
        elif row.count < targets.min_items:
            findings.append(
                Finding(
                    "blocking",
                    "small_category",
                    f"category '{row.category}' has {row.count} item(s), needs at least "
                    f"{targets.min_items} (one failure would move its rate by "
                    f"{100 / max(row.count, 1):.0f} points)",
                    ids,
                )
            )
        if row.target is not None and abs(row.share - row.target) > tolerance:
            findings.append(
                Finding(
                    "warning",
                    "off_target",
                    f"category '{row.category}' is {row.share:.0%} of the set, target "
                    f"{row.target:.0%}",
                    ids,
                )
            )
        if row.target is None and targets.shares and row.category != UNCATEGORISED:
            findings.append(
                Finding(
                    "info",
                    "extra_category",
                    f"category '{row.category}' has no target share ({targets.source})",
                    ids,
                )
            )
        if any_heldout and row.count and not row.heldout:
            findings.append(
                Finding(
                    "warning",
                    "no_heldout_in_category",
                    f"category '{row.category}' has no held-out items",
                    ids,
                )
            )
    if rows and not any_heldout:
        findings.append(
            Finding(
                "warning",
                "no_heldout",
                "no item is held out: tuning can overfit every item (run `questions split`)",
            )
        )
    return findings


def check_questions(
    questions: QuestionSet | Sequence[Question],
    targets: Targets,
    corpus: Corpus | None = None,
    options: CheckOptions | None = None,
) -> CheckReport:
    """Check a question set's composition and quality; see the module docstring."""
    options = options or CheckOptions()
    source = str(questions.path) if isinstance(questions, QuestionSet) else "<questions>"
    items = list(questions.questions if isinstance(questions, QuestionSet) else questions)
    rows, members = _category_rows(items, targets)
    findings = _composition_findings(rows, members, targets, options.share_tolerance)
    duplicates, found = find_duplicates(items)
    findings += found
    pairs, found = find_near_duplicates(items, options.near_duplicate, options.shingle_size)
    findings += found
    reuse: list[WordingReuse] | None = None
    if corpus is not None:
        reuse, found = find_wording_reuse(
            items,
            corpus,
            share=options.reuse_share,
            run=options.reuse_run,
            min_content_words=options.min_content_words,
            share_exempt=options.share_exempt,
        )
        findings += found
    findings.sort(key=lambda f: SEVERITY_ORDER[f.severity])
    return CheckReport(
        source=source,
        total=len(items),
        targets=targets,
        categories=tuple(rows),
        must_pass=sum(q.must_pass for q in items),
        heldout=sum(q.split == "heldout" for q in items),
        duplicates=tuple(duplicates),
        near_duplicates=tuple(pairs),
        reuse=None if reuse is None else tuple(reuse),
        findings=tuple(findings),
    )


def check_file(
    questions: str | Path,
    corpus: str | Path | None = None,
    *,
    kit: str | None = None,
    targets: str | Path | None = None,
    options: CheckOptions | None = None,
) -> CheckReport:
    """Load a question file (and corpus), resolve the targets, and check it."""
    question_set = load_questions(questions)
    loaded = load_corpus(corpus) if corpus is not None else None
    resolved = resolve_targets((q.category for q in question_set.questions), kit=kit, path=targets)
    return check_questions(question_set, resolved, loaded, options)
