"""A grader's label of one answer in a grading queue (``ragcard review queue``): how correct
it is against the expected answer, and which of its sentences the passages support."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CORRECTNESS", "SUPPORT", "GradingLabel"]

CORRECTNESS = ("correct", "partial", "wrong")
SUPPORT = ("supported", "not_supported", "contradicted")


class GradingLabel(BaseModel):
    """``correctness`` of the whole answer; ``support`` of each sentence, keyed by its
    0-based index in the answer (as a string, the form and JSON key)."""

    model_config = ConfigDict(extra="forbid")

    correctness: Literal["correct", "partial", "wrong"] | None = None
    support: dict[str, Literal["supported", "not_supported", "contradicted"]] = Field(
        default_factory=dict
    )
    comment: str = Field(default="", max_length=20_000)
