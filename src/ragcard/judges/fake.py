"""A deterministic fake judge, shipped so that users' tests and ours run whole evals offline.

Verdicts come from a mapping ``{claim text: label}`` given in the options, and otherwise from
a rule: a claim containing the ``marker`` word (default ``UNSUPPORTED``) is ``not_supported``,
one containing ``contradicted_marker`` (default ``CONTRADICTED``) is ``contradicted``, and any
other claim gets ``default`` (``supported``). Markers match whole words, case-sensitively, so
ordinary prose never trips them by accident.

In a ``ragcard.toml``::

    [judge]
    backend = "fake"
    marker = "FALSE"
    labels = { "The office opens at 9." = "contradicted" }
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast, get_args

from ragcard.errors import ConfigError
from ragcard.judges.base import JudgeContext, JudgeIdentity, Label, Verdict
from ragcard.judges.registry import check_options

__all__ = ["FakeJudge"]

_LABELS: tuple[str, ...] = get_args(Label)
_SCORES: dict[str, float] = {"supported": 1.0, "not_supported": 0.0, "contradicted": 0.0}


class FakeJudge:
    """Labels claims from a fixed mapping or a marker word; never looks at the passages' text.

    A supported verdict points at the first passage (whole text) when there is one, so code
    that reads ``passage_id``/``span`` is exercised too.
    """

    def __init__(
        self,
        labels: Mapping[str, str] | None = None,
        marker: str = "UNSUPPORTED",
        contradicted_marker: str = "CONTRADICTED",
        default: str = "supported",
    ) -> None:
        problems = [
            f"label {value!r} for claim {claim!r}"
            for claim, value in (labels or {}).items()
            if value not in _LABELS
        ]
        if default not in _LABELS:
            problems.append(f"default {default!r}")
        if problems:
            raise ConfigError(
                f"judge 'fake': {'; '.join(problems)} — allowed labels: {', '.join(_LABELS)}"
            )
        self.labels: dict[str, Label] = {k: cast(Label, v) for k, v in (labels or {}).items()}
        self.default: Label = cast(Label, default)
        rules: list[tuple[str, Label]] = [
            (contradicted_marker, "contradicted"),
            (marker, "not_supported"),
        ]
        self._markers = [
            (re.compile(rf"\b{re.escape(word)}\b"), label) for word, label in rules if word
        ]
        self.identity = JudgeIdentity(
            name="fake",
            settings={
                "labels": len(self.labels),
                "marker": marker,
                "contradicted_marker": contradicted_marker,
                "default": default,
            },
        )

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> FakeJudge:
        """Build from a ``[judge]`` table's options (``backend`` already removed)."""
        checked = check_options(
            "fake",
            options,
            {"labels": dict, "marker": str, "contradicted_marker": str, "default": str},
        )
        return cls(**checked)

    def label_for(self, claim: str) -> Label:
        """The label this judge gives ``claim``, whatever the passages."""
        if claim in self.labels:
            return self.labels[claim]
        for pattern, label in self._markers:
            if pattern.search(claim):
                return label
        return self.default

    async def judge(self, ctx: JudgeContext) -> list[Verdict]:
        """One verdict per claim, in order."""
        verdicts = []
        for claim in ctx.claims:
            label = self.label_for(claim)
            if label == "supported" and ctx.passages:
                first = ctx.passages[0]
                verdicts.append(Verdict(label, 1.0, first.id, (0, len(first.text)), "fake"))
            else:
                verdicts.append(Verdict(label, _SCORES[label], reason="fake"))
        return verdicts
