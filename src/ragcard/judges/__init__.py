"""Judges: does a passage support a claim? One protocol, interchangeable backends.

Backends are built by name from a ``[judge]`` table with :func:`build_judge` (built-ins:
``lexical``, ``fake``, ``llm``, ``local``; more through the ``ragcard.judges`` entry-point
group). Backend modules are imported only when built, so importing this package never imports
a model or API client. How well a judge agrees with human labels is measured by
:mod:`ragcard.judges.metaeval`.
"""

from __future__ import annotations

from ragcard.judges.base import (
    Evidence,
    Judge,
    JudgeContext,
    JudgeError,
    JudgeIdentity,
    Label,
    Verdict,
)
from ragcard.judges.registry import (
    BUILTIN_JUDGES,
    ENTRY_POINT_GROUP,
    build_judge,
    check_options,
    judge_names,
)

__all__ = [
    "BUILTIN_JUDGES",
    "ENTRY_POINT_GROUP",
    "Evidence",
    "Judge",
    "JudgeContext",
    "JudgeError",
    "JudgeIdentity",
    "Label",
    "Verdict",
    "build_judge",
    "check_options",
    "judge_names",
]
