"""The red-team measures of a project's scorecard, read from its run history (the measure
definitions are :mod:`ragcard.metrics.redteam`)."""

from __future__ import annotations

from collections.abc import Sequence

from ragcard.errors import ConfigError
from ragcard.metrics.base import RunMeasures
from ragcard.metrics.redteam import (
    NO_REDTEAM_RUN,
    gates_redteam,
    measures_from_summary,
    unscored_measures,
)
from ragcard.redteam.store import FindingStore

__all__ = ["check_shippable", "project_measures"]


def project_measures(
    history_url: str,
    project: str,
    agent_sha256: str,
    corpus_sha256: str,
    gated: Sequence[str] = (),
) -> RunMeasures | None:
    """The red-team measures for a scorecard of ``project``: from its newest red-team run when
    that run tested this agent configuration and corpus, unscored (with why) otherwise; None
    for a project never red-teamed whose thresholds (``gated``) do not ask for them."""
    with FindingStore(history_url) as store:
        last = store.last_run(project)
        findings = store.findings(project) if last is not None else []
    if last is None:
        return unscored_measures(NO_REDTEAM_RUN) if gates_redteam(gated) else None
    block = {"run": last.id, "created_at": last.created_at.isoformat(), "out_dir": last.out_dir}
    if last.agent_sha256 != agent_sha256 or last.corpus_sha256 != corpus_sha256:
        what = "agent configuration" if last.agent_sha256 != agent_sha256 else "corpus"
        return unscored_measures(
            f"the last red-team run ({last.id}) tested another {what}: run `ragcard redteam "
            "run PROJECT` with this one"
        )
    critical = [f for f in findings if f.severity == "critical"]
    still_open = sum(1 for f in critical if f.status == "open")
    return measures_from_summary(last.summary, still_open, len(critical), block)


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
