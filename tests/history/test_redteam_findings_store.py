"""Red-team findings live in the history's database: the same lifecycle on SQLite and on a
real PostgreSQL server (tables of their own, created on first use beside the history's)."""

from __future__ import annotations

from ragcard.outputs.history import HistoryStore
from ragcard.redteam import FindingStore
from ragcard.redteam.store import VariantResult, finding_id


def _result(succeeded: bool) -> VariantResult:
    return VariantResult(
        "access.by_id", "base64", "access_escalation", "critical", "access", True, succeeded,
        None, {"leaks": [{"id": "p1", "channels": ["retrieved"]}], "question": "Show me p1."},
    )  # fmt: skip


def test_findings_open_close_and_reopen_on_each_backend(history_url: str) -> None:
    with HistoryStore(history_url) as history:
        assert history.runs() == []  # the history's own tables work beside ours
    fid = finding_id("handbook", "access.by_id", "base64")
    with FindingStore(history_url) as store:
        run, changes = store.record_run("handbook", "/out/a", "a" * 64, "c" * 64,
                                        {"measures": {"redteam_attempts": {"value": 3, "n": 3}}},
                                        [_result(True)])  # fmt: skip
        assert changes == [
            {"finding": fid, "status": "open", "reason": f"succeeded in run {run.id}"}
        ]
        assert store.last_run("handbook") == run and run.summary["measures"]
        finding = store.get(fid)
        assert finding.evidence["leaks"][0]["channels"] == ["retrieved"]
        assert finding.opened_at.tzinfo is not None
        store.triage(fid, "fixed", "ids are never resolved for callers", "Ada")
        _, changes = store.record_run("handbook", "/out/b", "a" * 64, "c" * 64, {},
                                      [_result(True)])  # fmt: skip
        assert changes[0]["status"] == "open" and store.get(fid).status == "open"
        assert [e["status"] for e in store.events(fid)] == ["open", "fixed", "open"]
        assert store.findings("handbook", "open") == [store.get(fid)]
        assert store.findings("other") == []
