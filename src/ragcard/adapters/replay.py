"""Replay recorded responses (``responses.jsonl``) instead of calling an agent.

TOML (``[agent]`` table)::

    [agent]
    type = "replay"
    path = "runs/2025-06-01/responses.jsonl"   # relative to ragcard.toml's folder

Each call is answered with the record of the same item and attempt. There is no silent reuse:
asking for an attempt that was not recorded (say attempt 3 of an item recorded twice) raises
:class:`NotRecordedError` — kind ``not_recorded``, not transient, so the runner records it on
that item-attempt without retrying. Latency is the record's ``latency_ms`` when present.

The recording may also be ragcard's own ``results.jsonl``: each attempt is replayed as it was,
a failed one as :class:`RecordedFailure` with the kind and message it had. ``ragcard run``
checks the recording before the first call as ``ragcard score`` does: a response for an item
the question set does not hold, or (unless ``--retrieval-only``) a response with no answer
that does not abstain, is a problem of its line (:func:`ragcard.pipeline.project.check_project`).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Container, Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragcard.adapters._common import load_config
from ragcard.adapters.base import AgentCall, AgentReply
from ragcard.errors import NotRecordedError, RecordedFailure
from ragcard.inputs.responses import (
    AgentResponse,
    Recorded,
    RecordedResponse,
    RecordedResponses,
    ResultLine,
)

__all__ = ["NotRecordedError", "RecordedFailure", "ReplayAdapter", "ReplayConfig"]


class ReplayConfig(BaseModel):
    """The ``[agent]`` keys of ``type = "replay"``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(min_length=1)


class ReplayAdapter:
    """Answers from recorded responses, looked up by ``(item_id, attempt)``."""

    name = "replay"

    def __init__(
        self,
        records: Iterable[Recorded],
        *,
        source: str | None = None,
        sha256: str | None = None,
    ) -> None:
        self._records: dict[tuple[str, int], Recorded] = {}
        self._attempts: dict[str, list[int]] = {}
        for record in records:
            self._records[(record.item, record.attempt)] = record
            self._attempts.setdefault(record.item, []).append(record.attempt)
        self._source = source
        self._sha256 = sha256

    @classmethod
    def from_path(
        cls,
        path: str | Path,
        *,
        known_items: Container[str] | None = None,
        require_answers: bool = False,
    ) -> ReplayAdapter:
        """Load ``responses.jsonl`` or a ``results.jsonl`` (an
        :class:`~ragcard.errors.InputError` lists bad lines, and with ``known_items`` the
        responses for other items; with ``require_answers``, responses with no answer that do
        not abstain)."""
        stream = RecordedResponses(Path(path), known_items, require_answers)
        records = list(stream)
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        return cls(records, source=str(path), sha256=digest)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ReplayAdapter:
        """Build from the ``[agent]`` table (without ``type``)."""
        return cls.from_path(load_config(ReplayConfig, config, "replay").path)

    @property
    def supports_retrieval(self) -> bool:
        """Recorded responses carry ``retrieved``, so retrieval-only runs work."""
        return True

    async def respond(self, call: AgentCall) -> AgentReply:
        """The recorded response of ``call.item_id`` at ``call.attempt``."""
        start = time.monotonic()
        record = self._lookup(call)
        if isinstance(record, RecordedResponse):
            data = record.model_dump(exclude={"item", "attempt"}, exclude_unset=True)
            return _reply(AgentResponse.model_validate(data), start)
        response = _recorded_response(record)
        reply = _reply(response, start)
        if record.latency_ms is not None and response.latency_ms is None:
            return AgentReply(response, record.latency_ms, record.first_token_ms)
        return reply

    async def retrieve(self, call: AgentCall) -> AgentReply:
        """Only the recorded ``retrieved`` list of the item-attempt."""
        start = time.monotonic()
        record = self._lookup(call)
        found = record if isinstance(record, RecordedResponse) else _recorded_response(record)
        return _reply(AgentResponse(retrieved=list(found.retrieved)), start)

    async def aclose(self) -> None:
        """Nothing to release."""

    def describe(self) -> dict[str, Any]:
        """The recording replayed: path, hash and size."""
        return {
            "type": self.name,
            "path": self._source,
            "sha256": self._sha256,
            "responses": len(self._records),
        }

    def _lookup(self, call: AgentCall) -> Recorded:
        record = self._records.get((call.item_id, call.attempt))
        if record is None:
            recorded = sorted(self._attempts.get(call.item_id, []))
            what = (
                f"recorded attempts: {', '.join(map(str, recorded))}"
                if recorded
                else "the item is not in the recording"
            )
            raise NotRecordedError(
                f"no recorded response for item {call.item_id} attempt {call.attempt} ({what}); "
                "record more attempts or run with fewer"
            )
        return record


def _recorded_response(record: ResultLine) -> AgentResponse:
    """The response of a results.jsonl line, or its recorded failure raised."""
    if record.response is None:
        error = record.error
        kind, message = (error.kind, error.message) if error else ("agent_error", "no response")
        raise RecordedFailure(kind, f"recorded failure: {message}", error.raw if error else None)
    return record.response


def _reply(response: AgentResponse, start: float) -> AgentReply:
    # The recorded timings are the agent's; the lookup's own microseconds are not worth
    # keeping next to them (other adapters note both when they differ).
    measured = (time.monotonic() - start) * 1000.0
    latency = response.latency_ms if response.latency_ms is not None else measured
    return AgentReply(response, latency, response.first_token_ms)
