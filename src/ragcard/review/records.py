"""What the run history keeps of reviews: the packets drawn, the reviews imported, and the
action recorded for each answer rated wrong (tables beside the runs, created on first use)."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

import sqlalchemy as sa

from ragcard.errors import ConfigError
from ragcard.outputs.history import HistoryStore

__all__ = [
    "ACTIONS",
    "Action",
    "actions_of",
    "latest_review",
    "packet_record",
    "project_reviews",
    "record_action",
    "record_packet",
    "record_review",
]

#: What an answer rated wrong becomes (the persona kit's rule): a fix to the corpus, a rule
#: (an instruction, a policy, a guard), or a new authored answer.
ACTIONS = ("corpus-fix", "rule", "authored-answer")
Action = Literal["corpus-fix", "rule", "authored-answer"]

_meta = sa.MetaData()
_NAME, _ID, _TIME = sa.String(200), sa.String(40), sa.DateTime(timezone=True)
_packets = sa.Table(
    "ragcard_review_packets", _meta,
    sa.Column("packet_id", _ID, primary_key=True),
    sa.Column("run_id", _ID, nullable=False, index=True),
    sa.Column("project", _NAME, nullable=False), sa.Column("kind", _NAME, nullable=False),
    sa.Column("created_at", _TIME, nullable=False),
    sa.Column("packet_dir", sa.Text, nullable=False), sa.Column("key_path", sa.Text),
    sa.Column("items", sa.Integer, nullable=False),
)  # fmt: skip
_reviews = sa.Table(
    "ragcard_reviews", _meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", _ID, nullable=False, index=True),
    sa.Column("project", _NAME, nullable=False, index=True),
    sa.Column("packet_id", _ID, nullable=False), sa.Column("kind", _NAME, nullable=False),
    sa.Column("imported_at", _TIME, nullable=False), sa.Column("imported_by", _NAME),
    sa.Column("block", sa.JSON, nullable=False), sa.Column("frozen", sa.JSON),
)  # fmt: skip
_actions = sa.Table(
    "ragcard_review_actions", _meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", _ID, nullable=False, index=True),
    sa.Column("item", _NAME, nullable=False), sa.Column("action", _NAME, nullable=False),
    sa.Column("by", _NAME, nullable=False), sa.Column("why", sa.Text, nullable=False),
    sa.Column("at", _TIME, nullable=False),
)  # fmt: skip


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _utc(value: Any) -> Any:
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value


def _rows(result: Any) -> list[dict[str, Any]]:
    return [{str(k): _utc(v) for k, v in row.items()} for row in result.mappings()]


def record_packet(
    store: HistoryStore,
    *,
    packet_id: str,
    run_id: str,
    project: str,
    kind: str,
    packet_dir: str,
    key_path: str | None,
    items: int,
) -> None:
    """Note a packet drawn from a run (so that import finds its key)."""
    with store.tables(_meta) as conn:
        conn.execute(_packets.insert().values(
            packet_id=packet_id, run_id=run_id, project=project, kind=kind, created_at=_now(),
            packet_dir=packet_dir, key_path=key_path, items=items))  # fmt: skip


def packet_record(store: HistoryStore, packet_id: str) -> dict[str, Any] | None:
    with store.tables(_meta) as conn:
        rows = _rows(conn.execute(_packets.select().where(_packets.c.packet_id == packet_id)))
    return rows[0] if rows else None


def record_review(
    store: HistoryStore,
    *,
    run_id: str,
    project: str,
    packet_id: str,
    kind: str,
    block: dict[str, Any],
    frozen: dict[str, Any] | None,
    by: str,
) -> None:
    """Keep an imported review (the scorecard's review block, the run's frozen config)."""
    with store.tables(_meta) as conn:
        conn.execute(_reviews.insert().values(
            run_id=run_id, project=project, packet_id=packet_id, kind=kind, imported_at=_now(),
            imported_by=by, block=block, frozen=frozen))  # fmt: skip


def latest_review(store: HistoryStore, run_id: str, kind: str = "blind") -> dict[str, Any] | None:
    """The review of ``kind`` last imported into a run, or None."""
    query = (
        _reviews.select()
        .where((_reviews.c.run_id == run_id) & (_reviews.c.kind == kind))
        .order_by(_reviews.c.id.desc())
        .limit(1)
    )
    with store.tables(_meta) as conn:
        rows = _rows(conn.execute(query))
    return rows[0] if rows else None


def project_reviews(store: HistoryStore, project: str, kind: str = "blind") -> list[dict[str, Any]]:
    """A project's imported reviews of ``kind``, newest first."""
    query = (
        _reviews.select()
        .where((_reviews.c.project == project) & (_reviews.c.kind == kind))
        .order_by(_reviews.c.id.desc())
    )
    with store.tables(_meta) as conn:
        return _rows(conn.execute(query))


def record_action(
    store: HistoryStore, run_id: str, item: str, action: str, by: str, why: str
) -> dict[str, Any]:
    """Record what an answer rated wrong becomes; the latest action of an item counts."""
    if action not in ACTIONS:
        raise ConfigError(f"--action {action!r}: choose one of {', '.join(ACTIONS)}")
    for field, value in (("by", by), ("why", why)):
        if not value or not value.strip():
            raise ConfigError(f"--{field} is empty: an action says who decided it and why")
    row = {"run_id": run_id, "item": item, "action": action, "by": by.strip(),
           "why": why.strip(), "at": _now()}  # fmt: skip
    with store.tables(_meta) as conn:
        conn.execute(_actions.insert().values(**row))
    return row


def actions_of(store: HistoryStore, run_id: str) -> dict[str, dict[str, Any]]:
    """Each item's latest action in a run."""
    query = _actions.select().where(_actions.c.run_id == run_id).order_by(_actions.c.id)
    with store.tables(_meta) as conn:
        rows = _rows(conn.execute(query))
    found: dict[str, dict[str, Any]] = {}
    for row in rows:
        found[row["item"]] = {k: row[k] for k in ("action", "by", "why")} | {
            "at": row["at"].isoformat() if isinstance(row["at"], dt.datetime) else row["at"]
        }
    return found
