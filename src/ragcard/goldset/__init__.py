"""Golden-set tooling: build, check and govern the question set a release is gated on.

- :func:`check_questions` — composition against the target mix, small categories,
  duplicates and near-duplicates, questions written from the documents' own wording;
- :func:`plan_split` — a deterministic held-out assignment that never moves when items are
  added; :func:`heldout_guard` keeps held-out items out of tuning;
- :func:`measure_agreement` — Cohen's κ and gold-passage agreement between labellers, open
  disagreements and the content owner's resolutions;
- :func:`import_logs` — real questions from logs: normalised, deduplicated, stripped of
  personal data (:func:`redact_pii`) and sampled to the target mix for labelling.
"""

from __future__ import annotations

from ragcard.goldset.agreement import (
    AgreementReport,
    ItemLabels,
    PairAgreement,
    Resolution,
    cohen_kappa,
    measure_agreement,
)
from ragcard.goldset.check import (
    CategoryRow,
    CheckOptions,
    CheckReport,
    check_file,
    check_questions,
)
from ragcard.goldset.findings import Finding
from ragcard.goldset.guard import heldout_guard
from ragcard.goldset.importing import ImportedQuestion, ImportOptions, ImportResult, import_logs
from ragcard.goldset.pii import Redaction, luhn_valid, redact_pii
from ragcard.goldset.quality import (
    SimilarPair,
    WordingReuse,
    find_duplicates,
    find_near_duplicates,
    find_wording_reuse,
)
from ragcard.goldset.render import render_agreement, render_check, render_import, render_split
from ragcard.goldset.split import SplitPlan, SplitRow, heldout_draw, plan_split
from ragcard.goldset.targets import Targets, infer_kit, resolve_targets

__all__ = [
    "AgreementReport",
    "CategoryRow",
    "CheckOptions",
    "CheckReport",
    "Finding",
    "ImportOptions",
    "ImportResult",
    "ImportedQuestion",
    "ItemLabels",
    "PairAgreement",
    "Redaction",
    "Resolution",
    "SimilarPair",
    "SplitPlan",
    "SplitRow",
    "Targets",
    "WordingReuse",
    "check_file",
    "check_questions",
    "cohen_kappa",
    "find_duplicates",
    "find_near_duplicates",
    "find_wording_reuse",
    "heldout_draw",
    "heldout_guard",
    "import_logs",
    "infer_kit",
    "luhn_valid",
    "measure_agreement",
    "plan_split",
    "redact_pii",
    "render_agreement",
    "render_check",
    "render_import",
    "render_split",
    "resolve_targets",
]
