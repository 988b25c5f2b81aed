"""No secret reaches the run history: every string parameter of every statement the history's
engine executes (runs, label log, review records, red-team findings — whatever module wrote
it) is scrubbed of the remembered secrets (:mod:`ragcard.agent._secrets`) on its way to the
database, as every file ragcard writes is. An agent that echoes its credential in a
response's ``meta`` is then stored as ``***`` in the history too, as on the scorecard."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from ragcard.agent import _secrets

__all__ = ["scrubbing"]


def scrubbing(engine: Engine) -> Engine:
    """``engine``, its statements' parameters scrubbed before they are sent."""
    sa.event.listen(engine, "before_cursor_execute", _scrub_statement, retval=True)
    return engine


def _scrub_statement(
    conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
) -> tuple[str, Any]:
    if not _secrets.active():
        return statement, parameters
    return _secrets.scrub(statement), _scrub(parameters)


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return _secrets.scrub(value)
    if isinstance(value, dict):
        return {key: _scrub(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrub(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_scrub(item) for item in value)
    return value
