"""A recorded attempt — a line of ``responses.jsonl`` or of ragcard's own ``results.jsonl`` —
as the record the scorer folds."""

from __future__ import annotations

from ragcard.inputs.responses import RecordedResponse, ResultLine
from ragcard.metrics.base import AttemptFailure
from ragcard.outputs.results import AttemptRecord

__all__ = ["attempt_record"]


def attempt_record(recorded: RecordedResponse | ResultLine) -> AttemptRecord:
    """The attempt a recorded line describes: a response with its timings, or (a line of
    ``results.jsonl``) the failure it recorded, kind and message unchanged."""
    if isinstance(recorded, RecordedResponse):
        return AttemptRecord(recorded.item, recorded.attempt, recorded, None,
                             recorded.latency_ms, recorded.first_token_ms)  # fmt: skip
    if recorded.error is not None:
        failure = AttemptFailure(recorded.error.kind, recorded.error.message)
        return AttemptRecord(recorded.item, recorded.attempt, None, failure, None, None,
                             recorded.started_at, recorded.tries, recorded.error.raw)  # fmt: skip
    response = recorded.response
    latency = recorded.latency_ms if recorded.latency_ms is not None else (
        response.latency_ms if response is not None else None)  # fmt: skip
    first = recorded.first_token_ms if recorded.first_token_ms is not None else (
        response.first_token_ms if response is not None else None)  # fmt: skip
    return AttemptRecord(recorded.item, recorded.attempt, response, None, latency, first,
                         recorded.started_at, recorded.tries)  # fmt: skip
