"""Replay recorded responses (``responses.jsonl``) instead of calling an agent.

TOML (``[agent]`` table)::

    [agent]
    type = "replay"
    path = "runs/2025-06-01/responses.jsonl"   # relative to ragcard.toml's folder

Each call is answered with the record of the same item and attempt. There is no silent reuse:
asking for an attempt that was not recorded (say attempt 3 of an item recorded twice) raises
:class:`NotRecordedError` — kind ``not_recorded``, not transient, so the runner records it on
that item-attempt without retrying. Latency is the record's ``latency_ms`` when present.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragcard.adapters._common import load_config
from ragcard.adapters.base import AgentCall, AgentReply
from ragcard.errors import AgentError
from ragcard.responses import AgentResponse, RecordedResponse, load_responses

__all__ = ["NotRecordedError", "ReplayAdapter", "ReplayConfig"]


class NotRecordedError(AgentError):
    """No recorded response for this item-attempt (never retried)."""

    kind = "not_recorded"


class ReplayConfig(BaseModel):
    """The ``[agent]`` keys of ``type = "replay"``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(min_length=1)


class ReplayAdapter:
    """Answers from recorded responses, looked up by ``(item_id, attempt)``."""

    name = "replay"

    def __init__(
        self,
        records: Iterable[RecordedResponse],
        *,
        source: str | None = None,
        sha256: str | None = None,
    ) -> None:
        self._records: dict[tuple[str, int], RecordedResponse] = {}
        self._attempts: dict[str, list[int]] = {}
        for record in records:
            self._records[(record.item, record.attempt)] = record
            self._attempts.setdefault(record.item, []).append(record.attempt)
        self._source = source
        self._sha256 = sha256

    @classmethod
    def from_path(cls, path: str | Path) -> ReplayAdapter:
        """Load ``responses.jsonl`` (an :class:`~ragcard.errors.InputError` lists bad lines)."""
        records = load_responses(path)
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
        data = record.model_dump(exclude={"item", "attempt"}, exclude_unset=True)
        response = AgentResponse.model_validate(data)
        return _reply(response, start)

    async def retrieve(self, call: AgentCall) -> AgentReply:
        """Only the recorded ``retrieved`` list of the item-attempt."""
        start = time.monotonic()
        record = self._lookup(call)
        return _reply(AgentResponse(retrieved=list(record.retrieved)), start)

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

    def _lookup(self, call: AgentCall) -> RecordedResponse:
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


def _reply(response: AgentResponse, start: float) -> AgentReply:
    # The recorded timings are the agent's; the lookup's own microseconds are not worth
    # keeping next to them (other adapters note both when they differ).
    measured = (time.monotonic() - start) * 1000.0
    latency = response.latency_ms if response.latency_ms is not None else measured
    return AgentReply(response, latency, response.first_token_ms)
