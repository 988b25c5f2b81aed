"""A judge's calibration record: its agreement with human labels, saved as JSON and shown on
scorecards as one line ("judge: lexical · κ 0.41 vs 358 human labels (WiCE)").

The record is self-describing: the judge's identity, the date, and per dataset the number of
examples reported, how the threshold was chosen and on which part, every metric with its
interval, the confusion matrix, the published reference figures, and the data's licence and
credit (some sets, like FaithBench, are non-commercial: evaluation only).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from ragcard import __version__
from ragcard.errors import ConfigError
from ragcard.judges.base import JudgeIdentity
from ragcard.judges.metaeval.evaluate import DatasetReport, MetaEvaluation
from ragcard.outputs._writing import write_atomic
from ragcard.report.kappa import with_kappa_reading

__all__ = [
    "CALIBRATION_SCHEMA",
    "calibration_line",
    "load_calibration",
    "save_calibration",
    "shipped_calibration",
    "to_calibration",
]

CALIBRATION_SCHEMA = "ragcard.judge-calibration/1"
_SHORT_NAMES = {"wice": "WiCE", "wice-100": "WiCE 100", "begin": "BEGIN",
                "faithbench": "FaithBench"}  # fmt: skip


def _report_json(report: DatasetReport) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": report.name,
        "title": report.title,
        "n": report.n_reported,
        "judge_failures": report.failures,
        "split": report.split_rule,
        "threshold": {
            "mode": report.threshold.mode,
            "value": report.threshold.value,
            "source": report.threshold.source,
            "tuned_on_n": report.threshold.tuned_on,
        },
        "metrics": {name: m.to_json() for name, m in report.metrics.items()},
        "confusion": {"positive_class": "supported", **report.confusion},
    }
    if report.dataset is not None:
        data["licence"] = report.dataset.licence
        data["credit"] = report.dataset.credit
        data["notes"] = list(report.dataset.notes)
        data["references"] = [
            {
                "system": r.system,
                "metrics": r.metrics,
                "population": r.population,
                "source": r.source,
            }  # fmt: skip
            for r in report.dataset.references
        ]
    return data


def to_calibration(evaluation: MetaEvaluation) -> dict[str, Any]:
    """The JSON-ready calibration record of a meta-evaluation (of support: what scorecards
    show as a judge's calibration)."""
    if evaluation.task != "support":
        raise ConfigError(
            f"a calibration is the judge's agreement on support; this evaluation is of "
            f"{evaluation.task}: its figures are printed, not saved (drop --save)"
        )
    return {
        "schema": CALIBRATION_SCHEMA,
        "ragcard_version": __version__,
        "date": evaluation.date,
        "judge": evaluation.judge.to_json(),
        "datasets": [_report_json(report) for report in evaluation.reports],
        "overall": _report_json(evaluation.overall) if evaluation.overall else None,
        "notes": list(evaluation.notes),
    }


def load_calibration(path: Path) -> dict[str, Any]:
    """Read a calibration record written by ``ragcard judges evaluate --save``."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: calibration file not found — write one with `ragcard "
            "judges evaluate --judge … --save FILE`"
        ) from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}: not a calibration record ({error})") from None
    if not isinstance(record, dict) or record.get("schema") != CALIBRATION_SCHEMA:
        raise ConfigError(f"{path}: not a ragcard judge calibration ({CALIBRATION_SCHEMA})")
    return record


def shipped_calibration(identity: JudgeIdentity) -> dict[str, Any] | None:
    """The calibration measured by ragcard's developers for a built-in judge, when the judge
    is configured exactly as it was measured (name, model, threshold, settings); else None.

    A backend may ship several (``calibrations/<name>.json``, ``calibrations/<name>-*.json``,
    e.g. ``ensemble-llm.json`` for the ensemble with the local LLM's vote): the first whose
    recorded judge matches wins."""
    folder = resources.files("ragcard.judges").joinpath("calibrations")
    names = sorted(
        entry.name
        for entry in folder.iterdir()
        if entry.name == f"{identity.name}.json"
        or (entry.name.startswith(f"{identity.name}-") and entry.name.endswith(".json"))
    )
    for name in names:
        record: dict[str, Any] = json.loads(folder.joinpath(name).read_text(encoding="utf-8"))
        measured = record.get("judge", {})
        same = (
            measured.get("name") == identity.name
            and measured.get("threshold") == identity.threshold
            and measured.get("settings") == identity.settings
            and measured.get("model") == identity.model
        )
        if same:
            return record
    return None


def save_calibration(evaluation: MetaEvaluation, path: Path) -> dict[str, Any]:
    """Write the calibration record to ``path`` (UTF-8 JSON) and return it."""
    record = to_calibration(evaluation)
    write_atomic(path, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    return record


def calibration_line(calibration: dict[str, Any], per_dataset: bool = False) -> str:
    """One line for a scorecard header: the judge, its κ and the human labels behind it.

    Uses the pooled figure when there is one (unless ``per_dataset``), else each dataset's;
    κ that could not be computed is shown as "κ n/a", never as 0.
    """
    judge = calibration.get("judge", {}).get("name", "?")
    datasets = calibration.get("datasets", [])
    overall = calibration.get("overall")
    if overall and not per_dataset:
        agreement = _agreement(overall, ", ".join(_short(d) for d in datasets))
    elif datasets:
        agreement = "; ".join(_agreement(d, _short(d)) for d in datasets)
    else:
        agreement = "not calibrated against human labels"
    return f"judge: {judge} · {agreement}"


def _short(report: dict[str, Any]) -> str:
    name = str(report.get("name", "?"))
    return _SHORT_NAMES.get(name, name)


def _agreement(report: dict[str, Any], label: str) -> str:
    kappa = report.get("metrics", {}).get("kappa", {}).get("value")
    shown = with_kappa_reading(kappa)  # "0.20 (slight)": Landis & Koch's words beside it
    return f"κ {shown} vs {report.get('n', 0):,} human labels ({label})"
