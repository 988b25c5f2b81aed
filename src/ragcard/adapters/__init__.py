"""Adapters: how ragcard talks to the agent under test.

One protocol (:class:`Adapter`: ``respond(AgentCall) -> AgentReply``) and four built-in
types, chosen by ``type`` in the ``[agent]`` table of ``ragcard.toml`` and built with
:func:`build_adapter`:

* ``callable`` — a Python function, sync or async (:class:`CallableAdapter`)
* ``http`` — a JSON endpoint, plain, SSE or chunked (:class:`HttpAdapter`)
* ``command`` — a process per call, JSON over stdin/stdout (:class:`CommandAdapter`)
* ``replay`` — recorded ``responses.jsonl`` (:class:`ReplayAdapter`)

Third-party types register in the ``ragcard.adapters`` entry-point group. Fault-injecting
fakes for tests live in :mod:`ragcard.adapters.testing` (imported on demand).
"""

from ragcard.adapters._common import decode_response, make_reply, parse_response
from ragcard.adapters.base import Adapter, AgentCall, AgentReply, RetrievingAdapter
from ragcard.adapters.callable import CallableAdapter
from ragcard.adapters.command import CommandAdapter
from ragcard.adapters.factory import (
    BUILTIN_ADAPTERS,
    ENTRY_POINT_GROUP,
    adapter_types,
    build_adapter,
)
from ragcard.adapters.http import HttpAdapter, RateLimitedError
from ragcard.adapters.replay import NotRecordedError, ReplayAdapter

__all__ = [
    "BUILTIN_ADAPTERS",
    "ENTRY_POINT_GROUP",
    "Adapter",
    "AgentCall",
    "AgentReply",
    "CallableAdapter",
    "CommandAdapter",
    "HttpAdapter",
    "NotRecordedError",
    "RateLimitedError",
    "ReplayAdapter",
    "RetrievingAdapter",
    "adapter_types",
    "build_adapter",
    "decode_response",
    "make_reply",
    "parse_response",
]
