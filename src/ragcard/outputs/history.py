"""The run history: an index of past runs, what shipped, threshold locks, overrides, signatures.

A *run* is an output folder holding ``scorecard.json``, ``results.jsonl`` and ``run.json``; the
history indexes it by a stable id and keeps the governance around it
(docs/formats.md#thresholdstoml, docs/metrics.md#decision):
which run shipped (later runs compare against it), which thresholds were locked for a question
set, who overrode a hold and why, and who signed.

SQLite by default (:func:`default_history_url`), PostgreSQL given a ``postgresql+psycopg://`` URL
(``pip install 'ragcard[postgres]'``); tables are created on first use; times are UTC.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import json
import re
import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import ArgumentError, IntegrityError, OperationalError
from sqlalchemy.schema import CreateIndex, CreateTable

from ragcard.errors import ConfigError, InputError, MissingExtraError, Problem
from ragcard.outputs._history_secrets import scrubbing

__all__ = [
    "HISTORY_FILE", "SCHEMA_VERSION", "HistoryStore", "Override", "RunEntry", "Signature",
    "ThresholdLock", "create_tables", "default_history_url", "new_run_id", "run_id"
]  # fmt: skip

SCHEMA_VERSION = 1
HISTORY_FILE = "ragcard-history.sqlite"
_Rows = list[dict[str, Any]]
_T = TypeVar("_T")


_meta = sa.MetaData()
# Times go in as aware UTC (see _utc); SQLite keeps them as naive UTC text, which sorts by time.
_NAME, _SHA, _TIME = sa.String(200), sa.String(64), sa.DateTime(timezone=True)
_info = sa.Table(
    "ragcard_meta", _meta,
    sa.Column("key", sa.String(64), primary_key=True), sa.Column("value", _NAME, nullable=False),
)  # fmt: skip
_runs = sa.Table(
    "ragcard_runs", _meta,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("project", _NAME, nullable=False, index=True),
    sa.Column("created_at", _TIME, nullable=False, index=True),
    sa.Column("out_dir", sa.Text, nullable=False), sa.Column("decision", _NAME, nullable=False),
    sa.Column("questions_sha256", _SHA, nullable=False, index=True),
    sa.Column("corpus_version", _NAME), sa.Column("corpus_sha256", _SHA),
    sa.Column("thresholds_sha256", _SHA),
    sa.Column("config", sa.JSON, nullable=False), sa.Column("metrics", sa.JSON, nullable=False),
    sa.Column("recorded_at", _TIME, nullable=False),
    sa.Column("shipped_by", _NAME), sa.Column("shipped_at", _TIME),
)  # fmt: skip
_locks = sa.Table(
    "ragcard_threshold_locks", _meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("project", _NAME, nullable=False),
    sa.Column("questions_sha256", _SHA, nullable=False),
    sa.Column("thresholds_sha256", _SHA, nullable=False),
    sa.Column("thresholds", sa.JSON, nullable=False),
    sa.Column("locked_by", _NAME, nullable=False), sa.Column("locked_at", _TIME, nullable=False),
    sa.Index("ix_ragcard_locks_key", "project", "questions_sha256"),
)  # fmt: skip
_overrides = sa.Table(
    "ragcard_overrides", _meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.ForeignKey("ragcard_runs.id"), nullable=False, index=True),
    sa.Column("by", _NAME, nullable=False), sa.Column("reason", sa.Text, nullable=False),
    sa.Column("loosened", sa.JSON, nullable=False), sa.Column("at", _TIME, nullable=False),
)  # fmt: skip
_signatures = sa.Table(
    "ragcard_signatures", _meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.ForeignKey("ragcard_runs.id"), nullable=False, index=True),
    sa.Column("signer", _NAME, nullable=False), sa.Column("decision", _NAME, nullable=False),
    sa.Column("signed_at", _TIME, nullable=False), sa.Column("digest", _NAME, nullable=False),
    sa.UniqueConstraint("run_id", "signer", "digest"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class RunEntry:
    """One indexed run. ``config`` and ``metrics`` are the scorecard's blocks verbatim."""

    id: str
    project: str
    created_at: dt.datetime
    out_dir: Path
    decision: str
    questions_sha256: str
    corpus_version: str | None
    corpus_sha256: str | None
    thresholds_sha256: str | None
    config: dict[str, Any]
    metrics: dict[str, Any]
    recorded_at: dt.datetime
    shipped_by: str | None = None
    shipped_at: dt.datetime | None = None


@dataclass(frozen=True, slots=True)
class ThresholdLock:
    """Thresholds locked for a project's question set; a later lock supersedes, never erases."""

    id: int
    project: str
    questions_sha256: str
    thresholds_sha256: str
    thresholds: _Rows
    locked_by: str
    locked_at: dt.datetime


@dataclass(frozen=True, slots=True)
class Override:
    """Someone shipped despite the thresholds: who, why, and which thresholds they loosened."""

    run_id: str
    by: str
    reason: str
    loosened: _Rows
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class Signature:
    """A signature over a run's decision (the signer computes the digest)."""

    run_id: str
    signer: str
    decision: str
    signed_at: dt.datetime
    digest: str


def default_history_url(project_dir: Path) -> str:
    """The project's SQLite history: ``ragcard-history.sqlite`` beside its ``eval/`` folder."""
    return f"sqlite:///{(Path(project_dir) / HISTORY_FILE).resolve()}"


def new_run_id(created: dt.datetime) -> str:
    """A new run's id: compact UTC time (ids sort by time) and 48 random bits, so that runs made
    in the same second with identical scorecards still get ids of their own."""
    return f"{_utc(created):%Y%m%dT%H%M%S}-{secrets.token_hex(6)}"


def run_id(scorecard: Mapping[str, Any]) -> str:
    """The run's id: the ``run_id`` its scorecard carries (:func:`new_run_id`, given when the
    scorecard was written). A scorecard written before run ids existed gets its legacy id,
    compact UTC ``created_at`` + 8 hex of its canonical JSON's sha256 (so a run recorded then
    is found again)."""
    given = scorecard.get("run_id")
    if isinstance(given, str) and _RUN_ID.fullmatch(given):
        return given
    created = _utc(dt.datetime.fromisoformat(str(scorecard["created_at"])))
    canonical = json.dumps(scorecard, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:8]
    return f"{created:%Y%m%dT%H%M%S}-{digest}"


_RUN_ID = re.compile(r"\d{8}T\d{6}-[0-9a-f]{8,32}")


class HistoryStore:
    """The run history at a database URL (``sqlite:///…``, ``postgresql+psycopg://…``, or a
    plain file path, taken as SQLite); ``url`` shows it with any password hidden. Use it as a
    context manager, or call :meth:`close`."""

    def __init__(self, url: str) -> None:
        self._engine: Engine = _create_engine(url)
        self.url = self._engine.url.render_as_string(hide_password=True)
        self._ready = False

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the database connections."""
        self._engine.dispose()

    def record_run(self, scorecard: Mapping[str, Any], out_dir: Path) -> RunEntry:
        """Index the run in ``out_dir`` whose ``scorecard.json`` is ``scorecard``. Recording the
        same scorecard again returns the existing entry unchanged."""
        row = _run_row(scorecard, Path(out_dir))
        with suppress(IntegrityError):  # recorded before (or by a concurrent writer)
            self._insert(_runs, **row)
        return self.get(row["id"])

    def runs(self, project: str | None = None, limit: int = 50) -> list[RunEntry]:
        """Recorded runs, newest first, of one project or all."""
        query = sa.select(_runs).order_by(*_NEWEST).limit(limit)
        if project is not None:
            query = query.where(_runs.c.project == project)
        return [_entry(r) for r in self._fetch(query)]

    def get(self, run_ref: str) -> RunEntry:
        """A run by id, unique id prefix, or output folder. Unknown or ambiguous references
        raise :class:`ConfigError` naming the close matches."""
        if not run_ref.strip():
            raise ConfigError("no run given — pass a run id, an id prefix or a run's folder")
        exact = (_runs.c.id == run_ref) | (_runs.c.out_dir == str(Path(run_ref).resolve()))
        found = self._fetch(sa.select(_runs).where(exact).order_by(*_NEWEST).limit(1))
        starts = _runs.c.id.startswith(run_ref, autoescape=True)
        ids = [r["id"] for r in self._fetch(sa.select(_runs.c.id).where(starts).limit(11))]
        if found or len(ids) == 1:
            return _entry(found[0]) if found else self.get(ids[0])
        if ids:
            more = ", …" if len(ids) > 10 else ""
            raise ConfigError(f"run '{run_ref}' is ambiguous: {', '.join(ids[:10])}{more}")
        recent = [r["id"] for r in self._fetch(sa.select(_runs.c.id).order_by(*_NEWEST).limit(999))]
        close = difflib.get_close_matches(run_ref, recent, n=5, cutoff=0.5)
        hint = f"; close matches: {', '.join(close)}" if close else ""
        raise ConfigError(
            f"no run '{run_ref}' in the history at {self.url}{hint} — pass a run id, an id "
            "prefix or a run's output folder (`ragcard history` lists them)"
        )

    def record_outcome(self, run_ref: str, scorecard: Mapping[str, Any]) -> RunEntry:
        """A run's measures and decision changed after it was recorded (a blind review was
        imported, docs/metrics.md#measures): store the new ``metrics`` and ``decision`` of its
        rewritten
        ``scorecard``; the run keeps its id, its shipping and its governance records."""
        entry = self.get(run_ref)
        values = {"decision": str(scorecard["decision"]), "metrics": scorecard.get("metrics", {})}
        with self._begin() as conn:
            conn.execute(_runs.update().values(**values).where(_runs.c.id == entry.id))
        return self.get(entry.id)

    @contextmanager
    def tables(self, meta: sa.MetaData, *, write: bool = False) -> Iterator[Connection]:
        """A transaction on the history's database with ``meta``'s tables created if missing
        (safely when many processes do it at once: :func:`create_tables`): for stages that keep
        their own records beside the runs (blind review, red-team, the label log). ``write``:
        the transaction holds the database's write lock from its start (SQLite ``BEGIN
        IMMEDIATE``, a PostgreSQL advisory lock), so that what it reads is still true when it
        writes — two processes never both find a row missing and both add it."""
        with self._begin(write=write) as conn:
            create_tables(conn, meta)
            yield conn

    def last_run(self, project: str, question_set_sha: str | None = None) -> RunEntry | None:
        """The newest recorded run of ``project`` (on that question set, when given)."""
        return self._newest(project, question_set_sha, shipped=False)

    def mark_shipped(self, run_ref: str, by: str, when: dt.datetime | None = None) -> RunEntry:
        """Mark a run shipped: later runs compare against it. A run already shipped keeps its
        first record. A ``hold`` run ships only after an override is recorded for it."""
        _require("by", by)
        entry = self.get(run_ref)
        if entry.shipped_at is not None:
            return entry
        if entry.decision != "ship" and not self.overrides(entry.id):
            raise ConfigError(
                f"run {entry.id} decided '{entry.decision}' and carries no override: fix what "
                "failed and run again, or loosen the thresholds and run again with `ragcard run "
                '--override-thresholds --reason "why"` (who, why and what was loosened are '
                "recorded), then ship that run"
            )
        with self._begin() as conn:
            shipped = _runs.update().values(shipped_by=by, shipped_at=_utc(when or _now()))
            conn.execute(shipped.where(_runs.c.id == entry.id))
        return self.get(entry.id)

    def last_shipped(self, project: str, question_set_sha: str | None = None) -> RunEntry | None:
        """The run most recently shipped for ``project`` (on that question set, when given):
        the one later runs compare against."""
        return self._newest(project, question_set_sha, shipped=True)

    def lock_thresholds(
        self, project: str, question_set_sha: str, thresholds_sha: str, thresholds: _Rows, by: str
    ) -> ThresholdLock:
        """Lock ``thresholds`` for a project's question set. Locking the thresholds already in
        force returns that lock; a different set becomes the new lock, the old ones are kept."""
        _require("by", by)
        current = self.locked_thresholds(project, question_set_sha)
        if current is None or current.thresholds_sha256 != thresholds_sha:
            key = {"project": project, "questions_sha256": question_set_sha}
            lock = {"thresholds_sha256": thresholds_sha, "thresholds": thresholds}
            self._insert(_locks, **key, **lock, locked_by=by, locked_at=_now())
        return self.threshold_locks(project, question_set_sha)[-1]

    def locked_thresholds(self, project: str, question_set_sha: str) -> ThresholdLock | None:
        """The lock in force for a project's question set, or ``None``."""
        locks = self.threshold_locks(project, question_set_sha)
        return locks[-1] if locks else None

    def threshold_locks(self, project: str, question_set_sha: str) -> list[ThresholdLock]:
        """Every lock of a project's question set, oldest first."""
        key = (_locks.c.project == project) & (_locks.c.questions_sha256 == question_set_sha)
        return [ThresholdLock(**r) for r in self._fetch(_locks.select().where(key).order_by("id"))]

    def record_override(self, run_id: str, by: str, reason: str, loosened: _Rows) -> Override:
        """Record who overrode a run's decision, why, and which thresholds they loosened."""
        _require("by", by)
        _require("reason", reason)
        entry = self.get(run_id)
        row = {"by": by, "reason": reason, "loosened": loosened, "at": _now()}
        self._insert(_overrides, run_id=entry.id, **row)
        return self.overrides(entry.id)[-1]

    def overrides(self, run_id: str) -> list[Override]:
        """A run's overrides, oldest first."""
        query = _overrides.select().where(_overrides.c.run_id == self.get(run_id).id)
        return [Override(**r) for r in self._fetch(query.order_by("id"), drop="id")]

    def record_signature(
        self, run_id: str, signer: str, decision: str, signed_at: dt.datetime, digest: str
    ) -> Signature:
        """Record a signature over a run's decision; the same signer and digest record once."""
        _require("signer", signer)
        entry = self.get(run_id)
        row = {"signer": signer, "decision": decision, "signed_at": signed_at, "digest": digest}
        with suppress(IntegrityError):  # signed before: the first record stands
            self._insert(_signatures, run_id=entry.id, **row)
        mine = [s for s in self.signatures(entry.id) if (s.signer, s.digest) == (signer, digest)]
        return mine[0]

    def signatures(self, run_id: str) -> list[Signature]:
        """A run's signatures, oldest first."""
        query = _signatures.select().where(_signatures.c.run_id == self.get(run_id).id)
        return [Signature(**r) for r in self._fetch(query.order_by("id"), drop="id")]

    def _newest(self, project: str, question_set_sha: str | None, shipped: bool) -> RunEntry | None:
        query = sa.select(_runs).where(_runs.c.project == project)
        if question_set_sha is not None:
            query = query.where(_runs.c.questions_sha256 == question_set_sha)
        if shipped:
            query = query.where(_runs.c.shipped_at.is_not(None))
            query = query.order_by(_runs.c.shipped_at.desc())
        rows = self._fetch(query.order_by(*_NEWEST).limit(1))
        return _entry(rows[0]) if rows else None

    def _fetch(self, query: sa.Select[Any], drop: str = "") -> list[dict[str, Any]]:
        with self._begin() as conn:
            rows = conn.execute(query).mappings()
            return [{str(k): _utc(v) for k, v in r.items() if k != drop} for r in rows]

    def _insert(self, table: sa.Table, **row: Any) -> None:
        with self._begin() as conn:
            conn.execute(table.insert().values({k: _utc(v) for k, v in row.items()}))

    @contextmanager
    def _begin(self, write: bool = False) -> Iterator[Connection]:
        try:
            with self._engine.begin() as conn:
                if write:
                    _write_lock(conn)
                if not self._ready:  # first use: create the tables, check the schema version
                    _create_schema(conn)
                    version = conn.execute(sa.select(_info.c.value).where(_info.c.key == "schema"))
                    if int(version.scalar() or SCHEMA_VERSION) > SCHEMA_VERSION:
                        raise ConfigError(f"the history at {self.url} is newer; upgrade ragcard")
                yield conn
            self._ready = True
        except OperationalError as error:
            raise ConfigError(f"cannot use the history at {self.url}: {error.orig}") from None


_NEWEST = (_runs.c.created_at.desc(), _runs.c.id.desc())
#: PostgreSQL advisory lock held while the schema is created (any constant; "ragcard").
_SCHEMA_LOCK = 0x7261_6763_6172_64


#: PostgreSQL advisory lock of a ``write`` transaction (any constant; "rcwrite").
_WRITE_LOCK = 0x7263_7772_6974_65


def _write_lock(conn: Connection) -> None:
    """Take the database's write lock at the start of ``conn``'s transaction (SQLite waits
    for it up to the engine's 30 s timeout)."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    elif conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _WRITE_LOCK})


def create_tables(conn: Connection, meta: sa.MetaData) -> None:
    """Create ``meta``'s missing tables and indexes, safe when many processes use a new
    history at once: every statement is ``IF NOT EXISTS`` (a check-then-create would fail
    with "table … already exists" when another process created it in between); on
    PostgreSQL (where two concurrent ``CREATE TABLE IF NOT EXISTS`` can still collide in its
    catalogue) the creation runs under a transaction-wide advisory lock."""
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})
    for table in meta.sorted_tables:
        conn.execute(CreateTable(table, if_not_exists=True))
        for index in sorted(table.indexes, key=lambda index: str(index.name)):
            conn.execute(CreateIndex(index, if_not_exists=True))


def _create_schema(conn: Connection) -> None:
    """Create what is missing (:func:`create_tables`); the schema row is an insert that
    ignores a conflict."""
    create_tables(conn, _meta)
    insert = sqlite_insert if conn.dialect.name == "sqlite" else postgresql_insert
    row = {"key": "schema", "value": str(SCHEMA_VERSION)}
    conn.execute(insert(_info).values(**row).on_conflict_do_nothing(index_elements=["key"]))


def _create_engine(url: str) -> Engine:
    if "://" not in url:  # a plain file path
        url = f"sqlite:///{Path(url).expanduser().resolve()}"
    elif url.startswith(("postgresql://", "postgres://")):  # psycopg 3, not psycopg2
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    try:
        parsed = sa.make_url(url)
    except ArgumentError:
        parsed = None
    if parsed is None or parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise ConfigError(
            f"history '{url}' is not a SQLite or PostgreSQL URL — use sqlite:///path/"
            f"{HISTORY_FILE} or postgresql+psycopg://user:password@host:port/database"
        )
    # SQLite: wait (up to 30 s) for another process's write instead of failing at once
    options = {"connect_args": {"timeout": 30}} if parsed.get_backend_name() == "sqlite" else {}
    try:
        return scrubbing(sa.create_engine(parsed, **options))  # no secret is stored
    except ImportError as error:  # only PostgreSQL has a driver that may be missing
        raise MissingExtraError("psycopg", "postgres", "A PostgreSQL history") from error


def _run_row(scorecard: Mapping[str, Any], out_dir: Path) -> dict[str, Any]:
    where, fix = str(out_dir / "scorecard.json"), "pass the scorecard.json of a ragcard run"
    required = ("project", "created_at", "decision", "config.questions.sha256")
    found = {name: _dig(scorecard, name) for name in required}
    problems = [Problem(where, None, n, "missing", fix=fix) for n, v in found.items() if not v]
    try:
        created = dt.datetime.fromisoformat(str(found["created_at"] or "0001-01-01"))
    except ValueError:
        problems.append(Problem(where, None, "created_at", "not an ISO time", found["created_at"]))
    if problems:
        raise InputError(problems, f"{where} is not a ragcard scorecard")
    config = scorecard["config"]
    corpus, thresholds = config.get("corpus", {}), config.get("thresholds", {})
    return {
        "id": run_id(scorecard), "project": str(scorecard["project"]), "created_at": created,
        "out_dir": str(out_dir.resolve()), "decision": str(scorecard["decision"]),
        "questions_sha256": found["config.questions.sha256"],
        "corpus_version": corpus.get("version"), "corpus_sha256": corpus.get("sha256"),
        "thresholds_sha256": thresholds.get("sha256"), "config": config,
        "metrics": scorecard.get("metrics", {}), "recorded_at": _now(),
    }  # fmt: skip


def _dig(data: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        data = data.get(key) if isinstance(data, Mapping) else None
    return data


def _entry(row: dict[str, Any]) -> RunEntry:
    return RunEntry(**{**row, "out_dir": Path(row["out_dir"])})


def _utc(value: _T) -> _T:
    """A datetime in aware UTC (a naive one is taken as UTC, as ragcard writes); others as is."""
    if not isinstance(value, dt.datetime):
        return value
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _require(field: str, value: str) -> None:
    if not value or not value.strip():
        raise ConfigError(f"'{field}' is empty — governance records say who did it and why")
