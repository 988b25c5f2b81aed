"""A project's governance operations: its judge, its inputs, where its history lives, its
frozen configuration, the thresholds lock and the stale check (``ragcard thresholds lock``,
``ragcard stale``)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragcard.decision.governance import changes, declared_inputs, frozen_configuration
from ragcard.inputs.config import Config, load_config
from ragcard.judges.base import Judge
from ragcard.judges.metaeval.calibration import load_calibration, shipped_calibration
from ragcard.judges.registry import AUTO, build_judge, resolve_backend
from ragcard.metrics.base import MetricSpec
from ragcard.outputs.history import HistoryStore, RunEntry, ThresholdLock, default_history_url
from ragcard.pipeline.evaluation import Inputs, load_inputs

__all__ = [
    "build_run_judge",
    "freeze",
    "judge_from_spec",
    "load_project_inputs",
    "lock_project_thresholds",
    "project_history_url",
    "stale_inputs",
]


# [judge] keys that name files (``cache`` may also be true/false; ``weights``: ensemble).
_JUDGE_PATHS = ("cache", "model_path", "weights")


def build_run_judge(config: Config) -> Judge | None:
    """The judge named in ``[judge]`` (see :func:`judge_from_spec`), or None: there is no
    hidden default judge. Relative file paths in the table are the project's."""
    if not config.judge:
        return None
    spec = dict(config.judge)
    for key in (*_JUDGE_PATHS, "calibration"):  # a relative path is the project's, not the shell's
        if isinstance(spec.get(key), str) and spec[key] != ":memory:":
            spec[key] = str(config.resolve(str(Path(spec[key]).expanduser())))
    return judge_from_spec(spec)


def judge_from_spec(spec: dict[str, Any]) -> Judge:
    """The judge a ``[judge]`` table (or ``ragcard score --judge``) describes, with its
    calibration. ``calibration = "file.json"`` (from ``ragcard judges evaluate --save``) says
    how it agrees with human labels; without it a built-in judge configured exactly as
    ragcard's developers measured it carries their measurement, any other is uncalibrated.
    ``backend = "auto"`` builds ``ensemble`` or ``lexical`` (whichever is installed); the
    identity recorded is that judge's, with ``settings.requested = "auto"``."""
    spec = dict(spec)
    path = spec.pop("calibration", None)
    requested = spec.get("backend")
    judge = build_judge(resolve_backend(spec))
    record = load_calibration(Path(str(path))) if path else shipped_calibration(judge.identity)
    changes: dict[str, Any] = {}
    if record is not None:
        changes["calibration"] = record
    if requested == AUTO:  # after the calibration lookup, which compares settings
        changes["settings"] = {**judge.identity.settings, "requested": AUTO}
    if changes:
        judge.identity = dataclasses.replace(judge.identity, **changes)
    return judge


def load_project_inputs(config: Config, specs: Mapping[str, MetricSpec] | None = None) -> Inputs:
    """The question set, corpus and thresholds a project names (with ``specs``, the run's
    measures, each threshold's measure checked too), every problem listed together."""
    return load_inputs(
        config.resolve(config.project.questions),
        config.resolve(config.project.corpus),
        config.resolve(config.project.thresholds),
        question_set_version=config.project.question_set_version,
        corpus_version=config.project.corpus_version,
        non_abstaining_flags=config.run.non_abstaining_flags,
        specs=specs,
    )


def project_history_url(config: Config) -> str:
    """``$RAGCARD_HISTORY_URL`` > ``[history] url`` > the project's SQLite file."""
    return (
        os.environ.get("RAGCARD_HISTORY_URL")
        or config.history.url
        or (default_history_url(config.base_dir))
    )


def freeze(
    config: Config, inputs: Inputs, judge: Judge | None, declared: dict[str, str]
) -> dict[str, Any]:
    """The frozen configuration of a project as it stands (``ragcard stale`` compares two)."""
    return frozen_configuration(
        questions={"sha256": inputs.questions.sha256, "version": inputs.question_set_version},
        corpus={"sha256": inputs.corpus.sha256, "version": inputs.corpus_version},
        thresholds={"sha256": inputs.thresholds.sha256},
        agent_config=config.agent,
        agent_settings={},
        inputs=declared,
        judge=judge.identity.to_json() if judge else {"name": "none"},
        run={
            "k": config.run.k,
            "attempts": config.run.attempts,
            "run_date": config.run.run_date.isoformat() if config.run.run_date else None,
        },
    )


def lock_project_thresholds(
    config_path: str | Path, by: str, history_url: str | None = None
) -> ThresholdLock:
    """Record the project's thresholds file (hash, content, who, when) as locked for its
    question set: later runs with looser thresholds are refused."""
    config = load_config(config_path)
    inputs = load_project_inputs(config)
    with HistoryStore(history_url or project_history_url(config)) as store:
        return store.lock_thresholds(
            config.project.name,
            inputs.questions.sha256,
            inputs.thresholds.sha256,
            [t.model_dump() for t in inputs.thresholds.items],
            by,
        )


def stale_inputs(
    config_path: str | Path, history_url: str | None = None
) -> tuple[RunEntry | None, list[str]]:
    """What changed in the frozen inputs since the project's last recorded run (``ragcard
    stale``). Agent settings reported only in responses are not compared: declare prompt,
    policy and canned-reply files under ``[project] inputs`` so that their changes show."""
    config = load_config(config_path)
    inputs = load_project_inputs(config)
    declared = declared_inputs({n: config.resolve(n) for n in config.project.inputs})
    current = freeze(config, inputs, build_run_judge(config), declared)
    with HistoryStore(history_url or project_history_url(config)) as store:
        last = store.last_run(config.project.name)
    if last is None:
        return None, ["no run of this project is recorded: run `ragcard run` first"]
    frozen = last.config.get("frozen")
    if not frozen:
        return last, ["the last run recorded no frozen configuration: run again"]
    return last, changes(frozen, current, ignore=("agent_settings",))
