"""The label log: "never edit a question or a gold label to make it pass, unless the label was
wrong — and record why".

Each run records, in the run history, the labels of every item of its question set: the gold
passages (with grades), the expected answer, whether the item is answerable, and the expected
flag. When a later run of the same question set finds an item whose labels differ from what
was recorded, it is refused (exit 2, naming the item and what changed) until the change is
recorded with ``ragcard questions amend ID --reason "…" --by NAME``; the scorecard then lists
the items amended since the last shipped run. New items are recorded as they first appear;
an item removed from the set is simply no longer run.

"The same question set" is the project's (its name) for ``ragcard run``, and for
``ragcard score`` the question set file (or ``--project``).
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import json
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ragcard.errors import ConfigError, InputError, Problem
from ragcard.inputs.questions import Question, QuestionSet
from ragcard.outputs.history import HistoryStore

__all__ = [
    "LabelChange",
    "amend_items",
    "amendments_since",
    "check_label_log",
    "checked_labels",
    "item_labels",
]

_meta = sa.MetaData()
_labels = sa.Table(
    "ragcard_item_labels", _meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("question_set", sa.String(500), nullable=False),
    sa.Column("item", sa.String(500), nullable=False),
    sa.Column("labels", sa.JSON, nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("kind", sa.String(20), nullable=False),  # "recorded" | "amended"
    sa.Column("by", sa.String(200)), sa.Column("reason", sa.Text),
    sa.Column("previous", sa.JSON), sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_ragcard_item_labels_key", "question_set", "item"),
)  # fmt: skip
_FIELDS = ("gold", "expected_answer", "answerable", "expected_flag")
_UNCHECKED = "(not checked)"


def item_labels(question: Question) -> dict[str, Any]:
    """The labels of an item that a run must not see change silently."""
    return {
        "gold": [[g.id, g.grade] for g in question.gold],
        "expected_answer": question.expected_answer,
        "answerable": question.is_answerable,
        "expected_flag": question.expected_flag if question.flag_checked else _UNCHECKED,
    }


def _sha(labels: dict[str, Any]) -> str:
    text = json.dumps(labels, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class LabelChange:
    """An item whose labels differ from the ones recorded."""

    item: str
    line: int | None
    fields: tuple[str, ...]
    before: dict[str, Any]
    after: dict[str, Any]

    def describe(self) -> str:
        return "; ".join(
            "{} was {}, now {}".format(f, *_show(self.before.get(f), self.after.get(f)))
            for f in self.fields
        )


def _show(before: Any, after: Any, width: int = 70) -> tuple[str, str]:
    """Both values as JSON; long ones cut around where they start to differ."""
    old, new = (json.dumps(v, ensure_ascii=False) for v in (before, after))
    if max(len(old), len(new)) <= width:
        return old, new
    start = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
                 min(len(old), len(new)))  # fmt: skip
    begin = max(0, start - 20)

    def cut(text: str) -> str:
        part = text[begin : begin + width]
        return ("…" if begin else "") + part + ("…" if begin + width < len(text) else "")

    return cut(old), cut(new)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _latest(store: HistoryStore, question_set: str) -> dict[str, dict[str, Any]]:
    """Each item's latest recorded labels (and sha256) for a question set."""
    with store.tables(_meta) as conn:
        return _latest_in(conn, question_set)


def _latest_in(conn: Connection, question_set: str) -> dict[str, dict[str, Any]]:
    query = (
        sa.select(_labels.c.item, _labels.c.labels, _labels.c.sha256)
        .where(_labels.c.question_set == question_set)
        .order_by(_labels.c.id)
    )
    rows = conn.execute(query).all()
    return {item: {"labels": labels, "sha256": sha} for item, labels, sha in rows}


def _changes(recorded: dict[str, dict[str, Any]], questions: QuestionSet) -> list[LabelChange]:
    found = []
    for q in questions.questions:
        now = item_labels(q)
        before = recorded.get(q.id)
        if before is None or before["sha256"] == _sha(now):
            continue
        old = before["labels"]
        fields = tuple(f for f in _FIELDS if old.get(f) != now.get(f))
        found.append(LabelChange(q.id, questions.line_of.get(q.id), fields, old, now))
    return found


def check_label_log(store: HistoryStore, question_set: str, questions: QuestionSet) -> None:
    """Refuse (:class:`InputError`, one problem per item) a question set whose labels changed
    since they were recorded without an amendment; record the labels of new items.

    The check and the recording are one transaction holding the write lock, so processes
    scoring the same new set at once record each item once (the later ones find the rows)."""
    with store.tables(_meta, write=True) as conn:
        _check_and_record(conn, question_set, questions)


def _check_and_record(conn: Connection, question_set: str, questions: QuestionSet) -> None:
    recorded = _latest_in(conn, question_set)
    changed = _changes(recorded, questions)
    if changed:
        raise InputError(
            [
                Problem(
                    str(questions.path),
                    c.line,
                    ",".join(c.fields),
                    f"item {c.item}: labels changed since they were recorded ({c.describe()})",
                    fix=f"restore them, or if the label was wrong record why: ragcard questions "
                    f'amend {c.item} --reason "…" --by NAME',
                )  # fmt: skip
                for c in changed
            ],
            f"{len(changed)} item(s) of the question set changed their labels without an amendment",
        )
    new = [q for q in questions.questions if q.id not in recorded]
    if new:
        now = _now()
        rows = [
            {
                "question_set": question_set,
                "item": q.id,
                "labels": item_labels(q),
                "sha256": _sha(item_labels(q)),
                "kind": "recorded",
                "at": now,
            }  # fmt: skip
            for q in new
        ]
        conn.execute(_labels.insert(), rows)


def amend_items(
    store: HistoryStore,
    question_set: str,
    questions: QuestionSet,
    items: list[str],
    *,
    reason: str,
    by: str,
) -> list[LabelChange]:
    """Record why the labels of ``items`` changed (who, why, from what to what)."""
    for field, value in (("reason", reason), ("by", by)):
        if not value.strip():
            raise ConfigError(f"--{field} is empty: an amendment says who made it and why")
    by_id = questions.by_id()
    unknown = [i for i in items if i not in by_id]
    if unknown:
        close = {i: difflib.get_close_matches(i, list(by_id), n=3) for i in unknown}
        hints = "; ".join(f"{i} (close: {', '.join(c) or 'none'})" for i, c in close.items())
        raise ConfigError(f"no such item in {questions.path}: {hints}")
    with store.tables(_meta, write=True) as conn:  # read and write as one (no duplicate)
        return _amend_in(conn, question_set, questions, items, reason=reason, by=by)


def _amend_in(
    conn: Connection,
    question_set: str,
    questions: QuestionSet,
    items: list[str],
    *,
    reason: str,
    by: str,
) -> list[LabelChange]:
    by_id = questions.by_id()
    recorded = _latest_in(conn, question_set)
    if not recorded:
        raise ConfigError(
            f"no labels are recorded for this question set yet ({question_set}): the first "
            "run records them; amend what changes after that"
        )
    changed = {c.item: c for c in _changes(recorded, questions)}
    new = [i for i in items if i not in recorded]
    if new:
        raise ConfigError(
            f"nothing to amend: {', '.join(new)} has no labels recorded yet (a new item is "
            "recorded by the next run as it stands)"
        )
    same = [i for i in items if i not in changed]
    if same:
        raise ConfigError(
            f"nothing to amend: the labels of {', '.join(same)} are as recorded; edit the "
            "question set first, then record why"
        )
    now = _now()
    rows = []
    for item in items:
        labels = item_labels(by_id[item])
        previous = changed[item].before if item in changed else None
        rows.append({"question_set": question_set, "item": item, "labels": labels,
                     "sha256": _sha(labels), "kind": "amended", "by": by.strip(),
                     "reason": reason.strip(), "previous": previous, "at": now})  # fmt: skip
    conn.execute(_labels.insert(), rows)
    return [changed[i] for i in items if i in changed]


def amendments_since(
    store: HistoryStore, question_set: str, since: dt.datetime | None
) -> list[dict[str, Any]]:
    """The amendments of a question set recorded after ``since`` (all when None), oldest
    first, as the scorecard lists them."""
    query = (
        sa.select(_labels)
        .where((_labels.c.question_set == question_set) & (_labels.c.kind == "amended"))
        .order_by(_labels.c.id)
    )
    with store.tables(_meta) as conn:
        rows = [dict(r) for r in conn.execute(query).mappings()]
    found = []
    for row in rows:
        at = row["at"] if row["at"].tzinfo else row["at"].replace(tzinfo=dt.UTC)
        if since is not None and at <= since:
            continue
        previous = row["previous"] or {}
        fields = [f for f in _FIELDS if previous.get(f) != row["labels"].get(f)] if previous else []
        found.append({
            "item": row["item"], "fields": fields, "by": row["by"], "reason": row["reason"],
            "at": at.replace(microsecond=0).isoformat(),
            "from": {f: previous.get(f) for f in fields},
            "to": {f: row["labels"].get(f) for f in fields},
        })  # fmt: skip
    return found


def checked_labels(
    store: HistoryStore, question_set: str, questions: QuestionSet, project: str | None = None
) -> list[dict[str, Any]]:
    """:func:`check_label_log`, then the amendments since the last shipped run of ``project``
    (default: ``question_set``) — what the run's scorecard lists."""
    check_label_log(store, question_set, questions)
    shipped = store.last_shipped(project or question_set)
    return amendments_since(store, question_set, shipped.created_at if shipped else None)
