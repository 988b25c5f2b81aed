"""The adapter seam: how ragcard talks to an agent.

An adapter has one method, :meth:`Adapter.respond`, taking one frozen :class:`AgentCall` and
returning an :class:`AgentReply`. It raises an :class:`~ragcard.errors.AgentError` subclass on
failure: transient ones (timeouts, connection errors, HTTP 5xx/429) are retried by the runner,
others (malformed output) are recorded on the item-attempt with the raw text.

Adapters that expose retrieval separately also implement :meth:`RetrievingAdapter.retrieve`
(the runner's retrieval-only mode, docs/metrics.md#decision).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ragcard.inputs.responses import AgentResponse

__all__ = ["Adapter", "AgentCall", "AgentReply", "RetrievingAdapter"]


@dataclass(frozen=True, slots=True)
class AgentCall:
    """One call to the agent.

    ``request`` is exactly what the agent may see (docs/agents.md). ``item_id`` and ``attempt`` are
    for ragcard's own bookkeeping (the replay adapter looks answers up by them); adapters that
    talk to a real agent never send them.
    """

    request: dict[str, Any]
    item_id: str
    attempt: int
    timeout_s: float


@dataclass(frozen=True, slots=True)
class AgentReply:
    """A parsed response plus what ragcard measured about the call."""

    response: AgentResponse
    latency_ms: float
    first_token_ms: float | None = None
    raw: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Adapter(Protocol):
    """Calls an agent. ``name`` identifies it in the run configuration."""

    name: str

    async def respond(self, call: AgentCall) -> AgentReply: ...

    async def aclose(self) -> None: ...

    def describe(self) -> dict[str, Any]:
        """Identity and settings recorded with the run (never secrets)."""
        ...


@runtime_checkable
class RetrievingAdapter(Adapter, Protocol):
    """An adapter whose agent can run retrieval alone."""

    async def retrieve(self, call: AgentCall) -> AgentReply: ...
