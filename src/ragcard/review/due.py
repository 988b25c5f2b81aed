"""When a blind review is due again (``ragcard stale``): the persona kit repeats the review for
every release that changes the corpus, the prompt or the model.

A review is due when the project's thresholds gate a review measure and no review is recorded,
or when the corpus, a declared input (prompts, policy rules), the agent's configuration, or
the model or prompt version the agent reports differs from the run last reviewed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragcard.decision.governance import changes, declared_inputs
from ragcard.inputs.config import load_config
from ragcard.metrics.base import parse_metric_name
from ragcard.metrics.recorded import RECORDED_SPECS
from ragcard.outputs.history import HistoryStore
from ragcard.pipeline.project import (
    build_run_judge,
    freeze,
    load_project_inputs,
    project_history_url,
)
from ragcard.review.records import project_reviews

__all__ = ["review_due"]

_REVIEWED_PARTS = ("corpus", "inputs", "agent_config")
_REPORTED = ("model", "prompt_version")


def _gated(measures: list[str]) -> bool:
    return any(parse_metric_name(m)[0] in RECORDED_SPECS for m in measures)


def _subset(frozen: dict[str, Any]) -> dict[str, Any]:
    return {part: frozen.get(part) for part in _REVIEWED_PARTS}


def review_due(config_path: str | Path, history_url: str | None = None) -> list[str]:
    """Why a blind review is due for the project (empty when none is)."""
    config = load_config(config_path)
    inputs = load_project_inputs(config)
    gated = _gated([t.measure for t in inputs.thresholds.items])
    with HistoryStore(history_url or project_history_url(config)) as store:
        reviews = project_reviews(store, config.project.name)
        if not reviews:
            if not gated:
                return []
            return ["blind review due: the thresholds gate review measures and no review of "
                    "this project is recorded (`ragcard review make RUN`)"]  # fmt: skip
        latest = reviews[0]
        reviewed = store.get(latest["run_id"])
        newest = store.last_run(config.project.name)
    declared = declared_inputs({n: config.resolve(n) for n in config.project.inputs}, True)
    current = freeze(config, inputs, build_run_judge(config), declared)
    where = f"since the review of run {reviewed.id} (packet {latest['packet_id']})"
    found = [
        f"blind review due: {change} {where}"
        for change in changes(_subset(latest.get("frozen") or {}), _subset(current))
    ]
    agent_then = reviewed.config.get("agent", {})
    agent_now = newest.config.get("agent", {}) if newest else {}
    for field in _REPORTED:
        if agent_now.get(field) != agent_then.get(field):
            run = newest.id if newest else "?"
            found.append(
                f"blind review due: the agent's {field.replace('_', ' ')} changed "
                f"({agent_then.get(field)} → {agent_now.get(field)}, run {run}) {where}"
            )
    return found
