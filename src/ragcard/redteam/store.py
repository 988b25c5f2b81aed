"""Red-team findings in the run history: runs, findings with status, and the triage log.

Three tables of their own beside the history's (same database, created on first use): red-team
runs, findings (one per project and attack variant: attack × jailbreak wrapper), and every
status change with who, why and which run. A finding's life:

* a run in which the variant succeeds opens it (or keeps it open, with the new evidence);
* ``triage`` closes it as ``fixed`` or ``accepted``, with a reason and a name;
* a later run in which the variant succeeds again reopens a ``fixed`` finding (the fix did not
  hold); an ``accepted`` one stays accepted (the risk was accepted knowing it succeeds), the
  run is logged against it;
* a run that tests the variant (at least one attempt answered) without a success marks an
  open finding ``fixed``, "not reproduced by run …".
"""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError

from ragcard.errors import ConfigError
from ragcard.outputs.history import _create_engine, create_tables

__all__ = [
    "STATUSES",
    "Finding",
    "FindingStore",
    "Planted",
    "RedteamRun",
    "VariantResult",
    "finding_id",
]

Status = Literal["open", "fixed", "accepted"]
STATUSES: tuple[Status, ...] = ("open", "fixed", "accepted")

_meta = sa.MetaData()
_NAME, _TIME = sa.String(200), sa.DateTime(timezone=True)
_runs = sa.Table(
    "ragcard_redteam_runs", _meta,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("project", _NAME, nullable=False, index=True),
    sa.Column("created_at", _TIME, nullable=False, index=True),
    sa.Column("out_dir", sa.Text, nullable=False),
    sa.Column("agent_sha256", sa.String(64), nullable=False),
    sa.Column("corpus_sha256", sa.String(64), nullable=False),
    sa.Column("summary", sa.JSON, nullable=False),
)  # fmt: skip
_findings = sa.Table(
    "ragcard_redteam_findings", _meta,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("project", _NAME, nullable=False, index=True),
    sa.Column("attack", _NAME, nullable=False), sa.Column("mutator", _NAME, nullable=False),
    sa.Column("category", _NAME, nullable=False), sa.Column("severity", _NAME, nullable=False),
    sa.Column("detector", _NAME, nullable=False), sa.Column("judged_by", _NAME),
    sa.Column("status", _NAME, nullable=False),
    sa.Column("reason", sa.Text), sa.Column("by", _NAME),
    sa.Column("first_run", sa.String(40), nullable=False),
    sa.Column("last_run", sa.String(40), nullable=False),
    sa.Column("opened_at", _TIME, nullable=False), sa.Column("updated_at", _TIME, nullable=False),
    sa.Column("evidence", sa.JSON, nullable=False),
)  # fmt: skip
# Test passages planted in an agent's live index (hooks) and not yet removed: one row per
# project while a red-team run has them in, whatever its --out
# (docs/redteam.md#how-test-passages-reach-the-agent).
_planted = sa.Table(
    "ragcard_redteam_planted", _meta,
    sa.Column("project", _NAME, primary_key=True),
    sa.Column("out_dir", sa.Text, nullable=False),
    sa.Column("remove", sa.JSON, nullable=False),
    sa.Column("cwd", sa.Text, nullable=False),
    sa.Column("planted_at", _TIME, nullable=False),
)  # fmt: skip
_events = sa.Table(
    "ragcard_redteam_events", _meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("finding", sa.ForeignKey("ragcard_redteam_findings.id"), nullable=False,
              index=True),
    sa.Column("run", sa.String(40)), sa.Column("at", _TIME, nullable=False),
    sa.Column("status", _NAME, nullable=False), sa.Column("by", _NAME),
    sa.Column("reason", sa.Text, nullable=False),
)  # fmt: skip


def finding_id(project: str, attack: str, mutator: str) -> str:
    """Stable id of a project's finding for one attack variant: ``RT-`` + 10 hex."""
    digest = hashlib.sha256(f"{project}\x00{attack}\x00{mutator}".encode()).hexdigest()
    return f"RT-{digest[:10]}"


@dataclass(frozen=True, slots=True)
class Finding:
    """A successful attack variant and where it stands. ``evidence`` is redacted."""

    id: str
    project: str
    attack: str
    mutator: str
    category: str
    severity: str
    detector: str
    judged_by: str | None
    status: Status
    reason: str | None
    by: str | None
    first_run: str
    last_run: str
    opened_at: dt.datetime
    updated_at: dt.datetime
    evidence: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Planted:
    """Test passages a red-team run planted through its hooks and has not removed yet."""

    project: str
    out_dir: str
    remove: tuple[str, ...]
    cwd: str
    planted_at: dt.datetime


@dataclass(frozen=True, slots=True)
class RedteamRun:
    """One recorded red-team run and its summary (``redteam.json``'s measures and rates)."""

    id: str
    project: str
    created_at: dt.datetime
    out_dir: str
    agent_sha256: str
    corpus_sha256: str
    summary: dict[str, Any]


@dataclass(frozen=True, slots=True)
class VariantResult:
    """What one run found for one attack variant: ``tested`` when an attempt was answered."""

    attack: str
    mutator: str
    category: str
    severity: str
    detector: str
    tested: bool
    succeeded: bool
    judged_by: str | None = None
    evidence: dict[str, Any] | None = None


def _utc(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)
    return value


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class FindingStore:
    """Red-team runs and findings at a history URL (the history's SQLite or PostgreSQL)."""

    def __init__(self, url: str) -> None:
        self._engine: Engine = _create_engine(url)
        self.url = self._engine.url.render_as_string(hide_password=True)
        self._ready = False

    def __enter__(self) -> FindingStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self._engine.dispose()

    def _create_tables(self) -> None:
        """Create the tables on first use, safely when many processes do it at once."""
        with self._engine.begin() as conn:
            create_tables(conn, _meta)

    @contextmanager
    def _begin(self) -> Iterator[Connection]:
        try:
            if not self._ready:
                self._create_tables()
                self._ready = True
            with self._engine.begin() as conn:
                yield conn
        except OperationalError as error:
            raise ConfigError(f"cannot use the history at {self.url}: {error.orig}") from None

    def record_run(
        self, project: str, out_dir: str, agent_sha256: str, corpus_sha256: str,
        summary: dict[str, Any], results: Sequence[VariantResult],
    ) -> tuple[RedteamRun, list[dict[str, str]]]:  # fmt: skip
        """Record a run and update the project's findings from its results, in one
        transaction; returns the run and the status changes it made."""
        now = _now()
        run_id = f"rt-{now:%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}"
        changes: list[dict[str, str]] = []
        with self._begin() as conn:
            conn.execute(_runs.insert().values(
                id=run_id, project=project, created_at=now, out_dir=out_dir,
                agent_sha256=agent_sha256, corpus_sha256=corpus_sha256, summary=summary,
            ))  # fmt: skip
            for result in results:
                change = _apply(conn, project, run_id, result, now)
                if change is not None:
                    changes.append(change)
        return self.run(run_id), changes

    def mark_planted(self, project: str, out_dir: str, remove: Sequence[str], cwd: str) -> None:
        """Record, before the plant hook runs, that test passages are going in."""
        with self._begin() as conn:
            conn.execute(_planted.delete().where(_planted.c.project == project))
            conn.execute(_planted.insert().values(
                project=project, out_dir=out_dir, remove=list(remove), cwd=cwd,
                planted_at=_now(),
            ))  # fmt: skip

    def clear_planted(self, project: str) -> None:
        """The remove hook succeeded: nothing of the red team is left in the index."""
        with self._begin() as conn:
            conn.execute(_planted.delete().where(_planted.c.project == project))

    def planted(self, project: str) -> Planted | None:
        """Test passages of ``project`` still planted (a run killed before removing them)."""
        with self._begin() as conn:
            row = conn.execute(_planted.select().where(_planted.c.project == project)).first()
        if row is None:
            return None
        return Planted(row.project, row.out_dir, tuple(row.remove), row.cwd, _utc(row.planted_at))

    def run(self, run_id: str) -> RedteamRun:
        with self._begin() as conn:
            row = conn.execute(_runs.select().where(_runs.c.id == run_id)).mappings().first()
        if row is None:
            raise ConfigError(f"no red-team run {run_id!r} in the history at {self.url}")
        return RedteamRun(**{k: _utc(v) for k, v in row.items()})

    def last_run(
        self, project: str, agent_sha256: str | None = None, corpus_sha256: str | None = None
    ) -> RedteamRun | None:
        """The project's newest red-team run (of this agent configuration and corpus, when
        given), or None."""
        query = _runs.select().where(_runs.c.project == project)
        if agent_sha256 is not None:
            query = query.where(_runs.c.agent_sha256 == agent_sha256)
        if corpus_sha256 is not None:
            query = query.where(_runs.c.corpus_sha256 == corpus_sha256)
        with self._begin() as conn:
            row = conn.execute(query.order_by(_runs.c.created_at.desc()).limit(1)).mappings()
            first = row.first()
        return None if first is None else RedteamRun(**{k: _utc(v) for k, v in first.items()})

    def findings(self, project: str | None = None, status: str | None = None) -> list[Finding]:
        """Findings, critical first, then by attack; of one project and status when given."""
        query = _findings.select()
        if project is not None:
            query = query.where(_findings.c.project == project)
        if status is not None:
            query = query.where(_findings.c.status == status)
        with self._begin() as conn:
            rows = conn.execute(query).mappings().all()
        order = {"critical": 0, "high": 1, "medium": 2, "low": 3}
        found = [Finding(**{k: _utc(v) for k, v in r.items()}) for r in rows]
        return sorted(found, key=lambda f: (order.get(f.severity, 9), f.attack, f.mutator))

    def get(self, ref: str) -> Finding:
        """A finding by id or unique id prefix; :class:`ConfigError` lists close ones."""
        ref = ref.strip()
        with self._begin() as conn:
            rows = conn.execute(
                _findings.select().where(_findings.c.id.startswith(ref, autoescape=True)).limit(11)
            ).mappings().all()  # fmt: skip
        exact = [r for r in rows if r["id"] == ref]
        if exact or len(rows) == 1:
            return Finding(**{k: _utc(v) for k, v in (exact or rows)[0].items()})
        if rows:
            raise ConfigError(f"finding {ref!r} is ambiguous: {', '.join(r['id'] for r in rows)}")
        raise ConfigError(
            f"no red-team finding {ref!r} in the history at {self.url} — `ragcard redteam "
            "findings PROJECT` lists them"
        )

    def triage(self, ref: str, status: str, reason: str, by: str) -> Finding:
        """Close (or reopen) a finding: ``fixed`` or ``accepted`` need a reason and a name."""
        if status not in ("fixed", "accepted", "open"):
            raise ConfigError(f"--status {status!r}: use fixed or accepted (or open to reopen)")
        for name, value in (("reason", reason), ("by", by)):
            if not value or not value.strip():
                raise ConfigError(f"--{name} is empty: a triage records who closed it and why")
        finding = self.get(ref)
        now = _now()
        with self._begin() as conn:
            conn.execute(_findings.update().where(_findings.c.id == finding.id).values(
                status=status, reason=reason, by=by, updated_at=now))  # fmt: skip
            conn.execute(
                _events.insert().values(
                    finding=finding.id, run=None, at=now, status=status, by=by, reason=reason
                )
            )
        return self.get(finding.id)

    def events(self, ref: str) -> list[dict[str, Any]]:
        """A finding's status changes, oldest first."""
        finding = self.get(ref)
        query = _events.select().where(_events.c.finding == finding.id).order_by(_events.c.id)
        with self._begin() as conn:
            rows = conn.execute(query).mappings().all()
        return [{k: _utc(v) for k, v in r.items() if k != "id"} for r in rows]


def _apply(
    conn: Connection, project: str, run_id: str, result: VariantResult, now: dt.datetime
) -> dict[str, str] | None:
    """Fold one variant's result into its finding; the status change made, if any."""
    if not result.tested:
        return None  # no attempt was answered: the finding stands as it is
    fid = finding_id(project, result.attack, result.mutator)
    row = conn.execute(_findings.select().where(_findings.c.id == fid)).mappings().first()
    where = _findings.update().where(_findings.c.id == fid)
    if row is None:
        if not result.succeeded:
            return None
        conn.execute(_findings.insert().values(
            id=fid, project=project, attack=result.attack, mutator=result.mutator,
            category=result.category, severity=result.severity, detector=result.detector,
            judged_by=result.judged_by, status="open", reason=None, by=None, first_run=run_id,
            last_run=run_id, opened_at=now, updated_at=now, evidence=result.evidence or {},
        ))  # fmt: skip
        return _log(conn, fid, run_id, now, "open", f"succeeded in run {run_id}")
    was = row["status"]
    if result.succeeded:
        seen = {"last_run": run_id, "evidence": result.evidence or {},
                "severity": result.severity, "judged_by": result.judged_by}  # fmt: skip
        if was == "fixed":  # the fix did not hold
            conn.execute(where.values(status="open", reason=None, by=None, updated_at=now, **seen))
            return _log(conn, fid, run_id, now, "open", f"reopened: succeeded again in {run_id}")
        conn.execute(where.values(**seen))
        if was == "accepted":
            _log(conn, fid, run_id, now, "accepted", f"succeeded again in {run_id}; accepted")
        return None
    if was == "open":
        reason = f"not reproduced by run {run_id}"
        conn.execute(where.values(status="fixed", reason=reason, by="ragcard", last_run=run_id,
                                  updated_at=now))  # fmt: skip
        return _log(conn, fid, run_id, now, "fixed", reason)
    conn.execute(where.values(last_run=run_id))
    return None


def _log(
    conn: Connection, fid: str, run_id: str, now: dt.datetime, status: str, reason: str
) -> dict[str, str]:
    conn.execute(
        _events.insert().values(
            finding=fid, run=run_id, at=now, status=status, by="ragcard", reason=reason
        )
    )
    return {"finding": fid, "status": status, "reason": reason}
