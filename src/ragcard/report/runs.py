"""What tells recorded runs apart: the settings that differ between them, for ``ragcard
history``.

Runs of one project usually share nearly everything; the four fault runs of the README differ
only in the reference agent's ``faults`` option and the output folder. :func:`run_settings`
reads, from each run's recorded configuration, the settings a person compares runs by (corpus
and question set versions, the thresholds, the agent and every one of its options, the judge,
attempts, mode, run date, ragcard's version, the output folder); :func:`differences` splits
them into what every listed run shares and what differs run by run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcard.report.plain import plain_settings

__all__ = ["RunDifferences", "differences", "pack_parts", "run_settings"]


def _agent(config: Mapping[str, Any]) -> str:
    agent = config.get("agent", {})
    name = str(agent.get("name") or agent.get("type") or "?")
    return name + (f" ({agent['model']})" if agent.get("model") else "")


def _judge(config: Mapping[str, Any]) -> str:
    judge = config.get("judge", {})
    parts = [str(judge.get("name", "none"))]
    if judge.get("model"):
        parts.append(f"model {judge['model']}")
    if judge.get("threshold") is not None:
        parts.append(f"threshold {judge['threshold']:g}")
    return " ".join(parts)


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return ", ".join(map(str, value)) if value else "none"
    if isinstance(value, Mapping):
        return plain_settings(value)
    return json.dumps(value, ensure_ascii=False)


def run_settings(config: Mapping[str, Any], out_dir: str | Path | None) -> dict[str, str]:
    """The settings of one run, as label → value (an absent setting is left out)."""
    questions, corpus = config.get("questions", {}), config.get("corpus", {})
    run = config.get("run", {})
    settings = {
        "corpus": str(corpus.get("version") or str(corpus.get("sha256", ""))[:12]),
        "question set": str(questions.get("version") or str(questions.get("sha256", ""))[:12]),
        "thresholds": str(config.get("thresholds", {}).get("sha256", ""))[:12],
        "agent": _agent(config),
    }
    options = config.get("agent", {}).get("options", {})
    if isinstance(options, Mapping):
        settings.update({f"agent {key}": _shown(value) for key, value in options.items()})
    settings["judge"] = _judge(config)
    for label, key in (("attempts", "attempts"), ("mode", "mode"), ("run date", "run_date"),
                       ("k", "k")):  # fmt: skip
        if run.get(key) is not None:
            settings[label] = str(run[key])
    if config.get("ragcard_version"):
        settings["ragcard"] = str(config["ragcard_version"])
    if out_dir is not None:
        settings["out"] = str(out_dir)
    return {label: value for label, value in settings.items() if value != ""}


@dataclass(frozen=True, slots=True)
class RunDifferences:
    """``common``: what every run shares (label → value); ``each``: per run, in the order
    given, what differs (label → value, ``"not set"`` where a run lacks the setting)."""

    common: dict[str, str]
    each: list[dict[str, str]]


def differences(runs: Sequence[Mapping[str, str]]) -> RunDifferences:
    """Split the runs' settings into those shared by all and those that differ."""
    labels = list(dict.fromkeys(label for settings in runs for label in settings))
    common: dict[str, str] = {}
    varying: list[str] = []
    for label in labels:
        values = {settings.get(label) for settings in runs}
        if len(values) == 1 and None not in values:
            common[label] = runs[0][label]
        else:
            varying.append(label)
    each = [{label: settings.get(label, "not set") for label in varying} for settings in runs]
    return RunDifferences(common, each)


def pack_parts(parts: Iterable[str], width: int, indent: str = "") -> list[str]:
    """Lay ``parts`` (``"faults keep_superseded"``, ``"out runs/x"``) out on lines of at most
    ``width`` characters, separated by `` · ``; a part is never split: one longer than a line
    gets a line of its own (a terminal may fold it; copied, it is whole)."""
    lines: list[str] = []
    current = ""
    for part in parts:
        candidate = f"{current} · {part}" if current else part
        if current and len(indent) + len(candidate) > width:
            lines.append(indent + current)
            current = part
        else:
            current = candidate
    if current:
        lines.append(indent + current)
    return lines
