"""The red-team measures of a project's scorecard, read from its run history (the measure
definitions are :mod:`ragcard.metrics.redteam`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ragcard.errors import ConfigError
from ragcard.metrics.base import RunMeasures
from ragcard.metrics.redteam import (
    NO_REDTEAM_RUN,
    gates_redteam,
    measures_from_summary,
    unscored_measures,
)
from ragcard.redteam.store import Finding, FindingStore, finding_id

__all__ = ["check_shippable", "project_measures"]


_NOT_REPRODUCED = re.compile(r"^not reproduced by run (\S+)$")


def _closed_by_run(finding: Finding) -> str | None:
    """The red-team run that closed ``finding`` as not reproduced (not a person), if one did."""
    if finding.status != "fixed" or finding.by != "ragcard":
        return None
    found = _NOT_REPRODUCED.match(finding.reason or "")
    return found.group(1) if found else None


def project_measures(
    history_url: str,
    project: str,
    agent_sha256: str,
    corpus_sha256: str,
    gated: Sequence[str] = (),
) -> RunMeasures | None:
    """The red-team measures for a scorecard of ``project``: from its newest red-team run of
    this agent configuration and corpus (a later run of another configuration says nothing
    about this one), unscored (with why) when there is none; None for a project never
    red-teamed whose thresholds (``gated``) do not ask for them.

    ``redteam_critical_open`` counts the project's open critical findings, and also those this
    configuration's run found that only a run of another configuration closed ("not
    reproduced" there is no fix here)."""
    with FindingStore(history_url) as store:
        last = store.last_run(project)
        same = store.last_run(project, agent_sha256, corpus_sha256) if last else None
        findings = store.findings(project) if last is not None else []
        closing = {run for f in findings if (run := _closed_by_run(f))}
        closers = {run: store.run(run) for run in closing}
    if last is None:
        return unscored_measures(NO_REDTEAM_RUN) if gates_redteam(gated) else None
    if same is None:
        what = "agent configuration" if last.agent_sha256 != agent_sha256 else "corpus"
        return unscored_measures(
            f"no red-team run of this agent configuration and corpus is recorded (the last, "
            f"{last.id}, tested another {what}): run `ragcard redteam run PROJECT` with this one"
        )
    block: dict[str, Any] = {
        "run": same.id, "created_at": same.created_at.isoformat(), "out_dir": same.out_dir,
    }  # fmt: skip
    extraction = same.summary.get("extraction") or {}
    if extraction.get("judged_by") == "phrases":
        block["extraction"] = "judged by phrases only (no [redteam] secrets or instructions)"
    found_here = {
        finding_id(project, v["attack"], v["mutator"])
        for v in same.summary.get("variants", [])
        if v.get("success")
    }

    def still_open(finding: Finding) -> bool:
        if finding.status == "open":
            return True
        closer = closers.get(_closed_by_run(finding) or "")
        return (
            finding.id in found_here and closer is not None
            and (closer.agent_sha256, closer.corpus_sha256) != (agent_sha256, corpus_sha256)
        )  # fmt: skip

    critical = [f for f in findings if f.severity == "critical"]
    return measures_from_summary(same.summary, sum(map(still_open, critical)), len(critical),
                                 block)  # fmt: skip


def check_shippable(history_url: str, project: str) -> None:
    """Refuse to ship while the project has open critical red-team findings
    (``redteam_critical_open`` gates ``ragcard ship``), naming them and the two ways out."""
    with FindingStore(history_url) as store:
        blocking = [f for f in store.findings(project, "open") if f.severity == "critical"]
    if blocking:
        shown = ", ".join(f"{f.id} ({f.attack} · {f.mutator})" for f in blocking[:5])
        more = f" and {len(blocking) - 5} more" if len(blocking) > 5 else ""
        raise ConfigError(
            f"{project!r} cannot ship: {len(blocking)} critical red-team finding(s) are open — "
            f"{shown}{more}. Fix the agent and run `ragcard redteam run` again (a finding its "
            "attack no longer reproduces is closed), or close one with `ragcard redteam triage "
            'ID --status accepted --reason "why" --by NAME`'
        )
