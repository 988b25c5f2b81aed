"""Red-teaming knowledge agents with the corpus's own ground truth (``ragcard redteam``).

Attacks are small declared objects (:class:`Attack`: id, category, severity, what counts as
success, which detector) in a :class:`Registry` — the built-in catalogue, plus third-party
attacks, detectors and jailbreak wrappers from the ``ragcard.redteam`` entry-point group,
validated when registered. :func:`run_redteam` sends every attack, in every wrapper
(:class:`Mutator`), through the project's adapter and the ordinary runner, judges each attempt
(:class:`Detector`: canaries, the access matcher, flags, the cutoff, superseded versions,
declared secrets — a phrase reading only where nothing exact exists, its false-positive rate
measured on benign controls), and records findings in the run history
(:class:`FindingStore`), where they stay open until triaged or no longer reproduced. The
measures ``redteam_attempts``, ``redteam_findings``, ``redteam_critical_open`` and
``redteam_success_rate`` reach every scorecard of the project (:func:`project_measures`).
"""

from ragcard.metrics.redteam import REDTEAM_SPECS
from ragcard.redteam.attacks import (
    CATEGORIES,
    SEVERITIES,
    Attack,
    AttackContext,
    Canary,
    Expectation,
    NotApplicable,
    Probe,
)
from ragcard.redteam.detection import Detection, DetectionContext, Detector, Exchange
from ragcard.redteam.measures import project_measures
from ragcard.redteam.mutators import Mutator
from ragcard.redteam.registry import ENTRY_POINT_GROUP, Registry, default_registry
from ragcard.redteam.running import RedteamResult, run_redteam
from ragcard.redteam.store import Finding, FindingStore

__all__ = [
    "CATEGORIES",
    "ENTRY_POINT_GROUP",
    "REDTEAM_SPECS",
    "SEVERITIES",
    "Attack",
    "AttackContext",
    "Canary",
    "Detection",
    "DetectionContext",
    "Detector",
    "Exchange",
    "Expectation",
    "Finding",
    "FindingStore",
    "Mutator",
    "NotApplicable",
    "Probe",
    "RedteamResult",
    "Registry",
    "default_registry",
    "project_measures",
    "run_redteam",
]
