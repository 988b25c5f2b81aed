"""Governance of a run: the frozen configuration, what changed since, and loosened thresholds.

A run freezes every input that decides its result (docs/metrics.md#decision): the question set, the
corpus, the thresholds, the agent's configuration and every setting it reports (model,
prompt/instructions version, chunking, index, retrieval, embeddings, policy rules), declared
input files (instructions, persona prompt, policy rules, canned replies), the judge and
ragcard's version. :func:`frozen_configuration` builds that record with content hashes;
:func:`changes` names what differs between two records (``ragcard stale``);
:func:`loosened` finds thresholds that are looser than a locked set.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragcard import __version__
from ragcard.errors import ConfigError

__all__ = [
    "canonical_hash",
    "check_lock",
    "changes",
    "declared_inputs",
    "frozen_configuration",
    "loosened",
]

_HIGHER = {">=", ">"}
_LOWER = {"<=", "<"}


def canonical_hash(value: Any) -> str:
    """sha256 of the canonical JSON of ``value`` (sorted keys, no whitespace)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def declared_inputs(paths: Mapping[str, Path], missing_ok: bool = False) -> dict[str, str]:
    """sha256 of each declared input file, keyed by its name as declared (relative to the
    project, so hashes compare across checkouts); a missing file is a :class:`ConfigError`
    (with ``missing_ok``, it is left out)."""
    hashes: dict[str, str] = {}
    missing = []
    for name, path in paths.items():
        try:
            hashes[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        except FileNotFoundError:
            missing.append(str(path))
    if missing and not missing_ok:
        raise ConfigError(
            "declared input(s) missing: "
            + ", ".join(missing)
            + " — restore them or remove them from [project] inputs in ragcard.toml"
        )
    return hashes


def frozen_configuration(
    *,
    questions: Mapping[str, Any],
    corpus: Mapping[str, Any],
    thresholds: Mapping[str, Any],
    agent_config: Mapping[str, Any],
    agent_settings: Mapping[str, Any],
    inputs: Mapping[str, str],
    judge: Mapping[str, Any],
    run: Mapping[str, Any],
) -> dict[str, Any]:
    """The record of everything a run depends on, each part with its hash."""
    record: dict[str, Any] = {
        "questions": dict(questions),
        "corpus": dict(corpus),
        "thresholds": dict(thresholds),
        "agent_config": {"sha256": canonical_hash(agent_config), "value": dict(agent_config)},
        "agent_settings": {"sha256": canonical_hash(agent_settings), "value": dict(agent_settings)},
        "inputs": dict(inputs),
        "judge": dict(judge),
        "run": dict(run),
        "ragcard_version": __version__,
    }
    record["sha256"] = canonical_hash({k: v for k, v in record.items() if k != "sha256"})
    return record


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: value}


_IGNORED = ("questions.path", "corpus.path", "thresholds.path", "sha256")
_LABELS = {
    "questions.sha256": "question set",
    "corpus.sha256": "corpus manifest",
    "corpus.version": "corpus version",
    "thresholds.sha256": "thresholds file",
    "ragcard_version": "ragcard version",
    "judge": "judge",
}


def changes(
    before: Mapping[str, Any], after: Mapping[str, Any], ignore: Sequence[str] = ()
) -> list[str]:
    """Human-readable differences between two frozen configurations (parts whose key starts
    with one of ``ignore`` are skipped)."""
    old, new = _flatten(before), _flatten(after)
    found = []
    judge = _judge_change(before.get("judge"), after.get("judge"), old, new)
    if judge is not None and not any("judge".startswith(prefix) for prefix in ignore):
        found.append(judge)
    for key in sorted(set(old) | set(new)):
        if key in _IGNORED or key.endswith(".sha256") and key.startswith("agent_"):
            continue
        if key == "judge" or key.startswith("judge."):
            continue  # summarised in one line above
        if any(key.startswith(prefix) for prefix in ignore):
            continue
        if old.get(key) != new.get(key):
            label = _LABELS.get(key) or key.replace("agent_settings.value.", "agent setting ")
            label = label.replace("agent_config.value.", "agent configuration ")
            label = label.replace("inputs.", "declared input ")
            if key.startswith("inputs."):
                state = "added" if key not in old else "removed" if key not in new else "changed"
                found.append(f"{label} {state}")
            else:
                found.append(f"{label}: {_show(old.get(key))} → {_show(new.get(key))}")
    return found


def _judge_change(
    before: Any, after: Any, old: Mapping[str, Any], new: Mapping[str, Any]
) -> str | None:
    """A changed judge in one line: its name (and model) before and after, and which of its
    settings changed — not one line per calibration figure."""
    keys = sorted(
        k
        for k in set(old) | set(new)
        if (k == "judge" or k.startswith("judge.")) and old.get(k) != new.get(k)
    )
    if not keys:
        return None

    def name(judge: Any) -> str:
        if not isinstance(judge, Mapping):
            return "(none)"
        model = f" ({judge['model']})" if judge.get("model") else ""
        return f"{judge.get('name', '?')}{model}"

    parts = sorted({k.split(".")[2] if k.startswith("judge.settings.") and k.count(".") >= 2
                    else k.split(".")[1] if "." in k else "judge" for k in keys})  # fmt: skip
    shown = ", ".join(parts[:6]) + (f" and {len(parts) - 6} more" if len(parts) > 6 else "")
    return f"judge: {name(before)} → {name(after)} ({shown} changed)"


def _show(value: Any) -> str:
    if value is None:
        return "(none)"
    text = str(value)
    return (
        text[:12]
        if len(text) == 64 and all(c in "0123456789abcdef" for c in text)
        else (text if len(text) <= 60 else text[:57] + "...")
    )


def check_lock(
    locked: Sequence[Mapping[str, Any]] | None,
    current: Sequence[Mapping[str, Any]],
    override_reason: str | None,
    locked_by: str = "",
) -> list[dict[str, Any]]:
    """Refuse (``ConfigError``) thresholds looser than the locked ones unless the run is
    overridden with a reason; return the loosenings that the override lets through."""
    found = loosened(locked or [], current)
    if found and not (override_reason and override_reason.strip()):
        lines = "\n".join(f"  {f['measure']}: {f['change']}" for f in found)
        who = f" by {locked_by}" if locked_by else ""
        raise ConfigError(
            f"these thresholds are looser than the ones locked{who} for this question set:"
            f"\n{lines}\nrestore them, or run with --override-thresholds "
            '--reason "…" (the loosening is then printed in red on the scorecard)'
        )
    return found


def loosened(
    locked: Sequence[Mapping[str, Any]], current: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Locked thresholds that ``current`` loosens: lowered (for a higher-is-better
    comparison), raised (lower-is-better), demoted from must-pass to graded, or removed.
    Raising the bar is always allowed."""
    by_measure = {t["measure"]: t for t in current}
    found = []
    for old in locked:
        new = by_measure.get(old["measure"])
        if new is None:
            found.append({"measure": old["measure"], "change": "removed", "locked": dict(old)})
            continue
        reasons = []
        if old["type"] == "must-pass" and new["type"] != "must-pass":
            reasons.append("demoted from must-pass to graded")
        if old["comparison"] in _HIGHER and float(new["value"]) < float(old["value"]):
            reasons.append(f"lowered from {old['value']:g} to {new['value']:g}")
        if old["comparison"] in _LOWER and float(new["value"]) > float(old["value"]):
            reasons.append(f"raised from {old['value']:g} to {new['value']:g}")
        if old["comparison"] != new["comparison"] and not (
            {old["comparison"], new["comparison"]} <= _HIGHER
            or {old["comparison"], new["comparison"]} <= _LOWER
        ):
            reasons.append(f"comparison changed from {old['comparison']} to {new['comparison']}")
        if old["comparison"] == "==" and float(new["value"]) != float(old["value"]):
            reasons.append(f"changed from {old['value']:g} to {new['value']:g}")
        if reasons:
            found.append(
                {
                    "measure": old["measure"],
                    "change": "; ".join(reasons),
                    "locked": dict(old),
                    "current": dict(new),
                }
            )
    return found
